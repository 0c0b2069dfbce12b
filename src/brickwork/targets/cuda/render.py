"""IR -> CUDA C++ expressions and statements: the CPU target's ``CppRenderer`` (the runtime header
gives every ``bw::`` function a device version) without host-only pragmas, plus the nodes of the GPU
mapping (``ir/nodes.py``, section "GPU mapping"):

| node | CUDA |
|---|---|
| ``IRGpuIndex`` | ``blockIdx.x`` / ``threadIdx.x`` (int32) |
| ``IRGpuDim`` | ``gridDim.x`` / ``blockDim.x`` (int32) |
| ``IRLaunchExtent(d)`` | ``n<d>``: the host launch's ``dim[d]``, a parameter of ``body`` |
| ``IRGpuBarrier`` | ``__syncthreads()`` |
| ``IRSharedBuffer`` | a 1-D array over ``sh_<name>``, a static ``__shared__`` buffer of the entry |
| ``IRGpuArena`` | ``bw::gpu_arena``: dynamic shared memory, or the block's part of the global buffer |
"""

from __future__ import annotations

from ...errors import TargetUnsupportedError
from ..cpu.render import CppRenderer, c_string

_AXES = {("thread", "index"): "threadIdx", ("block", "index"): "blockIdx", ("block", "dim"): "blockDim",
         ("grid", "dim"): "gridDim"}


def shared_name(name: str) -> str:
    return f"sh_{name}"


class CudaRenderer(CppRenderer):
    """Renders one device function's body."""

    # a GPU adds int32 in one instruction and int64 in two: indices are widened when finished
    widen_indices = False

    def s_IRFor(self, s, ind, out):
        # "#pragma omp simd" means nothing to NVRTC: a GPU thread runs the loop as written.
        lines: list[str] = []
        super().s_IRFor(s, ind, lines)
        out.extend(line for line in lines if not line.lstrip().startswith("#pragma omp"))

    def assert_failure(self, message: str) -> str:
        # no stderr on the device: the message is printed, then the kernel traps (the launch fails)
        return f"printf(\"%s\\n\", {c_string(message)}); __trap();"

    # -- the GPU mapping -----------------------------------------------------------------------------
    def e_IRGpuIndex(self, e):
        return f"((int32_t){_AXES[(e.axis, 'index')]}.{'xyz'[e.dim]})"

    def e_IRGpuDim(self, e):
        return f"((int32_t){_AXES[(e.axis, 'dim')]}.{'xyz'[e.dim]})"

    def e_IRLaunchExtent(self, e):
        return f"n{e.dim}"

    def s_IRGpuBarrier(self, s, ind, out):
        out.append(" " * ind + "__syncthreads();")

    def e_IRSharedBuffer(self, e):
        return f"bw::shared_array({shared_name(e.name)}, {e.count})"

    def e_IRGpuArena(self, e):
        return f"bw::gpu_arena(bw_blk, {self.expr(e.size)}, {e.shared_limit})"

    def e_IRTeamBegin(self, e):
        # the GPU mapping replaces every team's arena by the block's (IRGpuArena)
        raise TargetUnsupportedError("a team arena that the GPU mapping did not assign to a thread block")

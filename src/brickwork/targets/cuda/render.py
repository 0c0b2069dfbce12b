"""IR -> CUDA C++ expressions and statements: the CPU target's ``CppRenderer`` (the runtime header
gives every ``bw::`` function a device version) without host-only pragmas, plus the nodes of the GPU
mapping (``ir/gpu_nodes.py``):

| node | CUDA |
|---|---|
| ``IRGpuIndex`` | ``blockIdx.x`` / ``threadIdx.x`` (int32) |
| ``IRGpuDim`` | ``gridDim.x`` / ``blockDim.x`` (int32) |
| ``IRLaunchExtent(d)`` | ``n<d>``: the host launch's ``dim[d]``, a parameter of ``body`` |
| ``IRGpuBarrier`` | ``__syncthreads()`` (``warp``: ``__syncwarp()``) |
| ``IRGpuShuffleDown`` | ``bw::shuffle_down``: ``__shfl_down_sync`` of every lane, 4 bytes at a time |
| ``IRSharedBuffer`` | a 1-D array over ``sh_<name>``, a static ``__shared__`` buffer of the entry |
| ``IRGpuArena`` | ``bw::gpu_arena(bw_blk, bytes)``: the entry's arena (shared or global memory: ``unit.py``) |
"""

from __future__ import annotations

from ... import ir
from ...errors import TargetUnsupportedError
from ...types.arrays import ArrayType
from ...types.scalars import float32, float64, int32, int64, uint32, uint64
from ..cpu.cnames import c_type
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

    def element(self, arr, indices, checked_at: str | None = None) -> str:
        # A unit-stride access of 2 to 4 indices keeps each index's constant term apart
        # (``bw::at_split``): a stencil's neighbours then share one 32-bit offset of the variable parts
        # and each adds a constant, as a hand-written ``a[c - sz]`` does (a 3-D Laplacian point: 91
        # instructions of sm_90 code before, 71 after).
        unit = self.unit_of(arr)
        if checked_at is not None or unit == "false" or type(arr.type) is not ArrayType or not 2 <= len(indices) <= 4:
            return super().element(arr, indices, checked_at)
        parts = [constant_term(i) for i in indices]
        variable = ", ".join("int64_t(0)" if v is None else f"(int64_t)({self.expr(v)})" for v, _ in parts)
        constants = ", ".join(str(c) for _, c in parts)
        return f"bw::at_split<{unit}>({self.expr(arr)}, {variable}, {constants})"

    def call_argument(self, a) -> str:
        # A pack value passed to a @func is loaded where the call's arguments are evaluated (bw::issued): NVVM
        # sinks a load to its first use, past a division's slow-path branch, so a cell's loads took two memory
        # round trips (the hydro primitives: the density, then 1 / density, then the other four values).
        if isinstance(a, ir.IRRawElem) and not a.checked and a.type in (float32, float64):
            return f"bw::issued({self.expr(a)})"
        return self.expr(a)

    def e_IRCast(self, e):
        # ``(n * m) >> 32`` of two zero-extended 32-bit values (the loop abstraction's division by a
        # reciprocal, ``divmod_by``): ``__umulhi``, one IMAD.HI. Written as a 64-bit product, NVRTC
        # multiplies the reciprocal as a 64-bit value (three instructions per cell), as it cannot tell
        # that its high word is zero when the reciprocal was computed in a branch.
        factors = umulhi_factors(e)
        if factors is not None:
            return f"bw::cast<{c_type(e.type)}>(__umulhi({self.expr(factors[0])}, {self.expr(factors[1])}))"
        return super().e_IRCast(e)

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
        out.append(" " * ind + ("__syncwarp();" if s.warp else "__syncthreads();"))

    def s_IRGpuShuffleDown(self, s, ind, out):
        out.append(" " * ind + f"{self.expr(s.target)} = bw::shuffle_down({self.expr(s.source)}, {s.delta});")

    def e_IRSharedBuffer(self, e):
        return f"bw::shared_array({shared_name(e.name)}, {e.count})"

    def e_IRGpuArena(self, e):
        # bw_blk's type says which memory the arena is in (unit.py): the host launches the entry whose arena fits
        return f"bw::gpu_arena(bw_blk, {self.expr(e.size)})"

    def e_IRTeamBegin(self, e):
        # the GPU mapping replaces every team's arena by the block's (IRGpuArena)
        raise TargetUnsupportedError("a team arena that the GPU mapping did not assign to a thread block")


def umulhi_factors(e) -> tuple | None:
    """``(a, b)``, both uint32, of ``cast(rshift(mul(cast<uint64>(a), cast<uint64>(b)), 32))`` to a 32-bit
    integer; None for any other expression."""
    if not isinstance(e, ir.IRCast) or e.type not in (int32, uint32):
        return None
    shift = e.arg
    if not (isinstance(shift, ir.IRCall) and shift.op == "rshift" and shift.type is uint64
            and isinstance(shift.args[1], ir.IRConst) and shift.args[1].value == 32):
        return None
    product = shift.args[0]
    if not (isinstance(product, ir.IRCall) and product.op == "mul" and product.type is uint64):
        return None
    factors = tuple(x.arg for x in product.args if isinstance(x, ir.IRCast) and x.type is uint64)
    if len(factors) != 2 or any(f.type is not uint32 for f in factors):
        return None
    return factors


def constant_term(index) -> tuple:
    """``(variable part, constant)`` of an integer index ``x + c``, ``x - c`` or ``c + x`` with a
    constant ``c`` that fits int32, ``(None, c)`` of a constant index; ``(index, 0)`` otherwise."""
    if _int_constant(index):
        return None, index.value
    if isinstance(index, ir.IRCall) and index.op in ("add", "sub") and index.type in (int32, int64):
        a, b = index.args
        if _int_constant(b) and a.type in (int32, int64):  # x + c, x - c
            c = b.value if index.op == "add" else -b.value
            if -2**31 < c < 2**31:
                return a, c
        if index.op == "add" and _int_constant(a) and b.type in (int32, int64):  # c + x
            return b, a.value
    return index, 0


def _int_constant(e) -> bool:
    return isinstance(e, ir.IRConst) and type(e.value) is int and -2**31 < e.value < 2**31

"""IR -> CUDA C++ expressions and statements: the CPU target's ``CppRenderer`` (the runtime header
gives every ``bw::`` function a device version), without host-only pragmas.

Adding a node the GPU mapping introduces is one method here (``e_<Node>`` or ``s_<Node>``)."""

from __future__ import annotations

from ..cpu.render import CppRenderer


class CudaRenderer(CppRenderer):
    """Renders one device function's body."""

    def s_IRFor(self, s, ind, out):
        # "#pragma omp simd" means nothing to NVRTC: a GPU thread runs the loop as written.
        lines: list[str] = []
        super().s_IRFor(s, ind, lines)
        out.extend(line for line in lines if not line.lstrip().startswith("#pragma omp"))

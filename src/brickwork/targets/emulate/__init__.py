"""The emulation target ("cuda-emulation"): GPU-mapped IR run on the CPU as C++.

It compiles what a device target compiles (the GPU pass list: slices and teams as thread blocks,
plain kernels one thread per launch point) and runs each block's threads as loops, the code
between barriers for all threads before the next phase, shared memory as a per-block buffer. So
the block/thread mapping, the scratch indexing and the barrier placement of every kernel are
checked on machines without a GPU. Compiling and loading are the CPU target's.
"""

from __future__ import annotations

from ... import config
from ..cpu import CpuTarget

NAME = "cuda-emulation"


class EmulationTarget(CpuTarget):
    """The CPU target's compiler and loader, the GPU mapping's passes, block-by-block C++."""

    name = NAME

    def identity(self) -> str:
        # the shared-memory limit shapes the mapped code (which arenas may live in shared memory)
        return f"{super().identity()} gpu_shared_limit={config.gpu_shared_limit}"

    def passes(self, mode: str = "release") -> tuple:
        from ...passes import gpu_pass_list
        from ..cpu.builtins import CPU_BUILTINS, CPU_WRAPPING

        return gpu_pass_list(NAME, CPU_BUILTINS, CPU_WRAPPING, mode, config.gpu_shared_limit)

    def render(self, kernel, callees, label) -> str:
        from .unit import render_translation_unit

        return render_translation_unit(kernel, callees, label)


EMULATION = EmulationTarget()

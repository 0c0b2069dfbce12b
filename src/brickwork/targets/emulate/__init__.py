"""The emulation target ("cuda-emulation"): GPU-mapped IR run on the CPU as C++.

It compiles what a device target compiles (the GPU pass list: slices and teams as thread blocks,
plain kernels one thread per launch point) and runs each block's threads as loops, the code
between barriers for all threads before the next phase, shared memory as a per-block buffer. So
the block/thread mapping, the scratch indexing and the barrier placement of every kernel are
checked on machines without a GPU. Compiling and loading are the CPU target's.
"""

from __future__ import annotations

import ctypes

from ... import config
from ...errors import LaunchError
from ...jit.store import symbol
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

    def render(self, kernel, callees, label, general_strides: bool = False) -> str:
        from .unit import render_translation_unit

        return render_translation_unit(kernel, callees, label, general_strides)

    def load(self, path: str, meta: dict):
        entry = super().load(path, meta)
        lib = entry._bw_library
        take = getattr(lib, symbol(meta, "bw_emu_scratch_overflow"))  # see unit.OVERFLOW_SYMBOL
        take.argtypes = [ctypes.POINTER(ctypes.c_longlong), ctypes.POINTER(ctypes.c_longlong)]
        take.restype = ctypes.c_int
        label = meta.get("label", "kernel")

        def checked(buf):
            if entry(buf):
                return 1  # declined: nothing ran (see cpu.unit._entry)
            need, capacity = ctypes.c_longlong(), ctypes.c_longlong()
            if take(ctypes.byref(need), ctypes.byref(capacity)):
                raise LaunchError(f"kernel '{label}': a team allocated {need.value} bytes of scratch, beyond its "
                                  f"arena of {capacity.value} bytes; on a GPU a team has only the scratch bytes "
                                  f"par_for_outer requests (the CPU grows the arena on demand)")

        checked._bw_library = lib
        return checked


EMULATION = EmulationTarget()

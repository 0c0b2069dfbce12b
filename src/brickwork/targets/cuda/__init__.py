"""The CUDA target: CUDA C++ compiled by NVRTC (from the pip wheel) to a cubin for one sm_XX.

The pass list is the GPU mapping's (``passes.gpu_pass_list``): plain kernels run one thread per launch
point, loop-abstraction slices and ``par_for_outer`` teams one thread block each (``unit.py``,
``render.py``). Loading and launching a cubin needs a GPU and its driver (``loader.py``); generating
and compiling does not.
"""

from __future__ import annotations

import functools
import hashlib
import os

from ... import config
from ...errors import ToolchainError
from ..base import Target
from .arch import DEFAULT_ARCH, NVRTC_OPTIONS

ENTRY_SYMBOL = "bw_entry"  # the __global__ entry of every instance (see unit.py); its arena, if any, is shared
GLOBAL_ENTRY_SYMBOL = "bw_entry_global"  # a kernel with an arena: the entry whose arena is in global memory
BOUNDS_SYMBOL = "bw_bounds_record"  # debug mode: the device global holding the first out-of-bounds access


class CudaTarget(Target):
    """CUDA for one architecture (``arch``: "sm_90"); the name is "cuda" and the arch is in ``identity``."""

    name = "cuda"

    def __init__(self, arch: str = DEFAULT_ARCH):
        self.arch = arch

    def __repr__(self):
        return f"CudaTarget({self.arch!r})"

    def identity(self) -> str:
        from ...jit import nvrtc

        major, minor = nvrtc.version()
        # the shared-memory limit shapes the mapped code (which arenas live in shared memory)
        return (f"nvrtc {major}.{minor} {self.arch} {' '.join(NVRTC_OPTIONS)} generator {_cuda_digest()} "
                f"gpu_shared_limit={config.gpu_shared_limit}")

    def passes(self, mode: str = "release") -> tuple:
        from ...passes import gpu_pass_list
        from ..cpu.builtins import CPU_BUILTINS, CPU_WRAPPING

        # The runtime header gives each builtin a device version under the CPU's spelling.
        return gpu_pass_list(self.name, CPU_BUILTINS, CPU_WRAPPING, mode, config.gpu_shared_limit)

    def render(self, kernel, callees, label, general_strides: bool = False) -> str:
        # the unit-stride body only unless general_strides: the host sends a launch without unit innermost
        # strides to the strided variant (runtime/cuda_launch.py)
        from .unit import render_translation_unit

        return render_translation_unit(kernel, callees, label, general_strides)

    def compile_many(self, jobs: list) -> list:
        from ...jit import compile as jit
        from .build import combined, make_cubin

        try:
            several = combined(self.arch)
        except ToolchainError:  # NVRTC or its headers missing: each job then fails with that error
            several = None
        return jit.compile_many(jobs, make_cubin(self.arch), several)

    def load(self, path: str, meta: dict):
        from .loader import CudaEntry

        return CudaEntry(path, meta)


@functools.cache
def cuda_target(arch: str) -> CudaTarget:
    """The one ``CudaTarget`` of ``arch`` in this process: a kernel keeps its instances per target object,
    so a launch finds the instance ``wp.load_module(device=...)`` built."""
    return CudaTarget(arch)


def device_target(device) -> CudaTarget:
    """The target of the CUDA ``device``: its own sm_XX, or ``BRICKWORK_CUDA_ARCH``."""
    return cuda_target(config.cuda_arch or device.sm_arch)


@functools.cache
def _cuda_digest() -> str:
    """The CUDA runtime headers by content and this package's modules by size and mtime (CUDA keys only;
    the shared header and the other code generator modules are in every key already)."""
    from ...jit.toolchain import include_dir

    h = hashlib.sha256()
    for name in ("brickwork_cuda.h", "brickwork_cuda_atomics.h"):
        with open(os.path.join(include_dir(), name), "rb") as f:
            h.update(f.read())
    folder = os.path.dirname(__file__)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            st = os.stat(os.path.join(folder, name))
            h.update(f"{name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:16]

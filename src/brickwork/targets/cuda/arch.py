"""Which sm_XX the CUDA target compiles for and NVRTC's options (launch geometry: ``geometry.py``)."""

from __future__ import annotations

DEFAULT_ARCH = "sm_90"  # H100/H200: compiled for when neither BRICKWORK_CUDA_ARCH nor a device says otherwise
#: NVRTC options besides the architecture and the include paths (part of the cache key): every function
#: of the runtime header is a device function without annotating it; no contraction into fused
#: multiply-adds, as the CPU build (-ffp-contract=off), so + - * / round the same on both targets.
NVRTC_OPTIONS = ("--std=c++17", "--device-as-default-execution-space", "--fmad=false")
#: Options that change how fast NVRTC works, not what it makes (not in the key): the runtime header is
#: precompiled once per process into a directory of the process's own (``build.pch_options``; NVRTC
#: 12.8 and newer).
PCH_OPTIONS = ("--pch",)
PCH_SINCE = (12, 8)


def arch_of_capability(major: int, minor: int) -> str:
    """The sm_XX of a compute capability: (9, 0) -> "sm_90"."""
    return f"sm_{major}{minor}"


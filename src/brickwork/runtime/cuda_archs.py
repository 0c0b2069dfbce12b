"""``wp.get_cuda_supported_archs()`` and ``wp.get_cuda_toolkit_version()``: the NVRTC that brickwork loads
(from the ``cuda`` extra's wheel), what it compiles for and its version; ``wp.clear_kernel_cache()`` and
``wp.clear_lto_cache()``."""

from __future__ import annotations


def get_cuda_supported_archs() -> list[int]:
    """The CUDA architectures (``[75, 80, 86, ...]``, sorted) that the NVRTC brickwork loads can compile for;
    ``[]`` without NVRTC. No GPU is needed."""
    from ..jit import nvrtc  # the compiler side: loaded on first call (import brickwork stays light)

    return nvrtc.supported_archs() if nvrtc.is_available() else []


def get_cuda_toolkit_version() -> tuple[int, int] | None:
    """The version ``(major, minor)`` of the CUDA toolkit brickwork compiles CUDA code with (its NVRTC);
    None without NVRTC. No GPU is needed."""
    from ..jit import nvrtc

    return nvrtc.version() if nvrtc.is_available() else None


def clear_kernel_cache() -> None:
    """Remove every compiled kernel and everything else brickwork keeps in its kernel cache directory
    (``brickwork cache dir``; as ``brickwork cache clear``). Kernels already loaded keep running; new
    instances compile again."""
    from ..jit import cache

    cache.clear()


def clear_lto_cache() -> None:
    """Warp's ``wp.clear_lto_cache()``: Warp keeps the link-time-optimized code of its MathDx tile routines in a
    cache of its own; brickwork links no LTO code (its tile routines are its C++), so there is nothing to remove.
    The kernel cache is left as it is (``wp.clear_kernel_cache()`` empties it)."""

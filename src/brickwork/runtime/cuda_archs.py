"""``wp.get_cuda_supported_archs()``: what the NVRTC that brickwork loads can compile for."""

from __future__ import annotations


def get_cuda_supported_archs() -> list[int]:
    """The CUDA architectures (``[75, 80, 86, ...]``, sorted) that the NVRTC brickwork loads can compile for;
    ``[]`` without NVRTC. No GPU is needed."""
    from ..jit import nvrtc  # the compiler side: loaded on first call (import brickwork stays light)

    return nvrtc.supported_archs() if nvrtc.is_available() else []

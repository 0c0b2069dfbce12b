"""What the array algorithms of ``brickwork.utils`` share: their argument checks (with Warp's messages) and the
launcher and algorithm choice of a device."""

from __future__ import annotations

import numpy as np

from ..types.arrays import array
from ..types.composite import is_composite_type
from ..types.scalars import float32, float64, is_scalar_type

REAL = (float32, float64)
INT32_MAX = 2**31 - 1


def launcher(device):
    """``launch(kernel, dim, *inputs)`` on ``device`` (not recorded by a tape, as none of these functions is)."""
    from .. import timing_state
    from ..runtime.launch import launch

    def run(kernel, dim, *inputs):
        timing_state.builtin += 1  # timed as a builtin kernel (wp.timing_begin)
        try:
            launch(kernel, dim, inputs=list(inputs), device=device, record_tape=False)
        finally:
            timing_state.builtin -= 1

    return run


def gpu_algorithm(device) -> bool:
    """Whether ``device`` runs the GPU algorithms: a CUDA device, or the CPU under the cuda-emulation target
    (so that tests on the CPU cover them); the CPU target takes the sequential or chunked ones."""
    from .. import config

    return not device.is_cpu or config.target != "cpu"


def check_array(func: str, name: str, a) -> None:
    if not isinstance(a, array):
        raise TypeError(f"{func}(): {name} must be an array, got {type(a).__name__}")


def scalar_type(dtype):
    """The scalar type of a scalar or vector/matrix dtype (None for structs)."""
    if is_scalar_type(dtype):
        return dtype
    return dtype._dtype if is_composite_type(dtype) else None


def same_device(what: str, a: array, b: array) -> None:
    if a.device != b.device:
        raise RuntimeError(f"{what} storage devices do not match ({a.device} vs {b.device})")


def checked_count(func: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{func}(): {name} must be an integer, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{func}(): {name} must be non-negative, got {value}")
    return int(value)

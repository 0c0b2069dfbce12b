"""``config.print_launches``: one line on stdout (or to the ``info`` of a logger set with ``wp.set_logger``) for
each launch, before it runs, as Warp's debugging aid for the order of a program's launches. Arrays are
summarized (dtype, shape, device), not printed."""

from __future__ import annotations

import numpy as np

from .. import device as _devices
from . import loggers

_LONGEST_VALUE = 60  # characters of a non-array argument's repr


def describe(value) -> str:
    """A short text for one launch argument: an array's dtype, shape and device (a numpy array's dtype
    and shape), or the value's repr."""
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if isinstance(value, np.ndarray):  # used in place by the launch
        return f"ndarray({dtype}, shape={shape})"
    if shape is not None and dtype is not None and not isinstance(value, (int, float, complex)):
        name = getattr(dtype, "__name__", None) or str(dtype)
        device = getattr(value, "device", None)
        return f"array({name}, shape={tuple(shape)}" + (f", device={device})" if device is not None else ")")
    text = repr(value)
    return text if len(text) <= _LONGEST_VALUE else text[:_LONGEST_VALUE - 3] + "..."


def print_launch(kernel, dim, inputs, outputs, device, backward: bool = False) -> None:
    """Print ``kernel: NAME (FILE:LINE) dim: ... inputs: [...] outputs: [...] device: ...`` for a launch."""
    code = getattr(getattr(kernel, "func", None), "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    kind = " backward" if backward else ""
    if device is None:
        device = _devices._current
    listed = ", ".join(describe(a) for a in inputs)
    written = ", ".join(describe(a) for a in outputs or ())
    line = (f"kernel{kind}: {getattr(kernel, 'key', kernel)}{where} dim: {dim} inputs: [{listed}] "
            f"outputs: [{written}] device: {device}")
    if loggers.is_custom():  # a logger of the program's (wp.set_logger) takes the line instead of stdout
        loggers.info(line)
    else:
        print(line, flush=True)

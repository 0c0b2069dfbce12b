"""Run-length encoding on the arrays' device (``runtime/device_runs``), as Warp's ``runlength_encode``."""

from __future__ import annotations

import numpy as np

from ..types.array_constructors import empty
from ..types.arrays import array, type_name
from ..types.scalars import int32
from .common import check_array, gpu_algorithm, launcher


def runlength_encode(values: array, run_values: array, run_lengths: array, run_count: array | None = None,
                     value_count: int | None = None):
    """Encode runs of equal int32 ``values`` (the first ``value_count``, all by default): each run's value
    goes to ``run_values`` and its length to ``run_lengths`` (int32), in order.

    Returns the number of runs, or, when ``run_count`` (an int32 array) is given, writes it to
    ``run_count[0]`` and returns ``run_count``. Both outputs must hold ``value_count`` elements.
    """
    func = "runlength_encode"
    for name, a in (("values", values), ("run_values", run_values), ("run_lengths", run_lengths)):
        check_array(func, name, a)
    if not values.device == run_values.device == run_lengths.device:
        raise RuntimeError("run_values, run_lengths and values storage devices do not match")
    if run_count is not None:
        check_array(func, "run_count", run_count)
        if run_count.device != values.device:
            raise RuntimeError("run_count storage device does not match other arrays")
    if value_count is None:
        value_count = values.size
    elif isinstance(value_count, bool) or not isinstance(value_count, (int, np.integer)):
        raise TypeError(f"value_count must be an integer, got {type(value_count).__name__}")
    if value_count < 0:
        raise RuntimeError(f"value_count must be non-negative, got {value_count}")
    if run_values.size < value_count or run_lengths.size < value_count:
        raise RuntimeError(f"Output array storage sizes must be at least equal to value_count ({value_count})")
    if values.dtype is not run_values.dtype:
        raise RuntimeError(f"values and run_values data types do not match "
                           f"({type_name(values.dtype)} vs {type_name(run_values.dtype)})")
    if run_lengths.dtype is not int32:
        raise RuntimeError("run_lengths array must be of type int32")
    if run_count is not None and (run_count.dtype is not int32 or run_count.size < 1):
        raise RuntimeError("run_count array must be of type int32" if run_count.dtype is not int32
                           else "run_count array must hold at least one element")
    if values.dtype is not int32:
        raise RuntimeError(f"Unsupported data type: {type_name(values.dtype)}")
    if value_count > values.size:
        raise RuntimeError(f"value_count ({value_count}) exceeds the number of values ({values.size})")
    from ..runtime import device_flat, device_runs

    device = values.device
    value_count = int(value_count)
    outputs = [device_flat.Output(run_values), device_flat.Output(run_lengths)]
    counted = device_flat.Output(run_count) if run_count is not None else None
    count_target = empty((1,), dtype=int32, device=device) if counted is None else counted.target
    segment = 256 if gpu_algorithm(device) else max(value_count + 1, 2)
    device_runs.encode(device_flat.elements(values), value_count, outputs[0].target, outputs[1].target,
                       count_target, device, launcher(device), segment)
    for output in outputs + ([counted] if counted else []):
        output.finish()
    if run_count is None:
        return int(count_target.numpy()[0])  # the run count, read back as Warp does
    return run_count

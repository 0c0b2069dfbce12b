"""Element conversion between arrays of two dtypes on their device (``runtime/device_runs``), as Warp's
``array_cast``."""

from __future__ import annotations

import numpy as np

from ..types.arrays import array, element_layout, type_name
from .common import check_array, checked_count, launcher, same_device, scalar_type


def array_cast(in_array: array, out_array: array, count: int | None = None) -> None:
    """Convert the elements of ``in_array`` to ``out_array``'s dtype (C conversions: floats truncate toward
    zero) and write them into ``out_array``.

    Without ``count`` every element is converted; arrays of one number of dimensions must have one shape,
    arrays of different numbers of dimensions are matched in row-major order. ``count`` (1-D arrays
    only) converts the first ``count`` elements. Vector and matrix dtypes convert component by
    component; when the two dtypes have different numbers of components, components are matched in
    row-major order.
    """
    check_array("array_cast", "in_array", in_array)
    check_array("array_cast", "out_array", out_array)
    same_device("Array", in_array, out_array)
    in_comp, in_trailing = element_layout(in_array.dtype)
    out_comp, out_trailing = element_layout(out_array.dtype)
    if scalar_type(in_array.dtype) is None or scalar_type(out_array.dtype) is None:
        if in_array.dtype is not out_array.dtype:
            raise RuntimeError(f"Cannot cast between {type_name(in_array.dtype)} and {type_name(out_array.dtype)}")
    if count is not None:
        if in_array.ndim > 1 or out_array.ndim > 1:
            raise RuntimeError("Partial cast is not supported for arrays with more than one dimension")
        count = checked_count("array_cast", "count", count)
    elif in_array.ndim == out_array.ndim and in_array.ndim > 1 and in_array.shape != out_array.shape:
        raise RuntimeError(f"Array shapes do not match ({in_array.shape} vs {out_array.shape})")
    n = in_array.size if count is None else count
    in_per, out_per = int(np.prod(in_trailing, dtype=np.int64)), int(np.prod(out_trailing, dtype=np.int64))
    scalars = n * in_per
    if n > in_array.size or scalars > out_array.size * out_per:
        detail = "" if in_per == out_per else (
            f": {n} {type_name(in_array.dtype)} elements are {scalars} components, the output's "
            f"{out_array.size} {type_name(out_array.dtype)} elements hold {out_array.size * out_per}")
        raise RuntimeError(f"Cast count ({n}) exceeds the input size ({in_array.size}) or output size "
                           f"({out_array.size}){detail}")
    if n == 0:
        return
    from ..runtime import device_flat, device_runs

    launch = launcher(in_array.device)
    if scalar_type(in_array.dtype) is None:  # structs (of one dtype): copied element by element
        target = device_flat.Output(out_array)
        device_runs.copy(device_flat.elements(in_array), target.target, n, launch)
    else:
        target = device_flat.Output(out_array, as_scalars=True)
        device_runs.convert(device_flat.scalars(in_array), target.target, scalars, launch)
    target.finish()

"""Sums, inner products and prefix sums of arrays on their device (``runtime/device_reduce``,
``device_scan``), as Warp's ``array_sum``, ``array_inner`` and ``array_scan``."""

from __future__ import annotations

import numpy as np

from ..types.array_constructors import empty
from ..types.arrays import array, element_layout, type_name
from ..types.composite import is_vector_type, vector
from ..types.scalars import float32, float64, int32, int64, is_scalar_type
from .common import REAL, check_array, checked_count, gpu_algorithm, launcher, same_device, scalar_type

_SCANNABLE = (int32, int64, float32, float64)


def _axis(func: str, axis, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{func}() axis must be an integer or None, got {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise IndexError(f"{func}() axis {axis} is out of bounds for an array with {ndim} dimensions")
    return int(axis) % ndim


#: The most scalars an array of a reduction or scan may hold: the kernels index them flat, in int32.
MAX_SCALARS = 2**31 - 1


def _check_scalars(func: str, name: str, a: array) -> None:
    """ValueError for an array of more scalars than ``MAX_SCALARS``, before anything is copied: a 2-D array of
    2**31 + 65536 float32 was copied whole (8.6 GB, 50 s) into a flat array that was then refused."""
    n = int(np.prod(a.shape, dtype=np.int64)) * int(np.prod(element_layout(a.dtype)[1], dtype=np.int64))
    if n > MAX_SCALARS:
        raise ValueError(f"{func}(): '{name}' of shape {tuple(a.shape)} holds {n} scalars, more than the "
                         f"2**31 - 1 its kernels index")


def _reduce(func: str, arrays: list[array], combine, out, count, axis, result_dtype):
    """Shared body of ``array_sum`` and ``array_inner``: ``combine(datas)`` maps the arrays' data (float64,
    elements first) to the per-element terms that are summed; the first ``count`` elements (all by default;
    more than there are: all) along ``axis`` (None: all elements in row-major order)."""
    a = arrays[0]
    _check_scalars(func, "values" if func == "array_sum" else "a", a)
    comp, trailing = element_layout(result_dtype)
    if axis is None:
        out_shape = (1,)
    else:
        axis = _axis(func, axis, a.ndim)
        out_shape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
    if count is not None:
        count = checked_count(func, "count" if func == "array_inner" else "value_count", count)
    if out is not None:
        check_array(func, "out", out)
        if out.device != a.device:
            raise RuntimeError("out storage device should match values array")
        if out.dtype is not result_dtype:
            raise RuntimeError(f"out array should have type {type_name(result_dtype)}")
        if tuple(out.shape) != out_shape:
            raise RuntimeError(f"out array should have shape {out_shape}")
    from ..runtime import device_flat, device_reduce

    per = int(np.prod(element_layout(a.dtype)[1], dtype=np.int64))  # components of an element
    outer, length, n, inner, k = device_reduce.layout(tuple(a.shape), per, axis, count, len(arrays) == 2)
    result = out
    if out is None:
        shape = (1,) if axis is None else out_shape
        result = empty(shape, dtype=result_dtype, device=a.device)  # every element is written
    target = device_flat.Output(result, as_scalars=True)
    data = [device_flat.scalars(x) for x in arrays]
    other = data[1] if len(data) == 2 else array(shape=(0,), dtype=data[0].dtype, device=a.device)
    device_reduce.reduce(data[0], other, target.target, outer, length, n, inner, k, launcher(a.device))
    target.finish()
    if out is None and axis is None:
        total = result.numpy().reshape(trailing).astype(comp)  # the one result, to the host as Warp does
        return total[()] if not trailing else total
    return result


def array_sum(values: array, out: array | None = None, value_count: int | None = None, axis: int | None = None):
    """The sum of the elements of ``values`` (float32 or float64 scalars, vectors or matrices).

    Without ``axis`` the first ``value_count`` elements (all by default) in row-major order are summed and
    the result is returned (a numpy scalar, or a numpy array for vectors and matrices) or written to
    ``out`` (shape ``(1,)``). With ``axis`` the sum runs along that axis and the result is an array with
    that axis of length 1 (written to ``out`` when given).
    """
    check_array("array_sum", "values", values)
    if scalar_type(values.dtype) not in REAL:
        raise RuntimeError(f"Unsupported data type: {type_name(values.dtype)}")
    result = _reduce("array_sum", [values], lambda d: d[0], out, value_count, axis, values.dtype)
    _record_gradient([values], out, result, value_count, axis)
    return result


def array_inner(a: array, b: array, out: array | None = None, count: int | None = None, axis: int | None = None):
    """The inner product of two arrays of one shape and dtype: the sum over elements of ``dot(a[i], b[i])``.

    ``count`` and ``axis`` are as ``value_count`` and ``axis`` of ``array_sum``; the result has the
    dtype's scalar type.
    """
    check_array("array_inner", "a", a)
    check_array("array_inner", "b", b)
    same_device("A and b array", a, b)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"array_inner() arguments must have the same shape, got {a.shape} and {b.shape}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"A and b array data types do not match ({type_name(a.dtype)} vs {type_name(b.dtype)})")
    scalar = scalar_type(a.dtype)
    if scalar not in REAL:
        raise RuntimeError(f"Unsupported data type: {type_name(a.dtype)}")
    ncomp = len(element_layout(a.dtype)[1])  # component axes of one element (vectors: 1, matrices: 2)

    def combine(datas):  # per element: the dot product of its components
        product = datas[0] * datas[1]
        return product.sum(axis=tuple(range(product.ndim - ncomp, product.ndim))) if ncomp else product

    result = _reduce("array_inner", [a, b], combine, out, count, axis, scalar)
    _record_gradient([a, b], out, result, count, axis)
    return result


def _record_gradient(inputs: list[array], out, result, count, axis) -> None:
    """Under a recording tape, with inputs that have gradients: give a returned array a gradient and record the
    reduction's backward step (``runtime/reduction_gradients.py``; without them, only its arrays for the gradient
    flow check). A host value returned is a constant."""
    from ..runtime import reduction_gradients

    if not isinstance(result, array) or not reduction_gradients.recording:
        return
    if out is None and reduction_gradients.wants_gradient(*inputs):
        result.requires_grad = True
    reduction_gradients.record(inputs, result, count, None if axis is None else int(axis) % inputs[0].ndim)


def array_scan(in_array: array, out_array: array, inclusive: bool = True) -> None:
    """Prefix sums of ``in_array``'s elements in row-major order into ``out_array`` (same size and dtype:
    int32, int64, float32, float64 or vectors of them); ``inclusive=False`` starts from zero."""
    check_array("array_scan", "in_array", in_array)
    check_array("array_scan", "out_array", out_array)
    same_device("In and out array", in_array, out_array)
    if in_array.size != out_array.size:
        raise RuntimeError(f"In and out array storage sizes do not match ({in_array.size} vs {out_array.size})")
    if in_array.dtype is not out_array.dtype:
        raise RuntimeError(f"In and out array data types do not match "
                           f"({type_name(in_array.dtype)} vs {type_name(out_array.dtype)})")
    dtype = in_array.dtype
    if not (dtype in _SCANNABLE or (is_vector_type(dtype) and dtype._dtype in _SCANNABLE)):
        raise RuntimeError(f"Unsupported data type: {type_name(dtype)}")
    _check_scalars("array_scan", "in_array", in_array)
    if in_array.size == 0:
        return
    from ..runtime import device_flat, device_scan

    wide = _wide(dtype)
    device = in_array.device
    n = in_array.size
    # one sequential pass on the CPU; segments of 256 elements per thread, scanned recursively, on a GPU
    segment = 256 if gpu_algorithm(device) else max(n, 2)
    source = device_flat.elements(in_array)
    target = device_flat.Output(out_array)
    zero = wide(0) if is_scalar_type(wide) else wide()
    device_scan.scan(source, target.target, n, zero, lambda name, shape: empty(shape, dtype=wide, device=device),
                     launcher(device), segment, inclusive=bool(inclusive))
    target.finish()


def _wide(dtype):
    """The type a scan of ``dtype`` accumulates in: int64 or float64 (vectors of them for vectors)."""
    scalar = scalar_type(dtype)
    wide = float64 if scalar in REAL else int64
    return wide if is_scalar_type(dtype) else vector(length=dtype._shape[0], dtype=wide)

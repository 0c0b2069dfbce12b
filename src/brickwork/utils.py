"""Whole-array algorithms called from Python, as Warp's ``warp.utils``: reductions, scans, sorts, run-length
encoding and casts, plus ``ScopedTimer`` and ``transform_expand``, and graph coloring (``graph_coloring_*``:
sequential CPU kernels, as Warp's; arrays on a CUDA device go through the host there).

Each function validates its arguments first (with Warp's messages, raising before anything is written) and then
launches kernels on the arrays' device (``runtime/device_scan``, ``device_reduce``, ``device_pairs``,
``device_runs``): no array goes through the host; a single number is read back where Warp reads one (a sum's
result, a run count, a segment check). The CPU target takes the CPU's algorithms (one sequential scan pass, a
counting sort per thread chunk); a CUDA device and the cuda-emulation target the GPU's. Strided views are read
in place or through a contiguous copy on their device, and written in place or through one.
"""

from __future__ import annotations

import operator
import sys
import time

import numpy as np

from .device import synchronize
from .lang.function_from_python import create_warp_function
from .runtime.graph_coloring_algorithm import GraphColoringAlgorithm
from .types.array_constructors import empty
from .types.arrays import array, element_layout, type_name
from .types.composite import is_composite_type, is_vector_type, transformation, vector
from .types.scalars import float32, float64, int32, int64, is_scalar_type, uint32, uint64

_REAL = (float32, float64)
_SCANNABLE = (int32, int64, float32, float64)
_SORT_KEYS = (int32, uint32, float32, int64, uint64, float64)
_INT32_MAX = 2**31 - 1

__all__ = [
    "ScopedTimer", "array_cast", "array_inner", "array_scan", "array_sum", "create_warp_function", "radix_sort_pairs",
    "runlength_encode", "segmented_sort_pairs", "transform_expand",
    "GraphColoringAlgorithm", "graph_coloring_assign", "graph_coloring_balance", "graph_coloring_get_groups",
]


# -- helpers ------------------------------------------------------------------------------------------------


def _launcher(device):
    """``launch(kernel, dim, *inputs)`` on ``device`` (not recorded by a tape, as none of these functions is)."""
    from .runtime.launch import launch

    def run(kernel, dim, *inputs):
        launch(kernel, dim, inputs=list(inputs), device=device, record_tape=False)

    return run


def _gpu_algorithm(device) -> bool:
    """Whether ``device`` runs the GPU algorithms: a CUDA device, or the CPU under the cuda-emulation target
    (so that tests on the CPU cover them); the CPU target takes the sequential or chunked ones."""
    from . import config

    return not device.is_cpu or config.target != "cpu"


def _check_array(func: str, name: str, a) -> None:
    if not isinstance(a, array):
        raise TypeError(f"{func}(): {name} must be an array, got {type(a).__name__}")


def _scalar_type(dtype):
    """The scalar type of a scalar or vector/matrix dtype (None for structs)."""
    if is_scalar_type(dtype):
        return dtype
    return dtype._dtype if is_composite_type(dtype) else None


def _same_device(what: str, a: array, b: array) -> None:
    if a.device != b.device:
        raise RuntimeError(f"{what} storage devices do not match ({a.device} vs {b.device})")


def _host(a: array) -> np.ndarray:
    """The data of ``a`` (elements then component axes): a view on the CPU, a copy of device memory."""
    return np.asarray(a.numpy())


def _flat(data: np.ndarray, a: array) -> np.ndarray:
    """``data`` of array ``a`` as one row-major run of elements (component axes kept)."""
    return data.reshape((a.size,) + data.shape[a.ndim:])


def _store_prefix(a: array, values: np.ndarray) -> None:
    """Write ``values`` over the first ``len(values)`` elements of ``a`` in row-major order."""
    if not len(values):
        return
    data = _host(a)
    index = np.unravel_index(np.arange(len(values)), a.shape)
    data[index] = values
    if a.device.is_cuda:
        a.assign(data)


def _count(func: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{func}(): {name} must be an integer, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{func}(): {name} must be non-negative, got {value}")
    return int(value)


def _axis(func: str, axis, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{func}() axis must be an integer or None, got {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise IndexError(f"{func}() axis {axis} is out of bounds for an array with {ndim} dimensions")
    return int(axis) % ndim


def _reduce(func: str, arrays: list[array], combine, out, count, axis, result_dtype):
    """Shared body of ``array_sum`` and ``array_inner``: ``combine(datas)`` maps the arrays' data (float64,
    elements first) to the per-element terms that are summed; the first ``count`` elements (all by default;
    more than there are: all) along ``axis`` (None: all elements in row-major order)."""
    a = arrays[0]
    comp, trailing = element_layout(result_dtype)
    if axis is None:
        out_shape = (1,)
    else:
        axis = _axis(func, axis, a.ndim)
        out_shape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
    if count is not None:
        count = _count(func, "count" if func == "array_inner" else "value_count", count)
    if out is not None:
        _check_array(func, "out", out)
        if out.device != a.device:
            raise RuntimeError("out storage device should match values array")
        if out.dtype is not result_dtype:
            raise RuntimeError(f"out array should have type {type_name(result_dtype)}")
        if tuple(out.shape) != out_shape:
            raise RuntimeError(f"out array should have shape {out_shape}")
    from .runtime import device_flat, device_reduce

    per = int(np.prod(element_layout(a.dtype)[1], dtype=np.int64))  # components of an element
    outer, length, n, inner, k = device_reduce.layout(tuple(a.shape), per, axis, count, len(arrays) == 2)
    result = out
    if out is None:
        shape = (1,) if axis is None else out_shape
        result = empty(shape, dtype=result_dtype, device=a.device)  # every element is written
    target = device_flat.Output(result, as_scalars=True)
    data = [device_flat.scalars(x) for x in arrays]
    other = data[1] if len(data) == 2 else array(shape=(0,), dtype=data[0].dtype, device=a.device)
    device_reduce.reduce(data[0], other, target.target, outer, length, n, inner, k, _launcher(a.device))
    target.finish()
    if out is None and axis is None:
        total = result.numpy().reshape(trailing).astype(comp)  # the one result, to the host as Warp does
        return total[()] if not trailing else total
    return result


# -- reductions ---------------------------------------------------------------------------------------------


def array_sum(values: array, out: array | None = None, value_count: int | None = None, axis: int | None = None):
    """The sum of the elements of ``values`` (float32 or float64 scalars, vectors or matrices).

    Without ``axis`` the first ``value_count`` elements (all by default) in row-major order are summed and
    the result is returned (a numpy scalar, or a numpy array for vectors and matrices) or written to
    ``out`` (shape ``(1,)``). With ``axis`` the sum runs along that axis and the result is an array with
    that axis of length 1 (written to ``out`` when given).
    """
    _check_array("array_sum", "values", values)
    if _scalar_type(values.dtype) not in _REAL:
        raise RuntimeError(f"Unsupported data type: {type_name(values.dtype)}")
    result = _reduce("array_sum", [values], lambda d: d[0], out, value_count, axis, values.dtype)
    _record_gradient([values], out, result, value_count, axis)
    return result


def array_inner(a: array, b: array, out: array | None = None, count: int | None = None, axis: int | None = None):
    """The inner product of two arrays of one shape and dtype: the sum over elements of ``dot(a[i], b[i])``.

    ``count`` and ``axis`` are as ``value_count`` and ``axis`` of ``array_sum``; the result has the
    dtype's scalar type.
    """
    _check_array("array_inner", "a", a)
    _check_array("array_inner", "b", b)
    _same_device("A and b array", a, b)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"array_inner() arguments must have the same shape, got {a.shape} and {b.shape}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"A and b array data types do not match ({type_name(a.dtype)} vs {type_name(b.dtype)})")
    scalar = _scalar_type(a.dtype)
    if scalar not in _REAL:
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
    from .runtime import reduction_gradients

    if not isinstance(result, array) or not reduction_gradients.recording:
        return
    if out is None and reduction_gradients.wants_gradient(*inputs):
        result.requires_grad = True
    reduction_gradients.record(inputs, result, count, None if axis is None else int(axis) % inputs[0].ndim)


# -- scan -----------------------------------------------------------------------------------------------------


def array_scan(in_array: array, out_array: array, inclusive: bool = True) -> None:
    """Prefix sums of ``in_array``'s elements in row-major order into ``out_array`` (same size and dtype:
    int32, int64, float32, float64 or vectors of them); ``inclusive=False`` starts from zero."""
    _check_array("array_scan", "in_array", in_array)
    _check_array("array_scan", "out_array", out_array)
    _same_device("In and out array", in_array, out_array)
    if in_array.size != out_array.size:
        raise RuntimeError(f"In and out array storage sizes do not match ({in_array.size} vs {out_array.size})")
    if in_array.dtype is not out_array.dtype:
        raise RuntimeError(f"In and out array data types do not match "
                           f"({type_name(in_array.dtype)} vs {type_name(out_array.dtype)})")
    dtype = in_array.dtype
    if not (dtype in _SCANNABLE or (is_vector_type(dtype) and dtype._dtype in _SCANNABLE)):
        raise RuntimeError(f"Unsupported data type: {type_name(dtype)}")
    if in_array.size == 0:
        return
    from .runtime import device_flat, device_scan

    wide = _wide(dtype)
    device = in_array.device
    n = in_array.size
    # one sequential pass on the CPU; segments of 256 elements per thread, scanned recursively, on a GPU
    segment = 256 if _gpu_algorithm(device) else max(n, 2)
    source = device_flat.elements(in_array)
    target = device_flat.Output(out_array)
    zero = wide(0) if is_scalar_type(wide) else wide()
    device_scan.scan(source, target.target, n, zero, lambda name, shape: empty(shape, dtype=wide, device=device),
                     _launcher(device), segment, inclusive=bool(inclusive))
    target.finish()


def _wide(dtype):
    """The type a scan of ``dtype`` accumulates in: int64 or float64 (vectors of them for vectors)."""
    scalar = _scalar_type(dtype)
    wide = float64 if scalar in _REAL else int64
    return wide if is_scalar_type(dtype) else vector(length=dtype._shape[0], dtype=wide)


# -- sorts ----------------------------------------------------------------------------------------------------


def _sortable_bits(keys: np.ndarray) -> np.ndarray:
    """Unsigned integers ordered as ``keys`` are (signed ints: sign bit flipped; floats: the IEEE trick, so
    -0.0 sorts before 0.0 and NaN after +inf), the bits a radix sort looks at."""
    bits = keys.dtype.itemsize * 8
    unsigned = np.dtype(f"uint{bits}")
    u = keys.view(unsigned)
    sign = unsigned.type(1 << (bits - 1))
    if keys.dtype.kind == "i":
        return u ^ sign
    if keys.dtype.kind == "f":
        return u ^ np.where(u & sign, unsigned.type(~np.uint64(0) >> np.uint64(64 - bits)), sign)
    return u


def _stable_order(keys: np.ndarray, begin_bit: int = 0, end_bit: int | None = None) -> np.ndarray:
    u = _sortable_bits(keys)
    bits = keys.dtype.itemsize * 8
    end_bit = bits if end_bit is None else end_bit
    if (begin_bit, end_bit) != (0, bits):
        width = end_bit - begin_bit
        mask = (1 << width) - 1
        u = (u >> u.dtype.type(begin_bit)) & u.dtype.type(mask)
    return np.argsort(u, kind="stable")


def _require_contiguous(func: str, name: str, a: array, detail: str = "") -> None:
    if not a.is_contiguous:
        raise RuntimeError(f"{func}() requires a contiguous {name} array{detail}")


def radix_sort_pairs(keys: array, values: array, count: int, begin_bit: int = 0, end_bit: int | None = None) -> None:
    """Sort the first ``count`` keys in place, ascending and stable, moving ``values`` along.

    Keys are int32, uint32, float32, int64, uint64 or float64; values any 4- or 8-byte type. As in Warp,
    both arrays must be contiguous and hold ``2*count`` elements (the second half is scratch space).
    ``begin_bit``/``end_bit`` restrict the sort to those bits of the keys' order-preserving bit pattern.
    """
    _check_array("radix_sort_pairs", "keys", keys)
    _check_array("radix_sort_pairs", "values", values)
    _same_device("Keys and values array", keys, values)
    names = f"{type_name(keys.dtype)}, {type_name(values.dtype)}"
    value_bytes = element_layout(values.dtype)[0].itemsize * int(np.prod(element_layout(values.dtype)[1]))
    if keys.dtype not in _SORT_KEYS or value_bytes not in (4, 8):
        raise RuntimeError(f"Unsupported keys and values data types: {names}")
    for name, a in (("keys", keys), ("values", values)):
        _require_contiguous("radix_sort_pairs", name, a, f", got non-contiguous {name} with data types: {names}")
    bits = np.dtype(keys.dtype._np).itemsize * 8
    end = bits if end_bit is None else end_bit
    if not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) for b in (begin_bit, end)):
        raise RuntimeError(f"begin_bit and end_bit must be integers, got {type(begin_bit).__name__} and "
                           f"{type(end).__name__}")
    if not 0 <= begin_bit <= end <= bits:
        raise RuntimeError(f"Invalid radix sort bit range [{begin_bit}, {end}) for {bits}-bit keys")
    count = _count("radix_sort_pairs", "count", count)
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Keys and values array storage must be large enough to contain 2*count elements")
    if count == 0:
        return
    from .runtime import device_flat, device_pairs

    raw_keys, raw_values = device_flat.bits(keys), device_flat.bits(values)  # the first count are sorted
    device_pairs.sort_pairs(raw_keys, raw_values, count, _key_kind(keys.dtype), int(begin_bit), int(end), keys.device,
                            _launcher(keys.device), _gpu_algorithm(keys.device))


def _key_kind(dtype) -> int:
    from .runtime import device_pairs

    if dtype in _REAL:
        return device_pairs.FLOAT
    return device_pairs.SIGNED if dtype in (int32, int64) else device_pairs.UNSIGNED


def segmented_sort_pairs(keys: array, values: array, count: int, segment_start_indices: array,
                         segment_end_indices: array | None = None) -> None:
    """Sort each segment ``[start, end)`` of the first ``count`` keys in place (ascending, stable), moving
    ``values`` along.

    Keys are int32 or float32, values int32, segment indices int32 arrays of one dimension. Without
    ``segment_end_indices``, segment ``i`` runs from ``segment_start_indices[i]`` to
    ``segment_start_indices[i + 1]``. Every range must satisfy ``0 <= start <= end <= count`` (checked
    before anything is sorted). Arrays must be contiguous and hold ``2*count`` elements, as in Warp.
    """
    func = "segmented_sort_pairs"
    for name, a in (("keys", keys), ("values", values), ("segment_start_indices", segment_start_indices)):
        _check_array(func, name, a)
    segments = [("segment_start_indices", segment_start_indices)]
    if segment_end_indices is not None:
        _check_array(func, "segment_end_indices", segment_end_indices)
        segments.append(("segment_end_indices", segment_end_indices))
    if len({a.device for a in [keys, values] + [s for _, s in segments]}) > 1:
        raise RuntimeError("Keys, values, and segment index array storage devices must match")
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
        raise TypeError(f"count must be an integer, got {type(count).__name__}")
    if count < 0:
        raise ValueError(f"count must be non-negative, got {count}")
    if count > _INT32_MAX:
        raise ValueError(f"count must not exceed {_INT32_MAX}, got {count}")
    count = int(count)
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Array storage must be large enough to contain 2*count elements")
    if keys.dtype not in (int32, float32) or values.dtype is not int32:
        raise RuntimeError(f"Unsupported data type: {type_name(keys.dtype)}")
    for name, s in segments:
        if s.dtype is not int32:
            raise RuntimeError(f"{name} array must be of type int32")
        if s.ndim != 1:
            raise RuntimeError(f"{name} must be one-dimensional, got shape {s.shape}")
    for name, a in [("keys", keys), ("values", values)] + segments:
        _require_contiguous(func, name, a)
    from .runtime import device_flat, device_pairs

    device, launch = keys.device, _launcher(keys.device)
    starts = segment_start_indices
    if segment_end_indices is None:
        ends = array(shape=(0,), dtype=int32, device=device)  # the next start ends a segment
    else:
        ends = segment_end_indices
        if len(starts) != len(ends):
            raise RuntimeError(f"segment_start_indices and segment_end_indices must have the same size "
                               f"({len(starts)} vs {len(ends)})")
    bad, first, last = device_pairs.first_bad_segment(starts, ends, count, device, launch)
    if bad >= 0:
        raise ValueError(f"Invalid segment range at index {bad}: [{first}, {last}) for count {count}")
    segments = len(starts) if segment_end_indices is not None else len(starts) - 1
    if count == 0 or segments <= 0:
        return
    raw_keys, raw_values = device_flat.bits(keys), device_flat.bits(values)  # the first count are sorted
    if not device_pairs.segmented_sort_pairs(raw_keys, raw_values, count, _key_kind(keys.dtype), starts, ends,
                                             device, launch, _gpu_algorithm(device)):
        _sort_overlapping_segments(keys, values, count, segment_start_indices, segment_end_indices)


def _sort_overlapping_segments(keys, values, count, segment_start_indices, segment_end_indices) -> None:
    """Overlapping segments (which Warp leaves undefined) sort one after the other in the order given, on the
    host: one sort by (segment, key) cannot."""
    starts = _host(segment_start_indices).astype(np.int64)
    if segment_end_indices is None:
        starts, ends = starts[:-1], starts[1:]
    else:
        ends = _host(segment_end_indices).astype(np.int64)
    key_data = _flat(_host(keys), keys)[:count].copy()
    value_data = _flat(_host(values), values)[:count].copy()
    for s, e in zip(starts, ends):
        order = _stable_order(key_data[s:e])
        key_data[s:e] = key_data[s:e][order]
        value_data[s:e] = value_data[s:e][order]
    _store_prefix(keys, key_data)
    _store_prefix(values, value_data)


# -- run-length encoding --------------------------------------------------------------------------------------


def runlength_encode(values: array, run_values: array, run_lengths: array, run_count: array | None = None,
                     value_count: int | None = None):
    """Encode runs of equal int32 ``values`` (the first ``value_count``, all by default): each run's value
    goes to ``run_values`` and its length to ``run_lengths`` (int32), in order.

    Returns the number of runs, or, when ``run_count`` (an int32 array) is given, writes it to
    ``run_count[0]`` and returns ``run_count``. Both outputs must hold ``value_count`` elements.
    """
    func = "runlength_encode"
    for name, a in (("values", values), ("run_values", run_values), ("run_lengths", run_lengths)):
        _check_array(func, name, a)
    if not values.device == run_values.device == run_lengths.device:
        raise RuntimeError("run_values, run_lengths and values storage devices do not match")
    if run_count is not None:
        _check_array(func, "run_count", run_count)
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
    from .runtime import device_flat, device_runs

    device = values.device
    value_count = int(value_count)
    outputs = [device_flat.Output(run_values), device_flat.Output(run_lengths)]
    counted = device_flat.Output(run_count) if run_count is not None else None
    count_target = empty((1,), dtype=int32, device=device) if counted is None else counted.target
    segment = 256 if _gpu_algorithm(device) else max(value_count + 1, 2)
    device_runs.encode(device_flat.elements(values), value_count, outputs[0].target, outputs[1].target,
                       count_target, device, _launcher(device), segment)
    for output in outputs + ([counted] if counted else []):
        output.finish()
    if run_count is None:
        return int(count_target.numpy()[0])  # the run count, read back as Warp does
    return run_count


# -- casts ----------------------------------------------------------------------------------------------------


def array_cast(in_array: array, out_array: array, count: int | None = None) -> None:
    """Convert the elements of ``in_array`` to ``out_array``'s dtype (C conversions: floats truncate toward
    zero) and write them into ``out_array``.

    Without ``count`` every element is converted; arrays of one number of dimensions must have one shape,
    arrays of different numbers of dimensions are matched in row-major order. ``count`` (1-D arrays
    only) converts the first ``count`` elements. Vector and matrix dtypes convert component by
    component; when the two dtypes have different numbers of components, components are matched in
    row-major order.
    """
    _check_array("array_cast", "in_array", in_array)
    _check_array("array_cast", "out_array", out_array)
    _same_device("Array", in_array, out_array)
    in_comp, in_trailing = element_layout(in_array.dtype)
    out_comp, out_trailing = element_layout(out_array.dtype)
    if _scalar_type(in_array.dtype) is None or _scalar_type(out_array.dtype) is None:
        if in_array.dtype is not out_array.dtype:
            raise RuntimeError(f"Cannot cast between {type_name(in_array.dtype)} and {type_name(out_array.dtype)}")
    if count is not None:
        if in_array.ndim > 1 or out_array.ndim > 1:
            raise RuntimeError("Partial cast is not supported for arrays with more than one dimension")
        count = _count("array_cast", "count", count)
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
    from .runtime import device_flat, device_runs

    launch = _launcher(in_array.device)
    if _scalar_type(in_array.dtype) is None:  # structs (of one dtype): copied element by element
        target = device_flat.Output(out_array)
        device_runs.copy(device_flat.elements(in_array), target.target, n, launch)
    else:
        target = device_flat.Output(out_array, as_scalars=True)
        device_runs.convert(device_flat.scalars(in_array), target.target, scalars, launch)
    target.finish()


# -- graph coloring -------------------------------------------------------------------------------------------

# The algorithms are one-thread compiled CPU kernels (runtime/graph_coloring.py), as Warp's are native CPU code.


def graph_coloring_assign(edges: array, node_colors: array,
                          algorithm: GraphColoringAlgorithm = GraphColoringAlgorithm.MCS) -> int:
    """Color the nodes of an undirected graph so that no edge joins two nodes of the same color, as Warp's
    ``wp.utils.graph_coloring_assign``; returns the number of colors. The colors equal Warp's for the same input.

    - edges: an int32 array of shape ``(edge_count, 2)``, one edge ``[i, j]`` per row (indices in
      ``[0, node_count)``).
    - node_colors: an int32 array of ``node_count`` (at least 1) elements, overwritten with the colors
      ``0 .. count - 1``.
    - algorithm: the order in which the nodes take the smallest color their colored neighbours leave free:
      ``GraphColoringAlgorithm.MCS`` (maximum cardinality search, the default; usually fewer colors) or
      ``GraphColoringAlgorithm.GREEDY`` (decreasing degree).

    The work runs on the CPU; arrays on a CUDA device are copied to the host and the colors back (Warp accepts
    CPU arrays only). Bad arguments raise Warp's errors before ``node_colors`` is written.
    """
    from .runtime import graph_coloring as gc

    func = "graph_coloring_assign"
    gc.check_colors(func, node_colors, edges)
    n = node_colors.shape[0]
    if n == 0:
        raise RuntimeError("Cannot color an empty graph")
    kind = gc.integer(func, "algorithm", algorithm, "a GraphColoringAlgorithm")
    graph = gc.build_graph("Graph coloring failed", edges, n)
    if kind not in (GraphColoringAlgorithm.MCS, GraphColoringAlgorithm.GREEDY):
        raise RuntimeError(f"Graph coloring failed: Unrecognized coloring algorithm number: {kind}!")
    colors = gc.host(node_colors)
    count = gc.color(graph, kind, colors)
    if colors is not node_colors:
        node_colors.assign(colors)
    return count


def graph_coloring_balance(edges: array, node_colors: array, color_count: int, target_max_min_ratio: float, *,
                           max_iterations: int | None = None) -> float:
    """Even out the sizes of the color groups of a valid coloring, in place, as Warp's
    ``wp.utils.graph_coloring_balance``; returns the ratio of the largest group's size to the smallest's reached
    (a float32 value; ``inf`` while a group is empty). The result equals Warp's for the same input.

    Nodes move one at a time into the smallest group, from the largest (or else the first other group with a
    node that can move without sharing a color with a neighbour). It stops at ``target_max_min_ratio``, when the
    sizes differ by at most 2, when no node can move, or after ``max_iterations`` moves (default: the node
    count; a warning says so then). A move that made the ratio worse is undone. The coloring stays valid.

    - edges, node_colors: as ``graph_coloring_assign``'s; each color must lie in ``[0, color_count)``.
    - color_count: the number of colors (``graph_coloring_assign``'s result); at most 1 returns 1.0 and changes
      nothing.
    - max_iterations: None or an integer in ``[0, 2**31 - 1]``.

    Arrays on a CUDA device are copied to the host and back (Warp accepts CPU arrays only). Bad arguments raise
    Warp's errors before ``node_colors`` is written.
    """
    from .runtime import graph_coloring as gc
    from .runtime.warp_warnings import warn

    func = "graph_coloring_balance"
    gc.check_colors(func, node_colors, edges)
    n = node_colors.shape[0]
    if max_iterations is None:
        max_iterations = n
    else:
        if isinstance(max_iterations, (bool, np.bool_)):
            raise TypeError(f"max_iterations must be an integer or None, got {type(max_iterations).__name__}")
        try:
            max_iterations = operator.index(max_iterations)
        except TypeError:
            raise TypeError(f"max_iterations must be an integer or None, got {type(max_iterations).__name__}") from None
        if max_iterations < 0:
            raise ValueError(f"max_iterations must be non-negative, got {max_iterations}")
        if max_iterations > _INT32_MAX:
            raise ValueError(f"max_iterations must not exceed {_INT32_MAX}, got {max_iterations}")
    count = gc.integer(func, "color_count", color_count)
    if count > _INT32_MAX:
        raise ValueError(f"{func}(): color_count must not exceed {_INT32_MAX}, got {count}")
    if isinstance(target_max_min_ratio, (bool, np.bool_)) or not isinstance(target_max_min_ratio, (int, float,
                                                                                                    np.number)):
        raise TypeError(f"{func}(): target_max_min_ratio must be a number, got {type(target_max_min_ratio).__name__}")
    graph = gc.build_graph("Graph coloring balance failed", edges, n)
    if count <= 1:
        return 1.0
    colors = gc.host(node_colors)
    gc.check_color_range("Graph coloring balance failed", colors, count)
    ratio, limited = gc.balance(graph, colors, count, float(target_max_min_ratio), max_iterations)
    if colors is not node_colors:
        node_colors.assign(colors)
    if limited:
        warn(f"Graph coloring stopped because it reached the {max_iterations}-iteration limit (achieved ratio "
                f"{ratio:g}, target {target_max_min_ratio:g}).")
    return ratio


def graph_coloring_get_groups(node_colors: array, color_count: int, return_wp_array: bool = True,
                              device="cpu") -> tuple:
    """The nodes of each color, as Warp's ``wp.utils.graph_coloring_get_groups``: a tuple of ``color_count``
    int32 arrays, the ``i``-th holding the nodes of color ``i`` in increasing order (an empty tuple for
    ``color_count`` 0).

    - node_colors: an int32 array of colors, each in ``[0, color_count)`` (on any device: read on the host).
    - return_wp_array: True (the default, as Warp's) for arrays on ``device`` (default the CPU), False for numpy
      arrays.
    """
    from .runtime import graph_coloring as gc

    func = "graph_coloring_get_groups"
    count = gc.integer(func, "color_count", color_count)
    if count < 0:
        raise RuntimeError("color_count must be non-negative")
    if count == 0:
        return ()
    gc.check_colors(func, node_colors)
    colors = gc.host(node_colors)
    gc.check_color_range("", colors, count)
    groups = gc.groups(colors, count)
    if not return_wp_array:
        return groups
    return tuple(array(g, dtype=int32, device=device) for g in groups)


# -- transforms and timing ------------------------------------------------------------------------------------


def transform_expand(t):
    """A ``transformf`` from a sequence of 7 numbers: position (3), then rotation quaternion (x, y, z, w)."""
    values = list(t)
    if len(values) != 7:
        raise ValueError(f"transform_expand() needs 7 numbers (position, then quaternion), got {len(values)}")
    return transformation(float32)(p=values[:3], q=values[3:])


class ScopedTimer:
    """A context manager that measures the wall time of its block, as Warp's ``wp.ScopedTimer``.

    On exit it prints ``"<name> took <ms> ms"`` (indented by nesting level), sets ``elapsed`` (ms) and,
    with ``dict=``, appends the time to ``dict[name]``. ``detailed=True`` profiles the block with cProfile
    and prints its statistics first; ``synchronize=True`` waits for all devices before starting and
    stopping the clock; ``active=False`` measures nothing. brickwork does not collect CUDA activity
    timings (``cuda_filter``) or NVTX ranges, so those options are refused; ``timing_results`` stays
    empty. ``skip_tape`` is accepted (brickwork's ``Tape`` records no timers).
    """

    indent = -1  # nesting level of the innermost active timer

    def __init__(self, name: str, active: bool = True, print: bool = True, detailed: bool = False,  # noqa: A002
                 dict: dict | None = None, use_nvtx: bool = False, color="rapids", synchronize: bool = False,  # noqa: A002
                 cuda_filter: int = 0, report_func=None, skip_tape: bool = False):
        if use_nvtx:
            raise ValueError("ScopedTimer: use_nvtx=True (NVTX ranges) is not supported by brickwork")
        if cuda_filter:
            raise ValueError("ScopedTimer: cuda_filter (CUDA activity timing) is not supported by brickwork")
        self.name = name
        self.active = active
        self.print = print
        self.detailed = detailed
        self.dict = dict
        self.synchronize = synchronize
        self.report_func = report_func
        self.skip_tape = skip_tape
        self.elapsed = 0.0
        self.timing_results: list = []
        self._profile = None
        self._start = 0.0
        if dict is not None:
            dict.setdefault(name, [])

    def __enter__(self):
        if not self.active:
            return self
        if self.synchronize:
            synchronize()
        ScopedTimer.indent += 1
        if self.detailed:
            import cProfile  # loaded only when a timer profiles

            self._profile = cProfile.Profile()
            self._profile.enable()
        self._start = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.active:
            return
        if self.synchronize:
            synchronize()
        self.elapsed = (time.perf_counter() - self._start) * 1000.0
        if self._profile is not None:
            self._profile.disable()
            import pstats

            pstats.Stats(self._profile, stream=sys.stdout).sort_stats(pstats.SortKey.CUMULATIVE).print_stats()
        if self.dict is not None:
            self.dict[self.name].append(self.elapsed)
        if self.print:
            sys.stdout.write(f"{'    ' * ScopedTimer.indent}{self.name} took {self.elapsed:.2f} ms\n")
        ScopedTimer.indent -= 1

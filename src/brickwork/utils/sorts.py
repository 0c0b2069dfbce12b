"""Stable sorts of key-value pairs, whole or by segments, on the arrays' device (``runtime/device_pairs``), as
Warp's ``radix_sort_pairs`` and ``segmented_sort_pairs``."""

from __future__ import annotations

import numpy as np

from ..types.arrays import array, element_layout, type_name
from ..types.scalars import float32, float64, int32, int64, uint32, uint64
from .common import INT32_MAX, REAL, check_array, checked_count, gpu_algorithm, launcher, same_device

_SORT_KEYS = (int32, uint32, float32, int64, uint64, float64)


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
    check_array("radix_sort_pairs", "keys", keys)
    check_array("radix_sort_pairs", "values", values)
    same_device("Keys and values array", keys, values)
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
    count = checked_count("radix_sort_pairs", "count", count)
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Keys and values array storage must be large enough to contain 2*count elements")
    if count == 0:
        return
    from ..runtime import device_flat, device_pairs

    raw_keys, raw_values = device_flat.bits(keys), device_flat.bits(values)  # the first count are sorted
    device_pairs.sort_pairs(raw_keys, raw_values, count, _key_kind(keys.dtype), int(begin_bit), int(end), keys.device,
                            launcher(keys.device), gpu_algorithm(keys.device))


def _key_kind(dtype) -> int:
    from ..runtime import device_pairs

    if dtype in REAL:
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
        check_array(func, name, a)
    segments = [("segment_start_indices", segment_start_indices)]
    if segment_end_indices is not None:
        check_array(func, "segment_end_indices", segment_end_indices)
        segments.append(("segment_end_indices", segment_end_indices))
    if len({a.device for a in [keys, values] + [s for _, s in segments]}) > 1:
        raise RuntimeError("Keys, values, and segment index array storage devices must match")
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
        raise TypeError(f"count must be an integer, got {type(count).__name__}")
    if count < 0:
        raise ValueError(f"count must be non-negative, got {count}")
    if count > INT32_MAX:
        raise ValueError(f"count must not exceed {INT32_MAX}, got {count}")
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
    from ..runtime import device_flat, device_pairs

    device, launch = keys.device, launcher(keys.device)
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
                                             device, launch, gpu_algorithm(device)):
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

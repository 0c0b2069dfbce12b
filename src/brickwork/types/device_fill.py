"""Fills of CUDA arrays by the driver's asynchronous memsets, with no host buffer and no upload.

``zero_``, ``fill_`` with a number, vector or matrix, and the initialisation of ``wp.zeros``/``wp.full`` on a
CUDA device split the element's bytes into memsets (``fill_memsets``): one ``cuMemsetD8/16/32Async`` where the
element is one 1-, 2- or 4-byte value repeated, else one ``cuMemsetD2D32Async`` per 32-bit word of it (the
element's size as pitch). They run on the device's current stream, after the work launched there before them;
a capture records the same calls as memset nodes (runtime/cuda_memory_nodes.py). What memsets cannot write
-- structs, elements of more than ``_MAX_WORDS`` distinct words or of a size that is no multiple of 4 -- is
filled on the host and uploaded.
"""

from __future__ import annotations

import numpy as np

from ..cuda_driver import CudaError

# an element whose bytes are not one repeated 1-, 2- or 4-byte value is set one 32-bit word at a time: up to
# this many words (a float64, an int64, a vec4)
_MAX_WORDS = 4


def _legacy_stream(device) -> int:
    return 0


#: ``current_stream(device)``: the ``CUstream`` of the device's current stream. runtime/streams.py installs its
#: lookup (the types layer cannot import the runtime); before it does, every current stream is the legacy one.
current_stream = _legacy_stream


def fill_memsets(ptr: int, pattern: bytes, count: int) -> list | None:
    """The driver calls, ``[(method, arguments before the stream)]``, that write ``count`` copies of the element
    ``pattern`` from ``ptr``: one memset where the element is one value repeated (a byte, 16 or 32 bits), else
    one 2-D memset per 32-bit word of it; None for an element of more than ``_MAX_WORDS`` distinct words, of a
    size that is no multiple of 4, or at an address the memset's width does not divide."""
    size = len(pattern)
    for width in (1, 2, 4):
        if size % width == 0 and pattern == pattern[:width] * (size // width):
            if ptr % width:
                return None
            return [("memset", (ptr, int.from_bytes(pattern[:width], "little"), count * size // width, width))]
    if size % 4 or size // 4 > _MAX_WORDS or ptr % 4:
        return None
    return [("memset_2d32", (ptr + 4 * w, size, int.from_bytes(pattern[4 * w:4 * w + 4], "little"), 1, count))
            for w in range(size // 4)]


def element_bytes(a, converted, value) -> bytes | None:
    """The bytes of one element of ``a`` set to ``converted`` (``value`` as ``fill_`` converted it), as the host
    fill writes them; None for an array of structs (its fills record the arrays the values hold: on the host)."""
    if getattr(a.dtype, "_bw_struct", False):
        return None
    from .arrays import array

    one = array(np.empty((1,) + a._trailing, dtype=a._comp), dtype=a.dtype, device="cpu", copy=False)
    one._fill_now(converted, value)
    return one._np.tobytes()


def fill_ops(a, converted, value) -> list | None:
    """The memsets that fill the CUDA array ``a`` with ``converted``, or None where memsets cannot."""
    pattern = element_bytes(a, converted, value)
    return None if pattern is None else fill_memsets(a.ptr, pattern, a.size)


def zero_ops(a) -> list | None:
    """The memsets that zero the CUDA array ``a`` (its bytes, one ``cuMemsetD8Async``)."""
    return fill_memsets(a.ptr, bytes(a._nbytes() // max(a.size, 1)), a.size)


def run_fill(a, ops: list, what: str) -> None:
    """Issue ``ops`` for ``a`` on its device's current stream; a driver error is a ``CudaError`` naming the fill
    and the array. A failed call writes nothing: a failure at the first (or only) call leaves ``a`` as it was;
    one at a later word of a several-word element leaves the words set before it written."""
    drv, ordinal, stream = a._alloc.driver, a._alloc.ordinal, current_stream(a.device)
    for method, args in ops:
        try:
            getattr(drv, method)(ordinal, *args, stream)
        except CudaError as e:
            from .arrays import type_name

            raise CudaError(f"{what} of an array of {type_name(a.dtype)} of shape {tuple(a.shape)} on {a.device} "
                            f"failed: {e}", e.code) from None

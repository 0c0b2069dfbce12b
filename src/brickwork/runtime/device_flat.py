"""Arrays of any shape and strides seen as the 1-D arrays the device algorithms (scans, reductions, sorts) work
on, without leaving the arrays' device: a view where the strides allow one, else a contiguous copy on the device
(and, for an output, a copy back into the original once written). CUDA arrays are contiguous; their views of
other element types are made on the device memory (numpy views of a CPU array's data)."""

from __future__ import annotations

import numpy as np

from ..types.array_constructors import empty
from ..types.arrays import array, element_layout
from ..types.composite import is_composite_type
from ..types.scalars import uint32, uint64


def _reinterpret(a: array, dtype, size: int) -> array:
    """Contiguous ``a``'s memory as a 1-D array of ``size`` elements of ``dtype`` (zero-copy)."""
    if size == 0:
        return empty((0,), dtype=dtype, device=a.device)
    if a.device.is_cpu:
        flat = a.flatten()
        return flat.view(dtype).reshape((size,)) if flat.dtype is not dtype else flat
    from ..types.device_import import view

    comp = np.dtype(element_layout(dtype)[0])
    return view(a.ptr, (size,) + element_layout(dtype)[1], comp, dtype, a.device.ordinal, a, "a device view")


def elements(a: array) -> array:
    """``a``'s elements in row-major order as a 1-D array (kernels index strided 1-D arrays, so a 1-D array is
    itself)."""
    if a.ndim == 1:
        return a
    return a.contiguous().flatten()


def scalars(a: array) -> array:
    """``a``'s elements' components in row-major order as a contiguous 1-D array of its scalar type."""
    scalar = a.dtype._dtype if is_composite_type(a.dtype) else a.dtype
    per = 1
    for extent in element_layout(a.dtype)[1]:
        per *= extent
    return _reinterpret(a.contiguous(), scalar, a.size * per)


def bits(a: array) -> array:
    """The raw bits of contiguous ``a``'s elements (4 or 8 bytes each) as a 1-D uint32 or uint64 array."""
    comp, trailing = element_layout(a.dtype)
    size = comp.itemsize
    for extent in trailing:
        size *= extent
    return _reinterpret(a, uint32 if size == 4 else uint64, a.size)


class Output:
    """Where a device algorithm writes ``a``: ``target`` (1-D elements, or scalars with ``as_scalars``) is ``a``
    itself or a view of it, or a contiguous copy of ``a`` (so that what is not written stays) that ``finish()``
    copies back into ``a``."""

    def __init__(self, a: array, as_scalars: bool = False):
        self.a = a
        direct = a.is_contiguous or (a.ndim == 1 and not as_scalars)
        self.scratch = None if direct else a.contiguous()
        source = a if direct else self.scratch
        self.target = scalars(source) if as_scalars else elements(source)

    def finish(self) -> None:
        if self.scratch is not None:
            self.a.assign(self.scratch)

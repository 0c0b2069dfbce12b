"""Arrays of any shape and strides seen as the 1-D arrays the device algorithms (scans, reductions, sorts) work
on, without leaving the arrays' device: a view where the strides allow one, else a contiguous copy on the device
(and, for an output, a copy back into the original once written)."""

from __future__ import annotations

from ..types.arrays import array, element_layout, empty
from ..types.composite import is_composite_type


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
    if a.size == 0:
        return empty((0,), dtype=scalar, device=a.device)
    flat = a.contiguous().flatten()
    return flat if scalar is a.dtype else flat.view(scalar).reshape((a.size * per,))


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

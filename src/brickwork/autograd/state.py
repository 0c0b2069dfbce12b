"""Saving and restoring the arrays a Jacobian evaluation may change: values, gradients and read flags."""

from __future__ import annotations

from ..types import array_reads
from ..types.arrays import array


class ArrayState:
    """A snapshot of arrays (their values, gradients and ``verify_autograd_array_access`` read flags)."""

    def __init__(self, arrays):
        seen = {}
        for a in arrays:
            if isinstance(a, array):
                seen.setdefault(id(a), a)
        self.arrays = list(seen.values())
        self.values = [a.numpy().copy() for a in self.arrays]
        self.grads = [None if a.grad is None else a.grad.numpy().copy() for a in self.arrays]
        self.read = [array_reads.is_read(a) for a in self.arrays]

    def restore_values(self) -> None:
        """Put the saved values back (written directly: not a recorded copy, no overwrite warning)."""
        for a, v in zip(self.arrays, self.values):
            a.assign(v)

    def zero_grads(self) -> None:
        for a in self.arrays:
            if a.grad is not None:
                a.grad.zero_()

    def restore(self, values: bool = True) -> None:
        """Put back the gradients, the read flags and (``values``) the values."""
        if values:
            self.restore_values()
        for a, g in zip(self.arrays, self.grads):
            if g is not None and a.grad is not None:
                a.grad.assign(g)
        for a, was_read in zip(self.arrays, self.read):
            if was_read:
                array_reads.mark_read(a)
            else:
                array_reads.mark_init(a)

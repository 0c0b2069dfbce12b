"""Gradients of ``array_sum`` and ``array_inner`` (``brickwork.utils``) recorded by a ``wp.Tape``.

A reduction into an array (``out=``, or the array an ``axis`` reduction returns) made while a tape records,
from inputs that have gradients, records one step of the backward pass, at its place: with ``g`` the output's
gradient, each summed element of ``values`` gets ``g`` (``array_sum``), and ``a`` gets ``g * b`` and ``b``
gets ``g * a`` (``array_inner``: component by component); then the output's gradient is cleared, as after a
store (the reduction overwrote ``out``), unless it has ``retain_grad``. The sums run with numpy on the host
(a device array's gradients go there and back), as the copies of a tape do. A reduction that returns a host
value (no ``out``, no ``axis``) is a constant for the tape.
"""

from __future__ import annotations

import numpy as np

from ..types.arrays import array
from .tape import recording


def wants_gradient(*inputs: array) -> bool:
    """Whether a reduction of ``inputs`` made now is recorded: a tape records and an input has a gradient."""
    return bool(recording) and any(a.grad is not None for a in inputs)


def record(inputs: list[array], out: array, count: int | None, axis: int | None) -> None:
    """Record the backward step of ``array_sum(inputs[0], out, count, axis)`` (one input) or
    ``array_inner(*inputs, out, count, axis)`` (two) on the recording tape, when ``out`` has a gradient."""
    if out.grad is None:
        return

    def backward():
        g = out.grad.numpy().astype(np.float64)
        if axis is None:
            g = g.reshape(g.shape[1:])  # (1, *components) -> the one result's components
        for k, a in enumerate(inputs):
            if a.grad is None:
                continue
            if len(inputs) == 1:
                term = g
            else:  # d(a . b)/da = b, component by component: the scalar gradient spread over the components
                other = inputs[1 - k].numpy().astype(np.float64)
                ncomp = other.ndim - a.ndim
                term = _region(other, a.ndim, count, axis) * np.reshape(g, np.shape(g) + (1,) * ncomp)
            total = a.grad.numpy().astype(np.float64)  # a contiguous copy: its region is a view
            _region(total, a.ndim, count, axis)[...] += term
            a.grad.assign(total.astype(a.grad.numpy().dtype))
        if not out.retain_grad:
            out.grad.zero_()

    recording[-1].record_func(backward, [*inputs, out])


def _region(values: np.ndarray, ndim: int, count: int | None, axis: int | None) -> np.ndarray:
    """The elements a reduction summed, as a view of ``values`` (an array of ``ndim`` dimensions, then its
    elements' component axes): the first ``count`` in row-major order, or the first ``count`` along ``axis``."""
    if axis is None:
        return values.reshape((-1,) + values.shape[ndim:])[:count]
    index = [slice(None)] * values.ndim
    index[axis] = slice(0, count)
    return values[tuple(index)]

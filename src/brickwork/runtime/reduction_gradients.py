"""Gradients of ``array_sum`` and ``array_inner`` (``brickwork.utils``) recorded by a ``wp.Tape``.

A reduction into an array (``out=``, or the array an ``axis`` reduction returns) made while a tape records,
from inputs that have gradients, records one step of the backward pass, at its place: with ``g`` the output's
gradient, each summed element of ``values`` gets ``g`` (``array_sum``), and ``a`` gets ``g * b`` and ``b``
gets ``g * a`` (``array_inner``: component by component); then the output's gradient is cleared, as after a
store (the reduction overwrote ``out``), unless it has ``retain_grad``. Where the forward ran its GPU algorithm
(a CUDA device, or the cuda-emulation target) the gradients are added there by one kernel
(``device_reduce.spread``: a thread per summed scalar, in float64, rounded once; no atomics), so a CUDA array's
stay on the GPU. On the CPU, large inner products and sums of vectors take the same kernel in a form whose vector
loop runs along the arrays (``_kernel_on_cpu``), the rest numpy; both with the same arithmetic (the same bits).
A reduction that returns a host value (no ``out``, no ``axis``) is a constant for the tape. A reduction under a
tape without gradients records what it reads and writes for the gradient flow check (gradient_flow.py).
"""

from __future__ import annotations

import numpy as np

from .. import config
from ..types.array_constructors import empty
from ..types.arrays import array, element_layout
from .device_flat import Output, scalars
from .device_reduce import layout, spread
from .launch import launch
from .tape import recording


def wants_gradient(*inputs: array) -> bool:
    """Whether a reduction of ``inputs`` made now is recorded: a tape records and an input has a gradient."""
    return bool(recording) and any(a.grad is not None for a in inputs)


def record(inputs: list[array], out: array, count: int | None, axis: int | None) -> None:
    """Record the backward step of ``array_sum(inputs[0], out, count, axis)`` (one input) or
    ``array_inner(*inputs, out, count, axis)`` (two) on the recording tape, when ``out`` and an input have a
    gradient; in any case what it reads and writes, for the gradient flow check."""
    tape = recording[-1]
    step = None
    if config.verify_gradient_flow:
        from .gradient_flow import caller_step

        step = caller_step("array_sum" if len(inputs) == 1 else "array_inner")
    reads = list(zip(("values",) if len(inputs) == 1 else ("a", "b"), inputs))
    if out.grad is None or not any(a.grad is not None for a in inputs):
        tape._record_step(step, reads, [("out", out)])
        return

    per = int(np.prod(element_layout(inputs[0].dtype)[1], dtype=np.int64))
    shape = layout(tuple(inputs[0].shape), per, axis, count, len(inputs) == 2)

    on_device = not out.device.is_cpu or config.target != "cpu"  # as the forward: its GPU algorithm

    def backward():
        if on_device:
            _spread_by_kernel(inputs, out, shape)
        elif _kernel_on_cpu(inputs, shape):
            _spread_by_kernel(inputs, out, shape, runs=True)
        else:
            _add_on_host(inputs, out, count, axis)
        if not out.retain_grad:
            out.grad.zero_()

    tape._record_step(step, reads, [("out", out)], backward, [*inputs, out])


#: Fewest summed scalars for which the CPU adds an inner product's or a vector sum's gradients with the kernel:
#: below, making its arguments (views of the arrays, about 0.15 ms) costs more than numpy saves (65536 float32
#: inner products: numpy 0.21 ms, the kernel 0.34 ms; 10**6: 9.9 ms and 5.5 ms, one thread's CPU time).
KERNEL_MIN_SCALARS = 1 << 18


def _kernel_on_cpu(inputs: list[array], shape: tuple) -> bool:
    """Whether the CPU adds the gradients with ``device_reduce.spread``'s kernel (in its runs form) rather than
    numpy: for large inner products and sums of vectors, where the kernel's one pass took half numpy's time (its
    float64 copies of the arrays); a plain sum of scalars is one numpy broadcast, as fast as the kernel."""
    outer, _, count, inner, k = shape
    if outer * count * inner * k < KERNEL_MIN_SCALARS:
        return False
    return len(inputs) == 2 or element_layout(inputs[0].dtype)[1] != ()


def _spread_by_kernel(inputs: list[array], out: array, shape: tuple, runs: bool = False) -> None:
    """The gradients added by ``device_reduce.spread``'s kernel on the arrays' device (``runs``: in the CPU's form)."""
    run = _launcher(out.device)
    g = scalars(out.grad)
    for k, a in enumerate(inputs):
        if a.grad is None:
            continue
        other = scalars(inputs[1 - k]) if len(inputs) == 2 else empty((0,), dtype=g.dtype, device=out.device)
        target = Output(a.grad, as_scalars=True)  # a.grad itself where contiguous, else a copy written back
        spread(g, other, target.target, *shape, run, runs=runs)
        target.finish()


def _add_on_host(inputs: list[array], out: array, count: int | None, axis: int | None) -> None:
    """The gradients added with numpy (the CPU's arrays: numpy's vector loops beat a kernel that finds each
    element's output by integer divisions)."""
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


def _region(values: np.ndarray, ndim: int, count: int | None, axis: int | None) -> np.ndarray:
    """The elements a reduction summed, as a view of ``values`` (an array of ``ndim`` dimensions, then its
    elements' component axes): the first ``count`` in row-major order, or the first ``count`` along ``axis``."""
    if axis is None:
        return values.reshape((-1,) + values.shape[ndim:])[:count]
    index = [slice(None)] * values.ndim
    index[axis] = slice(0, count)
    return values[tuple(index)]


def _launcher(device):
    def run(kernel, dim, *inputs):
        launch(kernel, dim, inputs=list(inputs), device=device, record_tape=False)

    return run

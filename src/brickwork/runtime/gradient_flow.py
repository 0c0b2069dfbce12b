"""``Tape.backward``'s check for gradient flow cut by an intermediate array without a gradient.

An array written by one recorded launch and read by a later one carries the gradient between them only if it
has one (``requires_grad``): without it the backward pass has nowhere to put its adjoint, and the gradient of
what the first launch read is silently zero (Warp's too). The check walks the recorded launches in order, once
per backward pass of a tape with new launches (the launch path does no more work), and warns once per (writer,
reader) pair of kernel arguments when such an array sits between a launch that reads an array requiring
gradients and a later one that writes one. It uses the arguments each kernel reads and writes (the compiler's
``param_access``); arrays of integers and booleans carry no gradient and are not reported. Off with
``wp.config.verify_gradient_flow = False`` (``BRICKWORK_VERIFY_GRADIENT_FLOW=0``).
"""

from __future__ import annotations

import warnings

from ..types.arrays import array
from ..types.scalars import float16, float32, float64

_FLOATS = (float16, float32, float64)

#: (writer kernel, argument, reader kernel, argument) already reported in this process
reported: set = set()


def _access(kernel) -> tuple | None:
    """The positions of the parameters the loaded instances of ``kernel`` read and write, and the parameters'
    names (None: no instance loaded, or a kernel without parameters' access)."""
    reads, writes, found = set(), set(), False
    for entry in getattr(kernel, "launch_table", {}).values():
        access = getattr(entry[0], "access", None)
        if access is None:
            continue
        found = True
        reads.update(access[0])
        writes.update(access[1])
    if not found:
        return None
    names = [name for name, _ in kernel.params]
    return tuple(i for i in reads if i < len(names)), tuple(i for i in writes if i < len(names)), names


def _floating(a: array) -> bool:
    dtype = a.dtype
    return (getattr(dtype, "_dtype", dtype)) in _FLOATS


def _where(kernel) -> str:
    code = getattr(getattr(kernel, "func", None), "__code__", None)
    return f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""


def cuts(launches) -> list[tuple]:
    """``(writer kernel, argument, reader kernel, argument)`` for each array without a gradient that a launch
    reading a gradient-carrying array writes and a later launch writing one reads (``launches``: a tape's)."""
    kernels: dict = {}  # kernel -> _access(kernel), looked up once per kernel
    pending: dict = {}  # ptr of an array without gradient -> (kernel, argument) of the launch that wrote it last
    found: list = []
    for entry in launches:
        if callable(entry):
            continue
        kernel = entry[0]
        access = kernels.get(kernel, False)
        if access is False:
            access = kernels[kernel] = _access(kernel)
        if access is None:
            continue
        reads, writes, names = access
        args = [*entry[2], *entry[3]]
        if len(args) != len(names):
            continue
        read_grad = write_grad = False
        for i in writes:
            a = args[i]
            if isinstance(a, array) and a.grad is not None:
                write_grad = True  # the gradient flows back into this launch
                break
        for i in reads:
            a = args[i]
            if not isinstance(a, array):
                continue
            if a.grad is not None:
                read_grad = True
            elif write_grad and a.ptr in pending:
                cut = (*pending[a.ptr], kernel, names[i])
                if cut not in found:
                    found.append(cut)
        for i in writes:
            a = args[i]
            if isinstance(a, array) and a.grad is None and a.size and _floating(a):
                if read_grad:
                    pending[a.ptr] = (kernel, names[i])
                else:
                    pending.pop(a.ptr, None)  # overwritten by values that depend on no gradient
    return found


def check(tape) -> None:
    """Warn (once per pair of arguments in a process) about the cuts among ``tape``'s launches."""
    new = [c for c in cuts(tape.launches) if (c[0].key, c[1], c[2].key, c[3]) not in reported]
    if not new:
        return
    reported.update((c[0].key, c[1], c[2].key, c[3]) for c in new)
    lines = [f"array '{argument}' of kernel '{writer.key}'{_where(writer)}, read as '{read_as}' by kernel "
             f"'{reader.key}'{_where(reader)}" for writer, argument, reader, read_as in new]
    warnings.warn("Tape.backward: gradient flow is cut by an array without requires_grad between two recorded "
                  "launches: " + "; ".join(lines) + ". The gradient stops there: the arrays the writing kernel "
                  "reads get none through it. Create the array with requires_grad=True, or turn this check off "
                  "with wp.config.verify_gradient_flow = False", UserWarning, stacklevel=3)

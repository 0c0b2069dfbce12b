"""``Tape.backward``'s check for gradient flow cut by an intermediate array without a gradient.

An array written by one recorded launch and read by a later one carries the gradient between them only if it
has one (``requires_grad``): without it the backward pass has nowhere to put its adjoint, and the gradient of
what the first launch read is silently zero (Warp's too). The check walks the recorded launches in order, once
per backward pass of a tape with new launches (the launch path does no more work), and warns once per (writer,
reader) pair of kernel arguments when such an array sits between a launch that reads an array requiring
gradients and a later one that writes one. It uses the arguments each kernel reads and writes (the compiler's
``param_access``); arrays of integers and booleans carry no gradient and are not reported. Off with
``wp.config.verify_gradient_flow = False`` (``BRICKWORK_VERIFY_GRADIENT_FLOW=0``).

Steps that are no kernel launch take part where the tape knows their arrays (``Step``, noted by
``Tape._record_step`` at their place among the launches): a copy (``wp.copy``, ``assign``, ``clone``) reads its
source and writes its destination, whether or not the tape records its gradient; a linear solve reads ``b`` and
``A`` and writes ``x``; a reduction reads its inputs and writes ``out``; a ``record_func`` function reads each
array it lists, and writes those with a gradient (the others may be constants it reads: not assumed written).
"""

from __future__ import annotations

import os
import sys
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


class Step:
    """A recorded step that is no kernel launch, as the check's messages name it: ``label`` (with its file:line),
    ``key`` (what ``reported`` keeps of it)."""

    __slots__ = ("key", "label")

    def __init__(self, label: str):
        self.key = self.label = label


#: a copy between arrays without gradients: it may end a pending array's cut, never start or read one
ANY_COPY = Step("a copy")
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_inside: dict = {}  # a code object's file name -> whether it is brickwork's (names may hold '..': normalized)


def _in_package(filename: str) -> bool:
    found = _inside.get(filename)
    if found is None:
        found = _inside[filename] = os.path.abspath(filename).startswith(_PACKAGE)
    return found


def caller_step(what: str) -> Step:
    """``what`` at the first line of the call stack outside brickwork (the user's call that made the step)."""
    frame = sys._getframe(1)
    while frame is not None and _in_package(frame.f_code.co_filename):
        frame = frame.f_back
    return Step(what if frame is None else f"{what} at {frame.f_code.co_filename}:{frame.f_lineno}")


def function_step(function) -> Step:
    """A ``record_func`` step: the function's name and where it is defined."""
    code = getattr(function, "__code__", None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    return Step(f"record_func function '{getattr(function, '__qualname__', type(function).__name__)}'{where}")


def _describe(who) -> str:
    return who.label if isinstance(who, Step) else f"kernel '{who.key}'{_where(who)}"


def _visit(who, names, args, reads, writes, pending: dict, found: list) -> None:
    """One step's part of ``cuts``: ``args[i]`` for ``i`` in ``reads`` (``writes``) is read (written), as
    argument ``names[i]`` of ``who`` (a kernel or a ``Step``)."""
    read_grad = write_grad = False
    for i in writes:
        a = args[i]
        if isinstance(a, array) and a.grad is not None:
            write_grad = True  # the gradient flows back into this step
            break
    for i in reads:
        a = args[i]
        if not isinstance(a, array):
            continue
        if a.grad is not None:
            read_grad = True
        elif write_grad and a.ptr in pending:
            cut = (*pending[a.ptr], who, names[i])
            if cut not in found:
                found.append(cut)
    for i in writes:
        a = args[i]
        if isinstance(a, array) and a.grad is None and a.size and _floating(a):
            if read_grad:
                pending[a.ptr] = (who, names[i])
            else:
                pending.pop(a.ptr, None)  # overwritten by values that depend on no gradient


def cuts(launches, steps=()) -> list[tuple]:
    """``(writer, argument, reader, argument)`` for each array without a gradient that a step reading a
    gradient-carrying array writes and a later step writing one reads (``launches``: a tape's; ``steps``: its
    ``(position, Step, names, arrays, reads, writes)`` of the other steps, each before the launch at ``position``).
    Writers and readers are kernels or ``Step``s."""
    kernels: dict = {}  # kernel -> _access(kernel), looked up once per kernel
    pending: dict = {}  # ptr of an array without gradient -> (writer, argument) of the step that wrote it last
    found: list = []
    upcoming = iter(steps)
    step = next(upcoming, None)
    for index, entry in enumerate(launches):
        while step is not None and step[0] <= index:
            _visit(*step[1:], pending, found)
            step = next(upcoming, None)
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
        if len(args) == len(names):
            _visit(kernel, names, args, reads, writes, pending, found)
    while step is not None:
        _visit(*step[1:], pending, found)
        step = next(upcoming, None)
    return found


def check(tape) -> None:
    """Warn (once per pair of arguments in a process) about the cuts among ``tape``'s launches and other steps."""
    new = [c for c in cuts(tape.launches, tape._flow_steps) if (c[0].key, c[1], c[2].key, c[3]) not in reported]
    if not new:
        return
    reported.update((c[0].key, c[1], c[2].key, c[3]) for c in new)
    lines = [f"array '{argument}' of {_describe(writer)}, read as '{read_as}' by {_describe(reader)}"
             for writer, argument, reader, read_as in new]
    warnings.warn("Tape.backward: gradient flow is cut by an array without requires_grad between two recorded "
                  "steps: " + "; ".join(lines) + ". The gradient stops there: the arrays the writing step "
                  "reads get none through it. Create the array with requires_grad=True, or turn this check off "
                  "with wp.config.verify_gradient_flow = False", UserWarning, stacklevel=3)

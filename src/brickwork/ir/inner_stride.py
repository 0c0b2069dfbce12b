"""Which arrays of a function the launch's unit-stride flag speaks for.

A target may build a kernel's body for arrays whose innermost stride is one element (the launch
says whether every array *argument* has one) and skip the innermost multiply there. That flag says
nothing of an array reached another way: a field of a struct argument, an element of a tuple, the
result of a call. Such an array may be any view, so a target addresses its elements with their
strides, and a function called with one runs in its any-stride variant.

``any_stride_locals(fn)`` names the locals (and parameters) of ``fn`` that may hold such an array,
through any chain of assignments; ``has_any_stride(e, names)`` says it of an expression.
"""

from __future__ import annotations

from ..types.arrays import ArrayType
from . import nodes as ir
from .walk import walk

#: builtins whose array result is contiguous (a slice, ``array_slice``, may have any stride)
_CONTIGUOUS_RESULTS = frozenset({"array_from_ptr", "array_from_global_ptr", "fixed_zeros"})


def has_any_stride(e, names: frozenset) -> bool:
    """Whether array expression ``e`` may have an innermost stride the launch's flag does not cover."""
    while isinstance(e, ir.IRSubarray):  # a view keeps its array's innermost stride
        e = e.array
    if isinstance(e, ir.IRLocal):
        return e.name in names
    if isinstance(e, ir.IRField):  # brickwork's own tables (packs) are contiguous by construction
        return not getattr(e.base.type, "_bw_contiguous_arrays", False)
    if isinstance(e, ir.IRCall):
        return e.op not in _CONTIGUOUS_RESULTS
    return isinstance(e, (ir.IRTupleGet, ir.IRFuncCall))


def any_stride_locals(fn: ir.IRFunction) -> frozenset:
    """The array locals of ``fn`` assigned (directly or through other locals) an array of any stride."""
    copies = [(s.target.name, s.value) for s in walk(fn.body) if isinstance(s, ir.IRAssign)
              and isinstance(s.target, ir.IRLocal) and isinstance(s.target.type, ArrayType)]
    names: frozenset = frozenset()
    while True:  # to a fixed point: a local copied from one found in the last round
        found = frozenset(n for n, value in copies if has_any_stride(value, names))
        if found <= names:
            return names
        names |= found

"""Arrays as conditions in kernels, as Warp has them: ``if a:``, ``not a``, ``a and b``,
``x if a else y`` and the condition of ``wp.where``/``wp.select`` test whether the array has data
(a None argument, an empty array and ``wp.array(ptr=0, ...)`` are false)."""

from __future__ import annotations

from .. import ir
from ..types.arrays import ArrayType
from ..types.fixed_arrays import FixedArrayType
from ..types.scalars import bool_

#: builtin id -> which of its arguments are conditions (None: all of them)
_CONDITION_ARGUMENTS = {"logical_not": None, "logical_and": None, "logical_or": None, "where": (0,), "select": (0,)}


def truth_value(value: ir.IRExpr) -> ir.IRExpr:
    """``value`` as a condition: an array becomes the bool "it has data"; anything else is unchanged."""
    t = value.type
    if isinstance(t, ArrayType) and not isinstance(t, FixedArrayType):
        return ir.IRCall("array_truth", [value], bool_)
    return value


def truth_arguments(name: str, args: list) -> list:
    """The arguments of builtin ``name`` with its array conditions made bools (others unchanged)."""
    if name not in _CONDITION_ARGUMENTS:
        return args
    which = _CONDITION_ARGUMENTS[name]
    return [truth_value(a) if which is None or i in which else a for i, a in enumerate(args)]

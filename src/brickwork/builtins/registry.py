"""The builtin table: one entry per builtin id with its typing rules, and nothing about targets.

A typing rule takes the argument types and returns the result type, or raises ``Mismatch``
with a reason. How a target implements a builtin is that target's business (its
``select_builtins`` table), so a new target adds spellings without touching this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..types.arrays import ArrayType, type_name
from ..types.composite import is_matrix_type, is_quat_type, is_transform_type, is_vector_type
from ..types.scalars import bool_, is_scalar_type


class Mismatch(Exception):
    """A builtin does not accept these argument types; the message says why."""


class Unsupported(Mismatch):
    """The builtin exists for these kinds of values but not for this scalar type (reported as a
    ``KernelUnsupportedTypeError``; no other overload is tried)."""


@dataclass(frozen=True)
class Builtin:
    name: str
    rule: Callable
    doc: str = ""


BUILTINS: dict[str, list[Builtin]] = {}


def builtin(name: str, doc: str = ""):
    """Register a typing rule for builtin ``name`` (several rules per name are tried in order)."""

    def register(rule):
        entry = Builtin(name, rule, doc or (rule.__doc__ or ""))
        BUILTINS.setdefault(name, []).append(entry)
        return rule

    return register


def resolve(name: str, arg_types: list) -> tuple[Builtin, object]:
    """The entry of ``name`` that accepts ``arg_types``, and the result type; Mismatch if none."""
    entries = BUILTINS.get(name)
    if not entries:
        raise Mismatch(f"unknown builtin {name!r}")
    reasons, counts = [], 0
    for entry in entries:
        try:
            return entry, entry.rule(*arg_types)
        except Unsupported:
            raise
        except Mismatch as e:
            reasons.append(str(e))
        except TypeError:  # wrong number of arguments for this rule
            counts += 1
    if not reasons:  # no rule takes this many: say so (a rule of another count says nothing about the types)
        n = len(arg_types)
        raise Mismatch(f"does not take {n} argument{'' if n == 1 else 's'}")
    raise Mismatch(reasons[0] if len(reasons) == 1 else "; ".join(dict.fromkeys(reasons)))


# -- predicates shared by the families ---------------------------------------------------------


def names(*types) -> str:
    labels = [type_name(t) for t in types]
    return " and ".join(labels) if len(labels) == 2 else ", ".join(labels)


def same(*types):
    first = types[0]
    for t in types[1:]:
        if t is not first:
            raise Mismatch(f"operand types must match, got {names(*types)}")
    return first


def need(cond: bool, reason: str):
    if not cond:
        raise Mismatch(reason)


def is_numeric_scalar(t) -> bool:
    return is_scalar_type(t) and t is not bool_


def is_float_scalar(t) -> bool:
    return is_scalar_type(t) and t.is_float


def is_int_scalar(t) -> bool:
    return is_scalar_type(t) and t.is_int


def is_vec_like(t) -> bool:
    return is_vector_type(t) or is_quat_type(t) or is_transform_type(t)


def is_value_type(t) -> bool:
    return is_scalar_type(t) or is_vector_type(t) or is_matrix_type(t) or is_quat_type(t) or is_transform_type(t)


def scalar_of(t):
    """The component scalar type of a scalar, vector, matrix or quaternion type."""
    return t if is_scalar_type(t) else getattr(t, "_dtype", None)


def is_array(t) -> bool:
    return isinstance(t, ArrayType)

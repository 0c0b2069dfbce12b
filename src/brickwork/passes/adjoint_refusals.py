"""What the adjoint's normal form refuses to differentiate, and the error it raises then
(``KernelNotDifferentiableError`` naming the kernel)."""

from __future__ import annotations

from .. import ir
from ..errors import KernelNotDifferentiableError
from ..ir.analysis import EFFECT_PREFIXES
from .adjoint_values import access_path, carries_adjoint


def not_differentiable(label: str, what: str) -> KernelNotDifferentiableError:
    return KernelNotDifferentiableError(f"kernel '{label}' cannot be differentiated: {what}")


def check_slot_update(s: ir.IRAssign, label: str) -> None:
    """``a[i].x op= v``, a component or field of an array element updated in place, differentiates only for
    ``+=`` and ``-=`` of the builtins (the slot's adjoint passes through unchanged): another operator (``*=``,
    a user function named ``add``) needs the value the slot held, which the store overwrote before the
    backward kernel replays the statement (Warp refuses these too)."""
    path, root = access_path(s.target)
    if not (s.updates and path and isinstance(root, ir.IRArrayElem) and carries_adjoint(s.value.type)):
        return
    value = s.value
    if isinstance(value, ir.IRCall) and value.op in ("add", "sub") and _same_place(value.args[0], s.target):
        return
    if not isinstance(value, (ir.IRCall, ir.IRFuncCall)):  # a wp.ref write-back: the callee's result
        return
    raise not_differentiable(label, "Differentiable composite slot augmented assignments with this operator are "
                              "not supported with backward code generation enabled (the update needs the value "
                              "it overwrites). Write the result to a separate array, or use "
                              "enable_backward=False for forward-only code.")


def _same_place(a, b) -> bool:
    """Whether expressions ``a`` and ``b`` name the same place (the read and the store of ``x op= v``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ir.IRLocal):
        return a.name == b.name
    if isinstance(a, ir.IRConst):
        return a.value == b.value and a.type is b.type
    if isinstance(a, ir.IRArrayElem):
        return _same_place(a.array, b.array) and len(a.indices) == len(b.indices) and all(
            _same_place(x, y) for x, y in zip(a.indices, b.indices))
    if isinstance(a, ir.IRComponent):
        return _same_place(a.base, b.base) and len(a.indices) == len(b.indices) and all(
            _same_place(x, y) for x, y in zip(a.indices, b.indices))
    if isinstance(a, ir.IRField):
        return a.name == b.name and _same_place(a.base, b.base)
    if isinstance(a, ir.IRCall):  # a view made in place (``a[lo:hi:step][i].x += v``): the same pure call
        return (a.op == b.op and not a.op.startswith(EFFECT_PREFIXES) and len(a.args) == len(b.args)
                and all(_same_place(x, y) for x, y in zip(a.args, b.args)))
    return False

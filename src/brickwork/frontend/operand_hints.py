"""What an operator's type error adds when its operands are scalars of two types and neither is a Python number
(``_python_number_hint`` covers those): the conversion that makes them match, written out with the operand's
own text, so that ``a[i] + i`` of a float32 array says ``write wp.float32(i)``.

In a generic kernel or function an operand read from a generic parameter (``s``, ``a[i]``, ``v[i].x``) has the
type of the argument passed for it. When both operands come from such arguments, the mismatch is in what the
caller passed, so the hint names the argument to pass in the other type; a conversion in the body is written
``type(other)(x)``, which fits every instance, where ``wp.float32(x)`` would fit this one only."""

from __future__ import annotations

import ast

from ..types.arrays import ArrayType, type_name
from ..types.generic import is_generic
from ..types.scalars import bool_, is_scalar_type

LEAD = "; kernels convert no operand implicitly: write"


def generic_parameters(source) -> frozenset:
    """The names of the parameters of ``source`` (a kernel's or function's parsed source) whose annotation is
    generic; empty when there are none or the annotations cannot be read."""
    try:
        annotations = source.annotations()
    except Exception:  # an annotation that does not evaluate was reported where the function was defined
        return frozenset()
    return frozenset(n for n, t in annotations.items() if n != "return" and is_generic(t))


def _root_name(src: ast.expr) -> str | None:
    """The name an operand reads from: ``a`` of ``a``, ``a[i]``, ``a[i].x`` and ``a[i][0]``."""
    while isinstance(src, (ast.Subscript, ast.Attribute)):
        src = src.value
    return src.id if isinstance(src, ast.Name) else None


def conversion_hint(left_src: ast.expr, left, right_src: ast.expr, right, generic: frozenset = frozenset()) -> str:
    """``"; ...: write wp.T(x)"`` for the operand to convert (the integer beside a float, else the narrower of two
    floats or of two integers), or "" when the operands are not two scalar numbers of different types.
    ``generic`` names the generic parameters: operands read from them take their types from the arguments."""
    a, b = left.type, right.type
    if not (is_scalar_type(a) and is_scalar_type(b)) or a is b or bool_ in (a, b):
        return ""
    roots = _root_name(left_src), _root_name(right_src)
    passed = [r if r in generic else None for r in roots]
    if a.is_float != b.is_float:  # the integer takes the float's type
        convert = 1 if a.is_float else 0
    elif a._size != b._size:  # the narrower takes the wider type, losing nothing
        convert = 0 if a._size < b._size else 1
    else:  # a signed and an unsigned integer of one size: either conversion may change a value
        convert = None
    if passed[0] and passed[1] and passed[0] != passed[1]:
        return _argument_hint((left_src, a, passed[0]), (right_src, b, passed[1]), convert)
    sources, types = (left_src, right_src), (a, b)
    if convert is None:
        return f"{LEAD} {_cast(a, right_src, left_src, passed[0])} or {_cast(b, left_src, right_src, passed[1])}"
    keep = 1 - convert
    return f"{LEAD} {_cast(types[keep], sources[convert], sources[keep], passed[keep], types[convert])}"


def array_operand_hint(left_src: ast.expr, left, right_src: ast.expr, right) -> str:
    """``"; a kernel thread ..."`` when an operand is a whole array (``x * 2.0``, a numpy habit): operators in
    kernels take elements; whole-array arithmetic is the host's. "" when neither operand is an array."""
    sides = [src for src, v in ((left_src, left), (right_src, right)) if isinstance(v.type, ArrayType)]
    if not sides:
        return ""
    a = ast.unparse(sides[0])
    return (f"; a kernel thread works on elements, not whole arrays: index it, {a}[i] with i = wp.tid() (arithmetic "
            f"on whole arrays, {a} * 2.0, is written outside kernels)")


def store_hint(place_src: ast.expr, place, value_src: ast.expr, value, generic: frozenset = frozenset()) -> str:
    """``"; ...: write wp.T(x)"`` for a value of another scalar type stored into (or combined into) a place: the
    value takes the place's type, since the place's cannot change; when both types come from the arguments of
    two generic parameters, the argument to pass in the other type. "" when they are not two scalar numbers."""
    a, b = place.type, value.type
    if not (is_scalar_type(a) and is_scalar_type(b)) or a is b or bool_ in (a, b):
        return ""
    passed = [r if r in generic else None for r in (_root_name(place_src), _root_name(value_src))]
    if passed[0] and passed[1] and passed[0] != passed[1]:
        return _argument_hint((place_src, a, passed[0]), (value_src, b, passed[1]), 1)
    return f"{LEAD} {_cast(a, value_src, place_src, passed[0], b)}"


def variable_hint(name: str, variable, value_src: ast.expr, value, generic: frozenset = frozenset()) -> str:
    """``"; 's' is int32, ...: start it as ..."`` for ``s op= value`` where the local variable ``s`` holds an integer
    (or a narrower float) than the value: a variable keeps the type of its first value, so ``s = 0`` before a
    loop that adds ``a[j]`` of a float array fails; the fix is where ``s`` starts (or converting the value)."""
    a, b = variable.type, value.type
    if not (is_scalar_type(a) and is_scalar_type(b)) or a is b or bool_ in (a, b):
        return ""
    if not (b.is_float and (not a.is_float or a._size < b._size)):
        return ""
    wanted = type_name(b)
    if _root_name(value_src) in generic:
        start = f"{name} = type({ast.unparse(value_src)})(0)"
    else:
        start = f"{name} = 0.0" if wanted == "float32" else f"{name} = wp.{wanted}(0.0)"
    return (f"; '{name}' is {type_name(a)}, the type of its first value, and a variable keeps its type: start it "
            f"as {wanted} ({start}), or write {_cast(a, value_src, None, False)}")


def _cast(to, src: ast.expr, other_src: ast.expr, other_passed, from_type=None) -> str:
    """``src`` converted to ``to``, the type of ``other_src``: ``type(other)(src)`` when that type is an
    argument's (a generic parameter's), so that the body stays right for every instance. ``src`` an integer
    ``a / b`` (``from_type``) going to a float: its operands are converted, since the quotient is already cut."""
    if (from_type is not None and to.is_float and not from_type.is_float and isinstance(src, ast.BinOp)
            and isinstance(src.op, ast.Div)):
        operands = " / ".join(_cast(to, side, other_src, other_passed) for side in (src.left, src.right))
        return (f"{operands} ('/' of two {type_name(from_type)} values divides as integers in kernels, as in C "
                f"and Warp: 7 / 2 is 3, where Python and numpy give 3.5)")
    if other_passed:
        return f"type({ast.unparse(other_src)})({ast.unparse(src)})"
    return f"wp.{type_name(to)}({ast.unparse(src)})"


def _argument_hint(left, right, convert) -> str:
    """Both operands come from arguments of different generic parameters: the fix is in what is passed. A
    parameter used whole (a scalar ``s``) is the one to pass in the other's type; of two arrays' elements, the
    right operand is converted in the body's spelling (``a[i] * b[i]`` is usually stored where ``a[i]`` is)."""
    (left_src, a, left_name), (right_src, b, right_name) = left, right
    lead = (f"; kernels convert no operand implicitly, and both types come from the arguments of generic "
            f"parameters '{left_name}' and '{right_name}'")
    whole = isinstance(left_src, ast.Name), isinstance(right_src, ast.Name)
    if whole[0] == whole[1] and not whole[0]:
        return (f"{lead}: pass arrays of one dtype (they are {type_name(a)} and {type_name(b)}), "
                f"or write type({ast.unparse(left_src)})({ast.unparse(right_src)})")
    if whole[0] != whole[1]:
        convert = 0 if whole[0] else 1
    elif convert is None:
        convert = 1
    src, name, other_src, to = (left_src, left_name, right_src, b) if convert == 0 else \
        (right_src, right_name, left_src, a)
    scalar = type_name(to)
    python = {"float32": "a Python float, ", "int32": "a Python int, "}.get(scalar, "")
    return (f"{lead}: pass '{name}' as {scalar} ({python}wp.{scalar}(v) or numpy.{scalar}(v)), "
            f"or write type({ast.unparse(other_src)})({ast.unparse(src)})")

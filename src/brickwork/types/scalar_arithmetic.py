"""Arithmetic of host scalar values (``wp.float32(2) * wp.float32(3)``), as a kernel computes it.

The operators follow Warp's host scalars: both operands have one scalar type (a Python ``float`` counts
as a ``float32``, a Python ``int`` as an ``int32``, a numpy scalar as its dtype); ``+ - * / %`` and unary
``+ -`` work on numbers, ``**`` on floats; integers wrap around, integer ``/`` truncates toward zero and
``%`` takes the dividend's sign (by zero both give 0, as in kernels); floats follow IEEE (``1 / 0`` is
inf). The result is a value of the operands' type, except that ``float32`` and ``int32`` results are
Python ``float`` and ``int``, as Warp returns them. ``abs()`` and ``round()`` keep the type.
``install`` adds the operators to the scalar base class (``scalars`` calls it; no import back).
"""

from __future__ import annotations

import math

import numpy as np

_PYTHON_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "pow": "** or pow()"}


def _float_op(op, a: float, b: float) -> float:
    """IEEE double arithmetic (the caller rounds once to the operands' type, which gives the correctly
    rounded result of that type for + - * / and fmod)."""
    if op == "mod":
        return math.fmod(a, b) if b != 0 and math.isfinite(a) else math.nan
    with np.errstate(all="ignore"):
        x, y = np.float64(a), np.float64(b)
        r = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power}[op](x, y)
    return float(r)


def _int_op(op, a: int, b: int, signed: bool) -> int:
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if b == 0 or (signed and b == -1 and op == "mod"):
        return 0  # as the kernel language: no trap
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # toward zero, as C
    return q if op == "div" else a - b * q


def install(base, float32, int32, bool_) -> None:
    """Give the scalar types (subclasses of ``base``) their operators."""

    def operand_type(x):
        """The scalar type of an operand, or None when the operator is not this class's to handle."""
        if isinstance(x, base):
            return type(x)
        if isinstance(x, bool):
            return bool
        if isinstance(x, int):
            return int32
        if isinstance(x, float):
            return float32
        if isinstance(x, np.generic) and not isinstance(x, (np.bool_, np.complexfloating)):
            return next((t for t in base.__subclasses__() if getattr(t, "_np", None) is type(x)
                         and t.__name__ != "bfloat16"), None)
        return None

    def result(t, value):
        with np.errstate(over="ignore"):  # a float beyond the type's range is inf, as in a kernel
            value = t._convert(value)
        return value if t is float32 or t is int32 else t(value)

    def compute(op, t, a, b):
        if t.is_float:
            return result(t, _float_op(op, float(a), float(b)))
        return result(t, _int_op(op, int(a), int(b), t.is_signed))

    def binary(op, reflected=False):
        def method(self, other):
            t, u = type(self), operand_type(other)
            if u is None or t is bool_ or (op == "pow" and not t.is_float):
                return NotImplemented  # arrays and composites handle it; else Python's TypeError
            if u is not t:
                left, right = (other, self) if reflected else (self, other)
                names = [type(v).__name__ for v in (left, right)]
                raise RuntimeError(f"Couldn't find a function '{op}' compatible with the arguments "
                                   f"'{names[0]}, {names[1]}'")
            a, b = self.value, getattr(other, "value", other)
            return compute(op, t, b, a) if reflected else compute(op, t, a, b)

        method.__name__ = f"__{'r' if reflected else ''}{'truediv' if op == 'div' else op}__"
        method.__doc__ = f"``{_PYTHON_SYMBOL[op]}`` of two values of this scalar type, as a kernel computes it."
        return method

    def unary(sign):
        def method(self):
            t = type(self)
            if t is bool_:
                raise TypeError(f"bad operand type for unary {'-' if sign < 0 else '+'}: 'bool'")
            return result(t, -self.value if sign < 0 else self.value)

        method.__name__ = "__neg__" if sign < 0 else "__pos__"
        return method

    for op in ("add", "sub", "mul", "div", "mod", "pow"):
        name = "truediv" if op == "div" else op
        setattr(base, f"__{name}__", binary(op))
        setattr(base, f"__r{name}__", binary(op, reflected=True))
    base.__neg__ = unary(-1)
    base.__pos__ = unary(1)
    base.__abs__ = lambda self: type(self)(abs(self.value))  # wraps: abs(int8(-128)) is int8(-128)
    base.__round__ = lambda self, ndigits=None: type(self)(round(self.value, ndigits))

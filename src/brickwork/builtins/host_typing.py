"""Kernel types of scalar builtins called from Python (``wp.mul(wp.int8(3), wp.int8(100))``).

As in a kernel, the arguments keep their types: a brickwork scalar its own, a numpy scalar the matching
one, a Python float is a float32 and a Python int an int32 (wrapping). Overloads need one type for every
argument (no implicit conversion: ``wp.mul(wp.int8(2), 3)`` is refused, as Warp refuses it), and the
result is computed in that type: integers wrap, floats round once. The result comes back as Warp gives
it: a Python float for float32, a Python int for int32, a bool for predicates, else a scalar of its type
(``config.legacy_scalar_return_types`` makes every result a Python number).
"""

from __future__ import annotations

import operator

import numpy as np

from .. import config
from ..types.scalars import ScalarBase, bool_, dtype_from_numpy, float32, int32, uint32

#: Builtins defined for floating-point arguments only.
FLOAT_ONLY = frozenset({"sqrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
                        "tanh", "log2", "log10", "exp2", "cbrt", "pow", "erf", "erfc", "copysign", "floor", "ceil",
                        "trunc", "round", "frac", "degrees", "radians", "smoothstep", "isnan", "isinf",
                        "isfinite"})
#: Builtins defined for integer arguments only.
INT_ONLY = frozenset({"bit_and", "bit_or", "bit_xor", "lshift", "rshift", "invert"})
#: Scalar builtins whose host calls are typed here (the others keep their own rules).
TYPED_SCALAR = FLOAT_ONLY | INT_ONLY | frozenset({
    "add", "sub", "mul", "div", "mod", "floordiv", "neg", "pos", "abs", "min", "max", "clamp", "sign", "step",
    "nonzero"})


def kernel_type(x):
    """The scalar type ``x`` has as a kernel argument, or None when it is no scalar."""
    if isinstance(x, ScalarBase):
        return type(x)
    if isinstance(x, (bool, np.bool_)):
        return bool_
    if isinstance(x, np.generic):
        return dtype_from_numpy(x.dtype)
    if isinstance(x, float):
        return float32
    if isinstance(x, int):
        return int32
    return None


def _spelling(x) -> str:
    """An argument's type as Warp's overload errors write it (``int8``, ``int``, ``float``)."""
    return type(x).__name__


def no_overload(name: str, args) -> RuntimeError:
    return RuntimeError(f"Couldn't find a function '{name}' compatible with the arguments "
                        f"'{', '.join(_spelling(a) for a in args)}'")


def scalar_call(name: str, fn, args):
    """``fn`` (the Python formula of builtin ``name``) on scalar ``args``, typed as in a kernel."""
    types = {kernel_type(a) for a in args}
    if len(types) != 1 or bool_ in types:
        raise no_overload(name, args)
    t = types.pop()
    if (name in FLOAT_ONLY and not t.is_float) or (name in INT_ONLY and not t.is_int):
        raise no_overload(name, args)
    values = [t._convert(a.value if isinstance(a, ScalarBase) else a.item() if isinstance(a, np.generic) else a)
              for a in args]
    if t.is_int:
        if name in _SHIFTS:  # the count modulo the width the kernel computes in (32 bits, or 64)
            values[1] &= 63 if np.dtype(t._np).itemsize == 8 else 31
        # integer division or modulo by zero gives 0, as in a kernel
        result = 0 if name in _DIVISIONS and values[1] == 0 else _INT_FORMULAS.get(name, fn)(*values)
    else:
        with np.errstate(all="ignore"):
            result = _FLOAT_FORMULAS.get(name, fn)(*(np.float64(v) for v in values))
    return typed_result(result, t)


def extremum(name: str, pick, np_pick, np_index):
    """The host ``min``/``max`` (``pick``: Python's, ``np_pick``: numpy's elementwise one): of scalars of one
    type, of two vectors of one type (per component), or of one vector's components; ``a=``/``b=`` are
    Warp's parameter names. ``np_index`` (argmin/argmax) gives the extreme component's index of a vector."""
    from ..types.composite import CompositeBase

    def is_vector(x):
        return isinstance(x, CompositeBase) and x._kind == "vector"

    def host(*args, **kwargs):
        args = args + tuple(kwargs.pop(k) for k in ("a", "b") if k in kwargs)
        if kwargs:
            raise TypeError(f"{name}() got unexpected keyword arguments: {', '.join(kwargs)}")
        if args and all(kernel_type(a) is not None for a in args):
            return scalar_call(name, pick, args)
        if len(args) == 1 and is_vector(args[0]):
            return typed_result(np_index(args[0]._data), args[0]._dtype)
        if len(args) == 2 and is_vector(args[0]) and type(args[0]) is type(args[1]):
            return type(args[0])(np_pick(args[0]._data, args[1]._data))
        raise no_overload(name, args)

    return host


def index_of(np_index):
    """The host ``argmin``/``argmax`` of a vector: the component's index as a ``uint32``, as Warp's (NaN
    components skipped; 0 when all are NaN)."""
    from ..types.composite import CompositeBase

    nan_index = {np.argmin: np.nanargmin, np.argmax: np.nanargmax}[np_index]

    def host(v):
        if not (isinstance(v, CompositeBase) and v._kind == "vector"):
            raise no_overload(np_index.__name__, (v,))
        data = np.asarray(v._data)
        if data.dtype.kind == "f" and np.isnan(data).all():
            return typed_result(0, uint32)
        return typed_result(int(nan_index(data)), uint32)

    return host


def typed_result(value, t):
    """A builtin's result ``value`` of scalar type ``t`` as Warp returns it to Python."""
    if isinstance(value, np.ndarray):  # a 0-d result of a vectorized formula
        value = value[()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    value = t._convert(value.item() if isinstance(value, np.generic) else value)
    if config.legacy_scalar_return_types or t is float32 or t is int32:
        return value
    return t(value)


def _c_div(a: int, b: int) -> int:
    """Integer division truncated toward zero, as C's."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _c_mod(a: int, b: int) -> int:
    """The remainder of C's division: the sign of the dividend."""
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


_INT_FORMULAS = {"div": _c_div, "mod": _c_mod, "sign": lambda x: -1 if x < 0 else 1,
                 "step": lambda x: 1 if x < 0 else 0, "nonzero": lambda x: 0 if x == 0 else 1,
                 "lshift": operator.lshift, "rshift": operator.rshift}
_SHIFTS = frozenset({"lshift", "rshift"})
_DIVISIONS = frozenset({"div", "mod", "floordiv"})
def _select_max(a, b):
    """brickwork.h's float max: a NaN ``a`` yields ``b``, else the larger, ``a`` when they compare equal."""
    return b if a != a or a < b else a


def _select_min(a, b):
    return b if a != a or b < a else a


# fmod: C's, the sign of the dividend; min/max: a NaN operand yields the other (clamp(NaN, lo, hi) is lo);
# clamp is min(max(lo, x), hi) as in a kernel and in Warp, which decides the sign of a zero between zeros
_FLOAT_FORMULAS = {"mod": np.fmod, "min": np.fmin, "max": np.fmax,
                   "clamp": lambda x, a, b: _select_min(_select_max(a, x), b)}

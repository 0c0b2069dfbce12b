"""Python-side names of kernel builtins (``brickwork.sin``, ``brickwork.tid``, ...).

They exist so that kernels can spell ``wp.sin(x)``; inside a kernel the frontend maps each to
its entry in the builtin table. Called from ordinary Python they compute on the host where
that is meaningful (scalars), else they say they belong in kernels.
"""

from __future__ import annotations

import math

import numpy as np


class BuiltinFunction:
    """A kernel builtin exposed as a Python name."""

    __slots__ = ("name", "host", "doc")

    def __init__(self, name: str, host=None, doc: str = ""):
        self.name = name
        self.host = host
        self.doc = doc or f"Kernel builtin ``{name}``."

    @property
    def __name__(self):
        return self.name

    def __call__(self, *args, **kwargs):
        if self.host is None:
            raise RuntimeError(f"{self.name}() can only be called inside a @kernel or @func")
        plain = [getattr(a, "value", a) for a in args]
        return self.host(*plain, **kwargs)

    def __repr__(self):
        return f"<brickwork builtin {self.name}>"


_HOST = {
    "sqrt": math.sqrt, "exp": math.exp, "log": math.log, "sin": math.sin, "cos": math.cos, "tan": math.tan,
    "asin": math.asin, "acos": math.acos, "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh,
    "cosh": math.cosh, "tanh": math.tanh, "floor": math.floor, "ceil": math.ceil, "trunc": math.trunc,
    "log2": math.log2, "log10": math.log10, "exp2": lambda x: 2.0 ** x, "cbrt": np.cbrt,
    "abs": abs, "min": min, "max": max, "pow": pow, "isnan": math.isnan, "isinf": math.isinf,
    "isfinite": math.isfinite, "clamp": lambda x, a, b: min(max(x, a), b),
    "sign": lambda x: (x > 0) - (x < 0), "round": np.round, "frac": lambda x: x - math.trunc(x),
    "degrees": math.degrees, "radians": math.radians,
}

NAMES = (
    "tid print printf expect_eq expect_neq "
    "min max abs sign clamp floor ceil round trunc frac rint sqrt cbrt exp exp2 log log2 log10 pow sin cos tan "
    "asin acos atan atan2 sinh cosh tanh isnan isinf isfinite degrees radians lerp "
    "dot cross length length_sq normalize outer transpose determinant inverse diag identity ddot trace skew "
    "cw_mul cw_div quat_rotate quat_rotate_inv quat_inverse quat_identity quat_from_axis_angle "
    "select where atomic_add atomic_sub atomic_min atomic_max len "
    "par_for_inner ScratchPad1D ScratchPad2D ScratchPad3D"
).split()

FUNCTIONS = {name: BuiltinFunction(name, _HOST.get(name)) for name in NAMES}

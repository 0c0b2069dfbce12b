"""Warp's named constants (``wp.pi``, ``wp.HALF_PI``, ...): Python floats, usable on the host and in kernels,
where a float literal is float32 unless it meets a float64 operand, as any literal."""

import math

_VALUES = {
    "pi": math.pi, "tau": math.tau, "half_pi": math.pi / 2, "e": math.e, "log2e": math.log2(math.e),
    "log10e": math.log10(math.e), "ln2": math.log(2.0), "ln10": math.log(10.0), "phi": (1 + math.sqrt(5)) / 2,
    "inf": math.inf, "nan": math.nan,
}

#: Lower-case and upper-case spellings, as Warp has both (``wp.pi`` and ``wp.PI``).
CONSTANTS = {**{k: v for k, v in _VALUES.items() if k != "half_pi"}, **{k.upper(): v for k, v in _VALUES.items()}}

"""Warp's named constants (``wp.pi``, ``wp.HALF_PI``, ...): Python floats, usable on the host and in kernels,
where a float literal is float32 unless it meets a float64 operand, as any literal."""

import math

_VALUES = {
    "pi": math.pi, "tau": math.tau, "half_pi": math.pi / 2, "e": math.e, "log2e": math.log2(math.e),
    "log10e": math.log10(math.e), "ln2": math.log(2.0), "ln10": math.log(10.0), "phi": (1 + math.sqrt(5)) / 2,
    "inf": math.inf, "nan": math.nan,
}

#: Lower-case and upper-case spellings, as Warp has both (``wp.pi`` and ``wp.PI``).
CONSTANTS = {**_VALUES, **{k.upper(): v for k, v in _VALUES.items()}}

_TEXT = {
    "pi": "pi, the ratio of a circle's circumference to its diameter (3.14159...)",
    "tau": "tau = 2 pi (6.28318...)", "half_pi": "pi / 2 (1.57079...)", "e": "Euler's number e (2.71828...)",
    "log2e": "the base-2 logarithm of e (1.44269...)", "log10e": "the base-10 logarithm of e (0.43429...)",
    "ln2": "the natural logarithm of 2 (0.69314...)", "ln10": "the natural logarithm of 10 (2.30258...)",
    "phi": "the golden ratio (1 + sqrt(5)) / 2 (1.61803...)", "inf": "positive infinity", "nan": "a quiet NaN",
}

#: What each constant is, for the API reference (a float cannot carry a docstring of its own).
CONSTANT_DOCS = {name: f"The constant {_TEXT[name.lower()]}, as a Python float (``wp.{name}``)." for name in CONSTANTS}

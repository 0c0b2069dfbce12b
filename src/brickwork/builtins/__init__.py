"""The builtin table (typing rules by builtin id) and the Python-side names of builtins; importing
this package registers every family."""

from . import atomics, linalg, math, operators  # noqa: F401  (registration side effects)
from .functions import FUNCTIONS, BuiltinFunction
from .registry import BUILTINS, Builtin, Mismatch, resolve

__all__ = ["BUILTINS", "Builtin", "BuiltinFunction", "FUNCTIONS", "Mismatch", "resolve"]

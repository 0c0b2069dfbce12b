"""The builtin table; importing this package registers every family."""

from . import atomics, linalg, math, operators  # noqa: F401  (registration side effects)
from .registry import BUILTINS, Builtin, Mismatch, resolve

__all__ = ["BUILTINS", "Builtin", "Mismatch", "resolve"]

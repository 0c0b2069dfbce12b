"""The complete builtin table: every family's typing rules, registered on import."""

from . import atomics, decompositions, fast_math, geometry, linalg, math, noise, operators, random  # noqa: F401  (registration side effects)
from .registry import BUILTINS, Mismatch, resolve

__all__ = ["BUILTINS", "Mismatch", "resolve"]

"""Builtins: the Python-side names (``functions``), and the table of typing rules by builtin id
(``table``: importing it registers every family). Importing this package alone loads no rules,
so ``import brickwork`` stays cheap; typing imports ``builtins.table``."""

from .functions import FUNCTIONS, BuiltinFunction
from .registry import Builtin, Mismatch

__all__ = ["Builtin", "BuiltinFunction", "FUNCTIONS", "Mismatch"]

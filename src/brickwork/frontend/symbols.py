"""The symbol table of one function being typed: runtime locals, compile-time names, fresh names.

A local function (nested ``def`` or ``lambda``) types in a child scope: the names it assigns are
its own (Python's scoping), so the table gives them unique names in the function being built;
names it only reads resolve in the enclosing scopes.
"""

from __future__ import annotations

from ..types.arrays import type_name
from ..types.scalars import bool_, is_scalar_type
from .stack_frame import local_bytes


class SymbolTable:
    """Locals (declared once, with one type), parameters, static names and fresh-name counters."""

    def __init__(self, params: dict):
        self.params = dict(params)
        self.locals: dict = {}  # runtime locals of the function (parameters excluded) -> type
        self.types: dict = dict(params)  # every runtime name -> type
        self.statics: dict = {}  # names bound to compile-time values (type variables, local functions)
        # runtime locals whose value is known here (the variable of an unrolled loop): wp.static() reads them
        self.known: dict = {}
        self._renames: list[dict] = [{}]  # per scope: source name -> unique name
        self._counters: dict = {}
        self.frame_bytes = 0  # bytes of the locals on the thread's stack (stack_frame.py)

    # -- names --------------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        """A name no other symbol of this function has, spelled ``<prefix><n>``."""
        n = self._counters.get(prefix, 0) + 1
        self._counters[prefix] = n
        return f"{prefix}{n}"

    def unique(self, name: str) -> str:
        """The name a source name stands for in the current scope."""
        for scope in reversed(self._renames):
            if name in scope:
                return scope[name]
        return name

    def rebind(self, name: str) -> str:
        """A new unique name that source name ``name`` stands for from now on (in the current scope)."""
        fresh = self.fresh(f"{name}__")
        self._renames[-1][name] = fresh
        return fresh

    def push_scope(self, own_names, suffix: str) -> None:
        """Enter a local function's scope: ``own_names`` become ``<name><suffix>``."""
        self._renames.append({n: n + suffix for n in own_names})

    def pop_scope(self) -> None:
        self._renames.pop()

    # -- runtime locals -----------------------------------------------------------------------
    def type_of(self, name: str):
        return self.types.get(name)

    def declare(self, name: str, t):
        """Declare (or re-use) local ``name`` of type ``t``; a second type is an error the caller
        reports (returns the known type when it differs)."""
        known = self.types.get(name)
        if known is None:
            self.types[name] = t
            if name not in self.params:
                self.locals[name] = t
                self.frame_bytes += local_bytes(t)
        return known

    def temp(self, t, prefix: str = "_tmp") -> str:
        name = self.fresh(prefix)
        self.declare(name, t)
        return name


def conflict(name: str, known, t, parameter: bool = False) -> str:
    """The error of a second type for ``name``; where the new value is a wider number (a float for an int
    started as ``s = 0``), where to give the variable that type. A parameter's type is its annotation: the new
    value takes a name of its own (as numpy code rebinds ``x = np.zeros(...)``)."""
    if parameter:
        return (f"'{name}' is a parameter of type {type_name(known)} (its annotation) and cannot be assigned a value "
                f"of type {type_name(t)}: give the new value a name of its own ({name}_new = ...)")
    start = ""
    if is_scalar_type(known) and is_scalar_type(t) and t.is_float and bool_ is not known and (
            not known.is_float or known._size < t._size):
        wanted = type_name(t)
        first = "0.0" if wanted == "float32" else f"wp.{wanted}(0.0)"
        start = f": to hold {wanted} values, give it that type where it is first assigned ({name} = {first})"
    return (f"variable '{name}' has type {type_name(known)} and cannot be assigned a value of type "
            f"{type_name(t)} (a variable keeps its first type{start})")



"""``wp.build_experimental.add_builtin``: a C++ function (of a module's ``wp.ModuleBuildOptions`` preamble or
its headers) called in kernels as ``wp.<name>(...)``, as Warp 1.19's experimental API registers one.

brickwork makes it a ``wp.func_native`` function whose snippet calls ``native_name`` with the parameters:
no gradient flows through it, and Python cannot call it. One signature per name (Warp's registry takes
overloads of other parameter types); Warp's ``add_native_type`` (C++ structs as kernel values) is not here.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Mapping

from ..types.arrays import type_name
from ..types.scalars import python_annotation_type
from .native import NativeFunction

_NATIVE_NAME = re.compile(r"(::)?[A-Za-z_]\w*(::[A-Za-z_]\w*)*")
_REGISTERED: dict = {}  # name -> (its input types, return type, native name, the NativeFunction)


def add_builtin(name: str, input_types: Mapping | None = None, value_type=None, *, native_name: str | None = None,
                doc: str = ""):
    """Make the C++ function ``native_name`` (default ``wp::<name>``) of parameters ``input_types`` (an ordered
    mapping of names to types) returning ``value_type`` (None: void) callable in kernels as ``wp.<name>``.
    Registering the same signature and C++ name again returns the first function."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"add_builtin: name must be a valid Python identifier, got {name!r}")
    input_types = {} if input_types is None else input_types
    if not isinstance(input_types, Mapping):
        raise TypeError(f"add_builtin: input_types must be a mapping of parameter names to types or None, got "
                        f"{type(input_types).__name__}")
    if not all(isinstance(p, str) and p.isidentifier() for p in input_types):
        raise ValueError(f"add_builtin: input_types keys must be valid Python identifiers, got {list(input_types)}")
    if not isinstance(doc, str):
        raise TypeError(f"add_builtin: doc must be a str, got {type(doc).__name__}")
    native_name = f"wp::{name}" if native_name is None else native_name
    if not isinstance(native_name, str) or not _NATIVE_NAME.fullmatch(native_name):
        raise ValueError(f"add_builtin: native_name must be a qualified C++ identifier, got {native_name!r}")
    contract = (tuple(input_types.items()), value_type, native_name)
    package = sys.modules[__name__.split(".")[0]]
    found = _REGISTERED.get(name)
    if found is not None:
        if found[:3] == contract:
            return found[3]
        same_inputs = found[0] == contract[0]
        raise RuntimeError(f"add_builtin: cannot register conflicting external builtin '{name}' "
                           f"{'with input types' if same_inputs else 'of other input types'} {_shown(contract)} "
                           f"(registered: {_shown(found)}); brickwork keeps one signature per name")
    if hasattr(package, name):
        raise ValueError(f"add_builtin: '{name}' is a name of brickwork's own (wp.{name}); choose another")
    params = ", ".join(input_types)
    call = f"{native_name}({params});"
    function = NativeFunction(_typed_stub(name, input_types, value_type, doc),
                              call if value_type is None else f"return {call}")
    _REGISTERED[name] = (*contract, function)
    setattr(package, name, function)  # kernels find it as wp.<name>
    return function


def _shown(contract) -> str:
    """``(x: float32) -> float32 as ext::f`` of a registration's (input types, return type, native name)."""
    params = ", ".join(f"{p}: {type_name(python_annotation_type(t))}" for p, t in contract[0])
    result = "None" if contract[1] is None else type_name(python_annotation_type(contract[1]))
    return f"({params}) -> {result} as {contract[2]}"


def _typed_stub(name: str, input_types: Mapping, value_type, doc: str):
    """A Python function of ``name`` whose signature and annotations are ``input_types`` -> ``value_type``."""

    def stub(*args):  # never run: NativeFunction refuses a call from Python
        return None

    stub.__name__ = stub.__qualname__ = name
    stub.__doc__ = doc or None
    stub.__annotations__ = {**input_types, **({"return": value_type} if value_type is not None else {})}
    stub.__signature__ = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=t) for p, t in input_types.items()],
        return_annotation=value_type if value_type is not None else inspect.Signature.empty)
    return stub


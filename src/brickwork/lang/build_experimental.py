"""``wp.build_experimental.add_builtin``: a C++ function (of a module's ``wp.ModuleBuildOptions`` preamble or
its headers) called in kernels as ``wp.<name>(...)``, as Warp 1.19's experimental API registers one.

brickwork makes each signature a ``wp.func_native`` function whose snippet calls ``native_name`` with the
parameters: no gradient flows through it, and Python cannot call it. Registering the name again with other
parameter types adds an overload, as Warp's registry does: a call takes the first overload its arguments' types
match exactly, else the first one number literals convert to. Warp's ``add_native_type`` (C++ structs as kernel
values) is not here.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Mapping

from ..errors import KernelTypeError
from ..frontend.intrinsics import INTRINSICS
from ..types.arrays import type_name
from ..types.scalars import python_annotation_type
from .native import NativeFunction, argument_fit, call_with_values

_NATIVE_NAME = re.compile(r"(::)?[A-Za-z_]\w*(::[A-Za-z_]\w*)*")
_REGISTERED: dict = {}  # name -> its ExternalBuiltin


class ExternalBuiltin:
    """``wp.<name>`` of ``add_builtin``: its overloads, in the order they were registered, each a
    ``(input types, return type, native name)`` contract and the ``wp.func_native`` function calling it."""

    def __init__(self, name: str, doc: str):
        self.key = self.__name__ = self.__qualname__ = name
        self.__doc__ = doc or None
        self.overloads: list = []

    def __repr__(self):
        return f"<wp.build_experimental.add_builtin {self.key}: {'; '.join(_shown(c) for c, _ in self.overloads)}>"

    def __call__(self, *args, **kwargs):
        raise TypeError(f"wp.{self.key} is a C++ function registered with wp.build_experimental.add_builtin: it can "
                        f"be called in kernels and functions only")


def add_builtin(name: str, input_types: Mapping | None = None, value_type=None, *, native_name: str | None = None,
                doc: str = ""):
    """Make the C++ function ``native_name`` (default ``wp::<name>``) of parameters ``input_types`` (an ordered
    mapping of names to types) returning ``value_type`` (None: void) callable in kernels as ``wp.<name>``, and
    return ``wp.<name>``. Other input types add an overload; the same ones with another result or C++ name are a
    ``RuntimeError``, and the same signature and C++ name again change nothing."""
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
    builtin = _REGISTERED.get(name)
    if builtin is None and hasattr(package, name):
        raise ValueError(f"add_builtin: '{name}' is a name of brickwork's own (wp.{name}); choose another")
    for found, _ in builtin.overloads if builtin is not None else ():
        if found == contract:
            return builtin
        if found[0] == contract[0]:  # other parameter types are another overload; the same ones conflict
            raise RuntimeError(f"add_builtin: cannot register conflicting external builtin '{name}' with input "
                               f"types {_shown(contract)} (registered: {_shown(found)})")
    params = ", ".join(input_types)
    call = f"{native_name}({params});"
    function = NativeFunction(_typed_stub(name, input_types, value_type, doc),
                              call if value_type is None else f"return {call}")
    if builtin is None:
        builtin = _REGISTERED[name] = ExternalBuiltin(name, doc)
        setattr(package, name, builtin)  # kernels find it as wp.<name>
    builtin.overloads.append((contract, function))
    return builtin


def _call(typer, builtin: ExternalBuiltin, node):
    """The call of the first overload the arguments match exactly, else of the first that literals convert to."""
    if node.keywords:
        raise typer.error(KernelTypeError, f"wp.{builtin.key}(): an add_builtin function takes positional arguments "
                          f"only", node)
    values = [typer.value(arg_node) for arg_node in node.args]
    fits = [(function, [argument_fit(declared, value, arg_node)
                        for (_, declared), value, arg_node in zip(function.params, values, node.args)])
            for _, function in builtin.overloads if len(function.params) == len(values)]
    for wanted in ({"exact"}, {"exact", "literal"}):
        for function, fit in fits:
            if set(fit) <= wanted:
                return call_with_values(typer, function, node, values)
    given = ", ".join(type_name(v.type) for v in values)
    raise typer.error(KernelTypeError, f"wp.{builtin.key}(): no overload takes arguments ({given}); registered: "
                      f"{'; '.join(_shown(c) for c, _ in builtin.overloads)}", node)


def _fingerprint(builtin: ExternalBuiltin, seen: set) -> str:
    return f"add_builtin {builtin.key}: " + "; ".join(f"{_shown(c)} {f.c_name}" for c, f in builtin.overloads)


INTRINSICS.register(ExternalBuiltin, call=_call, fingerprint=_fingerprint)


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


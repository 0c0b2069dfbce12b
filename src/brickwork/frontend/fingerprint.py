"""Cache keys from pre-codegen inputs: a kernel's source and every static value it reaches.

The fingerprint walks the names and dotted names a function uses, resolves them with the
typer's own resolver (``resolve.py``), and hashes what can change the generated code: the source of every function
reached, constants' values, struct layouts, type names. It needs no type inference, so a
cached instance loads without running the frontend or codegen.
"""

from __future__ import annotations

import ast
import hashlib
import types as pytypes

from ..builtins import BuiltinFunction
from ..types.arrays import ArrayType, type_name
from ..types.composite import CompositeBase
from ..types.keys import type_key
from ..types.scalars import ScalarBase
from ..types.structs import StructBase
from .intrinsics import INTRINSICS
from .resolve import MISSING, resolve_chain
from .source import FunctionSource


def name_chains(nodes) -> list[list[str]]:
    """Every name and dotted name (``wp.vec3`` as ``["wp", "vec3"]``) read under the AST ``nodes``, sorted."""
    chains: dict = {}
    # every node under ``nodes``, as ast.walk visits them, without its generators: a cached kernel's key is
    # the first thing its first launch computes, and the walk is most of the fingerprint of a small kernel
    stack = list(nodes)
    AST, Attribute, Name = ast.AST, ast.Attribute, ast.Name
    while stack:
        node = stack.pop()
        parts = []
        cur = node
        while isinstance(cur, Attribute):
            parts.append(cur.attr)
            cur = cur.value
        if isinstance(cur, Name) and (parts or isinstance(node, Name)):
            chain = [cur.id, *reversed(parts)]
            chains[".".join(chain)] = chain
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, AST):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(item for item in value if isinstance(item, AST))
    return [chains[k] for k in sorted(chains)]


def _chains(source: FunctionSource) -> list[list[str]]:
    cached = getattr(source, "_chains", None)
    if cached is None:
        cached = source._chains = name_chains([source.tree])
    return cached


def free_name_values(source: FunctionSource) -> list:
    """(name, value) of every free name a function reads, in a stable order (locals excluded)."""
    names = getattr(source, "_free_names", None)
    if names is None:  # from the tree only: kept with it (loop bodies of closures ask again at each call)
        assigned = {n.id for n in ast.walk(source.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        assigned |= set(source.param_names)
        assigned |= {a.arg for a in ast.walk(source.tree) if isinstance(a, ast.arg)}  # nested defs, lambdas
        names = source._free_names = list(dict.fromkeys(c[0] for c in _chains(source) if c[0] not in assigned))
    out = []
    for name in names:
        value = source.lookup(name)
        if value is not MISSING:
            out.append((name, value))
    return out


class _Walk(set):
    """The ``seen`` of one fingerprint: ids of the functions reached (cycles are cut), and the sources still to
    hash. A function reached from another is hashed after it, not inside it, so a long chain of calls does not
    nest Python calls as deep as the chain."""

    def __init__(self, seen=()):
        super().__init__(seen)
        self.pending: list = []


def function_fingerprint(source: FunctionSource, seen: set | None = None, chains: list | None = None,
                         sources: list | None = None) -> str:
    """Hash of a function's source and of every static value its names (or only ``chains``) resolve to, the
    functions they reach included. ``sources`` (a list) receives ``source`` and the sources of the functions
    reached, in the walk's order: the same for every function of the same fingerprint (``"+N#k"`` lines)."""
    if isinstance(seen, _Walk):  # reached from a function being hashed: its walk hashes this one next
        seen.pending.append(source)
        return f"source {source.qualname} #{len(seen.pending)}"
    walk = _Walk(() if seen is None else seen)
    parts = [_own_fingerprint(source, walk, chains)]
    for reached in walk.pending:  # grows while it is walked
        parts.append(_own_fingerprint(reached, walk, None))
    if sources is not None:
        sources += [source, *walk.pending]
    return parts[0] if len(parts) == 1 else hashlib.sha256("|".join(parts).encode()).hexdigest()


def _own_fingerprint(source: FunctionSource, seen: _Walk, chains: list | None) -> str:
    """Hash of one function's source and values (a function it reaches counts by its place in ``seen.pending``)."""
    h = hashlib.sha256(source.digest.encode())
    for chain in _chains(source) if chains is None else chains:
        value = resolve_chain(source, chain)
        h.update(f"{'.'.join(chain)}={value_fingerprint(value, seen)};".encode())
    for node, value in sorted(source.static_results.items(), key=lambda kv: (kv[0].lineno, kv[0].col_offset)):
        h.update(f"static@{node.lineno}:{node.col_offset}={value_fingerprint(value, seen)};".encode())
    return h.hexdigest()


def value_fingerprint(value, seen: set) -> str:
    """What of one compile-time value can change generated code (``seen`` cuts cycles of functions)."""
    if value is MISSING:
        return "missing"
    rule = INTRINSICS.rule(value, "fingerprint")
    if rule is not None:  # functions, kernels, halos, tags: their registered rule says what counts
        return f"{type(value).__qualname__} {rule(value, seen)}"
    if isinstance(value, BuiltinFunction):
        return f"builtin {value.name}"
    if isinstance(value, pytypes.ModuleType):
        return f"module {value.__name__}"
    if isinstance(value, (bool, int, float, str)) or value is None:
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, (ScalarBase, CompositeBase)):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, ArrayType) or isinstance(value, type):
        try:
            return "type " + type_key(value)
        except TypeError:  # a generic array type (array(dtype=Any)), or a class that is no kernel type
            if isinstance(value, ArrayType):
                return f"generic {type_name(value)}"
            return f"class {value.__module__}.{value.__qualname__}"
    if hasattr(value, "__dataclass_fields__") and getattr(value, "__dataclass_params__", None) is not None \
            and value.__dataclass_params__.frozen:
        return f"{type(value).__qualname__} {value!r}"  # frozen value objects: Index3, MemoryOffset, VarTag
    if isinstance(value, StructBase):  # a struct built on the host (wp.static): its type and field values
        fields = ",".join(value_fingerprint(getattr(value, n), seen) for n, _ in value._fields)
        return f"struct {type_key(type(value))}({fields})"
    if isinstance(value, tuple) and len(value) < 64:
        return "(" + ",".join(value_fingerprint(v, seen) for v in value) + ")"
    if isinstance(value, list) and len(value) < 64:  # deferred wp.static(values[i]) reads the items
        return "[" + ",".join(value_fingerprint(v, seen) for v in value) + "]"
    return f"object {type(value).__module__}.{type(value).__qualname__}"

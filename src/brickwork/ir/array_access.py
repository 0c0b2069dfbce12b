"""How a function uses its array parameters, in program order: which it reads, which it writes, and
where it writes one it has read before (``wp.config.verify_autograd_array_access``, docs/autodiff.md).

Reverse mode replays a kernel's reads, so an array that is read and later overwritten gives wrong
gradients. Reads are loads of elements (through views and aliases too, and in called functions);
stores and atomics are writes, so an in-place ``a[i] += x`` (an atomic add) writes ``a`` only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types.arrays import ArrayType
from . import nodes as ir
from .walk import children, walk


@dataclass(frozen=True)
class ParamAccess:
    reads: frozenset  # names of array parameters whose elements are loaded
    writes: frozenset  # names of array parameters stored to or updated atomically
    read_then_written: tuple  # (name, "file:line" of the write) for each parameter written after a read


def param_access(fn: ir.IRFunction) -> ParamAccess:
    """The array parameters of ``fn`` it reads and writes (see the module's docstring)."""
    events = _events(fn, {})
    reads, writes, seen_read, late = set(), set(), set(), {}
    for kind, name, where in events:
        if kind == "read":
            reads.add(name)
            seen_read.add(name)
        else:
            writes.add(name)
            if name in seen_read and name not in late:
                late[name] = where
    return ParamAccess(frozenset(reads), frozenset(writes), tuple(late.items()))


def _events(fn: ir.IRFunction, memo: dict) -> list:
    """("read" | "write", parameter name, where) of ``fn``'s array parameters in program order."""
    if id(fn) in memo:
        return memo[id(fn)]
    memo[id(fn)] = []  # typing rejects recursion; this only guards the walk
    aliases = _aliases(fn.body)
    raw: list = []
    for stmt in fn.body:
        _visit(stmt, raw, memo)
    params = {name for name, t in fn.params if isinstance(t, ArrayType)}
    out = []
    for kind, local, where in raw:
        for name in sorted(_parameters_of(local, aliases) & params):
            out.append((kind, name, where))
    memo[id(fn)] = out
    return out


def _visit(node, out: list, memo: dict) -> None:
    """Append the array accesses of ``node`` in evaluation order (a store's value before its target)."""
    if isinstance(node, ir.IRAssign):
        _visit(node.value, out, memo)
        target = node.target
        while isinstance(target, (ir.IRComponent, ir.IRField)):  # x[i][0] = v, x[i].p = v: a store to x
            for index in getattr(target, "indices", ()):
                _visit(index, out, memo)
            target = target.base
        if isinstance(target, ir.IRArrayElem):
            for index in target.indices:
                _visit(index, out, memo)
            out.append(("write", _root(target.array), target.where))
        elif not isinstance(target, ir.IRLocal):
            _visit(target, out, memo)
        return
    if isinstance(node, ir.IRCall) and node.op.startswith("atomic_"):
        for arg in node.args[1:]:
            _visit(arg, out, memo)
        out.append(("write", _root(node.args[0]), node.where))
        return
    if isinstance(node, ir.IRArrayElem):
        for index in node.indices:
            _visit(index, out, memo)
        out.append(("read", _root(node.array), node.where))
        return
    if isinstance(node, ir.IRFuncCall):
        for arg in node.args:
            if not isinstance(arg.type, ArrayType):
                _visit(arg, out, memo)
        inner = _events(node.func, memo)
        by_param = {name: _root(arg) for (name, _), arg in zip(node.func.params, node.args)}
        out.extend((kind, by_param.get(name), where) for kind, name, where in inner)
        return
    for child in children(node):
        _visit(child, out, memo)


def _aliases(body) -> dict:
    """Array local -> the names it may hold (``b = a``, ``row = a[i]``)."""
    sources: dict = {}
    for n in walk(body):
        if isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRLocal) and isinstance(n.target.type, ArrayType):
            root = _root(n.value)
            if root is not None:
                sources.setdefault(n.target.name, set()).add(root)
    return sources


def _parameters_of(local, aliases: dict) -> set:
    found, frontier = set(), [local] if local is not None else []
    while frontier:
        name = frontier.pop()
        if name not in found:
            found.add(name)
            frontier.extend(aliases.get(name, ()))
    return found


def _root(e):
    while isinstance(e, ir.IRSubarray) or isinstance(e, ir.IRCall) and e.op == "array_slice":  # views
        e = e.array if isinstance(e, ir.IRSubarray) else e.args[0]
    return e.name if isinstance(e, ir.IRLocal) else None

"""Generic traversal of the IR: children of a node, a walk over a tree, and rebuilding rewrites.

Passes describe only the nodes they change; everything else is copied around them by
``Rewriter``, so a pass never edits a tree another pass (or another visit) still holds.
"""

from __future__ import annotations

import dataclasses

from . import nodes as ir

_NODE_TYPES = (ir.IRExpr, ir.IRStmt, ir.PackVar, ir.LAView)


def _is_node(x) -> bool:
    return isinstance(x, _NODE_TYPES)


def children(node):
    """The nodes directly inside ``node`` (expressions, statements, and their lists)."""
    for f in dataclasses.fields(node):
        if f.name in ("func", "type", "config", "reducer", "halo"):
            continue  # references, not owned children
        value = getattr(node, f.name)
        if _is_node(value):
            yield value
        elif isinstance(value, (list, tuple)):
            for item in value:
                if _is_node(item):
                    yield item


def walk(node):
    """Every node of a tree (or list of statements), parents before children."""
    stack = list(reversed(node)) if isinstance(node, list) else [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(children(n))))


def contains(stmts, node_type) -> bool:
    return any(isinstance(n, node_type) for n in walk(stmts))


class Rewriter:
    """Rebuilds a tree bottom-up; subclasses define ``r_<NodeClass>(node)`` for the nodes they change.

    A statement rule may return a list of statements (spliced in place) or None (dropped). The
    default rule rebuilds the node with rewritten children, so the result shares no node with
    the input.
    """

    def stmts(self, stmts: list) -> list:
        out: list = []
        for s in stmts:
            r = self.stmt(s)
            if r is None:
                continue
            if isinstance(r, list):
                out.extend(r)
            else:
                out.append(r)
        return out

    def stmt(self, s):
        rule = getattr(self, "r_" + type(s).__name__, None)
        return rule(s) if rule is not None else self.copy(s)

    def expr(self, e):
        if e is None:
            return None
        rule = getattr(self, "r_" + type(e).__name__, None)
        return rule(e) if rule is not None else self.copy(e)

    def node(self, x):
        if isinstance(x, ir.IRStmt):
            return self.stmt(x)
        if isinstance(x, (ir.IRExpr, ir.PackVar, ir.LAView)):
            return self.expr(x) if isinstance(x, ir.IRExpr) else self.copy(x)
        return x

    def copy(self, node):
        """``node`` rebuilt with every child rewritten."""
        changes = {}
        for f in dataclasses.fields(node):
            if f.name in ("func", "type", "config", "reducer", "halo") or not f.init:
                continue
            value = getattr(node, f.name)
            if _is_node(value):
                changes[f.name] = self.node(value)
            elif isinstance(value, list):
                if value and isinstance(value[0], ir.IRStmt):
                    changes[f.name] = self.stmts(value)
                else:
                    changes[f.name] = [self.node(v) for v in value]
            elif isinstance(value, tuple) and any(_is_node(v) for v in value):
                changes[f.name] = tuple(self.node(v) for v in value)
        return dataclasses.replace(node, **changes)

    def function(self, fn: ir.IRFunction) -> ir.IRFunction:
        return dataclasses.replace(fn, body=self.stmts(fn.body), locals=dict(fn.locals), buffers=dict(fn.buffers))

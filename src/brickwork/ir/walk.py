"""Generic traversal of the IR: children of a node, a walk over a tree, and rebuilding rewrites.

Passes describe only the nodes they change; everything else is copied around them by
``Rewriter``, so a pass never edits a tree another pass (or another visit) still holds.
"""

from __future__ import annotations

import dataclasses

from . import vocabulary as ir

_NODE_TYPES = (ir.IRExpr, ir.IRStmt, ir.PackVar, ir.LAView)


#: Fields that refer to something outside the tree (not owned children).
_REFERENCES = ("func", "type", "config", "reducer", "halo")
#: Field annotations that never hold a node (the node classes annotate every field).
_LEAF_ANNOTATIONS = ("str", "bool", "int", "int | None", "float", "LAConfig", "SimdReduction | None")
#: Per node class: (names of the fields that may hold children, names of the ``__init__`` fields).
_LAYOUTS: dict = {}


def _is_node(x) -> bool:
    return isinstance(x, _NODE_TYPES)


def _layout(cls) -> tuple:
    """The field names of a node class, computed once (``dataclasses.fields`` is slow per call and
    every pass walks and copies thousands of nodes)."""
    layout = _LAYOUTS.get(cls)
    if layout is None:
        fields = dataclasses.fields(cls)
        layout = _LAYOUTS[cls] = (tuple(f.name for f in fields
                                        if f.name not in _REFERENCES and f.type not in _LEAF_ANNOTATIONS),
                                  tuple(f.name for f in fields if f.init))
    return layout


def owned_fields(cls) -> tuple:
    """The names of the fields of node class ``cls`` that may hold child nodes."""
    layout = _LAYOUTS.get(cls) or _layout(cls)
    return layout[0]


def children(node):
    """The nodes directly inside ``node`` (expressions, statements, and their lists)."""
    return iter(_child_list(node))


def _child_list(node) -> list:
    # a list, not a generator: ``walk`` calls this for every node of whole kernels, and a generator
    # per node was a third of the time of a walk
    owned = (_LAYOUTS.get(type(node)) or _layout(type(node)))[0]
    found = []
    for name in owned:
        value = getattr(node, name)
        if isinstance(value, _NODE_TYPES):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend([item for item in value if isinstance(item, _NODE_TYPES)])
    return found


def walk(node):
    """Every node of a tree (or list of statements), parents before children."""
    stack = list(reversed(node)) if isinstance(node, list) else [node]
    while stack:
        n = stack.pop()
        yield n
        found = _child_list(n)
        if found:
            found.reverse()
            stack.extend(found)


def contains(stmts, node_type) -> bool:
    return any(isinstance(n, node_type) for n in walk(stmts))


#: (rewriter class, node class) -> the name of the rewriter's rule for that node class, or None
_RULES: dict = {}


def _rule_name(rewriter_cls, node_cls):
    """The ``r_<NodeClass>`` rule a rewriter class defines for a node class (None: copy the node),
    looked up once per pair: most nodes have no rule, and a failed ``getattr`` is slow."""
    key = (rewriter_cls, node_cls)
    try:
        return _RULES[key]
    except KeyError:
        name = "r_" + node_cls.__name__
        found = _RULES[key] = name if hasattr(rewriter_cls, name) else None
        return found


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
        name = _rule_name(type(self), type(s))
        return getattr(self, name)(s) if name is not None else self.copy(s)

    def expr(self, e):
        if e is None:
            return None
        name = _rule_name(type(self), type(e))
        return getattr(self, name)(e) if name is not None else self.copy(e)

    def node(self, x):
        if isinstance(x, ir.IRStmt):
            return self.stmt(x)
        if isinstance(x, (ir.IRExpr, ir.PackVar, ir.LAView)):
            return self.expr(x) if isinstance(x, ir.IRExpr) else self.copy(x)
        return x

    def copy(self, node):
        """``node`` rebuilt with every child rewritten (``dataclasses.replace`` with the changed
        children, without its per-call field lookup)."""
        cls = type(node)
        owned, init = _layout(cls)
        values = {}
        for name in init:
            value = getattr(node, name)
            if name in owned:
                if _is_node(value):
                    value = self.node(value)
                elif isinstance(value, list):
                    if value and isinstance(value[0], ir.IRStmt):
                        value = self.stmts(value)
                    else:
                        value = [self.node(v) for v in value]
                elif isinstance(value, tuple) and any(_is_node(v) for v in value):
                    value = tuple(self.node(v) for v in value)
            values[name] = value
        return cls(**values)

    def function(self, fn: ir.IRFunction) -> ir.IRFunction:
        return dataclasses.replace(fn, body=self.stmts(fn.body), locals=dict(fn.locals), buffers=dict(fn.buffers))

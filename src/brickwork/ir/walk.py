"""Generic traversal of the IR: children of a node, a walk over a tree, and rebuilding rewrites.

Passes describe only the nodes they change; everything else is copied around them by
``Rewriter``, so a pass never edits a tree another pass (or another visit) still holds.
"""

from __future__ import annotations

import dataclasses
import inspect
import types as pytypes

from . import vocabulary as ir

_NODE_TYPES = (ir.IRExpr, ir.IRStmt, ir.PackVar, ir.LAView)


#: Fields that refer to something outside the tree (not owned children).
_REFERENCES = ("func", "type", "config", "reducer", "halo")
#: Field annotations that never hold a node (the node classes annotate every field).
_LEAF_ANNOTATIONS = ("str", "bool", "int", "int | None", "float", "LAConfig", "SimdReduction | None")
#: Per node class: (names of the fields that may hold children, names of the ``__init__`` fields).
_LAYOUTS: dict = {}


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
    push = _PUSHERS.get(type(node), _UNKNOWN)
    if push is _UNKNOWN:
        push = _pusher(type(node))
    found: list = []
    if push is not None:
        push(node, found)
        found.reverse()
    return found


#: Per node class: a function ``push(node, stack)`` that appends the nodes directly inside ``node`` to ``stack``
#: in reverse order (the last child first, so that popping visits them in order), or None for a class without
#: child fields (names, constants, breaks)
_PUSHERS: dict = {}
_UNKNOWN = object()


def _pusher(cls):
    """``_PUSHERS``' function of ``cls``, written out field by field: ``walk`` and ``children`` call it for every
    node of whole kernels, and looping over the field names (getattr per name) was most of a walk's time."""
    owned = (_LAYOUTS.get(cls) or _layout(cls))[0]
    if not owned:
        _PUSHERS[cls] = None
        return None
    lines = ["def push(node, stack):", "    append = stack.append"]
    for name in reversed(owned):
        lines += [f"    value = node.{name}",
                  "    if isinstance(value, NODE):",
                  "        append(value)",
                  "    elif isinstance(value, SEQUENCE):",
                  "        for item in reversed(value):",
                  "            if isinstance(item, NODE):",
                  "                append(item)"]
    scope = {"NODE": _NODE_TYPES, "SEQUENCE": (list, tuple)}
    exec("\n".join(lines), scope)  # noqa: S102 - text made here from the class's own field names
    push = _PUSHERS[cls] = scope["push"]
    return push


def walk(node):
    """Every node of a tree (or list of statements), parents before children."""
    stack = list(reversed(node)) if isinstance(node, list) else [node]
    pushers = _PUSHERS
    while stack:
        n = stack.pop()
        yield n
        push = pushers.get(type(n), _UNKNOWN)
        if push is _UNKNOWN:
            push = _pusher(type(n))
        if push is not None:
            push(n, stack)


def contains(stmts, node_type) -> bool:
    """Whether a node of ``node_type`` (a class or tuple of classes) is in a tree (or list of statements)."""
    # ``walk``'s loop without its generator: passes ask this of whole kernels before doing anything
    stack = list(reversed(stmts)) if isinstance(stmts, list) else [stmts]
    pushers = _PUSHERS
    while stack:
        n = stack.pop()
        if isinstance(n, node_type):
            return True
        push = pushers.get(type(n), _UNKNOWN)
        if push is _UNKNOWN:
            push = _pusher(type(n))
        if push is not None:
            push(n, stack)
    return False


def any_node(stmts, test) -> bool:
    """Whether ``test(node)`` is true of a node of a tree (or list of statements), parents before children:
    ``contains`` for a test other than a class (no generator to resume per node, as ``any(... walk(...))`` has)."""
    stack = list(reversed(stmts)) if isinstance(stmts, list) else [stmts]
    pushers = _PUSHERS
    while stack:
        n = stack.pop()
        if test(n):
            return True
        push = pushers.get(type(n), _UNKNOWN)
        if push is _UNKNOWN:
            push = _pusher(type(n))
        if push is not None:
            push(n, stack)
    return False


def node_classes(stmts) -> set:
    """The classes of the nodes of a tree (or list of statements): ``contains`` for several classes in one walk."""
    found: set = set()
    stack = list(reversed(stmts)) if isinstance(stmts, list) else [stmts]
    pushers, add = _PUSHERS, found.add
    while stack:
        n = stack.pop()
        add(type(n))
        push = pushers.get(type(n), _UNKNOWN)
        if push is _UNKNOWN:
            push = _pusher(type(n))
        if push is not None:
            push(n, stack)
    return found


#: (rewriter class, node class) -> the function ``f(rewriter, node)`` that rewrites such a node: the rewriter's rule
#: for the node class, or the copy of the node
_RULES: dict = {}


def _rule(rewriter_cls, node_cls):
    """The ``r_<NodeClass>`` rule a rewriter class defines for a node class (else its copy), looked up once per
    pair: most nodes have no rule, and a failed ``getattr`` is slow."""
    name = "r_" + node_cls.__name__
    if not hasattr(rewriter_cls, name):
        found = _copier(node_cls) if rewriter_cls.copy is Rewriter.copy else _call_copy
    elif isinstance(inspect.getattr_static(rewriter_cls, name), pytypes.FunctionType):
        found = getattr(rewriter_cls, name)
    else:  # a static or class method, or another descriptor: looked up on the rewriter at each call
        def found(self, node, name=name):
            return getattr(self, name)(node)
    _RULES[rewriter_cls, node_cls] = found
    return found


def _call_copy(self, node):
    return self.copy(node)


#: Per node class: ``copy(rewriter, node)``, the node rebuilt with every child rewritten (``Rewriter.copy``)
_COPIERS: dict = {}


def _copier(cls):
    """``_COPIERS``' function of ``cls``, written out field by field (``dataclasses.replace`` with the changed
    children, without its per-call field lookup): every pass copies every node it has no rule for. The fields are
    read, and the children rewritten, in the order of the class's fields, as a rewrite may number what it makes."""
    found = _COPIERS.get(cls)
    if found is not None:
        return found
    owned = (_LAYOUTS.get(cls) or _layout(cls))[0]
    lines = ["def copy(self, node):"]
    args = []
    for i, f in enumerate(f for f in dataclasses.fields(cls) if f.init):
        lines.append(f"    v{i} = node.{f.name}")
        if f.name in owned:
            lines += [f"    if isinstance(v{i}, NODE):",
                      f"        v{i} = self.node(v{i})",
                      f"    elif isinstance(v{i}, list):",
                      f"        if v{i} and isinstance(v{i}[0], STMT):",
                      f"            v{i} = self.stmts(v{i})",
                      "        else:",
                      f"            v{i} = [self.node(x) for x in v{i}]",
                      f"    elif isinstance(v{i}, tuple) and any(isinstance(x, NODE) for x in v{i}):",
                      f"        v{i} = tuple([self.node(x) for x in v{i}])"]
        args.append(f"{f.name}=v{i}" if f.kw_only else f"v{i}")
    lines.append(f"    return cls({', '.join(args)})")
    scope = {"NODE": _NODE_TYPES, "STMT": ir.IRStmt, "cls": cls}
    exec("\n".join(lines), scope)  # noqa: S102 - text made here from the class's own field names
    found = _COPIERS[cls] = scope["copy"]
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
        rule = _RULES.get((type(self), type(s))) or _rule(type(self), type(s))
        return rule(self, s)

    def expr(self, e):
        if e is None:
            return None
        rule = _RULES.get((type(self), type(e))) or _rule(type(self), type(e))
        return rule(self, e)

    def node(self, x):
        if isinstance(x, ir.IRStmt):
            return self.stmt(x)
        if isinstance(x, ir.IRExpr):
            return self.expr(x)
        if isinstance(x, (ir.PackVar, ir.LAView)):
            return self.copy(x)
        return x

    def copy(self, node):
        """``node`` rebuilt with every child rewritten."""
        return (_COPIERS.get(type(node)) or _copier(type(node)))(self, node)

    def function(self, fn: ir.IRFunction) -> ir.IRFunction:
        return dataclasses.replace(fn, body=self.stmts(fn.body), locals=dict(fn.locals), buffers=dict(fn.buffers))

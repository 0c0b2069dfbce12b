"""Deep expressions split into statements before typing, so the compiler's recursive walkers never
meet one deeper than ``MAX_DEPTH``.

Generated kernel code (a polynomial from sympy, a long sum written out) nests an expression a few
hundred levels deep: ``a0 + a1 + ... + a400`` is a chain of 400 additions. Typing, every pass and the
renderers walk expressions recursively, a few Python frames per level, and would exhaust Python's
recursion limit. ``bound_depth`` rewrites such a statement, in the syntax tree, into assignments to
fresh locals followed by the statement::

    out[0] = a0 + a1 + ... + a400      ->      _bw_deep0 = a0 + ... + a63
                                               _bw_deep1 = _bw_deep0 + a64 + ... + a127
                                               ...
                                               out[0] = _bw_deep5 + ... + a400

Only the order of evaluation could change a result, so a subtree is moved out only where it is
evaluated once and unconditionally as part of its statement (never from a branch of ``x if c
else y``, the right of ``and``/``or``, a ``while`` test, ``wp.static`` or ``type()``), and only
when everything that ran before it in the statement still does: it is the first operand evaluated
at every level on its way up, or what ran before it reads no memory and calls nothing while it
calls nothing itself (calls of builtins without an effect and of constructors do not count). A
subtree made of literals only is never moved (a literal's type can depend on its context). What
is left deeper than ``MAX_DEPTH`` (those cases) is reported by ``deepest``, so that the compiler
can name the line if it fails.
"""

from __future__ import annotations

import ast

#: The deepest expression left in a statement (levels of the syntax tree below the statement).
MAX_DEPTH = 64

_OPAQUE_CALLS = {"static", "type", "typeof"}  # evaluated at declaration or for their type only
_READS = (ast.Subscript, ast.Attribute)


def bound_depth(fn: ast.FunctionDef, pure_call=None) -> ast.AST | None:
    """Split the deep expressions of ``fn``'s statements (in place); the root of the deepest
    expression left deeper than ``MAX_DEPTH``, or None. ``pure_call(node)`` says whether an
    ``ast.Call`` has no effect (a math builtin, a constructor): such calls may run in any order."""
    if not _deeper_than(fn, MAX_DEPTH):
        return None  # nothing to split (nearly every function): one pass over its tree
    names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | {a.arg for a in ast.walk(fn)
                                                                       if isinstance(a, ast.arg)}
    splitter = _Splitter(names, pure_call)
    stack = [fn]
    while stack:  # every statement list, without recursion (nesting of blocks is shallow anyway)
        node = stack.pop()
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, splitter.block(block))
                stack.extend(s for s in getattr(node, field) if isinstance(s, ast.stmt))
        for handler in getattr(node, "handlers", ()):
            stack.append(handler)
    return splitter.deepest


def _deeper_than(node: ast.AST, limit: int) -> bool:
    """Whether the tree under ``node`` is more than ``limit`` levels deep (a level at a time, stopping there)."""
    level = [node]
    for _ in range(limit):
        level = [child for n in level for child in syntax_children(n)]
        if not level:
            return False
    return True


def syntax_children(node: ast.AST) -> list:
    """``ast.iter_child_nodes(node)`` as a list, without its generators: every declaration walks its whole tree
    (here, and for its ``wp.static`` calls), and the generators were most of that time."""
    found = []
    AST = ast.AST
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, AST):
            found.append(value)
        elif isinstance(value, list):
            found.extend([item for item in value if isinstance(item, AST)])
    return found


def depths(root: ast.AST, pure_call=None) -> dict:
    """Per node under ``root`` (by ``id``): its depth (a leaf: 1), whether it calls anything that
    may have an effect (or assigns, awaits) and whether it reads memory (subscripts, attributes);
    without recursion."""
    out: dict = {}
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(ast.iter_child_nodes(node))
    for node in reversed(order):
        calls = isinstance(node, (ast.NamedExpr, ast.Await)) or isinstance(node, ast.Call) and not (
            pure_call is not None and pure_call(node))
        depth, reads = 0, isinstance(node, _READS)
        for c in ast.iter_child_nodes(node):
            cd, cc, cr = out[id(c)]
            depth, calls, reads = max(depth, cd), calls or cc, reads or cr
        out[id(node)] = (depth + 1, calls, reads)
    return out


class _Splitter:
    def __init__(self, names: set, pure_call):
        self.names, self.pure_call = names, pure_call
        self.count = 0
        self.deepest = None
        self.deepest_depth = MAX_DEPTH

    def block(self, stmts: list) -> list:
        out = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: ast.stmt) -> list:
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr)) and s.value is not None:
            slot, before = "value", []
        elif isinstance(s, ast.AugAssign):
            slot, before = "value", [s.target]  # the target is read before the value
        elif isinstance(s, ast.If):
            slot, before = "test", []
        elif isinstance(s, ast.For):
            slot, before = "iter", []
        else:
            return [s]
        hoisted: list = []
        while True:
            root = getattr(s, slot)
            d = depths(root, self.pure_call)
            if d[id(root)][0] <= MAX_DEPTH:
                break
            cut = _cut(root, d, before, self.pure_call)
            if cut is None:
                if d[id(root)][0] > self.deepest_depth:
                    self.deepest, self.deepest_depth = root, d[id(root)][0]
                break
            holder, field, index, node = cut
            name = self._fresh()
            assign = ast.copy_location(ast.Assign(targets=[ast.Name(name, ast.Store())], value=node), node)
            hoisted.append(ast.fix_missing_locations(assign))
            ref = ast.copy_location(ast.Name(name, ast.Load()), node)
            if index is None:
                setattr(holder, field, ref)
            else:
                getattr(holder, field)[index] = ref
        return [*hoisted, s]

    def _fresh(self) -> str:
        while f"_bw_deep{self.count}" in self.names:
            self.count += 1
        name = f"_bw_deep{self.count}"
        self.names.add(name)
        return name


def _cut(root, d: dict, before: list, pure_call):
    """(holder, field, index, subtree) of the subtree to move out: on the path of greatest depth,
    the first node at most ``MAX_DEPTH`` deep; None when that path leaves what may move."""
    if before:
        d.update(depths(before[0], pure_call))
    node, ran = root, list(before)
    while True:
        operands = _unconditional(node)
        if not operands:
            return None
        best = max(range(len(operands)), key=lambda n: d[id(operands[n][3])][0])
        child = operands[best][3]
        if d[id(child)][0] < d[id(node)][0] - 1:
            return None  # the depth lies in an operand that may not run (a branch, the right of and/or)
        earlier = ran + [o[3] for o in operands[:best]]
        if earlier and not _may_run_first(d[id(child)], [d[id(e)] for e in earlier]):
            return None
        if d[id(child)][0] <= MAX_DEPTH:
            return None if _literal_only(child) or d[id(child)][0] < 2 else operands[best]
        node, ran = child, earlier


def _unconditional(node) -> list:
    """(holder, field, index, operand) of the operands ``node`` evaluates once, always, in their
    order of evaluation."""
    if isinstance(node, ast.BinOp):
        return [(node, "left", None, node.left), (node, "right", None, node.right)]
    if isinstance(node, ast.UnaryOp):
        return [(node, "operand", None, node.operand)]
    if isinstance(node, ast.Compare):  # a chain stops at its first false comparison
        return [(node, "left", None, node.left), (node, "comparators", 0, node.comparators[0])]
    if isinstance(node, ast.BoolOp):  # the right of and/or may not run
        return [(node, "values", 0, node.values[0])]
    if isinstance(node, ast.IfExp):
        return [(node, "test", None, node.test)]
    if isinstance(node, ast.Call):
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if callee in _OPAQUE_CALLS or any(isinstance(a, ast.Starred) for a in node.args):
            return []
        return ([(node, "args", i, a) for i, a in enumerate(node.args)]
                + [(k, "value", None, k.value) for k in node.keywords if k.arg is not None])
    if isinstance(node, ast.Subscript):
        return [(node, "value", None, node.value), (node, "slice", None, node.slice)]
    if isinstance(node, ast.Attribute):
        return [(node, "value", None, node.value)]
    if isinstance(node, ast.Tuple):
        return [(node, "elts", i, e) for i, e in enumerate(node.elts)]
    return []


def _may_run_first(node: tuple, earlier: list) -> bool:
    """Whether an operand may be evaluated before the ``earlier`` ones (their ``depths`` entries):
    they call nothing, and they read no memory unless it calls nothing (a call could write what
    they read)."""
    if any(calls for _, calls, _ in earlier):
        return False
    return not node[1] or not any(reads for _, _, reads in earlier)


def _literal_only(node) -> bool:
    return not any(isinstance(n, (ast.Name, ast.Call, ast.Subscript, ast.Attribute)) for n in ast.walk(node))

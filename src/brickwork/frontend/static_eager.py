"""``wp.static`` expressions evaluated once, when a kernel or function is declared (as Warp does).

An expression whose names are all globals, closure variables or Python builtins is evaluated when
the decorator runs: its side effects happen once, and later changes to the names it reads (even to
the name ``wp.static`` is called by) do not change the kernel. As in Warp, a global or closure
variable wins over a local of the same name outside the loops that bind it. An expression that reads
a parameter or the variable of a loop it is in, or that fails here (it reads a local), is evaluated
while the function is typed, where the compile-time names of the body are known and an error is
reported at its place in the kernel.
"""

from __future__ import annotations

import ast
import builtins

from ..builtins.static import static
from .shallow import syntax_children
from .source import MISSING


def evaluate_eagerly(source) -> dict:
    """Call node -> value of each ``wp.static(...)`` of ``source`` that can be evaluated now."""
    found: dict = {}
    if not _calls_static(source):
        return found  # (nearly every function: one plain walk, no loop variables tracked)
    stack = [(source.tree, _parameters(source.tree))]  # a stack, not recursion: expressions may be deep
    while stack:
        node, loop_vars = stack.pop()
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and _is_static(source, node.func):
            names = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
            if not names & loop_vars:
                try:
                    code = compile(ast.Expression(body=node.args[0]), "<wp.static>", "eval")
                    found[node] = eval(code, {"__builtins__": builtins}, _Names(source))  # noqa: S307
                    continue  # the statics nested in it were part of its evaluation
                except Exception:  # noqa: BLE001 - evaluated (and reported) while typing instead
                    pass
        inner = loop_vars
        if isinstance(node, ast.For):
            # the loop's own variables are known only where the loop is unrolled: statics reading them wait
            inner = loop_vars | {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        children = [(c, loop_vars if c is getattr(node, "iter", None) else inner) for c in syntax_children(node)]
        stack.extend(reversed(children))  # in source order: side effects as written
    return found


def static_plan(source) -> list:
    """``[(call node, compiled expression)]`` of the ``wp.static`` calls ``evaluate_eagerly`` evaluated for
    ``source``, in source order: ``evaluate_planned`` evaluates them for another closure of the same code as
    ``evaluate_eagerly`` would (the same calls: its other names are the same objects, ``BodyKernel.twin``), without
    the walk. (One left for typing reads only compile-time names and loop variables there.)"""
    nodes = sorted(source.static_results, key=lambda n: (n.lineno, n.col_offset))
    return [(n, compile(ast.Expression(body=n.args[0]), "<wp.static>", "eval")) for n in nodes]


def evaluate_planned(source, plan: list) -> dict:
    """Call node -> value of each expression of ``plan`` (``static_plan``), with ``source``'s names; an
    expression's error is raised."""
    return {node: eval(code, {"__builtins__": builtins}, _Names(source)) for node, code in plan}  # noqa: S307


def _calls_static(source) -> bool:
    """Whether a call of ``source`` that ``evaluate_eagerly`` would test is one of ``wp.static``."""
    stack = [source.tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and _is_static(source, node.func):
            return True
        stack.extend(syntax_children(node))
    return False


def _is_static(source, func) -> bool:
    """``func`` (a callee) names ``wp.static`` through globals and module attributes."""
    return source.resolve_dotted(func) is static


def _parameters(tree) -> frozenset:
    """The function's parameter names (never a global's value, even where a global has the name)."""
    return frozenset(a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg))


class _Names(dict):
    """The names a declaration-time expression sees: closure, globals, builtins (as typing resolves them)."""

    def __init__(self, source):
        super().__init__()
        self.source = source

    def __missing__(self, name):
        value = self.source.lookup(name)
        if value is MISSING:
            raise KeyError(name)
        return value

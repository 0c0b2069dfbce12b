"""``wp.static`` expressions evaluated once, when a kernel or function is declared (as Warp does).

An expression whose names are all globals, closure variables or Python builtins is evaluated when
the decorator runs: its side effects happen once, and later changes to the names it reads (even to
the name ``wp.static`` is called by) do not change the kernel. An expression that reads a name of
the function itself (a parameter, a local, a loop variable) or that fails here is evaluated while
the function is typed, where the compile-time names of the body are known and an error is reported
at its place in the kernel.
"""

from __future__ import annotations

import ast
import builtins

from ..builtins.static import static
from .source import MISSING


def evaluate_eagerly(source) -> dict:
    """Call node -> value of each ``wp.static(...)`` of ``source`` that can be evaluated now."""
    own = _own_names(source.tree)
    found: dict = {}
    stack = [source.tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and _is_static(source, node.func):
            names = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
            if not names & own:
                try:
                    code = compile(ast.Expression(body=node.args[0]), "<wp.static>", "eval")
                    found[node] = eval(code, {"__builtins__": builtins}, _Names(source))  # noqa: S307
                    continue  # the statics nested in it were part of its evaluation
                except Exception:  # noqa: BLE001 - evaluated (and reported) while typing instead
                    pass
        stack.extend(reversed(list(ast.iter_child_nodes(node))))  # in source order: side effects as written
    return found


def _is_static(source, func) -> bool:
    """``func`` (a callee) names ``wp.static`` through globals and module attributes."""
    return source.resolve_dotted(func) is static


def _own_names(tree) -> set:
    """Names the function binds itself: parameters, assigned names, loop targets, nested definitions."""
    names = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not tree:
            names.add(n.name)
    return names


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

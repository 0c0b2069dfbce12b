"""The launch geometry of a GPU-mapped instance, from its ``meta["gpu_launch"]`` (docs/architecture.md):
blocks, threads per block, dynamic shared memory and the global scratch buffer of one launch.

The scratch arena's size is an int64 expression of the kernel's parameters, recorded as the IR
printer's text (``add[nw](mul[nw](int64(_la_ke), 8), 64)``); ``arena_function`` turns it into a
Python function of the launch's arguments once per instance. Its operators are a few exact integer
ones, so the host computes the same bytes as the kernel does.
"""

from __future__ import annotations

import ast
from typing import NamedTuple


def _div(a: int, b: int) -> int:
    """C's integer division (truncated toward zero)."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_INT_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
            "div": _div, "mod": lambda a, b: a - b * _div(a, b) if b else 0, "max": max, "min": min}
_CASTS = ("int64", "int32", "uint64", "uint32")


class ArenaExpressionError(ValueError):
    """The recorded arena size is not an integer expression of the parameters (a compiler bug)."""


def arena_function(text: str, names: list[str]):
    """``args -> bytes`` of the arena expression ``text`` over the parameters ``names``."""
    try:
        tree = ast.parse(text.replace("[nw]", ""), mode="eval").body
    except SyntaxError as e:
        raise ArenaExpressionError(f"cannot read the arena size {text!r}: {e}") from None
    position = {n: i for i, n in enumerate(names)}

    def build(node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            value = node.value
            return lambda args: value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = build(node.operand)
            return lambda args: -inner(args)
        if isinstance(node, ast.Name) and node.id in position:
            i = position[node.id]
            return lambda args: int(args[i])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            parts = [build(a) for a in node.args]
            name = node.func.id
            if name in _CASTS and len(parts) == 1:
                return parts[0]
            if name in _INT_OPS and len(parts) == 2:
                f, (a, b) = _INT_OPS[name], parts
                return lambda args: f(a(args), b(args))
        raise ArenaExpressionError(f"cannot evaluate {ast.unparse(node)!r} in the arena size {text!r}")

    return build(tree)


def round_up(nbytes: int, to: int = 64) -> int:
    return (nbytes + to - 1) // to * to


class Geometry(NamedTuple):
    """One launch: ``grid`` blocks of ``block`` threads, ``shared`` bytes of dynamic shared memory,
    ``global_arena`` bytes of global scratch for each block (0: none)."""

    grid: int
    block: int
    shared: int
    global_arena: int


class LaunchPlan:
    """How to launch one instance, from ``meta["gpu_launch"]``; ``geometry(total, args, params)`` per launch
    (``params``: the kernel's ``(name, type)`` pairs, read once)."""

    def __init__(self, launch: dict):
        self.block = int(launch.get("block", 256))
        self.per_point = launch.get("grid", "points") == "points"
        self.arena_text = launch.get("arena")
        self.shared_limit = int(launch.get("shared_limit", 0))
        self._arena = None

    def geometry(self, total: int, args, params) -> Geometry:
        grid = (total + self.block - 1) // self.block if self.per_point else total
        if self.arena_text is None:
            return Geometry(grid, self.block, 0, 0)
        if self._arena is None:
            self._arena = arena_function(self.arena_text, [n for n, _ in params])
        nbytes = max(0, self._arena(args))
        if nbytes <= self.shared_limit:
            return Geometry(grid, self.block, nbytes, 0)
        return Geometry(grid, self.block, 0, round_up(nbytes))

"""The launch geometry of a GPU-mapped instance, from its ``meta["gpu_launch"]`` (docs/architecture.md):
blocks, threads per block, dynamic shared memory and the global scratch buffer of one launch.

A plain kernel launched over two or more dimensions whose last extent is at least a warp wide runs
in *tiles* where they are at least three quarters full (``point_tiles``): a three-dimensional grid
of 32 x 8 or 32 x 4 x 2 thread blocks, as a hand-written stencil is launched, so that neighbouring
rows (and planes) of a stencil are read by one block and stay in its L1 cache, and no thread
divides to find its point. The kernel tells the two shapes apart by ``blockDim.y``
(``passes/gpu_grid.py``); the emulation target applies the same rule (``POINT_TILES_CPP``).

The scratch arena's size is an int64 expression of the kernel's parameters, recorded as the IR
printer's text (``add[nw](mul[nw](int64(_la_ke), 8), 64)``); ``arena_function`` turns it into a
Python function of the launch's arguments once per instance. Its operators are a few exact integer
ones, so the host computes the same bytes as the kernel does.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from ...errors import BrickworkError


def _div(a: int, b: int) -> int:
    """C's integer division (truncated toward zero)."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_INT_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
            "div": _div, "mod": lambda a, b: a - b * _div(a, b) if b else 0, "max": max, "min": min}
_CASTS = ("int64", "int32", "uint64", "uint32")


class ArenaExpressionError(BrickworkError, ValueError):
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


def arena_always_fits(text: str | None, shared_limit: int) -> bool:
    """Whether every launch's arena of the recorded size ``text`` fits in shared memory: no arena, or
    one of a constant size within ``shared_limit`` (such a kernel needs no global-arena entry)."""
    if text is None:
        return True
    try:
        return arena_function(text, [])(()) <= shared_limit
    except ArenaExpressionError:  # a size that depends on the arguments
        return False


#: Threads of a tile along the launch's last dimension (a warp: one coalesced row segment).
TILE_X = 32
#: The largest grid along y and z (CUDA's limit); a launch that would need more is not tiled.
MAX_GRID_YZ = 65535
#: A last extent from this on is not tiled (a tile's coordinate must not overflow int32).
MAX_TILED_EXTENT = 2**30


def point_tiles(dims: tuple, block: int) -> tuple | None:
    """``(grid, threads)`` 3-tuples of the tiled launch of the points ``dims`` (two or more extents, the last
    fastest) in blocks of ``block`` threads, or None where it runs one-dimensional: one or fewer than
    TILE_X points along the last dimension, a grid beyond CUDA's limits, or partial tiles that would
    leave more than a quarter of the threads idle (a narrow or odd-sized launch fills rows of 256).
    x covers the last dimension, y the one before, z the one before that (2 threads deep where it has
    2 or more points) and every dimension before it (one block per index)."""
    nd = len(dims)
    if nd < 2 or not TILE_X <= dims[-1] < MAX_TILED_EXTENT:
        return None
    tz = 2 if nd >= 3 and dims[-3] >= 2 else 1
    ty = block // (TILE_X * tz)
    gz = 1
    if nd >= 3:
        gz = -(-dims[-3] // tz)
        for n in dims[:-3]:
            gz *= n
    gy = -(-dims[-2] // ty)
    if gy > MAX_GRID_YZ or gz > MAX_GRID_YZ:
        return None
    gx = -(-dims[-1] // TILE_X)
    points = 1
    for n in dims:
        points *= n
    if 4 * points < 3 * (gx * TILE_X) * (gy * ty) * (gz * tz):  # partial tiles would idle over a quarter
        return None
    return (gx, gy, gz), (TILE_X, ty, tz)


#: ``point_tiles`` in C++ for the emulation target, which launches without Python (same rule, same constants).
POINT_TILES_CPP = f"""
struct tiles {{ int64_t grid[3]; int32_t block[3]; }};
// the tiled geometry of the points n[0..nd) in blocks of `block` threads; false: one-dimensional
inline bool point_tiles(const int64_t* n, int nd, int32_t block, tiles& t) {{
    if (nd < 2 || n[nd - 1] < {TILE_X} || n[nd - 1] >= {MAX_TILED_EXTENT}LL) return false;
    const int32_t tz = nd >= 3 && n[nd - 3] >= 2 ? 2 : 1, ty = block / ({TILE_X} * tz);
    int64_t gz = 1;
    if (nd >= 3) {{
        gz = (n[nd - 3] + tz - 1) / tz;
        for (int d = 0; d < nd - 3; ++d) gz *= n[d];
    }}
    const int64_t gy = (n[nd - 2] + ty - 1) / ty;
    if (gy > {MAX_GRID_YZ} || gz > {MAX_GRID_YZ}) return false;
    const int64_t gx = (n[nd - 1] + {TILE_X - 1}) / {TILE_X};
    int64_t points = 1;
    for (int d = 0; d < nd; ++d) points *= n[d];
    if (4 * points < 3 * (gx * {TILE_X}) * (gy * ty) * (gz * tz)) return false;  // over a quarter idle
    t = tiles{{{{gx, gy, gz}}, {{{TILE_X}, ty, tz}}}};
    return true;
}}
"""


def round_up(nbytes: int, to: int = 64) -> int:
    return (nbytes + to - 1) // to * to


class Geometry(NamedTuple):
    """One launch: ``grid`` blocks of ``block`` threads (ints, or 3-tuples for a tiled launch), ``shared``
    bytes of dynamic shared memory, ``global_arena`` bytes of global scratch for each block (0: none)."""

    grid: int | tuple
    block: int | tuple
    shared: int
    global_arena: int


class LaunchPlan:
    """How to launch one instance, from ``meta["gpu_launch"]``; ``geometry(dims, args, params)`` per launch
    (``dims``: the launch's extents; ``params``: the kernel's ``(name, type)`` pairs, read once)."""

    def __init__(self, launch: dict):
        self.block = int(launch.get("block", 256))
        self.per_point = launch.get("grid", "points") == "points"
        self.per_block = self.block * int(launch.get("per_thread", 1))  # points a block of a plain launch runs
        self.tiles = bool(launch.get("tiles"))
        self.arena_text = launch.get("arena")
        self.shared_limit = int(launch.get("shared_limit", 0))
        self._arena = None

    def geometry(self, dims: tuple, args, params) -> Geometry:
        total = 1
        for n in dims:
            total *= n
        if self.tiles:
            tiled = point_tiles(dims, self.block)
            if tiled is not None:
                return Geometry(*tiled, 0, 0)
        grid = (total + self.per_block - 1) // self.per_block if self.per_point else total
        if self.arena_text is None:
            return Geometry(grid, self.block, 0, 0)
        if self._arena is None:
            self._arena = arena_function(self.arena_text, [n for n, _ in params])
        nbytes = max(0, self._arena(args))
        if nbytes <= self.shared_limit:
            return Geometry(grid, self.block, nbytes, 0)
        return Geometry(grid, self.block, 0, round_up(nbytes))

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

from ...errors import BrickworkError, LaunchError


def _div(a: int, b: int) -> int:
    """C's integer division (truncated toward zero)."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _mod(a: int, b: int) -> int:
    """C's remainder (of the truncated division); 0 for a zero divisor, as ``_div``."""
    return a - b * _div(a, b) if b else 0


#: How each integer operation of an arena size is written in the Python the host runs (exact integers)
_INT_OPS = {"add": "({} + {})", "sub": "({} - {})", "mul": "({} * {})", "div": "_div({}, {})", "mod": "_mod({}, {})",
            "max": "max({}, {})", "min": "min({}, {})"}
_CASTS = ("int64", "int32", "uint64", "uint32")


class ArenaExpressionError(BrickworkError, ValueError):
    """The recorded arena size is not an integer expression of the parameters (a compiler bug)."""


def arena_function(text: str, names: list[str]):
    """``args -> bytes`` of the arena expression ``text`` over the parameters ``names``: one Python function,
    generated once per instance (a hydro stage's size has some 130 operations: evaluated node by node it was
    half of the host's time per launch), each parameter it reads converted to an int once per call."""
    try:
        tree = ast.parse(text.replace("[nw]", ""), mode="eval").body
    except SyntaxError as e:
        raise ArenaExpressionError(f"cannot read the arena size {text!r}: {e}") from None
    position = {n: i for i, n in enumerate(names)}
    read: set = set()
    steps: list = []  # one statement per operation: no nesting for Python's parser to limit

    def python(node) -> str:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return repr(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"(-{python(node.operand)})"
        if isinstance(node, ast.Name) and node.id in position:
            read.add(position[node.id])
            return f"a{position[node.id]}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            parts = [python(a) for a in node.args]
            name = node.func.id
            if name in _CASTS and len(parts) == 1:
                return parts[0]
            if name in _INT_OPS and len(parts) == 2:
                steps.append(f"t{len(steps)} = " + _INT_OPS[name].format(*parts))
                return f"t{len(steps) - 1}"
        raise ArenaExpressionError(f"cannot evaluate {ast.unparse(node)!r} in the arena size {text!r}")

    value = python(tree)
    lines = [f"a{i} = int(args[{i}])" for i in sorted(read)] + steps + [f"return {value}"]
    source = "def arena(args):\n" + "".join(f"    {line}\n" for line in lines)
    namespace = {"_div": _div, "_mod": _mod}
    exec(compile(source, f"<arena size {text[:60]}>", "exec"), namespace)  # noqa: S102 - text built above from ints
    return namespace["arena"]


class ScratchPadSizeError(LaunchError, ValueError):
    """A team's scratch pad whose sizes need more than 2**61 bytes (their product would wrap around)."""


#: The most bytes a scratch pad may have: the CPU's ``bw::pad_bytes`` stops past it, with the same message (and
#: ``passes/gpu_lowering`` records no pad of constant sizes within it; the warm launch path loads no pass).
MAX_PAD_BYTES = 2**61




def check_pad(element_bytes: int, sizes: list, label: str) -> None:
    """``ScratchPadSizeError`` where a pad of ``sizes`` elements of ``element_bytes`` passes MAX_PAD_BYTES, or
    its byte count overflows int64 on the way, as ``bw::pad_bytes`` counts (a size below 0 counts 0)."""
    nbytes, over = element_bytes, False
    for n in sizes:
        nbytes *= max(n, 0)
        over = over or nbytes >= 2**63
    if over or nbytes > MAX_PAD_BYTES:
        raise ScratchPadSizeError(f"kernel '{label}': a team's scratch pad of sizes ({', '.join(map(str, sizes))}) "
                                  f"of {element_bytes}-byte elements needs more than 2**61 bytes")


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


class SliceGridError(LaunchError, ValueError):
    """A team launch with more rows of slices than a CUDA grid's y and z hold (65535 x 65535)."""


def slice_grid(dims: tuple) -> tuple | None:
    """The ``(x, y, z)`` grid of a team launch over the slices ``dims`` (two or more extents, the last
    fastest; ``passes/gpu_grid.slice_coords``): x along the last dimension, and the index over the ones
    before it, ``y + gridDim.y * z``, with y up to CUDA's limit and z taking the rest (blocks past the
    launch return at once); None where the grid is one-dimensional: one dimension, or no slice."""
    if len(dims) < 2 or 0 in dims:
        return None
    rows = 1
    for n in dims[:-1]:
        rows *= n
    gy = min(rows, MAX_GRID_YZ)
    gz = -(-rows // gy)
    if gz > MAX_GRID_YZ:
        raise SliceGridError(f"a team launch of {' x '.join(map(str, dims))} slices has {rows} rows of slices, more "
                             f"than a CUDA grid holds ({MAX_GRID_YZ} x {MAX_GRID_YZ})")
    return dims[-1], gy, gz


#: ``slice_grid`` in C++ for the emulation target (same rule), as ``tiles`` of blocks of ``block`` threads;
#: ``rows``: the rows of slices (a block of the grid past them is not run: on a GPU it returns at once).
SLICE_GRID_CPP = f"""
// the grid of the slices n[0..nd) in blocks of `block` threads; false: one-dimensional
inline bool slice_grid(const int64_t* n, int nd, int32_t block, tiles& t, int64_t& rows) {{
    rows = 1;
    if (nd < 2) return false;
    for (int d = 0; d < nd; ++d) if (n[d] == 0) return false;
    for (int d = 0; d < nd - 1; ++d) rows *= n[d];
    const int64_t gy = rows < {MAX_GRID_YZ} ? rows : {MAX_GRID_YZ};
    t = tiles{{{{n[nd - 1], gy, (rows + gy - 1) / gy}}, {{block, 1, 1}}}};
    return true;
}}
"""


def row_grid(dims: tuple, rows: int) -> tuple | None:
    """The ``(x, y, z)`` grid of a ``bovi`` ``i_pencil`` launch over ``dims`` = (blocks, outer chunks) whose
    outer chunk is a row of ``rows`` to a plane (``passes/gpu_grid.pencil_coords``): x the row, y the block,
    z the plane, so a slice finds its row without dividing; where that passes CUDA's limits (or the chunks
    are not whole planes), the grid of slices (``slice_grid``), its z at least 2 unless a plane is every
    chunk (a z of 1 reads as a grid of rows)."""
    n0, n1 = dims
    if rows >= 1 and n0 >= 1 and n1 >= 1 and n1 % rows == 0 and n0 <= MAX_GRID_YZ and n1 // rows <= MAX_GRID_YZ:
        return rows, n0, n1 // rows
    grid = slice_grid(dims)
    if grid is not None and grid[2] == 1 and n1 != rows:
        grid = (n1, -(-n0 // 2), 2)  # the blocks past the launch return at once
    return grid


#: ``row_grid`` in C++ for the emulation target (same rule); ``count``: as ``slice_grid``'s rows, the blocks
#: ``y + gridDim.y * z`` below it are run.
ROW_GRID_CPP = f"""
inline bool row_grid(const int64_t* n, int64_t rows, int32_t block, tiles& t, int64_t& count) {{
    if (rows >= 1 && n[0] >= 1 && n[1] >= 1 && n[1] % rows == 0 && n[0] <= {MAX_GRID_YZ} &&
        n[1] / rows <= {MAX_GRID_YZ}) {{
        t = tiles{{{{rows, n[0], n[1] / rows}}, {{block, 1, 1}}}};
        count = n[0] * (n[1] / rows);
        return true;
    }}
    if (!slice_grid(n, 2, block, t, count)) return false;
    if (t.grid[2] == 1 && n[1] != rows) t = tiles{{{{n[1], (n[0] + 1) / 2, 2}}, {{block, 1, 1}}}};
    return true;
}}
"""


def round_up(nbytes: int, to: int = 64) -> int:
    return (nbytes + to - 1) // to * to


class Geometry(NamedTuple):
    """One launch: ``grid`` blocks of ``block`` threads (ints, or 3-tuples for a tiled launch or a grid of
    slices), ``shared`` bytes of dynamic shared memory, ``global_arena`` bytes of global scratch for each
    block (0: none)."""

    @property
    def blocks(self) -> int:
        """The blocks of the launch."""
        if type(self.grid) is int:
            return self.grid
        x, y, z = self.grid
        return x * y * z


    grid: int | tuple
    block: int | tuple
    shared: int
    global_arena: int


class LaunchPlan:
    """How to launch one instance, from ``meta["gpu_launch"]``; ``geometry(dims, args, params)`` per launch
    (``dims``: the launch's extents; ``params``: the kernel's ``(name, type)`` pairs, read once), which
    first checks the scratch pads whose sizes the host knows (``check_pads``)."""

    def __init__(self, launch: dict, label: str = "kernel"):
        self.label = label
        self.block = int(launch.get("block", 256))
        self.per_point = launch.get("grid", "points") == "points"
        self.per_block = self.block * int(launch.get("per_thread", 1))  # points a block of a plain launch runs
        self.tiles = bool(launch.get("tiles"))
        self.arena_text = launch.get("arena")
        self.shared_limit = int(launch.get("shared_limit", 0))
        self._arena = None
        self.pad_texts = launch.get("pads") or []  # [element bytes, [size texts]] of pads the host checks
        self._pads = None
        self.rows = launch.get("rows")  # [js, je]: parameters of the rows of a plane (``row_grid``)
        self._row_at = None  # their positions in the arguments

    def geometry(self, dims: tuple, args, params) -> Geometry:
        if self.pad_texts:
            self.check_pads(args, params)
        total = 1
        for n in dims:
            total *= n
        if self.tiles:
            tiled = point_tiles(dims, self.block)
            if tiled is not None:
                return Geometry(*tiled, 0, 0)
        if self.per_point:
            grid = (total + self.per_block - 1) // self.per_block
        elif self.rows is not None and len(dims) == 2:
            if self._row_at is None:
                names = [n for n, _ in params]
                self._row_at = [names.index(name) for name in self.rows]
            js, je = (int(args[i]) for i in self._row_at)
            grid = row_grid(dims, je - js + 1) or total
        else:
            grid = slice_grid(dims) or total
        if self.arena_text is None:
            return Geometry(grid, self.block, 0, 0)
        if self._arena is None:
            self._arena = arena_function(self.arena_text, [n for n, _ in params])
        nbytes = max(0, self._arena(args))
        if nbytes <= self.shared_limit:
            return Geometry(grid, self.block, nbytes, 0)
        return Geometry(grid, self.block, 0, round_up(nbytes))

    def check_pads(self, args, params) -> None:
        """``ScratchPadSizeError`` for a team's scratch pad, of sizes the host evaluates from the launch's
        arguments, that needs more than 2**61 bytes: on a GPU its byte count would wrap around to a small
        pad (the CPU stops in ``bw::pad_bytes`` with the same message)."""
        if self._pads is None:
            names = [n for n, _ in params]
            self._pads = [(nbytes, [arena_function(t, names) for t in texts]) for nbytes, texts in self.pad_texts]
        for nbytes, sizes in self._pads:
            check_pad(nbytes, [f(args) for f in sizes], self.label)

"""The GPU grid: block sizes, launch coordinates from a block or thread index, thread-strided loops,
and ``map_gpu_threads`` (a plain kernel: one thread per launch point, with a bounds guard).

The host launches every kernel with the same ``dim`` on every target; a GPU-mapped kernel works
out its grid point (or slice, or team) from ``IRGpuIndex``/``IRGpuDim`` and the launch extents
(``IRLaunchExtent``). Blocks and grids are one-dimensional, the last launch dimension varying fastest
between neighbouring threads (or blocks) as the CPU's innermost loop does, except the tiles of a
multi-dimensional plain launch (``tile_coords``; ``targets/cuda/geometry.point_tiles``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import ir
from ..types.scalars import int32, int64, uint32
from .build import Locals, i32, op

#: Threads per block of a plain kernel (one thread per launch point).
POINT_BLOCK = 256
#: Threads per block of a team (a loop-abstraction slice or a ``par_for_outer`` team); a power of two
#: (the block reductions halve it).
TEAM_BLOCK = 128
#: Default limit of a block's scratch arena in shared memory (bytes); larger arenas go to global memory.
SHARED_LIMIT = 48 * 1024


def i64(value: int) -> ir.IRConst:
    return ir.IRConst(int(value), int64)


def cast_to(e, t) -> ir.IRExpr:
    """``e`` as type ``t`` (itself when it has that type)."""
    return e if e.type is t else ir.IRCast(e, t)


def wide(e) -> ir.IRExpr:
    return cast_to(e, int64)


def thread() -> ir.IRGpuIndex:
    return ir.IRGpuIndex("thread", 0)


#: Launches of fewer points than this decode their coordinates with 32-bit unsigned arithmetic
#: (a 64-bit division is a long instruction sequence on a GPU); larger ones take a 64-bit branch.
NARROW_POINTS = 2**31


def launch_coords(locals_: Locals, flat, ndims: int, out: list, narrow=None) -> list:
    """int32 locals of the launch point whose row-major flat index (last dimension fastest) is ``flat``.

    ``narrow`` is a condition under which ``flat`` is below ``NARROW_POINTS``; None: it always is (a
    block index). Each coordinate takes one division: the remainder is ``r - q * extent``."""
    coords = [locals_.new("_gpu_c", int32) for _ in range(ndims)]

    def decode(t) -> list:
        stmts: list = []
        rest = locals_.assign(cast_to(flat, t), stmts, "_gpu_r")
        for d in reversed(range(1, ndims)):
            extent = ir.IRCast(ir.IRLaunchExtent(d), t)
            quotient = locals_.assign(op("div", rest, extent), stmts, "_gpu_r")
            stmts.append(ir.IRAssign(coords[d], ir.IRCast(op("sub", rest, op("mul", quotient, extent)), int32)))
            rest = quotient
        stmts.append(ir.IRAssign(coords[0], ir.IRCast(rest, int32)))
        return stmts

    if ndims == 1:  # the point itself (below the launch's extent, an int32)
        out.append(ir.IRAssign(coords[0], cast_to(flat, int32)))
    elif narrow is None:
        out.extend(decode(uint32))
    else:
        out.append(ir.IRIf(narrow, decode(uint32), decode(int64)))
    return coords


def strided(var: ir.IRLocal, lo, hi_incl, body: list) -> ir.IRFor:
    """``var`` over ``lo..hi_incl`` shared out among the block's threads: thread t takes lo + t,
    lo + t + blockDim, ... (neighbouring threads take neighbouring values)."""
    return ir.IRFor(var, op("add", lo, thread()), op("add", hi_incl, i32(1)), ir.IRGpuDim("block", 0), body, 1)


def single_thread(stmt) -> ir.IRIf:
    """``stmt`` run by thread 0 of the block only (a side effect the team makes once)."""
    return ir.IRIf(op("eq", thread(), i32(0)), [stmt], [])


def has_side_effect(s) -> bool:
    """A statement that writes memory or prints (team-level statements do it once, not per thread)."""
    if isinstance(s, ir.IRAssign):
        target = s.target
        while isinstance(target, (ir.IRComponent, ir.IRField, ir.IRTupleGet)):  # a part of a local is the local's
            target = target.base
        return not isinstance(target, ir.IRLocal)
    return isinstance(s, (ir.IRExprStmt, ir.IRPrint, ir.IRExpect, ir.IRAtomicAdd))


class TidToCoords(ir.Rewriter):
    """``tid(d)`` -> the d-th launch coordinate (a slice's or team's, or a point's)."""

    def __init__(self, coords):
        self.coords = coords

    def r_IRTid(self, e):
        return self.coords[e.dim]


@dataclass(frozen=True)
class MapGpuThreads:
    """A kernel not mapped to teams yet: one thread per launch point, a guard for the last block.

    A launch of two or more dimensions may run in tiles (``targets/cuda/geometry.point_tiles``: 32 x 8
    or 32 x 4 x 2 threads, a three-dimensional grid): a block with ``blockDim.y > 1`` is a tile, and its
    threads find their point with multiplications only; else the block is a run of 256 consecutive
    points of the row-major order, decoded by divisions."""

    block: int = POINT_BLOCK
    name: str = "map_gpu_threads"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if not fn.is_kernel or fn.gpu_launch is not None:
            return fn
        out = replace(fn, locals=dict(fn.locals), buffers=dict(fn.buffers))
        locals_ = Locals(out)
        flat_pre: list = []
        flat = op("add", op("mul", wide(ir.IRGpuIndex("block", 0)), wide(ir.IRGpuDim("block", 0))), wide(thread()))
        point = locals_.assign(flat, flat_pre, "_gpu_p")
        points = wide(ir.IRLaunchExtent(0))
        for d in range(1, fn.tid_dims):
            points = op("mul", points, wide(ir.IRLaunchExtent(d)))
        flat_pre.append(ir.IRIf(op("ge", point, points), [ir.IRReturn(None)], []))
        coords = launch_coords(locals_, point, fn.tid_dims, flat_pre, narrow=op("lt", points, i64(NARROW_POINTS)))
        if fn.tid_dims >= 2:
            tiled = op("gt", ir.IRGpuDim("block", 1), i32(1))
            pre = [ir.IRIf(tiled, tile_coords(locals_, coords), flat_pre)]
        else:
            pre = flat_pre
        out.body = pre + TidToCoords(coords).stmts(fn.body)
        out.gpu_launch = {"grid": "points", "block": self.block, "shared_bytes": 0, "arena": None}
        if fn.tid_dims >= 2:
            out.gpu_launch["tiles"] = True
        return out


def tile_coords(locals_: Locals, coords: list) -> list:
    """Statements that set ``coords`` (the launch point) from a tile's block and thread index, and return
    from a thread outside the launch: x runs along the last dimension, y the one before, z the one
    before that and (one block per index) every dimension before it."""
    nd = len(coords)

    def along(d: int):  # blockIdx * blockDim + threadIdx along d
        return op("add", op("mul", ir.IRGpuIndex("block", d), ir.IRGpuDim("block", d)), ir.IRGpuIndex("thread", d))

    stmts = [ir.IRAssign(coords[nd - 1], along(0)), ir.IRAssign(coords[nd - 2], along(1))]
    outside = [op("ge", coords[nd - 1], ir.IRLaunchExtent(nd - 1)), op("ge", coords[nd - 2], ir.IRLaunchExtent(nd - 2))]
    if nd >= 3:
        depth = ir.IRGpuDim("block", 2)
        if nd == 3:
            stmts.append(ir.IRAssign(coords[0], along(2)))
        else:  # blockIdx.z = index of the leading dimensions * tiles along z + tile along z
            extent = ir.IRLaunchExtent(nd - 3)
            tiles = locals_.assign(op("div", op("sub", op("add", extent, depth), i32(1)), depth), stmts, "_gpu_t")
            rest = locals_.assign(op("div", ir.IRGpuIndex("block", 2), tiles), stmts, "_gpu_t")
            tile = op("sub", ir.IRGpuIndex("block", 2), op("mul", rest, tiles))
            stmts.append(ir.IRAssign(coords[nd - 3], op("add", op("mul", tile, depth), ir.IRGpuIndex("thread", 2))))
            for d in reversed(range(nd - 3)):
                if d == 0:
                    stmts.append(ir.IRAssign(coords[0], rest))
                    break
                quotient = locals_.assign(op("div", rest, ir.IRLaunchExtent(d)), stmts, "_gpu_t")
                stmts.append(ir.IRAssign(coords[d], op("sub", rest, op("mul", quotient, ir.IRLaunchExtent(d)))))
                rest = quotient
        outside.append(op("ge", coords[nd - 3], ir.IRLaunchExtent(nd - 3)))
    guard = outside[0]
    for o in outside[1:]:
        guard = op("logical_or", guard, o)
    stmts.append(ir.IRIf(guard, [ir.IRReturn(None)], []))
    return stmts

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
from ..builtins.bvh import ARRAY_NAMES as MESH_ARRAY_NAMES
from ..builtins.bvh import NAMES as BVH_NAMES
from ..builtins.decompositions import OUTPUT_ARGUMENTS, PACKED
from ..builtins.texture import INTERNAL as TEXTURE_INTERNAL
from ..builtins.tile_queries import NAMES as TILE_QUERY_NAMES
from ..builtins.volume import INTERNAL as VOLUME_INTERNAL
from ..builtins.volume import NAMES as VOLUME_NAMES
from ..errors import TargetUnsupportedError
from ..types.arrays import ArrayType
from ..types.fixed_arrays import is_fixed_array_type
from ..types.scalars import int32, int64, uint32
from ..types.structs import has_array_fields
from ..types.type_sizes import type_size_in_bytes
from .build import Locals, i32, op, wide

#: Threads per block of a plain kernel (one thread per launch point).
POINT_BLOCK = 256
#: Threads per block of a team (a loop-abstraction slice or a ``par_for_outer`` team); a power of two
#: (the block reductions halve it).
TEAM_BLOCK = 128
#: Threads of a team that runs one row of cells (a ``bovi`` slice of ``i_pencil`` chunks) where the space's
#: rows are short: ``LAConfig.rows == "short"``, fewer than ``la.outer.SHORT_ROW`` (64) cells, which the
#: compiled key holds. A row of 16 or 32 cells (a halo's one or two more) then idles one warp or none, not
#: three or two of four.
SHORT_ROW_TEAM = 64
#: Default limit of a block's scratch arena in shared memory (bytes); larger arenas go to global memory.
SHARED_LIMIT = 48 * 1024


def i64(value: int) -> ir.IRConst:
    return ir.IRConst(int(value), int64)


def cast_to(e, t) -> ir.IRExpr:
    """``e`` as type ``t`` (itself when it has that type)."""
    return e if e.type is t else ir.IRCast(e, t)


def thread() -> ir.IRGpuIndex:
    return ir.IRGpuIndex("thread", 0)


#: Launches of fewer points than this decode their coordinates with 32-bit unsigned arithmetic
#: (a 64-bit division is a long instruction sequence on a GPU); larger ones take a 64-bit branch.
NARROW_POINTS = 2**31


def launch_coords(locals_: Locals, flat, ndims: int, out: list, narrow=None, coords=None) -> list:
    """int32 locals of the launch point whose row-major flat index (last dimension fastest) is ``flat``
    (``coords``: the locals to set; None: new ones).

    ``narrow`` is a condition under which ``flat`` is below ``NARROW_POINTS``; None: it always is (a
    block index). Each coordinate takes one division: the remainder is ``r - q * extent``."""
    if coords is None:
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


def slice_coords(locals_: Locals, ndims: int, out: list) -> list:
    """int32 locals of the slice (or team) a thread block runs, from its block index.

    A one-dimensional launch's block index is its slice. A launch of two or more dimensions runs on a
    grid of slices (``targets/cuda/geometry.slice_grid``): x along the last launch dimension, and the
    index over the dimensions before it, f = y + gridDim.y * z (y below CUDA's limit of 65535, z
    taking the rest), so a block finds a ``bovi`` slice or a team of two ranges without dividing
    (three ranges: one division of f). Where y times z passes the launch, the blocks past it return."""
    block = ir.IRGpuIndex("block", 0)
    if ndims == 1:
        return launch_coords(locals_, block, 1, out)
    coords = [locals_.new("_gpu_c", int32) for _ in range(ndims)]
    out.append(ir.IRAssign(coords[ndims - 1], block))

    def u32(e):
        return ir.IRCast(e, uint32)

    # the row of slices, below 2**32: the host launches at most 65535 x 65535
    y, z = u32(ir.IRGpuIndex("block", 1)), u32(ir.IRGpuIndex("block", 2))
    f = locals_.assign(op("add", y, op("mul", u32(ir.IRGpuDim("grid", 1)), z)), out, "_gpu_r")
    count = u32(ir.IRLaunchExtent(0))
    for d in range(1, ndims - 1):
        count = op("mul", count, u32(ir.IRLaunchExtent(d)))
    out.append(ir.IRIf(op("ge", f, count), [ir.IRReturn(None)], []))
    launch_coords(locals_, f, ndims - 1, out, coords=coords[:ndims - 1])
    return coords


def pencil_coords(locals_: Locals, rows, plane: ir.IRLocal, row: ir.IRLocal, out: list) -> list:
    """int32 locals (block, outer index) of a ``bovi`` ``i_pencil`` slice, and its ``plane`` and ``row`` in the
    block's box (``rows``: the rows of a plane, at least 1).

    Where CUDA's limits allow, the host launches a grid of rows (``targets/cuda/geometry.row_grid``): x the
    row, y the block, z the plane, so nothing is divided. Else it launches the grid of slices with a z of
    two or more (``slice_coords``), whose outer index x is divided by the rows. The kernel tells them apart
    by the grid: x the whole outer index and z above 1 is a grid of slices (one of a single plane is both).
    Each local is assigned once, by a selection (a local assigned in two branches would keep the pack's
    address tables from being read once per slice, before the cells' loop)."""
    def u32(e):
        return ir.IRCast(e, uint32)

    def pick(t, if_slices, if_rows):
        return ir.IRSelect(of_slices, if_slices, if_rows, t)

    block, plane_index = (ir.IRGpuIndex("block", d) for d in (1, 2))
    x = ir.IRGpuIndex("block", 0)
    of_slices = locals_.assign(op("logical_and", op("eq", ir.IRGpuDim("grid", 0), ir.IRLaunchExtent(1)),
                                  op("ne", ir.IRGpuDim("grid", 2), i32(1))), out, "_gpu_s")
    # the block: y + gridDim.y * z on a grid of slices (the blocks past the launch return), y on a grid of rows
    f = locals_.assign(pick(uint32, op("add", u32(block), op("mul", u32(ir.IRGpuDim("grid", 1)), u32(plane_index))),
                            u32(block)), out, "_gpu_r")
    out.append(ir.IRIf(op("ge", f, u32(ir.IRLaunchExtent(0))), [ir.IRReturn(None)], []))
    coords = [locals_.new("_gpu_c", int32) for _ in range(2)]
    out += [ir.IRAssign(coords[0], ir.IRCast(f, int32)),
            ir.IRAssign(plane, pick(int32, ir.IRCast(op("div", u32(x), u32(rows)), int32), plane_index)),
            ir.IRAssign(row, pick(int32, op("sub", x, op("mul", plane, rows)), x)),
            ir.IRAssign(coords[1], op("add", op("mul", plane, rows), row))]
    return coords


def strided(var: ir.IRLocal, lo, hi_incl, body: list) -> ir.IRFor:
    """``var`` over ``lo..hi_incl`` shared out among the block's threads: thread t takes lo + t,
    lo + t + blockDim, ... (neighbouring threads take neighbouring values)."""
    return ir.IRFor(var, op("add", lo, thread()), op("add", hi_incl, i32(1)), ir.IRGpuDim("block", 0), body, 1)


def single_thread(stmt) -> ir.IRIf:
    """``stmt`` run by thread 0 of the block only (a side effect the team makes once)."""
    return ir.IRIf(op("eq", thread(), i32(0)), [stmt], [])


def has_side_effect(s) -> bool:
    """A statement that writes memory or prints (team-level statements do it once, not per thread). What a
    thread keeps to itself is not: its locals, and its fixed-size local arrays (``wp.zeros(shape=3)`` in a
    kernel), stored, updated atomically or filled by a function."""
    if isinstance(s, ir.IRAssign):
        root = _assigned_root(s.target)
        return not (isinstance(root, ir.IRLocal) or isinstance(root, ir.IRArrayElem) and _is_local_array(root.array))
    if isinstance(s, ir.IRExprStmt) and isinstance(s.expr, ir.IRCall) and s.expr.op.startswith("atomic_"):
        return not _is_local_array(s.expr.args[0])
    if isinstance(s, ir.IRExprStmt) and isinstance(s.expr, ir.IRFuncCall):
        return not _writes_only_local_arrays(s.expr)
    return isinstance(s, (ir.IRExprStmt, ir.IRPrint, ir.IRExpect, ir.IRAtomicAdd))


def _is_local_array(e) -> bool:
    """A fixed-size local array of the thread (or a view into one)."""
    while isinstance(e, ir.IRSubarray):
        e = e.array
    return isinstance(e, ir.IRLocal) and is_fixed_array_type(e.type)


def _writes_only_local_arrays(call: ir.IRFuncCall) -> bool:
    """A function call whose only effect can be on the fixed-size local arrays passed to it: no other array,
    no struct holding one, and nothing it prints or adds into an adjoint (nor a call that does)."""
    for a in call.args:
        if isinstance(a.type, ArrayType) and not _is_local_array(a) or has_array_fields(a.type):
            return False
    return not any(isinstance(n, (ir.IRPrint, ir.IRAtomicAdd)) or isinstance(n, ir.IRFuncCall) and
                   not _writes_only_local_arrays(n) for n in ir.walk(call.func.body))


def check_team_body(stmts, label: str, inner) -> None:
    """``check_team_value`` for every statement of a team's outer body, nested ones too, but not those of
    its ``inner`` loops (``IRTeamLoop``, ``IRLAInner``: one visit per thread)."""
    for s in stmts:
        if isinstance(s, inner):
            continue
        check_team_value(s, label)
        for field in ("body", "orelse"):
            nested = getattr(s, field, None)
            if isinstance(nested, list):
                check_team_body(nested, label, inner)


def check_team_value(s, label: str) -> None:
    """``TargetUnsupportedError`` for a condition or loop bound of a team's outer body that writes memory
    (``if bump(counter):``): every thread of the block evaluates it. An assignment of such a value to a
    local is computed once and shared (``broadcast``)."""
    if isinstance(s, ir.IRIf):
        parts = [s.cond]
    elif isinstance(s, ir.IRFor):
        parts = [s.start, s.stop, s.step]
    elif isinstance(s, ir.IRWhile):
        parts = [s.cond]
    else:
        return
    for part in parts:
        n = memory_write_in(part)
        if n is not None:
            where = f" at {n.where}" if getattr(n, "where", "") else ""
            what = f"wp.{n.op}" if isinstance(n, ir.IRCall) else f"{n.func.name}() (it writes memory)"
            raise TargetUnsupportedError(
                f"{label}: {what}{where} is called in a condition or loop bound of a team's outer body (outside "
                f"la.inner and par_for_inner). On a GPU every thread of the team's block evaluates it, so it would "
                f"run once per thread (the CPU runs it once per team): assign its value to a local first (the team "
                f"then computes it once and shares it)")


def memory_write_in(e):
    """The atomic (not into a local array) or memory-writing function call in expression ``e``, or None."""
    for n in ir.walk(e):
        if isinstance(n, ir.IRCall) and n.op.startswith("atomic_") and not _is_local_array(n.args[0]) or \
                isinstance(n, ir.IRFuncCall) and _function_writes_memory(n):
            return n
    return None


class OncePerTeam:
    """The statements of a team's outer body on a GPU, where every thread of the block runs it: what writes
    memory or prints runs on thread 0 (``single_thread``), and a value such a write gives is taken by thread 0
    and shared (``broadcast``, one static shared slot per value)."""

    def __init__(self):
        self.slots = 0  # shared slots made so far: their names

    def __call__(self, s, out):
        """``out``, the lowered statement ``s``, as the block runs it."""
        if isinstance(out, ir.IRAssign) and not has_side_effect(out) and memory_write_in(out.value) is not None:
            self.slots += 1
            return broadcast(out, f"_gpu_bcast{self.slots}")
        return single_thread(out) if has_side_effect(s) else out


def broadcast(s: ir.IRAssign, name: str) -> list:
    """``s`` (a local, or a part of one, assigned a value that writes memory: ``slot = wp.atomic_add(...)``)
    for every thread of the block from one evaluation: thread 0 evaluates it into the static shared slot
    ``name``, every thread reads it after a barrier, and a second barrier keeps the slot until all have."""
    t = s.value.type
    slot = ir.IRArrayElem(ir.IRSharedBuffer(name, 1, ArrayType(t, 1)), [i32(0)], t)
    return [single_thread(ir.IRAssign(slot, s.value)), ir.IRGpuBarrier(), ir.IRAssign(s.target, slot),
            ir.IRGpuBarrier()]


def _function_writes_memory(call: ir.IRFuncCall) -> bool:
    return not _writes_only_local_arrays(call) and any(
        isinstance(n, ir.IRAtomicAdd) or isinstance(n, ir.IRCall) and n.op.startswith("atomic_")
        or isinstance(n, ir.IRAssign) and not isinstance(_assigned_root(n.target), ir.IRLocal)
        or isinstance(n, ir.IRFuncCall) and _function_writes_memory(n) for n in ir.walk(call.func.body))


def _assigned_root(target):
    """What an assignment's target is part of (a part of a local is the local's)."""
    while isinstance(target, (ir.IRComponent, ir.IRField, ir.IRTupleGet)):
        target = target.base
    return target


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
        if interleavable(fn):
            out.body = interleaved_points(out, locals_, fn.body, POINTS_PER_THREAD)
            out.gpu_launch = {"grid": "points", "block": self.block, "shared_bytes": 0, "arena": None,
                              "per_thread": POINTS_PER_THREAD}
            return out
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


#: Points each thread of a one-dimensional plain launch runs when its body allows (``interleavable``).
POINTS_PER_THREAD = 4
#: The largest body (IR nodes, and 4-byte words of its non-array locals) run for several points per thread:
#: a short, memory-bound body gains the loads in flight; a longer one has instructions enough to hide its
#: loads' latency, and each point's copies would take registers (a vec3d body's 66 went to 170).
INTERLEAVE_NODES = 64
INTERLEAVE_WORDS = 8
_INTERLEAVED_STATEMENTS = (ir.IRAssign, ir.IRExprStmt, ir.IRIf, ir.IRAtomicAdd, ir.IRPrint, ir.IRExpect)
#: Builtins whose runtime function is long (a tree or grid walk, a loop, octaves of gradient noise, a
#: decomposition's iterations, a branchy conversion): a body calling one is compute-bound, not short, and each
#: point's copy would be one more inlined copy of the function for NVRTC (a tiled query's 8 inlined walks took
#: 8.8 s of NVRTC CPU, one 1.3 s).
LONG_BUILTINS = frozenset({
    "noise", "pnoise", "curlnoise", "noise_grad", "pnoise_grad", "curlnoise_vjp",
    *(name for name in BVH_NAMES if name not in MESH_ARRAY_NAMES), "hash_grid_query", "hash_grid_query_next",
    *TILE_QUERY_NAMES, *VOLUME_NAMES, *VOLUME_INTERNAL, *TEXTURE_INTERNAL, *OUTPUT_ARGUMENTS,
    *(packed for packed, _, _ in PACKED.values()), "poisson", "sample_cdf", "lower_bound",
    "closest_point_edge_edge", "intersect_tri_tri", "quat_from_matrix", "quat_from_euler", "quat_to_euler"})


def interleavable(fn: ir.IRFunction) -> bool:
    """Whether a one-dimensional plain kernel may run ``POINTS_PER_THREAD`` points per thread, statement
    by statement (``interleaved_points``): a short body of assignments, atomics and branches, without
    loops, returns, fixed-size local arrays, native snippets, assignments to parameters or calls of a
    ``LONG_BUILTINS`` builtin; a ``@func`` it calls counts as its body's nodes (NVRTC inlines it into every
    point's copy), and one with a loop or a long builtin makes the body long."""
    if fn.tid_dims != 1 or fn.buffers or fn.scatter_radius is not None:
        return False
    params = {name for name, _ in fn.params}
    size, used = 0, set()
    for node in ir.walk(fn.body):
        size += 1
        if isinstance(node, ir.IRStmt) and not isinstance(node, _INTERLEAVED_STATEMENTS) or \
                isinstance(node, ir.IRLocalArray) or isinstance(node, ir.IRCall) and node.op in LONG_BUILTINS:
            return False
        if isinstance(node, ir.IRFuncCall):
            size += _callee_nodes(node.func, {id(fn)})
        if isinstance(node, ir.IRLocal) and node.name in fn.locals:
            used.add(node.name)
        if isinstance(node, ir.IRAssign):
            root = _assigned_root(node.target)
            if isinstance(root, ir.IRLocal) and root.name in params:
                return False
    if size > INTERLEAVE_NODES:
        return False
    return sum(_words(fn.locals[n]) for n in used) <= INTERLEAVE_WORDS


def _callee_nodes(fn: ir.IRFunction, seen: set) -> int:
    """The IR nodes of a called function with those of the functions it calls (a recursive call counts once);
    past ``INTERLEAVE_NODES`` if it loops or calls a long builtin."""
    if id(fn) in seen:
        return 0
    seen.add(id(fn))
    size = 0
    for node in ir.walk(fn.body):
        size += 1
        if isinstance(node, (ir.IRFor, ir.IRWhile)) or isinstance(node, ir.IRCall) and node.op in LONG_BUILTINS:
            return INTERLEAVE_NODES + 1
        if isinstance(node, ir.IRFuncCall):
            size += _callee_nodes(node.func, seen)
    return size


def _words(t) -> int:
    """4-byte words of a local of type ``t``: none for an array (a view or alias of an argument's), more than
    ``INTERLEAVE_WORDS`` for a type without a plain size (a tuple)."""
    if isinstance(t, ArrayType):  # indexed arrays included
        return 0
    try:
        return (type_size_in_bytes(t) + 3) // 4
    except (TypeError, ValueError, AttributeError):
        return INTERLEAVE_WORDS + 1


class _PointLocals(ir.Rewriter):
    """The body's locals renamed to one point's copies (``names``: old name -> new local)."""

    def __init__(self, names: dict):
        self.names = names

    def r_IRLocal(self, e):
        return self.names.get(e.name, e)


def interleaved_points(fn: ir.IRFunction, locals_: Locals, body: list, k: int) -> list:
    """``body`` run for ``k`` points per thread: thread t of block b takes the points b * k * blockDim + t
    + j * blockDim (j < k), so each of the k accesses of a warp is coalesced.

    Where all k points are in the launch, each top-level statement runs for point 0, 1, ..., k - 1 before
    the next one (every point with its own copies of the locals): the loads of k points are then in flight
    together, which a memory-bound kernel needs to approach the memory's bandwidth (one 4-byte load pair
    per thread keeps too few bytes in flight). A GPU gives no order between the threads of a launch, so
    running the points' statements interleaved is one of the orders the kernel already allows. A thread
    whose points pass the end runs them one after another, up to the end."""
    block = wide(ir.IRGpuDim("block", 0))
    stmts: list = []
    first = locals_.assign(op("add", op("mul", wide(ir.IRGpuIndex("block", 0)), op("mul", block, i64(k))),
                              wide(thread())), stmts, "_gpu_p")
    points = wide(ir.IRLaunchExtent(0))
    fn.index_ranges = dict(fn.index_ranges)  # the copies' entries are added: not into the typed kernel's
    loads_first = _LoadsFirst(locals_)
    split = loads_first.stmts(body)
    used = {n.name for n in ir.walk(split) if isinstance(n, ir.IRLocal)}
    own = [name for name in fn.locals if name in used]
    coords, copies = [], []
    for j in range(k):
        names = {name: locals_.new(f"{name}_p{j}_", fn.locals[name]) for name in own}
        for name, local in names.items():
            if name in fn.index_ranges:
                fn.index_ranges[local.name] = fn.index_ranges[name]
        coord = locals_.new("_gpu_c", int32)
        coords.append(ir.IRAssign(coord, ir.IRCast(op("add", first, op("mul", block, i64(j))), int32)))
        copies.append(TidToCoords([coord]).stmts(_PointLocals(names).stmts(split)))
    whole = coords + [s for row in zip(*copies, strict=True) for s in row]
    for local in loads_first.made:  # only their copies are used
        del fn.locals[local.name]
    one = locals_.new("_gpu_c", int32)
    q = locals_.new("_gpu_q", int64)
    tail = ir.IRFor(q, first, op("add", first, op("mul", block, i64(k))), block, [
        ir.IRIf(op("ge", q, points), [ir.IRBreak()], []),
        ir.IRAssign(one, ir.IRCast(q, int32)),
        *TidToCoords([one]).stmts(body)], 1)
    last = op("add", first, op("mul", block, i64(k - 1)))
    return stmts + [ir.IRIf(op("lt", last, points), whole, [tail])]


#: Expressions a store's value may hold for its array reads to be read first (``_LoadsFirst``): no call
#: of a user function, no atomic.
_PLAIN_VALUES = (ir.IRConst, ir.IRLocal, ir.IRCall, ir.IRCast, ir.IRConstruct, ir.IRArrayElem, ir.IRComponent,
                 ir.IRField, ir.IRTupleGet, ir.IRArrayShape, ir.IRTid, ir.IRSelect)


class _LoadsFirst(ir.Rewriter):
    """A store into an array element whose value reads arrays: those reads first, each into a local of its
    own, then the store of the value computed from them. Interleaved over a thread's points, the loads of
    every point then come before the first store, which a compiler may not reorder across (the arrays may
    alias). Reads that the value evaluates only under a condition (a branch of ``x if c else y``, the right
    of ``and``/``or``) stay where they are; a value that calls a user function or an atomic is left whole."""

    def __init__(self, locals_: Locals):
        self.locals = locals_
        self.loads: list | None = None
        self.made: list = []  # the locals holding the loads

    def r_IRAssign(self, s):
        if isinstance(s.target, ir.IRLocal) or not any(isinstance(n, ir.IRArrayElem) for n in ir.walk(s.value)):
            return s
        if any(not isinstance(n, _PLAIN_VALUES) or (isinstance(n, ir.IRCall) and n.op.startswith("atomic"))
               for n in ir.walk(s.value)):
            return s
        self.loads = []
        value = self.expr(s.value)
        loads, self.loads = self.loads, None
        return [*loads, ir.IRAssign(s.target, value)]

    def r_IRArrayElem(self, e):
        e = self.copy(e)
        if self.loads is None:
            return e
        self.made.append(self.locals.assign(e, self.loads, "_gpu_v"))
        return self.made[-1]

    def r_IRSelect(self, e):
        cond = self.expr(e.cond)
        loads, self.loads = self.loads, None  # the branches are evaluated under the condition only
        if_true, if_false = self.expr(e.if_true), self.expr(e.if_false)
        self.loads = loads
        return replace(e, cond=cond, if_true=if_true, if_false=if_false)

    def r_IRCall(self, e):
        if e.op not in ("logical_and", "logical_or") or not e.args:
            return self.copy(e)
        first = self.expr(e.args[0])
        loads, self.loads = self.loads, None
        rest = [self.expr(a) for a in e.args[1:]]
        self.loads = loads
        return replace(e, args=[first, *rest])

    def r_IRIf(self, s):  # a branch's stores stay in it, whole
        return s

"""Golden-text tests of the GPU mapping (``gpu_pass_list``): each loop-abstraction tag pair, scratch and
barriers, block reductions, nested teams and a plain kernel, as the IR a device target renders.

Regenerate after an intended change with ``BRICKWORK_UPDATE_GOLDEN=1 pytest tests/passes`` and read the
diff of ``tests/passes/golden/gpu_*``."""

from __future__ import annotations

import pytest
from ir_helpers import check_golden, run, typed_kernel, typed_la_body, typed_par_for_outer

import brickwork as wp
from brickwork import ir, la
from brickwork.errors import LaunchError
from brickwork.passes import ExpandLoopAbstraction, SelectBuiltins, gpu_pass_list
from brickwork.targets.cpu.builtins import CPU_BUILTINS, CPU_WRAPPING
from brickwork.types.arrays import ArrayType

SPACE = dict(nblocks=2, nx=8, ny=4, nz=1, nghost=1, backend=la.team)
field = wp.zeros((2, 3, 6, 10), dtype=wp.float64)
TAG_PAIRS = [(lt, it) for lt in ("bvoi", "bovi", "boiv") for it in ("logical_flat", "logical_coords", "memory")
             if not (lt == "boiv" and it == "memory")]


def gpu(fn, shared_limit=48 * 1024):
    passes = [p for p in gpu_pass_list("cuda-emulation", CPU_BUILTINS, CPU_WRAPPING, shared_limit=shared_limit)
              if not isinstance(p, SelectBuiltins)]
    return run(fn, *passes)


def idx_body(rng, b):
    for idx in la.inner(rng.add_halo(la.halo.minus_i)):
        k, j, i = rng.get_kji(idx)
        field[b, k, j, i] = wp.float64(2.0)


def kji_body(rng, b):
    for k, j, i in la.inner(rng.add_halo(la.halo.minus_i)):
        field[b, k, j, i] = wp.float64(2.0)


def strided_loops(fn):
    """Loops whose step is the block's width (or twice it: two cells per trip, passes/gpu_cell_pairs.py)."""
    return [n for n in ir.walk(fn.body) if isinstance(n, ir.IRFor) and ir.contains([n.step], ir.IRGpuDim)]


@pytest.mark.parametrize("lt,it", TAG_PAIRS, ids=[f"{a}-{b}" for a, b in TAG_PAIRS])
def test_tag_pair(lt, it):
    space = la.IndexSpace.box(getattr(la, lt), getattr(la, it), **SPACE)
    out = gpu(typed_la_body(kji_body if it == "logical_coords" else idx_body, space))
    check_golden(f"gpu_teams.{lt}_{it}", out)
    assert not ir.contains(out.body, (ir.IRLAOuter, ir.IRLAInner, ir.IRTid))
    if lt == "boiv":  # a slice is a cell: one thread each, blocks of 256 points
        assert out.gpu_launch["grid"] == "points" and out.gpu_launch["block"] == 256 and not strided_loops(out)
    else:  # a slice per block, its cells shared out among 128 threads
        assert out.gpu_launch == {"grid": "slices", "block": 128, "shared_bytes": 0, "arena": None,
                                  "shared_limit": 48 * 1024}
        assert strided_loops(out) and not any(n.simd for n in strided_loops(out))


def scratch_body(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng.add_halo(la.halo.minus_i))
    for idx in la.inner(rng.add_halo(la.halo.minus_i)):
        s[idx] = wp.float64(3.0)
    rng.team_barrier()
    for k, j, i in la.inner(rng):
        field[b, k, j, i] = s[k, j, i - 1]
    field[b, 0, 0, 0] = wp.float64(1.0)  # outside the inner loops: once per block


def test_scratch_barrier_and_block_level_store():
    out = gpu(typed_la_body(scratch_body, la.IndexSpace.box(la.bovi, la.logical_flat, **SPACE)))
    check_golden("gpu_teams.scratch", out)
    assert [type(s).__name__ for s in out.body].count("IRGpuBarrier") == 1
    arenas = [n for n in ir.walk(out.body) if isinstance(n, ir.IRGpuArena)]
    assert len(arenas) == 1 and arenas[0].shared_limit == 48 * 1024
    assert out.gpu_launch["arena"] == ir.printer.expr(arenas[0].size)
    last = out.body[-1]  # the block-level store runs on thread 0 only
    assert isinstance(last, ir.IRIf) and ir.printer.expr(last.cond) == "eq[nw](thread_idx(0), 0)"


def reduce_body(rng, b):
    la.inner_reduce(rng, lambda k, j, i: field[b, k, j, i])


@pytest.mark.parametrize("reducer", [la.Sum(wp.float64), la.MinLoc(wp.float64)], ids=["sum", "min_loc"])
def test_block_reduction(reducer):
    space = la.IndexSpace.box(la.bovi, la.logical_flat, **SPACE).with_reducer(reducer)
    out = gpu(typed_la_body(reduce_body, space, reduce=True))
    check_golden(f"gpu_teams.reduce_{reducer.join}{'_loc' if reducer.with_location else ''}", out)
    barriers = [n for n in ir.walk(out.body) if isinstance(n, ir.IRGpuBarrier)]
    assert len(barriers) == 1 + 2  # after the threads' values are stored, after the two shared-memory steps
    shuffles = [n.delta for n in ir.walk(out.body) if isinstance(n, ir.IRGpuShuffleDown)]
    assert shuffles == [16, 8, 4, 2, 1]  # the other five steps of log2(128) within warp 0
    red = {n.name: n for n in ir.walk(out.body) if isinstance(n, ir.IRSharedBuffer)}
    assert list(red) == ["_gpu_red"] and red["_gpu_red"].count == 128
    assert out.gpu_launch["shared_bytes"] == 128 * (8 if not reducer.with_location else 24)
    assert not any(n.reduction for n in ir.walk(out.body) if isinstance(n, ir.IRFor))


def teams_body(member, j):
    pad = wp.ScratchPad1D(member, wp.float64, 4)

    def fill(i):
        pad[i] = wp.float64(1.0)

    wp.par_for_inner(member, 0, 3, fill)
    member.team_barrier()

    def use(i):
        field[0, 0, j, i] = pad[i]

    wp.par_for_inner(member, 0, 3, use)


def test_nested_teams():
    out = gpu(typed_par_for_outer(teams_body, 1), shared_limit=1024)
    check_golden("gpu_teams.nested", out)
    assert not ir.contains(out.body, (ir.IRTeamLoop, ir.IRTeamBarrier, ir.IRTeamBegin, ir.IRTid))
    assert len(strided_loops(out)) == 2 and ir.contains(out.body, ir.IRGpuBarrier)
    assert out.gpu_launch == {"grid": "slices", "block": 32, "shared_bytes": 0, "arena": "_bw_scratch",
                              "shared_limit": 1024}


@wp.kernel
def saxpy(x: wp.array2d(dtype=wp.float32), y: wp.array2d(dtype=wp.float32), a: wp.float32):
    i, j = wp.tid()
    y[i, j] = a * x[i, j] + y[i, j]


def test_plain_kernel_one_thread_per_point():
    out = gpu(typed_kernel(saxpy, saxpy.concrete_types()))
    check_golden("gpu_teams.plain", out)
    tiled, rows = out.body[0].body, out.body[0].orelse  # a 2-D launch: in tiles, or in rows of 256 points
    assert isinstance(tiled[-1], ir.IRIf) and isinstance(tiled[-1].body[0], ir.IRReturn)
    assert isinstance(rows[1], ir.IRIf) and isinstance(rows[1].body[0], ir.IRReturn)
    assert out.gpu_launch == {"grid": "points", "block": 256, "shared_bytes": 0, "arena": None, "tiles": True}


def test_raw_backend_is_rejected_by_the_gpu_mapping():
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, **dict(SPACE, backend=la.raw))
    fn = typed_la_body(idx_body, space)
    with pytest.raises(LaunchError, match=r"la\.raw is host-only .*\(bvoi, logical_flat\).*backend=la\.team"):
        gpu(fn)
    assert ir.contains(fn.body, ir.IRLAOuter)  # the typed IR is left as it was


def test_unknown_mapping_is_rejected():
    with pytest.raises(ValueError, match="unknown loop-abstraction mapping 'gpu' .*cpu_rows, gpu_teams"):
        ExpandLoopAbstraction("gpu").run(typed_la_body(idx_body, la.IndexSpace.box(la.bvoi, la.logical_flat,
                                                                                   **SPACE)))


@pytest.mark.parametrize("node,message", [
    (ir.IRGpuIndex("warp", 0), "unknown axis"), (ir.IRGpuDim("block", 3), "unknown axis or dimension"),
    (ir.IRSharedBuffer("s", 0, ArrayType(wp.float32, 1)), "positive count"),
])
def test_verifier_rejects_malformed_gpu_nodes(node, message):
    fn = typed_kernel(saxpy, saxpy.concrete_types())
    fn.body.append(ir.IRExprStmt(node))
    with pytest.raises(ir.IRVerifyError, match=message):
        ir.verify(fn)


def test_verifier_rejects_a_barrier_outside_a_kernel():
    fn = typed_kernel(saxpy, saxpy.concrete_types())
    fn.is_kernel = False
    fn.body.append(ir.IRGpuBarrier())
    with pytest.raises(ir.IRVerifyError, match="block barrier outside a kernel"):
        ir.verify(fn)

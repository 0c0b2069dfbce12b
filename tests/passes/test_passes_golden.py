"""Golden-text tests of each pass: the IR a small kernel has before and after one pass.

Regenerate after an intended change with ``BRICKWORK_UPDATE_GOLDEN=1 pytest tests/passes`` and
read the diff of ``tests/passes/golden/``: it shows what the change did to the compiler's output.
"""

from __future__ import annotations

import typing

import pytest
from ir_helpers import check_golden, run, typed_kernel, typed_la_body, typed_par_for_outer

import brickwork as wp
from brickwork import ir, la
from brickwork.errors import KernelTypeError
from brickwork.mesh.kernel_pack import kernel_pack_type
from brickwork.mesh.pack import VarTag
from brickwork.passes import (
    ExpandLoopAbstraction,
    InlineLocalFunctions,
    LowerPackAccess,
    LowerReductions,
    LowerTeams,
    SelectBuiltins,
)
from brickwork.targets.cpu.builtins import CPU_BUILTINS

SPACE = dict(nblocks=2, nx=8, ny=4, nz=1, nghost=1)
field = wp.zeros((2, 3, 6, 10), dtype=wp.float64)


def inline_body(rng, b):
    def cell(idx):
        k, j, i = rng.get_kji(idx)
        if i == 2:
            return
        field[b, k, j, i] = wp.float64(1.0)

    la.inner(rng, cell)


def test_inline_local_functions_turns_returns_into_region_exits():
    fn = typed_la_body(inline_body, la.IndexSpace.box(la.bvoi, la.logical_flat, **SPACE))
    check_golden("inline_local_functions.before", fn)
    out = run(fn, InlineLocalFunctions())
    check_golden("inline_local_functions.after", out)
    assert not ir.contains(out.body, ir.IRInlineBody)
    exits = [n for n in ir.walk(out.body) if isinstance(n, ir.IRExitRegion)]
    regions = [n for n in ir.walk(out.body) if isinstance(n, ir.IRRegion)]
    assert len(exits) == 1 and [r.name for r in regions] == [exits[0].name]


def coords_body(rng, b):
    for k, j, i in la.inner(rng.add_halo(la.halo.minus_i)):
        field[b, k, j, i] = wp.float64(2.0)


@pytest.mark.parametrize("loop", ["bvoi", "bovi", "boiv"])
def test_expand_loop_abstraction_per_loop_tag(loop):
    fn = typed_la_body(coords_body, la.IndexSpace.box(getattr(la, loop), la.logical_coords, **SPACE))
    assert ir.contains(fn.body, ir.IRLAOuter)
    out = run(fn, InlineLocalFunctions(), ExpandLoopAbstraction())
    check_golden(f"expand_loop_abstraction.{loop}", out)
    assert not ir.contains(out.body, (ir.IRLAOuter, ir.IRLAInner))
    assert out.tid_dims == {"bvoi": 1, "bovi": 2, "boiv": 4}[loop]
    simd = [n for n in ir.walk(out.body) if isinstance(n, ir.IRFor) and n.simd]
    assert (len(simd) > 0) == (loop != "boiv")  # boiv visits one cell per halo offset, no loop


def scratch_body(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng.add_halo(la.halo.minus_i))
    for idx in la.inner(rng.add_halo(la.halo.minus_i)):
        s[idx] = wp.float64(3.0)
    rng.team_barrier()
    for k, j, i in la.inner(rng):
        field[b, k, j, i] = s[k, j, i - 1]


def test_expand_loop_abstraction_scratch_and_barrier():
    fn = typed_la_body(scratch_body, la.IndexSpace.box(la.bovi, la.logical_flat, **SPACE))
    assert ir.contains(fn.body, ir.IRTeamBarrier) and ir.contains(fn.body, ir.IRLAScratch)
    out = run(fn, InlineLocalFunctions(), ExpandLoopAbstraction())
    check_golden("expand_loop_abstraction.scratch", out)
    assert not ir.contains(out.body, (ir.IRTeamBarrier, ir.IRLAScratch, ir.IRLAScratchElem))
    assert ir.contains(out.body, ir.IRTeamScratch)


def teams_body(member, j):
    pad = wp.ScratchPad1D(member, wp.float64, 4)

    def fill(i):
        pad[i] = wp.float64(1.0)

    wp.par_for_inner(member, 0, 3, fill)
    member.team_barrier()

    def use(i):
        field[0, 0, j, i] = pad[i]

    wp.par_for_inner(member, 0, 3, use)


def test_lower_teams_maps_a_team_to_one_thread():
    fn = typed_par_for_outer(teams_body, 1)
    assert ir.contains(fn.body, ir.IRTeamLoop) and ir.contains(fn.body, ir.IRTeamBarrier)
    out = run(fn, InlineLocalFunctions(), LowerTeams())
    check_golden("lower_teams", out)
    assert not ir.contains(out.body, (ir.IRTeamLoop, ir.IRTeamBarrier))
    loops = [n for n in ir.walk(out.body) if isinstance(n, ir.IRFor)]
    assert len(loops) == 2 and all(loop.simd for loop in loops)


def reduce_body(rng, b):
    la.inner_reduce(rng, lambda k, j, i: field[b, k, j, i])


@pytest.mark.parametrize("reducer,lanes", [(la.Sum(wp.float64), 8), (la.Max(wp.float64), 8), (la.MinLoc(wp.float64), 0)])
def test_lower_reductions(reducer, lanes):
    """A row's simd loop folds into lanes kept across rows (blocks of ``lanes`` cells, the remainder into
    lane 0), joined into the accumulator after the slice; MinLoc folds cell by cell."""
    space = la.IndexSpace.box(la.bovi, la.logical_flat, **SPACE).with_reducer(reducer)
    fn = typed_la_body(reduce_body, space, reduce=True)
    out = run(fn, InlineLocalFunctions(), ExpandLoopAbstraction(), LowerReductions())
    if reducer.join != "max":
        check_golden(f"lower_reductions.{reducer.join}{'_loc' if reducer.with_location else ''}", out)
    assert not ir.contains(out.body, (ir.IRSliceReduction, ir.IRLAFold))
    assert not [n for n in ir.walk(out.body) if isinstance(n, ir.IRFor) and n.reduction]  # no per-row clause
    assert "_la_acc" in out.locals
    if lanes:
        assert out.locals["_la_lanes0"].shape == (lanes,)
        simd = [n for n in ir.walk(out.body) if isinstance(n, ir.IRFor) and n.simd]
        assert len(simd) == 1 and simd[0].stop.value == lanes
    else:
        assert not any(name.startswith("_la_lane") for name in out.locals)


RHO, MOM = VarTag("rho"), VarTag("mom")
PACK = kernel_pack_type(wp.float64, ("rho", "mom"), (1, 3))


@wp.kernel
def pack_kernel(p: typing.Any, out: wp.array(dtype=wp.float64)):
    b, k, j, i = wp.tid()
    out[0] = p[b, MOM(2), k, j, i] + p.flux[b, 1, RHO, k, j, i] + wp.float64(p.get_size(b, MOM))


def test_lower_pack_access():
    fn = typed_kernel(pack_kernel, [PACK, wp.array(dtype=wp.float64)])
    elems = [n for n in ir.walk(fn.body) if isinstance(n, ir.IRPackElem)]
    assert [(e.var.position, e.flux_dir is not None) for e in elems] == [(1, False), (0, True)]
    out = run(fn, LowerPackAccess())
    check_golden("lower_pack_access", out)
    assert not ir.contains(out.body, (ir.IRPackElem, ir.IRPackBound))
    assert len([n for n in ir.walk(out.body) if isinstance(n, ir.IRRawElem)]) == 2


@wp.kernel
def math_kernel(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.sqrt(wp.min(a[i], 2.0)) if not (a[i] < 0.0) else 0.0


def test_select_builtins_attaches_the_targets_implementation():
    fn = typed_kernel(math_kernel, [wp.array(dtype=float)])
    assert all(c.impl is None for c in ir.walk(fn.body) if isinstance(c, ir.IRCall))
    out = run(fn, SelectBuiltins("cpu", CPU_BUILTINS))
    calls = {c.op: c for c in ir.walk(out.body) if isinstance(c, ir.IRCall)}
    assert set(calls) == {"sqrt", "min", "lt", "logical_not"}
    assert calls["sqrt"].impl(["x"]) == "bw::sqrt(x)"
    assert calls["logical_not"].impl(["c"]) == "(!bw::truth(c))"
    check_golden("select_builtins", out)


def test_select_builtins_names_a_builtin_the_target_lacks():
    fn = typed_kernel(math_kernel, [wp.array(dtype=float)])
    table = {k: v for k, v in CPU_BUILTINS.items() if k != "sqrt"}
    with pytest.raises(KernelTypeError, match=r"sqrt\(\) is not available on the toy target"):
        SelectBuiltins("toy", table).run(fn)
    assert all(c.impl is None for c in ir.walk(fn.body) if isinstance(c, ir.IRCall))  # input unchanged

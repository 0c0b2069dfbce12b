"""lower_pack_access hoists the pack's table loads out of loops: base pointers and strides are read
once per slice, and the innermost loops walk ``raw(base)[offset]`` without touching the tables.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from ir_helpers import check_golden, run, typed_la_body

import brickwork as wp
from brickwork import ir, la, pipeline
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag
from brickwork.passes import ExpandLoopAbstraction, InlineLocalFunctions, LowerPackAccess, LowerTeams

RHO = VarTag("hoist_density")


def _space(loop, inner, **options):
    pkg = Package("hoist_test")
    pkg.add_field("hoist_density", Metadata("Cell", "Independent", "WithFluxes"))
    mesh = Mesh(nx=(8, 8, 4), block_nx=(4, 4, 4), nghost=2, packages=[pkg])
    rng = np.random.default_rng(3)
    mesh.data("hoist_density")[:] = rng.random(mesh.data("hoist_density").shape)
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [RHO], with_fluxes=True).get_pack(md)
    space = la.IndexSpace(getattr(la, loop), getattr(la, inner), domain=IndexDomain.interior,
                          nblocks=pack.get_nblocks(), md=md, te=TE.F1, **options)
    return mesh, pack, space


def _body(pack, space):
    dx1 = space.get_delta(wp.X1DIR)

    def diff(idx_range, b):
        pv = la.make_pack_view(idx_range, pack)
        fv = la.make_flux_pack_view(idx_range, pack, wp.X1DIR)
        for idx in la.inner(idx_range):
            fv[RHO(), idx] = pv[RHO(), idx] - pv[RHO(), idx - dx1]

    return diff


@pytest.mark.parametrize(("loop", "inner"), [("bvoi", "memory"), ("bvoi", "logical_coords")])
def test_golden_table_loads_hoisted_to_the_slice(loop, inner):
    _, pack, space = _space(loop, inner)
    fn = typed_la_body(_body(pack, space), space)
    out = run(fn, InlineLocalFunctions(), ExpandLoopAbstraction(), LowerTeams(), LowerPackAccess())
    check_golden(f"lower_pack_access.hoisted_{loop}_{inner}", out)
    loops = [n for n in ir.walk(out.body) if isinstance(n, ir.IRFor)]
    raws = [n for loop_node in loops for n in ir.walk(loop_node.body) if isinstance(n, ir.IRRawElem)]
    # no table is read inside a loop to find an element (the bounds of debug-mode checks aside)
    assert raws and not any(isinstance(n, ir.IRField) for r in raws for n in ir.walk([r.address, r.offset]))


@pytest.mark.parametrize(("loop", "inner"), [("bvoi", "memory"), ("bovi", "logical_flat"), ("bvoi", "logical_coords")])
def test_hoisted_kernel_computes_the_x1_difference(loop, inner):
    mesh, pack, space = _space(loop, inner)
    la.outer(space, _body(pack, space))
    q, flux = mesh.data("hoist_density")[:, 0], mesh.field("hoist_density").flux[:, 0]
    g = 2
    got = flux[:, g:-g, g:-g, g:-g]  # interior k, j; faces i from g to ni - g - 1
    want = q[:, g:-g, g:-g, g:-g] - q[:, g:-g, g:-g, g - 1:-g - 1]
    np.testing.assert_array_equal(got, want)


def test_generated_simd_loops_read_no_pack_table():
    _, pack, space = _space("bvoi", "memory")
    fn = typed_la_body(_body(pack, space), space)
    lowered, callees = pipeline.lower(fn, [], pipeline.DEFAULT_TARGET)
    text = pipeline.DEFAULT_TARGET.render(lowered, callees, "diff")
    loops = re.findall(r"#pragma omp simd\n\s*for \(.*?\n(.*?)\n\s*\} \}", text, flags=re.S)
    assert loops and all("m_ptrs" not in body and "m_fluxes" not in body and "m_bounds" not in body for body in loops)
    assert "m_ptrs" in text and "m_fluxes" in text  # read once, before the loops


@pytest.mark.parametrize(("loop", "inner"), [("bvoi", "memory"), ("bovi", "logical_flat"), ("bvoi", "logical_coords")])
def test_gpu_mapping_reads_the_tables_once_per_thread_block(loop, inner):
    """On a GPU a slice is a thread block whose index gives the block of the pack: the table loads
    move out of the thread-strided loops as they move out of the CPU's rows, and the emulation of
    the mapped kernel computes the same differences."""
    from brickwork import config
    from brickwork.targets.cuda import CudaTarget

    mesh, pack, space = _space(loop, inner, backend=la.team)
    fn = typed_la_body(_body(pack, space), space)
    lowered, callees = pipeline.lower(fn, [], CudaTarget("sm_90"))
    loops = [n for n in ir.walk(lowered.body) if isinstance(n, ir.IRFor)]
    raws = [n for loop_node in loops for n in ir.walk(loop_node.body) if isinstance(n, ir.IRRawElem)]
    assert raws and not any(isinstance(n, ir.IRField) for r in raws for n in ir.walk([r.address, r.offset]))
    with config.override(target="cuda-emulation"):
        la.outer(space, _body(pack, space))
    q, flux = mesh.data("hoist_density")[:, 0], mesh.field("hoist_density").flux[:, 0]
    g = 2
    np.testing.assert_array_equal(flux[:, g:-g, g:-g, g:-g], q[:, g:-g, g:-g, g:-g] - q[:, g:-g, g:-g, g - 1:-g - 1])

"""An ``IndexSpace.box`` whose memory box does not fit a captured pack's storage is refused at launch, before any
point runs (attacker probe, round 14): release builds test no cell index as it runs, and a box space (no mesh) was
not compared with the pack, so a box of 8^3 over blocks stored as 6^3 wrote past the storage (a flat view: 1134 of
1728 writes landed in the field, the rest past the array; a branch's pack[b, u(), k, j, i]: 1685), and a box of 4^3
under a flat inner tag wrote its flat memory offsets into the wrong cells of the 6^3 storage, silently."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.mesh import Mesh, Metadata, Package, PackDescriptor, VarTag

u = VarTag("u")


def _mesh():
    pkg = Package("p")
    pkg.add_field("u", Metadata("Cell"))
    mesh = Mesh(nx=(4, 4, 8), block_nx=(4, 4, 4), nghost=1, packages=[pkg])
    return mesh, PackDescriptor(mesh, [u]).get_pack(mesh.mesh_data())


MESH, PACK = _mesh()  # two blocks stored as (6, 6, 6) cells


def view_body(rng, b):
    pv = la.make_pack_view(rng, PACK)
    for idx in la.inner(rng):
        pv[u(), idx] = wp.float64(1.0)


def branch_body(rng, b):
    for k, j, i in la.inner(rng):
        if i > 0:
            PACK[b, u(), k, j, i] = wp.float64(1.0)


BODIES = {"view_body": (view_body, la.logical_flat), "branch_body": (branch_body, la.logical_coords)}


def _space(inner, n):
    return la.IndexSpace.box(la.bvoi, inner, nblocks=PACK.get_nblocks(), nx=n, ny=n, nz=n, nghost=1)


def _refusal(body, n, reach):
    e = n + 1
    return (f"loop body '{body}': the index space's memory box Indexer3D(ks=0, ke={e}, js=0, je={e}, is_=0, ie={e}) "
            f"(IndexSpace.box) has extents ({n + 2}, {n + 2}, {n + 2}) (k, j, i), which takes pack 'PACK' to {reach}; "
            f"release builds test no cell index as it runs: build the space from the pack's mesh "
            f"(la.IndexSpace(..., md=...)) or a box of its blocks (nx, ny, nz = 4, 4, 4, nghost=1)")


@pytest.mark.parametrize("body", list(BODIES))
def test_a_memory_box_past_the_storage_is_refused(monkeypatch, body):
    monkeypatch.setattr(wp.config, "mode", "release")
    fn, inner = BODIES[body]
    with pytest.raises(wp.LaunchError) as e:
        la.outer(_space(inner, 6), fn)
    assert str(e.value) == _refusal(body, 6, "cells up to (7, 7, 7) (k, j, i), past its storage (6, 6, 6)")
    assert not MESH.data("u").any()


def test_flat_offsets_of_another_memory_box_are_refused(monkeypatch):
    monkeypatch.setattr(wp.config, "mode", "release")
    with pytest.raises(wp.LaunchError) as e:
        la.outer(_space(la.logical_flat, 2), view_body)
    assert str(e.value) == _refusal("view_body", 2, "flat memory offsets of rows of 4 cells in planes of 4 rows, "
                                                    "but its cell storage holds (6, 6, 6) (k, j, i), so the offsets "
                                                    "land on other cells")
    assert not MESH.data("u").any()


@pytest.mark.parametrize("body, n", [("view_body", 4), ("branch_body", 4), ("branch_body", 2)])
def test_boxes_inside_the_storage_run(monkeypatch, body, n):
    """Coordinates of a smaller box are cells of the storage: they run (as views over the blocks' own box do)."""
    monkeypatch.setattr(wp.config, "mode", "release")
    fn, inner = BODIES[body]
    la.outer(_space(inner, n), fn)
    expected = np.zeros_like(MESH.data("u"))
    expected[:, :, 1:n + 1, 1:n + 1, 1:n + 1] = 1.0
    np.testing.assert_array_equal(MESH.data("u"), expected)
    MESH.data("u")[...] = 0.0

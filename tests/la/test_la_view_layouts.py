"""Semantics §11 and §13: a view under a flat or memory inner tag addresses every variable at the space's
flat memory offsets, so a variable stored with other extents than the memory box is rejected when the body
is compiled (a plain ``Metadata("Face")`` field has the node extents: read through a cell space's offsets it
gave the wrong cells, silently); with ``memory_te=TE.NN`` the same views of it are right
(docs/reference/loop_abstraction_semantics.md)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.mesh import TE, Mesh, Metadata, Package, PackDescriptor, VarTag

rho, bf = VarTag("rho"), VarTag("B")


def line_of(marker: str) -> int:
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    hits = [n for n, text in enumerate(lines, 1) if f"# <{marker}>" in text]
    assert len(hits) == 1, marker
    return hits[0]


def make_pack(aligned: bool = False):
    pkg = Package("layouts")
    pkg.add_field("rho", Metadata("Cell", "WithFluxes"))
    pkg.add_field("B", Metadata("Face", "CellMemAligned") if aligned else Metadata("Face"))
    mesh = Mesh(nx=(8, 8), block_nx=(8, 8), nghost=1, packages=[pkg])
    rng = np.random.default_rng(3)
    for name in ("rho", "B"):
        mesh.data(name)[...] = rng.random(mesh.data(name).shape)
    md = mesh.mesh_data()
    return mesh, md, PackDescriptor(mesh, [rho, bf], with_fluxes=True).get_pack(md)


def copy_body(pack):
    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[rho(), idx] = pv[TE.F1, bf(), idx]  # <face-read>

    return body


@pytest.mark.parametrize("lt, it", [(la.bovi, la.logical_flat), (la.bvoi, la.memory), (la.boiv, la.logical_flat)],
                         ids=["bovi-flat", "bvoi-memory", "boiv-flat"])
def test_a_face_field_with_node_extents_is_rejected_under_flat_tags(lt, it):
    mesh, md, pack = make_pack()
    space = la.IndexSpace(lt, it, nblocks=pack.get_nblocks(), md=md)
    before = mesh.data("rho").copy()
    with pytest.raises(wp.KernelTypeError) as e:
        la.outer(space, copy_body(pack))
    message = str(e.value)
    assert f"view 'pv' (la.{it.name}) addresses variable 'B'" in message
    assert "stored with the node extents" in message and "memory box has the cell extents" in message
    assert "use la.logical_coords, or declare 'B' with Metadata(..., \"CellMemAligned\")" in message
    assert e.value.location.filename == __file__ and e.value.location.lineno == line_of("face-read")
    assert (mesh.data("rho") == before).all()  # nothing ran


@pytest.mark.parametrize("aligned", [False, True], ids=["node-extents", "cell-mem-aligned"])
def test_the_accepted_forms_read_the_face_at_the_cell(aligned):
    """logical_coords forwards to the pack (any extents); CellMemAligned makes the flat view right too."""
    mesh, md, pack = make_pack(aligned)
    inner_tags = (la.logical_coords, la.logical_flat) if aligned else (la.logical_coords,)
    for it in inner_tags:
        mesh.data("rho")[...] = 0
        la.outer(la.IndexSpace(la.bovi, it, nblocks=pack.get_nblocks(), md=md), copy_body(pack))
        np.testing.assert_array_equal(mesh.data("rho")[0, 0, 0, 1:-1, 1:-1], mesh.data("B")[0, 0, 0, 1:9, 1:9])


def test_var_views_and_runtime_variable_indices_are_checked_too():
    mesh, md, pack = make_pack()
    space = la.IndexSpace(la.bovi, la.logical_flat, nblocks=pack.get_nblocks(), md=md)

    def var_view(rng, b):
        bv = la.make_var_view(rng, pack, bf)
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[rho(), idx] = bv[idx]

    def runtime_index(rng, b):
        pv = la.make_pack_view(rng, pack)
        first = pack.get_lower_bound(b, rho)
        for idx in la.inner(rng):
            pv[first, idx] = wp.float64(1.0)

    before = mesh.data("rho").copy()
    with pytest.raises(wp.KernelTypeError, match="view 'bv' .*addresses variable 'B'"):
        la.outer(space, var_view)
    with pytest.raises(wp.KernelTypeError, match="a runtime variable index, which can name variable 'B',"):
        la.outer(space, runtime_index)
    assert (mesh.data("rho") == before).all()


def test_a_node_memory_box_takes_node_extent_fields_and_refuses_cell_ones():
    """With memory_te=TE.NN the flat offsets are those of the node extents: right for a plain face field,
    wrong for cell fields and for fluxes (which have the cell extents)."""
    mesh, md, pack = make_pack()
    nodes = la.IndexSpace(la.bovi, la.logical_flat, nblocks=pack.get_nblocks(), md=md, te=TE.NN, memory_te=TE.NN)

    def scale_b(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[TE.F2, bf(), idx] = wp.float64(2.0) * pv[TE.F1, bf(), idx]

    def read_rho(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[TE.F1, bf(), idx] = pv[rho(), idx]

    def write_flux(rng, b):
        fv = la.make_flux_view(rng, pack, wp.X1DIR, rho)
        for idx in la.inner(rng):
            fv[idx] = wp.float64(1.0)

    B = mesh.data("B")
    want = B.copy()
    want[0, 1, 0, 1:10, 1:10] = 2.0 * B[0, 0, 0, 1:10, 1:10]  # the interior nodes
    la.outer(nodes, scale_b)
    np.testing.assert_array_equal(mesh.data("B"), want)
    with pytest.raises(wp.KernelTypeError, match="'rho' is stored with the cell extents and the space's memory box "
                                                 r"has the node extents \(memory_te=TE.NN\).*or memory_te=TE.CC"):
        la.outer(nodes, read_rho)
    with pytest.raises(wp.KernelTypeError, match="the fluxes of 'rho' at the index space's flat memory offsets, but "
                                                 "they are stored with the cell extents"):
        la.outer(nodes, write_flux)
    np.testing.assert_array_equal(mesh.data("B"), want)

"""Semantics §5 and §13: what the index-space constructors check on the host, since the kernels rely on it
unchecked: every size and count is an int, and the logical box L lies inside the memory box M (a cell of
L outside M would be read and written out of bounds); a box set afterwards is checked at the next launch
(docs/reference/loop_abstraction_semantics.md)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.la.indices import Indexer3D
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package

BOX_ARGS = dict(nblocks=1, nx=4, ny=3, nz=2, nghost=1)


def mesh_data(nghost: int):
    pkg = Package("p")
    pkg.add_field("q", Metadata("Cell"))
    return Mesh((8, 8), (4, 4), nghost=nghost, packages=[pkg]).mesh_data()


# -- sizes and counts ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["nblocks", "nx", "ny", "nz", "nghost"])
@pytest.mark.parametrize("bad", [2.5, 2.0, True, "2", None])
def test_box_sizes_must_be_ints(name, bad):
    with pytest.raises(TypeError, match=re.escape(f"IndexSpace.box: {name} must be an int, got {bad!r}")):
        la.IndexSpace.box(la.bovi, la.logical_flat, **{**BOX_ARGS, name: bad})


@pytest.mark.parametrize("name", ["nblocks", "halo"])
@pytest.mark.parametrize("bad", [1.5, 1.0, True, np.float64(1.0)])
def test_mesh_space_sizes_must_be_ints(name, bad):
    kwargs = {"nblocks": 1, "halo": 0, name: bad}
    with pytest.raises(TypeError, match=re.escape(f"IndexSpace: {name} must be an int, got {bad!r}")):
        la.IndexSpace(la.bovi, la.logical_flat, md=mesh_data(2), **kwargs)


@pytest.mark.parametrize("bad", [2.0, True, False, np.float32(4.0)])
def test_ninner_must_be_an_int_or_a_chunk_shape(bad):
    with pytest.raises(TypeError, match=re.escape(f"ninner must be a positive int or la.i_pencil/ij_slab/kji_cube, got {bad!r}")):
        la.IndexSpace.box(la.bovi, la.logical_flat, **BOX_ARGS, ninner=bad)


def test_numpy_integers_are_ints():
    space = la.IndexSpace.box(la.bovi, la.logical_flat, np.int64(2), np.int32(4), np.int16(3), np.uint8(2),
                              np.int64(1), ninner=np.int64(5))
    assert (space.nblocks, space.L, space.get_ninner()) == (2, Indexer3D(1, 2, 1, 3, 1, 4), 5)
    assert type(space.nblocks) is int and type(space.ninner) is int and type(space.L.ie) is int
    mesh_space = la.IndexSpace(la.bovi, la.logical_flat, md=mesh_data(2), nblocks=np.int64(4), halo=np.int8(1))
    assert mesh_space.nblocks == 4 and (mesh_space.L.js, mesh_space.L.je) == (1, 6)


@pytest.mark.parametrize("dims, count, bad", [((2.0,), 1, "dims"), ((2,), 1.5, "count"), ((True,), 1, "dims")])
def test_scratch_dims_and_count_must_be_ints(dims, count, bad):
    space = la.IndexSpace.box(la.bovi, la.logical_flat, **BOX_ARGS)
    with pytest.raises(TypeError, match=f"add_per_point_scratch: {bad} must be an int"):
        space.add_per_point_scratch(wp.float64, dims=dims, count=count)
    assert space.scratch == []


@pytest.mark.parametrize("offsets", [[(0, 0, 0.5), (0, 0, 0)], [(0, 0, -1.0), (0, 0, 0)], [(0, 0, True), (0, 0, 0)]])
def test_halo_offsets_must_be_ints(offsets):
    """(0, 0, 0.5) used to truncate to a second identity offset."""
    with pytest.raises(TypeError, match="halo offsets are triples of ints"):
        la.halo.make(offsets)


# -- L inside M --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, nghost, match", [
    (dict(halo=3), 2, r"in j \(x2\): L spans \[-1, 8\], M \[0, 7\]; halo=3 widens L past the ghost cells: use a "
                      r"smaller halo or more ghost cells \(Mesh\(\.\.\., nghost=\.\.\.\), now 2\)"),
    (dict(halo=1), 0, r"in j \(x2\): L spans \[-1, 4\], M \[0, 3\]; halo=1"),
    (dict(te=TE.F1), 0, r"in i \(x1\): L spans \[0, 4\], M \[0, 3\]; te=TE.F1 has one index more than the cells.*"
                        r"use memory_te=TE.NN"),
    (dict(te=TE.F1, domain=IndexDomain.entire), 2, r"in i \(x1\): L spans \[0, 8\], M \[0, 7\]; te=TE.F1"),
    (dict(te=TE.NN, domain=IndexDomain.entire), 2, r"in j \(x2\): L spans \[0, 8\], M \[0, 7\]; te=TE.NN"),
])
def test_a_logical_box_outside_the_memory_box_is_rejected(kwargs, nghost, match):
    with pytest.raises(ValueError, match=f"IndexSpace: the logical box leaves the memory box {match}"):
        la.IndexSpace(la.bovi, la.logical_flat, nblocks=1, md=mesh_data(nghost), **kwargs)


@pytest.mark.parametrize("kwargs, nghost", [
    (dict(halo=2), 2), (dict(halo=-1), 4), (dict(te=TE.F1), 1), (dict(te=TE.F1, memory_te=TE.NN), 0),
    (dict(te=TE.F1, domain=IndexDomain.entire, memory_te=TE.NN), 2), (dict(domain=IndexDomain.entire), 2),
    (dict(te=TE.F1, domain=IndexDomain.entire, halo=-1), 2),
])
def test_logical_boxes_that_fit_are_accepted(kwargs, nghost):
    space = la.IndexSpace(la.bovi, la.logical_flat, nblocks=1, md=mesh_data(nghost), **kwargs)
    assert space.M.contains(space.L.ks, space.L.js, space.L.is_) and space.M.contains(space.L.ke, space.L.je,
                                                                                      space.L.ie)


def _marking_body(out):
    def body(rng, b):
        for k, j, i in la.inner(rng):
            out[b, k, j, i] = out[b, k, j, i] + 1

    return body


def _counting_body(rng, b):
    la.inner_reduce(rng, lambda idx: wp.float64(1.0))


def test_a_box_set_afterwards_is_checked_at_the_next_launch():
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 1, 4, 4, 4, 1)
    out = wp.zeros((1, 6, 6, 6), dtype=wp.int32)
    body = _marking_body(out)
    la.outer(space, body)  # checked and kept: the next launch with the same space does not check again
    space.L = Indexer3D(1, 4, 0, 5, 2, 6)
    with pytest.raises(ValueError, match=r"la.outer: the logical box leaves the memory box in i \(x1\): L spans "
                                         r"\[2, 6\], M \[0, 5\]; make space.L a box inside space.M"):
        la.outer(space, body)
    reducing = space.with_reducer(la.Sum(wp.float64))
    with pytest.raises(ValueError, match=r"la.outer_reduce: the logical box leaves the memory box in i \(x1\)"):
        la.outer_reduce(reducing, _counting_body)
    assert out.numpy().sum() == 64  # only the first launch ran
    space.L = Indexer3D(0, 5, 0, 5, 0, 5)  # the whole memory box fits
    la.outer(space, body)
    assert out.numpy().sum() == 64 + 216

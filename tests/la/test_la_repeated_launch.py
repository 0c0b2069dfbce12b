"""A launch of the body ``la.outer`` launched last over the same space takes a shorter path
(``runtime.launch.RepeatedLaunch``, which keeps the grid's extents per instance, and the body's
compile-time values read in one go): each change between two launches must still be seen by the
second one, as ``launch`` sees it."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.errors import LaunchError
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

la_outer_module = importlib.import_module("brickwork.la.outer")  # la.outer is also the function's name

U, V = VarTag("u"), VarTag("v")
SCALE = 1  # a compile-time value of the bodies below, changed by the tests
LIMIT = 2  # deleted and restored by a test


def _space():
    return la.IndexSpace.box(la.bvoi, la.logical_flat, 1, 2, 2, 2, 1)  # one block, 2x2x2 cells, M 4x4x4


def _inside(a) -> np.ndarray:
    return a.numpy()[0, 1:3, 1:3, 1:3]


def _launch_table(space, body) -> dict:
    return la_outer_module._prepared(space, body, "outer", False)[0].launch_table


def test_a_captured_array_of_another_dtype_gets_its_own_instance():
    space = _space()
    out = wp.ones((1, 4, 4, 4), dtype=wp.int32)

    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = out[b, k, j, i] + out[b, k, j, i]

    la.outer(space, body)
    la.outer(space, body)
    first = out
    out = wp.full((1, 4, 4, 4), 0.5, dtype=wp.float64)  # rebinds the closure cell: another signature
    la.outer(space, body)
    la.outer(space, body)
    assert (_inside(first) == 4).all()
    assert (_inside(out) == 2.0).all() and out.numpy()[0, 0, 0, 0] == 0.5
    assert len(_launch_table(space, body)) == 2


def test_changed_globals_and_closure_constants_are_seen_by_the_next_launch(monkeypatch):
    """The compile-time values are read at every launch, module globals and closure cells alike (a body
    naming both); a change rebuilds the body for the new value."""
    space = _space()
    out = wp.zeros((1, 4, 4, 4), dtype=wp.int32)
    shift = 10

    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = SCALE * shift

    la.outer(space, body)
    assert (_inside(out) == 10).all()
    monkeypatch.setitem(globals(), "SCALE", 3)
    la.outer(space, body)
    assert (_inside(out) == 30).all()
    shift = 20  # noqa: F841 - read by body, through its closure cell
    la.outer(space, body)
    assert (_inside(out) == 60).all()
    monkeypatch.setitem(globals(), "SCALE", 1)
    shift = 7  # noqa: F841
    la.outer(space, body)
    assert (_inside(out) == 7).all()


def test_a_deleted_global_is_seen_by_the_next_launch(monkeypatch):
    space = _space()
    out = wp.zeros((1, 4, 4, 4), dtype=wp.int32)

    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = LIMIT

    la.outer(space, body)
    monkeypatch.delitem(globals(), "LIMIT")
    out.fill_(-1)
    with pytest.raises(Exception, match="LIMIT"):
        la.outer(space, body)
    assert (_inside(out) == -1).all()  # nothing ran
    monkeypatch.setitem(globals(), "LIMIT", 5)
    la.outer(space, body)
    assert (_inside(out) == 5).all()


def _counting(out):
    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = out[b, k, j, i] + wp.float64(1.0)

    return body


def _launched_twice():
    """A space, an output and a body counting visits into it, launched twice (its repeated path is warm)."""
    space = _space()
    out = wp.zeros((1, 4, 4, 4), dtype=wp.float64)
    body = _counting(out)
    la.outer(space, body)
    la.outer(space, body)
    return space, out, body


def test_a_launch_under_a_tape_is_recorded_after_unrecorded_ones():
    space, out, body = _launched_twice()
    with wp.Tape() as tape:
        la.outer(space, body)
    assert len(tape.launches) == 1 and (_inside(out) == 3.0).all()


def test_a_launch_during_a_graph_capture_is_recorded_not_run():
    space, out, body = _launched_twice()
    with wp.ScopedCapture() as capture:
        la.outer(space, body)
    assert (_inside(out) == 2.0).all()
    wp.capture_launch(capture.graph)
    wp.capture_launch(capture.graph)
    assert (_inside(out) == 4.0).all()


def test_verify_fp_turned_on_between_launches_checks_the_next_one(capfd):
    space = _space()
    out = wp.zeros((1, 4, 4, 4), dtype=wp.float64)
    d = wp.float64(0.0)

    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = wp.float64(1.0) / d

    la.outer(space, body)
    la.outer(space, body)
    assert capfd.readouterr().out == ""
    with wp.config.override(verify_fp=True):
        la.outer(space, body)
    assert "verify_fp: kernel body wrote inf to argument 'out'" in capfd.readouterr().out


def test_a_changed_mode_is_seen_by_the_next_launch():
    space, out, body = _launched_twice()
    with wp.config.override(mode="debug"):
        la.outer(space, body)
        assert [inst.mode for inst, _ in _launch_table(space, body).values()] == ["debug"]
    la.outer(space, body)
    assert [inst.mode for inst, _ in _launch_table(space, body).values()] == [wp.config.mode]
    assert (_inside(out) == 4.0).all()


def _mesh(nblocks: int):
    pkg = Package("repeated")
    pkg.add_field("u", Metadata("Cell", "WithFluxes"))
    pkg.add_field("v", Metadata("Cell"))
    mesh = Mesh(nx=(4 * nblocks, 4), block_nx=(4, 4), nghost=1, packages=[pkg])
    mesh.data("u")[...] = np.random.default_rng(0).random(mesh.data("u").shape)
    return mesh


def test_a_rebound_pack_is_checked_at_the_next_launch():
    """A pack without fluxes for a body that reads them, or a pack of fewer blocks than the space
    visits, is refused after launches with a pack that fit; nothing runs."""
    mesh = _mesh(2)
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [U, V], with_fluxes=True).get_pack(md)
    space = la.IndexSpace(la.bvoi, la.logical_flat, domain=IndexDomain.interior, nblocks=2, md=md)

    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        fv = la.make_flux_pack_view(rng, pack, 1)
        for idx in la.inner(rng):
            pv[V(), idx] = fv[U(), idx]

    la.outer(space, body)
    la.outer(space, body)
    mesh.data("v")[...] = -1.0
    fitting = pack
    pack = PackDescriptor(mesh, [U, V]).get_pack(md)  # no fluxes
    with pytest.raises(LaunchError, match="pack 'pack' has no fluxes"):
        la.outer(space, body)
    pack = PackDescriptor(mesh, [U, V], with_fluxes=True).get_pack(mesh.mesh_data([mesh.blocks[0]]))
    with pytest.raises(LaunchError, match="the index space visits 2 blocks but pack 'pack' holds 1"):
        la.outer(space, body)
    assert (mesh.data("v") == -1.0).all()
    pack = fitting
    la.outer(space, body)
    assert (mesh.data("v") != -1.0).any()


PER_BLOCK = None  # the pack of the block launched, rebound before each launch (a Parthenon-style loop)


def _per_block_body(rng, b):
    pv = la.make_pack_view(rng, PER_BLOCK)
    for idx in la.inner(rng):
        pv[V(), idx] = pv[U(), idx] * wp.float64(2.0)


def test_one_launch_per_block_with_its_own_space_and_pack(monkeypatch):
    mesh = _mesh(3)
    items = []
    for blk in mesh.blocks:
        md = mesh.mesh_data([blk])
        items.append((la.IndexSpace(la.bvoi, la.logical_flat, domain=IndexDomain.interior, nblocks=1, md=md),
                      PackDescriptor(mesh, [U, V]).get_pack(md)))
    for sweep in range(3):
        mesh.data("u")[...] += 1.0
        for space, pack in items:
            monkeypatch.setitem(globals(), "PER_BLOCK", pack)
            la.outer(space, _per_block_body)
        u, v = mesh.data("u"), mesh.data("v")
        np.testing.assert_array_equal(v[..., 1:-1, 1:-1], 2.0 * u[..., 1:-1, 1:-1])

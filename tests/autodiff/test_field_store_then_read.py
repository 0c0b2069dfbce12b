"""A loop-abstraction body that stores a mesh field and reads it back in the same launch: the backward pass
runs on the fields' values from before the launch (the tape puts them back), so a read at the point just
stored takes the stored value (checked against the exact gradient), and any other read after a store is
refused naming the field, the file and the line (it used to give a wrong gradient silently)."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

Q, R, T = VarTag("q"), VarTag("r"), VarTag("t")
F64 = wp.float64


def _setup(tags=("bvoi", "logical_flat")):
    pkg = Package("p")
    for name in ("q", "r", "t"):
        pkg.add_field(name, Metadata("Cell", "WithFluxes"))
    mesh = Mesh(nx=(8,), block_nx=(4,), nghost=1, packages=[pkg])
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [Q, R, T], with_fluxes=True).get_pack(md)
    cells = la.IndexSpace(getattr(la, tags[0]), getattr(la, tags[1]), ninner=la.i_pencil,
                          domain=IndexDomain.interior, nblocks=pack.get_nblocks(), md=md)
    q = np.linspace(0.5, 2.0, mesh.data("q").size).reshape(mesh.data("q").shape)
    mesh.data("q")[...] = q
    mesh.data("r")[...] = 0.25  # the values before the launch, which a wrong backward pass would use
    mesh.field("r").flux[...] = 0.25
    return mesh, pack, cells, q


def _gradient_of_t(mesh, cells, body) -> np.ndarray:
    with wp.Tape() as tape:
        la.outer(cells, body)
    mesh.field("t").grad[...] = 1.0
    tape.backward()
    return mesh.field("q").grad[:, 0, 0, 0, 1:-1]


@pytest.mark.parametrize("tags", [("bvoi", "logical_flat"), ("bovi", "memory"), ("boiv", "logical_coords")])
def test_a_read_of_the_point_just_stored_takes_the_stored_value(tags):
    mesh, pack, cells, q = _setup(tags)

    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[R(), idx] = pv[Q(), idx] * F64(2.0)  # r = 2q
            pv[T(), idx] = pv[R(), idx] * pv[R(), idx]  # t = 4q^2: dt/dq = 8q (it was 4 * 0.25)

    grad = _gradient_of_t(mesh, cells, body)
    np.testing.assert_allclose(grad, 8.0 * q[:, 0, 0, 0, 1:-1], rtol=1e-14)
    np.testing.assert_allclose(mesh.data("t")[:, 0, 0, 0, 1:-1], 4.0 * q[:, 0, 0, 0, 1:-1] ** 2, rtol=1e-14)


def test_stores_and_updates_of_one_point_and_a_flux_view():
    mesh, pack, cells, q = _setup()

    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
        for idx in la.inner(rng):
            fv[R(), idx] = pv[Q(), idx] * F64(2.0)  # 2q
            fv[R(), idx] += pv[Q(), idx]  # 3q
            fv[R(), idx] *= pv[Q(), idx]  # 3q^2
            pv[T(), idx] = fv[R(), idx] * F64(2.0)  # 6q^2: dt/dq = 12q

    grad = _gradient_of_t(mesh, cells, body)
    np.testing.assert_allclose(grad, 12.0 * q[:, 0, 0, 0, 1:-1], rtol=1e-14)


def test_an_update_in_place_still_reads_the_value_from_before_the_launch():
    mesh, pack, cells, q = _setup()

    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[Q(), idx] = pv[Q(), idx] * pv[Q(), idx]  # q <- q^2, read before the store
            pv[T(), idx] = pv[Q(), idx] * F64(3.0)  # 3 q0^2: dt/dq0 = 6 q0

    grad = _gradient_of_t(mesh, cells, body)
    np.testing.assert_allclose(grad, 6.0 * q[:, 0, 0, 0, 1:-1], rtol=1e-14)


def _later_loop(pack, dx):
    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[R(), idx] = pv[Q(), idx] * F64(2.0)
        rng.team_barrier()
        for idx in la.inner(rng):
            pv[T(), idx] = pv[R(), idx]  # E:later_loop

    return body


def _neighbour(pack, dx):
    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[R(), idx] = pv[Q(), idx] * F64(2.0)
            pv[T(), idx] = pv[R(), idx - dx]  # E:neighbour

    return body


def _neighbour_first(pack, dx):
    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[T(), idx] = pv[R(), idx - dx]  # E:neighbour_first (another visit may have stored it already)
            pv[R(), idx] = pv[Q(), idx] * F64(2.0)

    return body


def _conditional(pack, dx):
    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            if pv[Q(), idx] > F64(1.0):
                pv[R(), idx] = pv[Q(), idx]
            pv[T(), idx] = pv[R(), idx]  # E:conditional

    return body


def _iterations(pack, dx):
    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            for _ in range(2):
                pv[R(), idx] = pv[R(), idx] * pv[Q(), idx]  # E:iterations
            pv[T(), idx] = pv[Q(), idx]

    return body


@pytest.mark.parametrize("make, marker, why", [
    (_later_loop, "later_loop", "at another point, in a later inner loop or after a store under a condition"),
    (_neighbour, "neighbour", "at another point, in a later inner loop or after a store under a condition"),
    (_neighbour_first, "neighbour_first", "stored at another point of the same inner loop"),
    (_conditional, "conditional", "at another point, in a later inner loop or after a store under a condition"),
    (_iterations, "iterations", "stored in an earlier iteration of a loop"),
])
def test_other_reads_after_a_store_are_refused_naming_the_field_and_line(make, marker, why):
    mesh, pack, cells, _ = _setup()
    body = make(pack, cells.get_delta(wp.X1DIR))
    with open(__file__) as f:
        line = next(n for n, text in enumerate(f, 1) if f"# E:{marker}" in text)
    before = mesh.field("q").grad.copy()
    with wp.Tape() as tape:
        la.outer(cells, body)
    mesh.field("t").grad[...] = 1.0
    with pytest.raises(wp.KernelNotDifferentiableError) as info:
        tape.backward()
    message = str(info.value)
    assert f"reads the mesh field 'r' at {__file__}:{line} after storing it in the same launch ({why})" in message
    assert "keep the stored value in a local" in message
    np.testing.assert_array_equal(mesh.field("q").grad, before)


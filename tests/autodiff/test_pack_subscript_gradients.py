"""Gradients through pack subscripts (``pack[b, var, k, j, i]``, ``pack.flux[b, dir, var, k, j, i]``) in
``par_for`` and ``par_for_outer`` bodies, against central differences on a small mesh (2 blocks of 4 cells, 1
ghost): reads, stores, a stencil reading neighbours, a flux write, a read of the element just stored, and a
``par_for_outer`` body with ``par_for_inner``; on the CPU and the emulation target (compiled for sm_90). A read
after a store at another cell is refused naming the field, file and line, as for views."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.mesh import Mesh, Metadata, Package, PackDescriptor, VarTag

Q, R, T = VarTag("q"), VarTag("r"), VarTag("t")
F64 = wp.float64
TARGETS = [pytest.param("cpu", id="cpu"),
           pytest.param("cuda-emulation", id="emulation", marks=pytest.mark.compiles_for_cuda)]


def _mesh():
    pkg = Package("p")
    for name in ("q", "r", "t"):
        pkg.add_field(name, Metadata("Cell", "WithFluxes"))
    mesh = Mesh(nx=(8,), block_nx=(4,), nghost=1, packages=[pkg])
    pack = PackDescriptor(mesh, [Q, R, T], with_fluxes=True).get_pack(mesh.mesh_data())
    return mesh, pack


MESH, PACK = _mesh()


def stencil(b, i):  # reads, a neighbour stencil, a store, a flux write, a read of the element just stored
    PACK[b, R(), 0, 0, i] = (PACK[b, Q(), 0, 0, i - 1] * PACK[b, Q(), 0, 0, i + 1] + PACK[b, Q(), 0, 0, i]
                             + PACK[b, 1, 0, 0, i] * F64(0.5))  # r, by its flat index
    PACK.flux[b, wp.X1DIR, Q(), 0, 0, i] = PACK[b, Q(), 0, 0, i] * PACK[b, Q(), 0, 0, i - 1]
    PACK[b, T(), 0, 0, i] = wp.sin(PACK[b, R(), 0, 0, i]) + F64(2.0) * PACK[b, Q(), 0, 0, i]


def teams(member, b):
    def visit(i):
        PACK[b, T(), 0, 0, i] = (PACK[b, Q(), 0, 0, i + 1] * PACK[b, Q(), 0, 0, i] * PACK[b, R(), 0, 0, i]
                                 + PACK.flux(b, wp.X1DIR, Q(), 0, 0, i))
        PACK.flux[b, wp.X1DIR, R(), 0, 0, i] = PACK[b, Q(), 0, 0, i - 1] * F64(3.0)

    wp.par_for_inner(member, 1, 4, visit)


def in_place(b, i):  # an update in place reads the value from before the launch; += reads the value stored
    PACK[b, R(), 0, 0, i] = PACK[b, R(), 0, 0, i] * PACK[b, Q(), 0, 0, i]
    PACK[b, R(), 0, 0, i] += PACK[b, Q(), 0, 0, i]


LAUNCHES = {
    "par_for": lambda: wp.par_for(PACK.get_nblocks(), (1, 4), stencil),
    "par_for_outer": lambda: wp.par_for_outer(0, 0, PACK.get_nblocks(), teams),
    "in_place": lambda: wp.par_for(PACK.get_nblocks(), (1, 4), in_place),
}
OUTPUTS = ("q", "r", "t")
INPUTS = ("q", "r")


def _set(state):
    for name, (cells, flux) in state.items():
        MESH.data(name)[...] = cells
        MESH.field(name).flux[...] = flux


def _loss(weights) -> float:
    return sum(float((np.asarray(MESH.data(n)) * wc).sum() + (np.asarray(MESH.field(n).flux) * wf).sum())
               for n, (wc, wf) in weights.items())


def _run(launch, target, state, weights=None):
    """Set the fields to ``state``, launch; with ``weights``, also the gradients of the weighted sum of every
    field and flux after the launch."""
    _set(state)
    tape = wp.Tape()
    with config.override(target=target), tape:
        LAUNCHES[launch]()
    if weights is None:
        return None
    for name, (wc, wf) in weights.items():
        MESH.field(name).grad[...] = wc
        MESH.field(name).flux_grad[...] = wf
    with config.override(target=target):
        tape.backward()
    grads = {n: (np.array(MESH.field(n).grad), np.array(MESH.field(n).flux_grad)) for n in OUTPUTS}
    tape.zero()
    return grads


def _random_state(seed):
    rng = np.random.default_rng(seed)
    shape, fshape = MESH.data("q").shape, MESH.field("q").flux.shape
    return {n: (0.5 + rng.random(shape), 0.5 + rng.random(fshape)) for n in OUTPUTS}


@pytest.mark.parametrize("launch", list(LAUNCHES))
@pytest.mark.parametrize("target", TARGETS)
def test_gradients_match_central_differences(launch, target):
    state, weights = _random_state(1), _random_state(2)
    grads = _run(launch, target, state, weights)
    h = 1e-6
    rng = np.random.default_rng(3)
    assert np.abs(grads["q"][0]).sum() > 0
    for name, part in [(n, p) for n in OUTPUTS for p in (0, 1)]:  # cells and fluxes of every field
        values = state[name][part]
        for flat in rng.choice(values.size, 4, replace=False).tolist() + [1, 2, values.size - 2]:
            idx = np.unravel_index(flat, values.shape)
            losses = []
            for sign in (1, -1):
                moved = {n: [c.copy(), f.copy()] for n, (c, f) in state.items()}
                moved[name][part][idx] += sign * h
                _run(launch, target, moved)
                losses.append(_loss(weights))
            expected = (losses[0] - losses[1]) / (2 * h)
            np.testing.assert_allclose(grads[name][part][idx], expected, rtol=1e-6, atol=1e-8,
                                       err_msg=f"{launch} d/d{name}{' flux' * part}{idx}")


def test_the_exact_gradient_of_an_update_in_place():
    state, weights = _random_state(4), _random_state(5)
    grads = _run("in_place", "cpu", state, weights)
    q, r, wr = state["q"][0], state["r"][0], weights["r"][0]
    inner = (slice(None), 0, 0, 0, slice(1, -1))
    np.testing.assert_allclose(grads["q"][0][inner], weights["q"][0][inner] + wr[inner] * (r[inner] + 1), rtol=1e-14)
    np.testing.assert_allclose(grads["r"][0][inner], wr[inner] * q[inner], rtol=1e-14)
    ghosts = (slice(None), 0, 0, 0, [0, -1])
    np.testing.assert_array_equal(grads["r"][0][ghosts], wr[ghosts])  # not written: the loss's own weight


def neighbour_after_store(b, i):
    PACK[b, R(), 0, 0, i] = PACK[b, Q(), 0, 0, i] * F64(2.0)
    PACK[b, T(), 0, 0, i] = PACK[b, R(), 0, 0, i - 1]  # E:neighbour


def flat_index_after_store(b, i):
    PACK[b, R(), 0, 0, i] = PACK[b, Q(), 0, 0, i] * F64(2.0)
    PACK[b, T(), 0, 0, i] = PACK[b, 0, 0, 0, i]  # E:flat
    # (q, by its flat index: which variable it is is known only at run time, so it may be the r just stored)


@pytest.mark.parametrize("body, marker, field, why", [
    (neighbour_after_store, "neighbour", "'r'", "at another point, in a later inner loop or after a store under a "
                                                "condition"),
    (flat_index_after_store, "flat", "chosen by its flat index at run time (any of the pack's)",
     "at another point, in a later inner loop or after a store under a condition"),
])
def test_a_read_after_a_store_that_may_see_it_is_refused_naming_the_field_and_line(body, marker, field, why):
    with open(__file__) as f:
        line = next(n for n, text in enumerate(f, 1) if f"# E:{marker}" in text)
    _set(_random_state(6))
    with wp.Tape() as tape:
        wp.par_for(PACK.get_nblocks(), (1, 4), body)
    MESH.field("t").grad[...] = 1.0
    before = {n: np.array(MESH.field(n).grad) for n in OUTPUTS}
    with pytest.raises(wp.KernelNotDifferentiableError) as info:
        tape.backward()
    assert f"reads the mesh field {field} at {__file__}:{line} after storing it in the same launch ({why})" in str(
        info.value)
    for n in OUTPUTS:
        np.testing.assert_array_equal(MESH.field(n).grad, before[n])
    tape.zero()

"""The hydro application differentiated: a tape over several RK2 steps (ghost exchange, primitives,
PLM or WENO5 reconstruction + HLLC fluxes, updates in place) gives the gradient of a weighted sum of the final
density with respect to the initial state, checked against central finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.apps import hydro

QUIET = {"hdf5_dt": -1.0, "png_dt": -1.0, "restart_dt": -1.0, "history": False, "progress": False}


def _setup(tmp_path, raw, seed):
    raw = dict(raw, output=dict(QUIET, dir=str(tmp_path / "out")))
    sim = hydro.Hydro(hydro.build_config(raw, [], source="test"))
    sim.set_initial()
    rng = np.random.default_rng(seed)
    # a small random perturbation keeps every limiter and wave-speed choice off its kink, so that finite
    # differences see one branch
    u0 = {k: v * (1.0 + 0.05 * rng.random(v.shape)) for k, v in sim.state().items()}
    u0["momentum"] = u0["momentum"] + 0.02 * (rng.random(u0["momentum"].shape) - 0.5)  # no velocity is exactly 0
    return sim, u0, rng


def _run(sim, u0, dt, steps):
    for name, v in u0.items():
        sim.mesh.data(name)[...] = v
    for n in range(steps):
        sim.check()  # ghosts and primitives; its time step is not used (dt is fixed) and not recorded
        # a time step that changes from step to step (as the CFL one does): each stage's backward kernel needs the
        # coefficients of its own launch, not the last ones set in place (test_launch_values_on_tape.py)
        sim.step(dt * (1.0 - 0.25 * n))
    return sim.mesh.data("density").copy()


@pytest.mark.parametrize("raw, steps, cells, directional", [
    ({"problem": {"name": "sod"}, "mesh": {"nx": [32], "block_nx": [16]}}, 3,
     [(0, 0, 0, 0, 2), (0, 0, 0, 0, 17), (1, 0, 0, 0, 3)], False),
    ({"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [16, 16], "block_nx": [8, 8]},
      "hydro": {"reconstruction": "weno5", "stage": "split"}}, 1, [(1, 0, 0, 5, 9), (3, 0, 0, 9, 3)], True),
], ids=["sod-1d-plm-outflow", "kh-2d-weno5-periodic"])
def test_gradient_of_final_density_wrt_initial_state(tmp_path, raw, steps, cells, directional):
    sim, u0, rng = _setup(tmp_path, raw, seed=5)
    for name, v in u0.items():
        sim.mesh.data(name)[...] = v
    dt = 0.4 * sim.check()
    w = rng.random(u0["density"].shape)

    tape = wp.Tape()
    with tape:
        final = _run(sim, u0, dt, steps)
    sim.mesh.field("density").grad[...] = w
    tape.backward()
    np.testing.assert_array_equal(sim.mesh.data("density"), final)
    grads = {name: sim.mesh.field(name).grad.copy() for name in u0}

    def loss(name, value):
        state = dict(u0, **{name: value})
        return float((w * _run(sim, state, dt, steps)).sum())

    # one cell at a time: a perturbation of 1e-6 reaches a few dozen cells, too few for a limiter or
    # wave-speed choice to flip (which a perturbation of every cell at once can do with PLM)
    h = 1e-6
    bad = []
    for name in ("density", "momentum", "energy"):
        for cell in cells:
            up, down = u0[name].copy(), u0[name].copy()
            up[cell] += h
            down[cell] -= h
            fd = (loss(name, up) - loss(name, down)) / (2 * h)
            if grads[name][cell] != pytest.approx(fd, rel=1e-5, abs=1e-7):
                bad.append((name, cell, grads[name][cell], fd))
    assert not bad
    if directional:  # WENO5 weights are smooth: every cell at once
        direction = rng.standard_normal(u0["momentum"].shape)
        fd = (loss("momentum", u0["momentum"] + h * direction) - loss("momentum", u0["momentum"] - h * direction)) / (
            2 * h)
        assert float((grads["momentum"] * direction).sum()) == pytest.approx(fd, rel=1e-5)

"""examples/fit_advection_velocity.py: the tape's gradient of the misfit with respect to the velocity (a plain
array read by loop-abstraction bodies on a mesh) against central differences, and Adam recovering the
velocity (on several MPI ranks: tests/mpi/test_mpi_rank_sums.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fit_advection_velocity.py"


@pytest.fixture(scope="module")
def problem():
    spec = importlib.util.spec_from_file_location("fit_advection_velocity", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    advection = module.Advection(n=32, block=16, steps=10)
    advection.set_target(module.TRUTH)
    return advection


def _loss(problem, velocity) -> float:
    problem.velocity.numpy()[:] = velocity
    loss = wp.zeros(1, dtype=wp.float64)
    problem.run(loss)
    return float(loss.numpy()[0])


def test_gradient_matches_central_differences(problem):
    v = np.array([0.45, 0.25])
    problem.velocity.numpy()[:] = v
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        problem.run(loss)
    tape.backward(loss)
    grad = problem.velocity.grad.numpy().copy()
    assert float(loss.numpy()[0]) == _loss(problem, v) > 0.0
    for k in range(2):
        step = np.eye(2)[k] * 1e-6
        fd = (_loss(problem, v + step) - _loss(problem, v - step)) / 2e-6
        assert grad[k] == pytest.approx(fd, rel=1e-7)


def test_adam_recovers_the_velocity(problem):
    loss = problem.fit((0.2, 0.2), iterations=120)
    assert loss < 1e-4
    np.testing.assert_allclose(problem.velocity.numpy(), [0.7, 0.3], atol=2e-2)

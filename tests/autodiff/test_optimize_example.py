"""examples/optimize_initial_state.py: the tape's gradient through 40 hydro steps against finite
differences, and gradient descent recovering the initial density."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "optimize_initial_state.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("optimize_initial_state", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_gradient_matches_finite_differences(example):
    problem = example.Problem(n=32, steps=20)
    true_rho0 = 1.0 + 0.5 * np.exp(-((problem.x - 0.5) / 0.1) ** 2)
    target = problem.final_density(true_rho0)
    rho0 = 1.0 + 0.1 * np.sin(2 * np.pi * problem.x)
    loss, grad = problem.loss_and_gradient(rho0, target)
    assert loss == pytest.approx(problem.loss(rho0, target), rel=1e-14)
    eps = 1e-6
    for j in (0, 7, 15, 16, 31):
        up, down = rho0.copy(), rho0.copy()
        up[j] += eps
        down[j] -= eps
        fd = (problem.loss(up, target) - problem.loss(down, target)) / (2 * eps)
        assert grad[j] == pytest.approx(fd, rel=1e-6, abs=1e-12)


def test_gradient_descent_recovers_the_initial_density(example):
    problem = example.Problem(n=32, steps=20)
    true_rho0 = 1.0 + 0.5 * np.exp(-((problem.x - 0.5) / 0.1) ** 2)
    target = problem.final_density(true_rho0)
    rho, history = example.fit(problem, target, np.ones(problem.n), iterations=25)
    assert history[-1] < 1e-3 * history[0]
    assert np.abs(rho - true_rho0).max() < 0.1 * np.abs(1.0 - true_rho0).max()

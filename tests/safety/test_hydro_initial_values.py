"""A problem of your own whose initial() or initial_scalars() returns strings, objects or complex numbers gets
one ConfigError naming the value (attacker probe): a string density was numpy's 'could not convert string to
float' and an object() float()'s TypeError, each a traceback from the solver's field assignment, and a complex
pressure lost its imaginary part with only numpy's ComplexWarning (the run went on)."""

from __future__ import annotations

import types

import numpy as np
import pytest

from brickwork.apps.hydro import scalars
from brickwork.apps.hydro.config import ConfigError
from brickwork.apps.hydro.solver import _block_state

SHAPE = (1, 3, 4)
PROBLEM = types.SimpleNamespace(NAME="mine")
WHAT = ("problem 'mine': initial() must return 5 arrays or numbers (density, v1, v2, v3, pressure) that broadcast "
        "to the block's cells, ghosts included, (1, 3, 4) (k, j, i) from x1 (1, 1, ni), x2 (1, nj, 1) and x3 "
        "(nk, 1, 1); ")


@pytest.mark.parametrize("position, value, got", [
    (0, "a", "'a'"),
    (4, np.full(SHAPE, 1 + 1j), "an array of complex128"),
    (1, np.array(["1.0"] * 4), "an array of <U3"),
    (2, None, "None"),
    (3, 2j, "2j"),
])
def test_values_that_are_not_real_numbers_are_refused(position, value, got):
    state = [1.0, 0.0, 0.0, 0.0, 1.0]
    state[position] = value
    name = ("density", "v1", "v2", "v3", "pressure")[position]
    with pytest.raises(ConfigError) as caught:
        _block_state(PROBLEM, state, SHAPE)
    assert str(caught.value) == f"{WHAT}its {name} is {got}, not real numbers"


def test_real_numbers_of_every_kind_are_taken():
    density = np.arange(12, dtype=np.int64).reshape(SHAPE)
    state = _block_state(PROBLEM, (density, np.float32(0.5), True, np.uint8(3), 2.0), SHAPE)
    assert [s.shape for s in state] == [SHAPE] * 5
    assert state[0].tolist() == density.tolist() and state[1][0, 2, 3] == 0.5 and state[3].max() == 3


def test_a_complex_scalar_concentration_is_refused():
    problem = types.SimpleNamespace(NAME="mine", initial_scalars=lambda *a, **k: [0.5 + 0.5j])
    with pytest.raises(ConfigError, match=r"initial_scalars\(\) must return arrays that broadcast to the block's "
                                          r"cells, ghosts included, \(1, 3, 4\) \(k, j, i\); its scalar 0 is "
                                          r"\(0\.5\+0\.5j\), not real numbers$"):
        scalars.initial_block(problem, 0.0, 0.0, 0.0, {}, 1, SHAPE, (0.0,), (1.0,))

"""A problem's TIMESTEP, HISTORY, OUTPUTS and SOURCE returning strings, objects or complex numbers is one
ConfigError naming the function and the value (attacker probe): call_user read them with np.asarray(...,
float64), so a complex limit lost its imaginary part with only numpy's ComplexWarning (the run went on), a
string '1.5' was taken as the number 1.5, and an object array was numpy's traceback. The callers run inside
rank_errors.agree, so every rank stops with the same ConfigError."""

from __future__ import annotations

import os
import types
import warnings

import numpy as np
import pytest
from tests.apps.test_hydro_custom_problem import BUBBLE, write

from brickwork.apps import hydro
from brickwork.apps.hydro.config import ConfigError
from brickwork.apps.hydro.custom_problem import call_user
from brickwork.apps.hydro.sources import Sources

PROBLEM = types.SimpleNamespace(NAME="mine")
SHAPE = (2, 1, 3, 4)


class _Config(dict):
    problem = PROBLEM


SIM = types.SimpleNamespace(cfg=_Config(problem={"name": "mine"}), gamma=1.4)
NOT_REAL = [
    (1 + 2j, "(1+2j)"),
    (np.full(SHAPE, 0.5 + 0.5j), "an array of complex128"),
    ("1.5", "'1.5'"),
    (np.array(["1.5"] * 4), "an array of <U3"),
    (np.array([object()] * 4), "an array of object"),
    ([[1.0, 2.0], [3.0]], "[[1.0, 2.0], [3.0]]"),
    (None, "None"),
]


@pytest.mark.parametrize("label, call", [("TIMESTEP", "TIMESTEP()"), ("HISTORY['e']", "HISTORY['e']"),
                                         ("OUTPUTS['t']", "OUTPUTS['t']")])
@pytest.mark.parametrize("value, got", NOT_REAL)
def test_a_result_that_is_not_real_numbers_is_refused(label, call, value, got):
    arguments = [np.ones(SHAPE)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        with pytest.raises(ConfigError) as caught:
            call_user(SIM, label, lambda *args: value, arguments, np.float64)
    assert str(caught.value) == f"problem 'mine': {call} returned {got}, not real numbers"
    assert arguments[0].tolist() == np.ones(SHAPE).tolist()


@pytest.mark.parametrize("value", [2, np.float32(0.25), True, np.arange(24, dtype=np.uint8).reshape(SHAPE)])
def test_real_numbers_of_every_kind_are_taken_as_float64(value):
    result = call_user(SIM, "TIMESTEP", lambda *args: value, [], np.float64)
    assert result.dtype == np.float64 and result.tolist() == np.asarray(value, dtype=np.float64).tolist()


def _checked_rates(rates):
    owner = types.SimpleNamespace(sim=SIM)
    return Sources._checked(owner, rates, SHAPE)


@pytest.mark.parametrize("value, got", NOT_REAL[:-2] + [(None, "None")])
def test_a_source_rate_that_is_not_real_numbers_is_refused(value, got):
    with pytest.raises(ConfigError) as caught:
        _checked_rates((0.0, 0.0, value, 0.0, 0.0))
    assert str(caught.value) == ("problem 'mine': SOURCE must return 5 rates (density, momentum_1, momentum_2, "
                                 "momentum_3, energy), numbers or arrays that broadcast to the blocks' cells "
                                 f"(2, 1, 3, 4); its momentum_2 is {got}, not real numbers")


def test_source_rates_are_float64_arrays_of_the_cells():
    rates = _checked_rates((1, np.float32(0.5), True, np.arange(4.0), np.ones(SHAPE, dtype=np.int8)))
    assert [r.dtype for r in rates] == [np.float64] * 5 and [r.shape for r in rates] == [SHAPE] * 5
    assert rates[0][1, 0, 2, 3] == 1.0 and rates[1][0, 0, 0, 0] == 0.5 and rates[3][1, 0, 1].tolist() == [0, 1, 2, 3]


def test_a_complex_history_column_stops_the_run_before_it_writes(tmp_path):
    write(tmp_path / "bubble.py", BUBBLE + "\nHISTORY = {'spin': lambda rho, *rest: rho * 1j}\n")
    out = tmp_path / "out"
    cfg = hydro.build_config({"problem": {"file": "bubble.py"}, "time": {"nlim": 2}, "output": {
        "dir": str(out), "hdf5_dt": -1, "png_dt": -1, "restart_dt": -1, "progress": False}}, [],
        base_dir=str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ConfigError, match=r"^problem 'bubble': HISTORY\['spin'\] returned an array of "
                                              r"complex128, not real numbers$"):
            hydro.run(cfg)
    assert not os.path.exists(out)

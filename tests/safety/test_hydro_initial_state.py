"""A problem whose values set up a state the run's dtype cannot hold is an input error (attacker round 19, lead 5):
problem.rho_l=1e-50 with hydro.dtype='float32' (a density of 0 in float32), p_l=1e50 (inf in float32) and
rho_l=1e-320 in float64 (a subnormal density whose inverse overflows) pass the input checks ('must be > 0') and
failed at the run's first check as if the solver had: 'the run failed: cycle 0 (t=0): non-finite or non-physical
state ...', status 1. Now 'problem 'sod' sets up a state the run cannot start from ...; check the [problem]
values (hydro.dtype='float32' holds normal numbers of magnitude 1.18e-38 to 3.4e+38)', status 2, and no output
directory appears (as a restart file holding such a state, round 14)."""

import pytest
from tests.apps.test_hydro_cli_errors import SOD, brickwork, one_line

from brickwork.apps import hydro
from brickwork.apps.hydro.config import ConfigError

FLOAT32 = "(hydro.dtype='float32' holds normal numbers of magnitude 1.18e-38 to 3.4e+38)"
FLOAT64 = "(hydro.dtype='float64' holds normal numbers of magnitude 2.23e-308 to 1.8e+308)"


@pytest.mark.parametrize("values, shown, dtype", [
    (["problem.rho_l=1e-50", 'hydro.dtype="float32"'], "density=0, velocity=(nan, nan, nan), pressure=nan", FLOAT32),
    (["problem.p_l=1e50", 'hydro.dtype="float32"'], "density=1, velocity=(0, 0, 0), pressure=inf", FLOAT32),
    (["problem.rho_l=1e-320"], "density=9.99989e-321, velocity=(nan, nan, nan), pressure=nan", FLOAT64),
])
def test_a_problem_value_the_dtype_cannot_hold_is_an_input_error(capsys, tmp_path, values, shown, dtype):
    out = tmp_path / "out"
    code, _, err = brickwork(capsys, "run", SOD, "mesh.nx=[8]", "mesh.block_nx=[8]", *values, f"output.dir={out}",
                             "--quiet")
    assert code == 2
    assert one_line(err) == ("brickwork: error: problem 'sod' sets up a state the run cannot start from (cycle 0, "
                             "t=0): non-finite or non-physical state in block 0 cell (k=0, j=0, i=2) at x=0.0625: "
                             f"{shown}; check the [problem] values {dtype}")
    assert not out.exists()


def test_the_python_api_raises_a_config_error(tmp_path):
    cfg = hydro.build_config({"problem": {"name": "sod", "rho_l": 1e-320}, "mesh": {"nx": [8], "block_nx": [8]},
                              "output": {"dir": str(tmp_path / "out"), "progress": False}})
    with pytest.raises(ConfigError, match=r"^problem 'sod' sets up a state the run cannot start from \(cycle 0, t=0\): "
                                          r"non-finite or non-physical state in block 0 cell"):
        hydro.run(cfg)
    assert not (tmp_path / "out").exists()

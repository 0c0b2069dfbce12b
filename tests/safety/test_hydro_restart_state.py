"""A restart file whose arrays hold a non-finite or non-physical state (a density of -1 or NaN, checksums made to
match) is an input error naming the file, status 2, before any output or directory appears (attacker probe, round
14): the run read it and then failed at its first check as if the solver had, 'the run failed: cycle 27
(t=0.02): non-finite or non-physical state ...' with status 1, naming no file."""

import numpy as np
import pytest
from tests.apps.test_hydro_restart import NO_FILES, SMALL_SOD, SOD, brickwork, craft, one_line, rst  # noqa: F401


def _density(value):
    def edit(arrays):
        arrays["density"] = arrays["density"].copy()
        arrays["density"][0, ..., 2] = value  # block 0, first interior cell (two ghost cells)
    return edit


@pytest.mark.parametrize("value, shown", [(-1.0, "density=-1"), (np.nan, "density=nan")])
def test_a_restart_holding_a_bad_state_is_an_input_error(capsys, tmp_path, rst, value, shown):  # noqa: F811
    path = craft(tmp_path, rst, arrays_edit=_density(value))
    out = tmp_path / "out"
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, f"output.dir={out}", "--restart", path, "--quiet")
    assert code == 2
    line = one_line(err)
    assert line.startswith(f"brickwork: error: restart file {str(path)!r} holds a state the run cannot start from "
                           f"(cycle ")
    assert "non-finite or non-physical state in block 0 cell (k=0, j=0, i=2) at x=0.00390625: " + shown in line
    assert not out.exists()


def test_a_good_restart_still_runs(capsys, tmp_path, rst):  # noqa: F811
    out = tmp_path / "out"
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.06", f"output.dir={out}", *NO_FILES,
                             "--restart", craft(tmp_path, rst, arrays_edit=_density(1.0)), "--quiet")
    assert code == 0, err
    assert (out / "sod.hst").exists()

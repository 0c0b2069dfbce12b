"""A huge ``hydro.nscalars`` is refused by the memory its fields need, before anything is allocated (attacker
probe: ``brickwork run sod.toml hydro.nscalars=1000000000`` took all memory in the check of output.png_variable,
which made the list of the default names scalar_0 .. scalar_999999999, and never reached the memory check)."""

import os

import pytest

from brickwork import cli
from brickwork.apps.hydro import driver, preflight

SOD = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "sod.toml")
HUGE = 10**9


def _run(capsys, tmp_path, *overrides):
    code = cli.main(["run", SOD, *overrides, f"output.dir={tmp_path / 'out'}", "--quiet"])
    _, err = capsys.readouterr()
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return code, err.strip()


def test_a_huge_scalar_count_is_refused_by_its_memory(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(preflight, "available_memory", lambda: 64 * 2**30)
    monkeypatch.setattr(driver, "Hydro", lambda cfg: pytest.fail("the mesh was allocated"))
    code, err = _run(capsys, tmp_path, f"hydro.nscalars={HUGE}")
    assert code == 2
    # 256 cells of 64 + 2 * 2 ghosts, in 4 blocks: 272 cells, each of 2 * 10**9 scalars (and the gas's fields)
    assert err.startswith(f"brickwork: error: mesh.nx=[256] in mesh.block_nx=[64] with hydro.nscalars={HUGE} is too "
                          f"large for this machine: its fields need ")
    assert err.endswith("but only 64.0 GiB is available")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("variable, listed", [
    (f"scalar_{HUGE}", f"'scalar_0 .. scalar_{HUGE - 1}'"),
    ("scalar_01", f"'scalar_0 .. scalar_{HUGE - 1}'"),
])
def test_a_png_variable_past_a_huge_scalar_count_is_refused_without_listing_every_name(capsys, tmp_path, variable,
                                                                                      listed):
    code, err = _run(capsys, tmp_path, f"hydro.nscalars={HUGE}", f"output.png_variable={variable}")
    assert code == 2
    assert err == (f"brickwork: error: output.png_variable: {variable!r} is not one of 'density', 'pressure', "
                   f"'velocity_1', 'velocity_2', 'velocity_3', 'energy', 'speed', {listed}")


@pytest.mark.parametrize("variable", ["scalar_0", f"scalar_{HUGE - 1}"])
def test_a_png_variable_among_a_huge_scalar_count_passes_the_input_check(capsys, tmp_path, monkeypatch, variable):
    monkeypatch.setattr(preflight, "available_memory", lambda: 64 * 2**30)
    code, err = _run(capsys, tmp_path, f"hydro.nscalars={HUGE}", f"output.png_variable={variable}")
    assert code == 2 and "is too large for this machine" in err  # refused by its memory, after the input check

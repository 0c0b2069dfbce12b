"""A huge ``hydro.nscalars`` is refused before anything is allocated (attacker probe: ``brickwork run sod.toml
hydro.nscalars=1000000000`` took all memory in the check of output.png_variable, which made the list of the default
names scalar_0 .. scalar_999999999, and never reached the memory check). Past MAX_SCALARS (1024, the kernel
language's limit on an unrolled loop) the input check refuses it (attacker round 18: hydro.nscalars=2000 ran, wrote
the first HDF5 output and the history header, and then failed with a traceback compiling the first step, 'a loop
whose variable 'sn' is read by wp.static() is unrolled; this one has 2000 iterations (at most 1024)'); within it, the
memory its fields need."""

import os

import pytest

from brickwork import cli
from brickwork.apps.hydro import driver, preflight
from brickwork.apps.hydro.schema import MAX_SCALARS
from brickwork.frontend import control_flow

SOD = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "sod.toml")
HUGE = 10**9


def _run(capsys, tmp_path, *overrides):
    code = cli.main(["run", SOD, *overrides, f"output.dir={tmp_path / 'out'}", "--quiet"])
    _, err = capsys.readouterr()
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return code, err.strip()


@pytest.mark.parametrize("count", [MAX_SCALARS + 1, 2000, HUGE])
def test_more_scalars_than_the_kernels_unroll_are_refused_by_the_input_check(capsys, tmp_path, monkeypatch, count):
    monkeypatch.setattr(driver, "Hydro", lambda cfg: pytest.fail("the mesh was allocated"))
    code, err = _run(capsys, tmp_path, f"hydro.nscalars={count}")
    assert code == 2
    assert err == f"brickwork: error: hydro.nscalars: must be <= 1024, got {count}"
    assert not (tmp_path / "out").exists()
    assert MAX_SCALARS == control_flow._MAX_UNROLL  # the stage kernels unroll one statement per scalar


def test_a_scalar_count_too_large_for_the_memory_is_refused_by_its_memory(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(preflight, "available_memory", lambda: 2**20)
    monkeypatch.setattr(driver, "Hydro", lambda cfg: pytest.fail("the mesh was allocated"))
    code, err = _run(capsys, tmp_path, f"hydro.nscalars={MAX_SCALARS}")
    assert code == 2
    # 256 cells of 64 + 2 * 2 ghosts, in 4 blocks: 272 cells, each of 2 * 1024 scalars (and the gas's fields)
    assert err.startswith(f"brickwork: error: mesh.nx=[256] in mesh.block_nx=[64] with hydro.nscalars={MAX_SCALARS} "
                          f"is too large for this machine: its fields need ")
    assert err.endswith("but only 1.0 MiB is available")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("variable, listed", [
    (f"scalar_{MAX_SCALARS}", f"'scalar_0 .. scalar_{MAX_SCALARS - 1}'"),
    ("scalar_01", f"'scalar_0 .. scalar_{MAX_SCALARS - 1}'"),
])
def test_a_png_variable_past_many_scalars_is_refused_without_listing_every_name(capsys, tmp_path, variable, listed):
    code, err = _run(capsys, tmp_path, f"hydro.nscalars={MAX_SCALARS}", f"output.png_variable={variable}")
    assert code == 2
    assert err == (f"brickwork: error: output.png_variable: {variable!r} is not one of 'density', 'pressure', "
                   f"'velocity_1', 'velocity_2', 'velocity_3', 'energy', 'speed', {listed}")


@pytest.mark.parametrize("variable", ["scalar_0", f"scalar_{MAX_SCALARS - 1}"])
def test_a_png_variable_among_many_scalars_passes_the_input_check(capsys, tmp_path, monkeypatch, variable):
    monkeypatch.setattr(preflight, "available_memory", lambda: 2**20)
    code, err = _run(capsys, tmp_path, f"hydro.nscalars={MAX_SCALARS}", f"output.png_variable={variable}")
    assert code == 2 and "is too large for this machine" in err  # refused by its memory, after the input check

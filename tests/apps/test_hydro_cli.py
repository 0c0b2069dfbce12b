"""The command line: ``brickwork run`` with overrides, ``brickwork demo``, and one-line errors."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def brickwork(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "brickwork.cli", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=600)


def test_run_an_example_with_overrides(tmp_path):
    sod = os.path.join(ROOT, "examples", "sod.toml")
    proc = brickwork("run", sod, f"output.dir={tmp_path}", "mesh.nx=[128]", "mesh.block_nx=[64]", "hydro.cfl=0.3",
                     "time.tlim=0.05", "output.png_dt=-1", "output.hdf5_dt=-1", "output.restart_dt=0")
    assert proc.returncode == 0, proc.stderr
    assert "zone-cycles/s" in proc.stdout  # the summary line (the progress bar goes to stderr)
    assert "t=0.05" in proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["sod.hst", "sod.rst.00000.npz"]
    again = brickwork("run", sod, f"output.dir={tmp_path}", "mesh.nx=[128]", "mesh.block_nx=[64]", "hydro.cfl=0.3",
                      "time.tlim=0.1", "output.png_dt=-1", "output.hdf5_dt=-1", "--quiet",
                      "--restart", str(tmp_path / "sod.rst.00000.npz"))
    assert again.returncode == 0, again.stderr
    assert again.stdout == "" and again.stderr == ""


@pytest.mark.parametrize("args, message", [
    (["hydro.clf=0.3"], "brickwork: error: override 'hydro.clf=0.3': unknown key 'hydro.clf' (did you mean "
                        "'hydro.cfl'?)"),
    (["hydro.cfl=fast"], "brickwork: error: hydro.cfl: expected a number, got the string 'fast'"),
    (["mesh.nx=[100]", "mesh.block_nx=[64]"], "brickwork: error: mesh.nx1=100 is not divisible by mesh.block_nx1=64"),
    (["--restart", "nowhere.npz"], "brickwork: error: restart file 'nowhere.npz' does not exist"),
])
def test_bad_input_is_one_clear_line(tmp_path, args, message):
    proc = brickwork("run", os.path.join(ROOT, "examples", "sod.toml"), f"output.dir={tmp_path}", *args)
    assert proc.returncode == 2
    assert proc.stderr.startswith(message), proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_failed_run_exits_1(tmp_path):
    proc = brickwork("run", os.path.join(ROOT, "examples", "sod.toml"), f"output.dir={tmp_path}", "problem.rho_r=1e-20",
                     "problem.p_r=1e-20", "output.png_dt=-1", "output.hdf5_dt=-1", "output.restart_dt=-1", "--quiet")
    assert proc.returncode == 1
    assert proc.stderr.startswith("brickwork: the run failed: cycle ") and "Traceback" not in proc.stderr


def test_demo_writes_a_density_png(tmp_path):
    pytest.importorskip("matplotlib")
    proc = brickwork("demo", "mesh.nx=[32,32]", "mesh.block_nx=[16,16]", "time.tlim=0.05", f"output.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    png = tmp_path / "kelvin_helmholtz.00001.png"
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"density snapshot: {png}" in proc.stdout


def test_info_still_works():
    proc = brickwork("info")
    assert proc.returncode == 0 and "openmp:" in proc.stdout

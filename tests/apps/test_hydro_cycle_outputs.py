"""Outputs every n cycles (``output.*_dn``, Parthenon's ``dn``): beside the time cadences, continued across a
restart as the uninterrupted run writes them, and counted as outputs by the checks that look for any."""

import os
import sys

import pytest
from test_hydro_restart import output_times

from brickwork import cli
from brickwork.apps.hydro import ConfigError, build_config
from brickwork.apps.hydro.schedule import Schedule

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SOD = os.path.join(ROOT, "examples", "sod.toml")
SMALL_SOD = ["mesh.nx=[128]", "mesh.block_nx=[64]", "--quiet"]
TIME_OFF = ["output.hdf5_dt=-1", "output.png_dt=-1", "output.restart_dt=-1"]


def cycles_written(directory, pattern):
    """The cycles of the outputs matching ``pattern``, in order."""
    return output_times(directory, pattern, entry="cycle")


def run(capsys, *args):
    code = cli.main([str(a) for a in args])
    return code, capsys.readouterr().err


def test_every_n_cycles_plus_the_last_state(capsys, tmp_path):
    pytest.importorskip("h5py")
    code, err = run(capsys, "run", SOD, *SMALL_SOD, "time.nlim=25", f"output.dir={tmp_path}", *TIME_OFF,
                    "output.hdf5_dn=10", "output.restart_dn=10")
    assert code == 0, err
    assert cycles_written(tmp_path, "*.h5") == [0, 10, 20, 25]
    assert cycles_written(tmp_path, "*.npz") == [10, 20, 25]  # no restart file of the initial state


def test_cycles_and_times_together_write_each_state_once():
    """hdf5_dt = 0.5 and hdf5_dn = 3 on a run of steps 0.2 long: due by time at t >= 0.5, 1.0, by cycle at 3, 6."""
    cfg = build_config({"problem": {"name": "sod"}, "output": {"hdf5_dt": 0.5, "hdf5_dn": 3}})
    schedule = Schedule(cfg)
    written = []
    for cycle in range(8):
        t = round(0.2 * cycle, 12)
        if schedule.due("hdf5", t, cycle, final=cycle == 7):
            schedule.advance("hdf5", t, cycle)
            written.append(cycle)
    assert written == [0, 3, 5, 6, 7]  # t = 0 (the first), cycle 3 (also t = 0.6 >= 0.5), t = 1.0, cycle 6, the last
    assert schedule.count["hdf5"] == 5


def test_a_restart_continues_the_cycle_cadence_as_the_uninterrupted_run(capsys, tmp_path):
    pytest.importorskip("h5py")
    keys = [*SMALL_SOD, "time.nlim=30", *TIME_OFF, "output.hdf5_dn=7", "output.restart_dn=12"]
    whole, half = tmp_path / "whole", tmp_path / "half"
    assert run(capsys, "run", SOD, *keys, f"output.dir={whole}")[0] == 0
    assert cycles_written(whole, "*.h5") == [0, 7, 14, 21, 28, 30]
    assert cycles_written(whole, "*.npz") == [12, 24, 30]
    code, err = run(capsys, "run", SOD, *keys, f"output.dir={half}", "--restart", whole / "sod.rst.00000.npz")
    assert code == 0, err
    assert cycles_written(half, "*.h5") == [14, 21, 28, 30]
    assert sorted(p.name for p in half.glob("*.h5")) == [f"sod.out.{n:05d}.h5" for n in (2, 3, 4, 5)]  # numbering
    for n in (2, 3, 4, 5):  # the same bits as the uninterrupted run
        assert (half / f"sod.out.{n:05d}.h5").read_bytes() == (whole / f"sod.out.{n:05d}.h5").read_bytes()


@pytest.mark.parametrize("key", ["hdf5_dn", "png_dn", "restart_dn"])
def test_zero_is_no_cadence(key):
    with pytest.raises(ConfigError, match=rf"^output.{key}: 0 is no cadence; set it to n >= 1 \(the states whose "
                                          rf"cycle is a multiple of n\) or -1 \(none\)$"):
        build_config({"problem": {"name": "sod"}}, [f"output.{key}=0"])
    with pytest.raises(ConfigError, match=rf"^output.{key}: must be >= -1, got -2$"):
        build_config({"problem": {"name": "sod"}}, [f"output.{key}=-2"])


def test_a_cycle_cadence_alone_needs_its_writer(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)
    code, err = run(capsys, "run", SOD, *SMALL_SOD, *TIME_OFF, "output.hdf5_dn=5", f"output.dir={tmp_path / 'o'}")
    assert code == 2 and err.strip() == ("brickwork: error: output.hdf5_dn >= 1 needs h5py: pip install "
                                         "'brickwork[io]', or set output.hdf5_dt = -1 and output.hdf5_dn = -1 (or "
                                         "output.format = \"vtk\": VTK outputs need no package)")
    assert os.listdir(tmp_path) == []


def test_a_cycle_cadence_alone_makes_the_output_directory(capsys, tmp_path):
    out = tmp_path / "o"
    code, err = run(capsys, "run", SOD, *SMALL_SOD, "time.nlim=2", *TIME_OFF, "output.history=false",
                    "output.restart_dn=1", f"output.dir={out}")
    assert code == 0, err
    assert sorted(os.listdir(out)) == ["sod.rst.00000.npz", "sod.rst.00001.npz"]

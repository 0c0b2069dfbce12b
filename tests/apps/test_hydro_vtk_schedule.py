"""VTK outputs on a schedule of their own (``output.vtk_dt``, ``output.vtk_dn``): ``NAME.vtk.NNNNN.vtm`` at their
cadence beside the HDF5 outputs at theirs, the same variables as the HDF5 output of the same state, listed in
``NAME.pvd``; a restart continues the schedule as the uninterrupted run has it; a VTK cadence beside
``output.format`` naming "vtk" (whose VTK outputs follow ``hdf5_dt``) is refused; restart files from before the
schedule existed load."""

import h5py
import numpy as np
import pytest
from test_hydro_vtk import read_vti
from test_hydro_vtk_series import collection, time_in_blocks

from brickwork.apps import hydro
from brickwork.apps.hydro import checkpoint
from brickwork.apps.hydro.config import ConfigError
from brickwork.apps.hydro.schedule import Schedule

SOD = {"problem": {"name": "sod"}, "mesh": {"nx": [32], "block_nx": [8]}, "time": {"nlim": 9},
       "output": {"hdf5_dn": 2, "hdf5_dt": -1.0, "vtk_dn": 3}}


def test_vtk_has_its_own_cadence_beside_hdf5(run_hydro, tmp_path):
    result = run_hydro(SOD)
    out = tmp_path / "out"
    assert sorted(p.name for p in out.glob("*.h5")) == [f"sod.out.{n:05d}.h5" for n in range(6)]  # 0, 2, .., 8, 9
    assert not list(out.glob("sod.out.*.vtm"))
    entries = collection(out / "sod.pvd")
    assert [name for _, name in entries] == [f"sod.vtk.{n:05d}.vtm" for n in range(4)]  # cycles 0, 3, 6, 9
    assert [when for when, _ in entries] == [time_in_blocks(out / name) for _, name in entries]
    assert entries[-1][0] == result.time
    # cycle 6 is in both series (hdf5 output 3, VTK output 2): the same values
    with h5py.File(out / "sod.out.00003.h5", "r") as f:
        assert f.attrs["cycle"] == 6
        density = f["cells/density"][...]
    blocks = [read_vti(out / "sod.vtk.00002" / f"block_{gid:06d}.vti") for gid in range(4)]
    assert all(int(b["field"]["CYCLE"]) == 6 for b in blocks)
    np.testing.assert_array_equal(np.concatenate([b["cells"]["density"] for b in blocks]), density.reshape(-1))


def test_a_vtk_time_cadence(run_hydro, tmp_path):
    result = run_hydro(dict(SOD, time={"tlim": 0.05}, output={"hdf5_dt": -1.0, "vtk_dt": 0.02}))
    times = [when for when, _ in collection(tmp_path / "out" / "sod.pvd")]
    assert times[0] == 0.0 and times[-1] == result.time and len(times) == 4  # 0, past 0.02, past 0.04, 0.05
    assert all(k * 0.02 <= t for k, t in zip((1, 2), times[1:3]))
    assert not list((tmp_path / "out").glob("*.h5"))


def test_a_restart_continues_the_vtk_schedule(run_hydro, tmp_path):
    whole = run_hydro(dict(SOD, output=dict(SOD["output"], dir=str(tmp_path / "a"))))
    run_hydro(dict(SOD, output=dict(SOD["output"], dir=str(tmp_path / "b"), restart_dn=4)))
    resumed = run_hydro(dict(SOD, output=dict(SOD["output"], dir=str(tmp_path / "b"))),
                        restart=str(tmp_path / "b" / "sod.rst.00000.npz"))  # cycle 4
    assert resumed.hydro.cycle == whole.hydro.cycle == 9
    assert collection(tmp_path / "b" / "sod.pvd") == collection(tmp_path / "a" / "sod.pvd")
    for n in range(4):
        a, b = (read_vti(tmp_path / d / f"sod.vtk.{n:05d}" / "block_000002.vti") for d in "ab")
        assert a["cells"]["density"].tobytes() == b["cells"]["density"].tobytes()


@pytest.mark.parametrize("key, value", [("vtk_dt", 0.1), ("vtk_dn", 5)])
def test_a_vtk_cadence_beside_format_vtk_is_refused(make_config, key, value):
    with pytest.raises(ConfigError) as info:
        make_config(dict(SOD, output={"format": ["hdf5", "vtk"], key: value}))
    assert str(info.value) == (
        f"output.{key}: VTK outputs are already written on the schedule of hdf5_dt and hdf5_dn (output.format = "
        f"['hdf5', 'vtk']); give VTK a schedule of its own with output.format = [\"hdf5\"] (and output.hdf5_dt = -1 "
        f"for VTK alone), or leave output.{key} out")
    with pytest.raises(ConfigError, match=r"^output.vtk_dn: 0 is no cadence"):
        make_config(dict(SOD, output={"vtk_dn": 0}))


def test_a_schedule_stored_before_vtk_had_its_own_loads():
    """A restart file's schedule without the "vtk" entries (written before they existed) has no VTK output written."""
    meta = {"schedule": {"every": {"hdf5": 0.1, "png": -1.0, "restart": 0.2},
                         "next": {"hdf5": 0.3, "png": 0.0, "restart": 0.4},
                         "count": {"hdf5": 3, "png": 0, "restart": 1},
                         "last_cycle": {"hdf5": 20, "png": -1, "restart": 20}}}
    stored = checkpoint.Checker("old.npz").schedule(meta, 0.25, 20)
    assert {part: values["vtk"] for part, values in stored.items()} == {"every": -1.0, "next": 0.0, "count": 0,
                                                                        "last_cycle": -1}
    assert stored["count"]["hdf5"] == 3 and stored["next"]["restart"] == 0.4
    cfg = hydro.build_config(dict(SOD, output={"vtk_dt": 0.1}))
    schedule = Schedule(cfg)
    schedule.load_meta(stored, 0.25)
    assert schedule.next["vtk"] == pytest.approx(0.3) and schedule.count["vtk"] == 0

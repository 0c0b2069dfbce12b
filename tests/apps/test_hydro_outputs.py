"""Outputs: HDF5 + XDMF that ParaView/VisIt can open, PNG snapshots, history, restart files that
reproduce the uninterrupted run bit for bit, and the errors for bad restarts and bad states."""

import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from brickwork.apps import hydro
from brickwork.io import restart as restart_io

h5py = pytest.importorskip("h5py")

KH = {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]}}


def with_output(raw, **output):
    out = dict(raw)
    out["output"] = dict(raw.get("output", {}), **output)
    return out


def test_hdf5_xdmf_png_history(run_hydro, tmp_path):
    pytest.importorskip("matplotlib")
    result = run_hydro(with_output(dict(KH, time={"tlim": 0.1}), hdf5_dt=0.05, png_dt=0.05, history=True))
    out = tmp_path / "out"
    h5_files = sorted(out.glob("kelvin_helmholtz.out.*.h5"))
    assert len(h5_files) == 3  # t = 0, 0.05 (first state past it), and the final one
    for xdmf_path in sorted(out.glob("*.xdmf")):
        root = ET.parse(xdmf_path).getroot()
        assert root.tag == "Xdmf"
        grids = root.findall("./Domain/Grid/Grid")
        assert len(grids) == 4  # one per block
        items = [d for d in root.iter("DataItem") if d.get("Format") == "HDF"]
        assert len(items) == 4 * 9  # density, momentum_1..3, energy, pressure, velocity_1..3
        for item in items:
            name, path = item.text.strip().split(":")
            dims = tuple(int(x) for x in item.get("Dimensions").split())
            with h5py.File(out / name, "r") as f:
                assert path in f, path
                assert f[path].shape == dims
                assert f[path].dtype.itemsize == int(item.get("Precision"))
        for grid in grids:
            topo = grid.find("Topology")
            assert topo.get("TopologyType") == "3DCoRectMesh" and topo.get("Dimensions") == "2 17 17"
            slab = grid.find("Attribute/DataItem")
            assert slab.get("ItemType") == "HyperSlab" and slab.get("Dimensions") == "1 16 16"
    with h5py.File(h5_files[-1], "r") as f:
        assert f.attrs["time"] == pytest.approx(0.1, abs=1e-14)
        rho = f["cells/density"][...]
        np.testing.assert_array_equal(rho, result.hydro.interior("density"))
        assert f["blocks/xmin"].shape == (4, 3) and f["blocks/dx"][0, 0] == pytest.approx(1 / 32)
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) == 3 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    from brickwork.io.history import read

    columns, rows = read(str(out / "kelvin_helmholtz.hst"))
    assert columns[:3] == ["cycle", "time", "dt"] and rows.shape == (result.cycle + 1, 8)
    np.testing.assert_array_equal(rows[:, 0], np.arange(result.cycle + 1))


def test_restart_reproduces_the_run_bit_for_bit(run_hydro, tmp_path):
    base = dict(KH, time={"tlim": 0.12})
    whole = run_hydro(with_output(base, restart_dt=0.05, history=True))
    rst = sorted((tmp_path / "out").glob("*.rst.*.npz"))
    assert len(rst) == 3  # t >= 0.05, t >= 0.10, the end
    arrays, meta = restart_io.load(str(rst[0]))
    assert 0.05 <= meta["time"] < 0.06 and meta["cycle"] > 0
    history = (tmp_path / "out" / "kelvin_helmholtz.hst").read_text()
    again = run_hydro(with_output(base, restart_dt=0.05, history=True, dir=str(tmp_path / "again")),
                      restart=str(rst[0]))
    assert again.cycle == whole.cycle and again.time == whole.time
    for name, data in whole.hydro.state().items():
        np.testing.assert_array_equal(again.hydro.state()[name], data)
    assert (tmp_path / "again" / "kelvin_helmholtz.hst").read_text().splitlines()[-1] == history.splitlines()[-1]
    # the final restart files are identical too
    final_a, _ = restart_io.load(str(rst[-1]))
    final_b, _ = restart_io.load(str(sorted((tmp_path / "again").glob("*.rst.*.npz"))[-1]))
    for name in final_a:
        np.testing.assert_array_equal(final_a[name], final_b[name])


def test_bad_restart_files(run_hydro, tmp_path):
    with pytest.raises(restart_io.RestartError, match="does not exist"):
        run_hydro(KH, restart=str(tmp_path / "missing.npz"))
    good = run_hydro(with_output(dict(KH, time={"nlim": 2}), restart_dt=0.0))
    path = [p for p in good.outputs if p.endswith(".npz")][-1]
    data = bytearray(open(path, "rb").read())
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(bytes(data[: len(data) // 2]))
    with pytest.raises(restart_io.RestartError, match="corrupt or not a brickwork restart"):
        run_hydro(KH, restart=str(truncated))
    flipped = tmp_path / "flipped.npz"
    data[len(data) // 2] ^= 0xFF
    flipped.write_bytes(bytes(data))
    with pytest.raises(restart_io.RestartError, match="corrupt"):
        run_hydro(KH, restart=str(flipped))
    other = tmp_path / "other.npz"
    other.write_bytes(b"not a zip file at all")
    with pytest.raises(restart_io.RestartError, match="corrupt or not a brickwork restart"):
        run_hydro(KH, restart=str(other))
    with pytest.raises(restart_io.RestartError,
                       match=r"written with mesh.nx=\[32, 32\], but this run has mesh.nx=\[64, 64\]"):
        run_hydro(dict(KH, mesh={"nx": [64, 64], "block_nx": [16, 16]}), restart=path)


def test_a_nan_stops_the_run_and_keeps_the_last_good_output(run_hydro, tmp_path, monkeypatch):
    from brickwork.apps.hydro.solver import Hydro

    step = Hydro.step

    def poisoned(self, dt):  # a NaN appears in one cell during step 3
        step(self, dt)
        if self.cycle == 3:
            self.mesh.data("energy")[1, 0, 0, 5, 7] = np.nan

    monkeypatch.setattr(Hydro, "step", poisoned)
    with pytest.raises(hydro.SimulationError) as info:
        run_hydro(with_output(dict(KH, time={"tlim": 1.0}), hdf5_dt=0.0, restart_dt=0.0, history=True))
    message = str(info.value)
    assert "cycle 3" in message and "non-finite or non-physical state in block 1 cell (k=0, j=5, i=7)" in message
    assert "pressure=nan" in message and "kelvin_helmholtz.out.00000.h5" in message
    out = tmp_path / "out"
    assert sorted(os.listdir(out)) == ["kelvin_helmholtz.hst", "kelvin_helmholtz.out.00000.h5",
                                       "kelvin_helmholtz.out.00000.xdmf"]
    with h5py.File(out / "kelvin_helmholtz.out.00000.h5", "r") as f:
        assert np.isfinite(f["cells/density"][...]).all()


def test_an_unstable_run_stops_with_a_clear_error(run_hydro):
    """A shock into a near vacuum: the scheme's pressure turns negative within a few cycles."""
    with pytest.raises(hydro.SimulationError, match=r"non-finite or non-physical state in block \d+ cell"):
        run_hydro({"problem": {"name": "sod", "rho_r": 1e-20, "p_r": 1e-20}, "time": {"nlim": 200}})


def test_a_run_that_writes_nothing_makes_no_directory(tmp_path, monkeypatch):
    """docs/getting_started.md's run "without files" (every output off) left an empty sod_output/ in the
    working directory; output.dir is not even looked at then (a file of that name is no error)."""
    monkeypatch.chdir(tmp_path)
    off = ["output.hdf5_dt=-1", "output.png_dt=-1", "output.restart_dt=-1", "output.history=false",
           "output.progress=false", "mesh.nx=[64]", "mesh.block_nx=[32]", "time.tlim=0.01"]
    sod = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "sod.toml")
    result = hydro.run(hydro.load_config(sod, off))
    assert result.time == 0.01 and result.cycle > 0 and result.outputs == []
    assert os.listdir(tmp_path) == []
    (tmp_path / "sod_output").write_text("a file, not a directory\n")
    assert hydro.run(hydro.load_config(sod, off)).time == 0.01
    assert os.listdir(tmp_path) == ["sod_output"] and (tmp_path / "sod_output").is_file()
    # any file written makes the directory: here the history file alone
    hydro.run(hydro.load_config(sod, off + ["output.history=true", "output.dir=hst_only"]))
    assert sorted(os.listdir(tmp_path / "hst_only")) == ["sod.hst"]


def test_xdmf_numbers_are_plain_and_round_trip(tmp_path):
    """Origins, spacings and the time come from numpy float64 arrays; the XDMF must hold plain decimals
    (not ``np.float64(0.1)``) that read back as exactly the same doubles."""
    from xdmf_check import check_xdmf, item_values

    from brickwork.io import hdf5

    xmin = np.array([[0.1, 1.0 / 3.0, 0.0], [0.6, 2.0 / 3.0, -1e-300]])
    dx = np.array([[1.0 / 48.0, 1e-5, 1.0], [1.0 / 48.0, 1e-5, 2.5]])
    rho = np.arange(2 * 1 * 2 * 3, dtype=np.float64).reshape(2, 1, 2, 3)
    h5_path, xdmf_path = hdf5.write(str(tmp_path / "t"), {"density": rho}, xmin, dx, np.float64(0.7), np.int64(4))
    assert check_xdmf(xdmf_path) == 2 * (2 + 3)  # per block: origin, spacing, a hyperslab, its selection, data
    root = ET.parse(xdmf_path).getroot()
    assert float(root.find("./Domain/Grid/Time").get("Value")) == 0.7
    for b, grid in enumerate(root.findall("./Domain/Grid/Grid")):
        origin, spacing = (item_values(d, xdmf_path) for d in grid.find("Geometry"))
        assert origin == [xmin[b, 2], xmin[b, 1], xmin[b, 0]]  # z y x, bit for bit
        assert spacing == [dx[b, 2], dx[b, 1], dx[b, 0]]
    text = open(xdmf_path).read()
    assert "np." not in text and "0.3333333333333333" in text and "1e-05" in text


def test_paraviews_xdmf_reader_opens_the_outputs(run_hydro, tmp_path):
    """VTK's vtkXdmfReader (ParaView's "Xdmf Reader", VisIt reads the same XML) loads every block with its
    origin, spacing and cell data (``pip install vtk`` to run this test)."""
    xdmf_io = pytest.importorskip("vtkmodules.vtkIOXdmf2")
    from vtkmodules.util.numpy_support import vtk_to_numpy

    result = run_hydro(with_output(dict(KH, time={"tlim": 0.02}), hdf5_dt=0.0))
    path = tmp_path / "out" / "kelvin_helmholtz.out.00001.xdmf"
    reader = xdmf_io.vtkXdmfReader()
    reader.SetFileName(str(path))
    reader.Update()
    blocks = reader.GetOutputDataObject(0)
    assert blocks.GetNumberOfBlocks() == 4
    sim = result.hydro
    corners = {}
    it = blocks.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        image = it.GetCurrentDataObject()
        assert image.GetDimensions() == (17, 17, 2)  # points: 16 x 16 x 1 cells
        assert image.GetSpacing() == (1 / 32, 1 / 32, 1.0)
        origin = image.GetOrigin()
        rho = vtk_to_numpy(image.GetCellData().GetArray("density"))
        corners[origin[:2]] = rho
        it.GoToNextItem()
    assert sorted(corners) == [(0.0, 0.0), (0.0, 0.5), (0.5, 0.0), (0.5, 0.5)]
    for block in sim.mesh.blocks:
        x0 = tuple(float(v) for v in block.coords.xmin[:2])
        np.testing.assert_array_equal(corners[x0], sim.interior("density")[block.lid].ravel())

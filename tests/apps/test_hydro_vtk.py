"""VTK outputs of the hydro application (``[output] format = "vtk"``): read back with a small reader of the
XML and raw appended data written here (not brickwork's), they hold the solver's arrays bit for bit, with
every variable of the HDF5 output (passive scalars by their names, a problem's OUTPUTS), each block's
origin and spacing, extents right in 1-D, 2-D and 3-D, the time and cycle; ``read_output`` reads them as it
reads the HDF5 output; they need no h5py; a failed write leaves nothing behind; wrong formats are named."""

import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from brickwork.apps import hydro
from brickwork.apps.hydro.config import ConfigError
from brickwork.io import read_output

CASES = {
    1: {"problem": {"name": "sod"}, "mesh": {"nx": [32], "block_nx": [8]}, "time": {"nlim": 4}},
    2: {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 16], "block_nx": [16, 8]}, "time": {"nlim": 3}},
    3: {"problem": {"name": "blast"}, "mesh": {"nx": [8, 8, 16], "block_nx": [8, 8, 8]}, "time": {"nlim": 2}},
}
TYPES = {"Float32": "<f4", "Float64": "<f8", "Int64": "<i8"}


def read_vti(path) -> dict:
    """A .vti file by the VTK XML format's rules: the image's attributes, field data and cell data."""
    data = open(path, "rb").read()
    head, _, raw = data.partition(b'<AppendedData encoding="raw">')
    raw = raw[raw.index(b"_") + 1:]
    image = ET.fromstring(head + b"</VTKFile>").find("ImageData")
    extent = [int(v) for v in image.get("WholeExtent").split()]
    assert image.find("Piece").get("Extent") == image.get("WholeExtent")
    cells = int(np.prod([max(hi - lo, 1) for lo, hi in zip(extent[::2], extent[1::2])]))

    def array(item, count):
        offset = int(item.get("offset"))
        nbytes = int(np.frombuffer(raw, "<u8", 1, offset)[0])
        values = np.frombuffer(raw, TYPES[item.get("type")], nbytes // np.dtype(TYPES[item.get("type")]).itemsize,
                               offset + 8)
        assert values.size == count, item.get("Name")
        return values

    return {"extent": extent, "origin": [float(v) for v in image.get("Origin").split()],
            "spacing": [float(v) for v in image.get("Spacing").split()],
            "field": {item.get("Name"): array(item, 1)[0] for item in image.find("FieldData")},
            "cells": {item.get("Name"): array(item, cells) for item in image.find("Piece").find("CellData")}}


def pieces(vtm) -> list:
    root = ET.parse(vtm).getroot()
    assert root.get("type") == "vtkMultiBlockDataSet" and root.get("byte_order") == "LittleEndian"
    return [os.path.join(os.path.dirname(vtm), d.get("file")) for d in root.iter("DataSet")]


def expected_variables(sim) -> dict:
    """What the HDF5 output holds, per block, in the run's dtype."""
    out = {"density": sim.interior("density"), "energy": sim.interior("energy")}
    out.update({f"momentum_{c + 1}": sim.interior("momentum", c) for c in range(3)})
    for name in ("pressure", "velocity_1", "velocity_2", "velocity_3", *sim.scalar_names):
        out[name] = sim.primitive(name).astype(sim.np_dtype)
    return out


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_each_block_file_holds_the_solvers_arrays_and_geometry(run_hydro, tmp_path, ndim):
    # float32 in 1-D, scalars by their default names in 2-D (by given names: the read_output test below), none in
    # 3-D: each case's kernels are the ones other tests compile too (1-D: the float32 runs of test_hydro_sod and
    # test_hydro_conservation; 2-D: test_hydro_scalar_names' KH with two scalars, in rows of 16 cells as there:
    # a row's length is compiled into the stages; 3-D: test_hydro_conservation's blast), not a set of their own.
    # A 2-D float32 run with scalars was a set of its own (its two stage units: 5.6 s of g++ CPU each).
    names = {1: {}, 2: {"nscalars": 2}, 3: {}}[ndim]
    dtype = "float32" if ndim == 1 else "float64"
    raw = dict(CASES[ndim], hydro={**names, "dtype": dtype}, output={"hdf5_dt": 0.0, "format": ["vtk", "hdf5"]})
    sim = run_hydro(raw).hydro
    out = tmp_path / "out"
    name = sim.cfg["output"]["basename"]
    vtm = out / f"{name}.out.00001.vtm"
    files = pieces(vtm)
    assert len(files) == len(sim.mesh.block_list)
    want = expected_variables(sim)
    h5 = read_output(out / f"{name}.out.00001.h5")
    assert sorted(want) == sorted(h5.cells)  # the HDF5 output's variables
    back = read_output(vtm)  # read_output reads the VTK output as the HDF5 one, in the run's dtype
    for var, values in h5.cells.items():
        assert back.cells[var].dtype == values.dtype == np.dtype(dtype) and np.array_equal(back.cells[var], values), var
    for block in sim.mesh.blocks:
        got = read_vti(files[block.gid])
        assert files[block.gid].endswith(f"{name}.out.00001/block_{block.gid:06d}.vti")
        assert got["field"]["TimeValue"] == sim.time and got["field"]["CYCLE"] == sim.cycle
        c = block.coords
        active = [sim.mesh.block_nx[d] if d < ndim else 0 for d in range(3)]
        assert got["extent"] == [v for n in active for v in (0, n)]
        assert got["origin"] == list(c.xmin) and got["spacing"] == [c.dx(d) for d in (1, 2, 3)]
        assert sorted(got["cells"]) == sorted(want)
        for var, values in want.items():
            assert got["cells"][var].dtype == np.dtype(dtype)
            assert np.array_equal(got["cells"][var], values[block.lid].reshape(-1)), var  # x1 fastest


def test_read_output_reads_a_vtk_output_as_the_hdf5_one(run_hydro, tmp_path):
    raw = dict(CASES[2], hydro={"nscalars": 2, "scalar_names": ["dye", "metal"]},
               output={"hdf5_dt": 0.0, "format": ["hdf5", "vtk"]})
    run_hydro(raw)
    out = tmp_path / "out"
    for n in (0, 1):
        h5, vtk = read_output(out / f"kelvin_helmholtz.out.{n:05d}.h5"), read_output(out / f"kelvin_helmholtz.out."
                                                                                         f"{n:05d}.vtm")
        assert (vtk.time, vtk.cycle, vtk.xmin, vtk.dx) == (h5.time, h5.cycle, h5.xmin, h5.dx)
        assert sorted(vtk.cells) == sorted(h5.cells) and "dye" in vtk.cells
        for var in h5.cells:
            assert np.array_equal(vtk.cells[var], h5.cells[var]), var
    only = read_output(out / "kelvin_helmholtz.out.00001.vtm", "dye")
    assert list(only.cells) == ["dye"]
    with pytest.raises(KeyError, match=r"has no variable 'smoke'; it has density, dye, energy, "):
        read_output(out / "kelvin_helmholtz.out.00001.vtm", ["smoke"])


def test_vtk_outputs_need_no_h5py(run_hydro, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)  # ``import h5py`` raises ImportError
    result = run_hydro(dict(CASES[1], output={"hdf5_dt": 0.0, "format": "vtk"}))
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["sod.out.00000", "sod.out.00000.vtm", "sod.out.00001",
                                                       "sod.out.00001.vtm", "sod.pvd"]
    assert result.outputs == [str(out / "sod.out.00000.vtm"), str(out / "sod.out.00001.vtm")]
    back = read_output(out / "sod.out.00001.vtm")
    assert np.array_equal(back.cells["density"][0, 0], result.hydro.to_global(result.hydro.interior("density"))[0, 0])
    assert back.x_center(1)[0] == 0.5 / 32


def test_an_output_that_cannot_be_written_leaves_nothing_and_names_the_file(make_config, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "sod.out.00001").write_text("in the way\n")  # the second output's folder cannot be made
    cfg = make_config(dict(CASES[1], output={"hdf5_dt": 0.0, "format": "vtk"}))
    with pytest.raises(hydro.SimulationError, match=r"^cycle 4 \(t=[0-9.e-]+\): cannot write '.*sod.out.00001': "
                                                    r"file exists\. The run stops; the last good output is kept "
                                                    r"\(.*sod.out.00000.vtm\)\.$"):
        hydro.run(cfg)
    assert sorted(p.name for p in out.iterdir()) == ["sod.out.00000", "sod.out.00000.vtm", "sod.out.00001",
                                                       "sod.pvd"]
    assert (out / "sod.out.00001").read_text() == "in the way\n"
    assert "sod.out.00001" not in (out / "sod.pvd").read_text()  # the collection lists the good output only


def test_a_block_folder_that_is_a_symbolic_link_is_refused(make_config, tmp_path):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "sod.out.00000").symlink_to(elsewhere)
    with pytest.raises(hydro.SimulationError, match=r"^cycle 0 \(t=0\): cannot write '.*sod.out.00000': it is a "
                                                    r"symbolic link, which outputs are not written through\. "):
        hydro.run(make_config(dict(CASES[1], output={"hdf5_dt": 0.0, "format": "vtk"})))
    assert list(elsewhere.iterdir()) == [] and os.path.islink(out / "sod.out.00000")


@pytest.mark.parametrize("value, message", [
    ("xdmf", "output.format: 'xdmf' is not one of 'hdf5', 'vtk'"),
    (["vtk", "vkt"], "output.format: 'vkt' is not one of 'hdf5', 'vtk' (did you mean 'vtk'?)"),
    ([], "output.format: name each format once, \"hdf5\", \"vtk\" or both, got [] (no outputs: output.hdf5_dt = -1)"),
    (["vtk", "vtk"], "output.format: name each format once, \"hdf5\", \"vtk\" or both, got ['vtk', 'vtk'] (no "
                     "outputs: output.hdf5_dt = -1)"),
    (3, "output.format: expected a list of strings, got the integer 3"),
])
def test_a_wrong_format_is_named(make_config, value, message):
    with pytest.raises(ConfigError) as info:
        make_config(dict(CASES[1], output={"format": value}))
    assert str(info.value) == message


def test_the_format_on_the_command_line(make_config):
    assert make_config(CASES[1], ["output.format=vtk"])["output"]["format"] == ["vtk"]
    assert make_config(CASES[1], ["output.format=hdf5,vtk"])["output"]["format"] == ["hdf5", "vtk"]
    assert make_config(CASES[1], ['output.format=["vtk"]'])["output"]["format"] == ["vtk"]
    assert make_config(CASES[1])["output"]["format"] == ["hdf5"]


def test_vtk_reads_the_files_too(run_hydro, tmp_path):
    """VTK's own reader, where it is installed: the same arrays, origins and spacings."""
    vtk = pytest.importorskip("vtk")
    from vtk.util.numpy_support import vtk_to_numpy

    sim = run_hydro(dict(CASES[2], hydro={"nscalars": 1}, output={"hdf5_dt": 0.0, "format": "vtk"})).hydro
    reader = vtk.vtkXMLMultiBlockDataReader()
    reader.SetFileName(str(tmp_path / "out" / "kelvin_helmholtz.out.00001.vtm"))
    reader.Update()
    blocks = reader.GetOutput()
    assert blocks.GetNumberOfBlocks() == len(sim.mesh.block_list)
    want = expected_variables(sim)
    for block in sim.mesh.blocks:
        image = blocks.GetBlock(block.gid)
        assert image.GetOrigin() == tuple(block.coords.xmin)
        assert image.GetNumberOfCells() == 16 * 8
        for var, values in want.items():
            assert np.array_equal(vtk_to_numpy(image.GetCellData().GetArray(var)), values[block.lid].reshape(-1))

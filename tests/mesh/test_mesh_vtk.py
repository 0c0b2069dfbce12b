"""``Mesh.write_vtk``: a mesh's cell fields as VTK files (a ``.vtm`` naming one ``.vti`` per block), read back
and compared with the mesh's interior cells and geometry, the ``.pvd`` collection of a time series, and each
mistake refused before a file is written."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from brickwork.io import read_output, vtk
from brickwork.io.files import OutputError
from brickwork.mesh import Mesh, Metadata, Package


def _mesh(ndim: int = 2):
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell", "FillGhost"), dtype=np.float64)
    pkg.add_field("v", Metadata("Cell"), shape=(2,), dtype=np.float32)
    pkg.add_field("phase", Metadata("Cell"), dtype=np.complex128)
    pkg.add_field("wet", Metadata("Cell"), dtype=np.bool_)
    pkg.add_field("count", Metadata("Cell"), dtype=np.int32)
    pkg.add_field("phi", Metadata("Node"), dtype=np.float64)
    pkg.add_field("flux_b", Metadata("Face"), dtype=np.float64)
    nx, bnx = [(16,), (8, 6), (4, 6, 4)][ndim - 1], [(4,), (4, 3), (2, 3, 2)][ndim - 1]
    mesh = Mesh(nx, bnx, nghost=1, packages=[pkg], xmin=(0.0, -1.0, 2.0)[:ndim], xmax=(2.0, 2.0, 3.0)[:ndim])
    rng = np.random.default_rng(ndim)
    for name in ("T", "v", "phi"):
        mesh.data(name)[...] = rng.normal(size=mesh.data(name).shape)
    mesh.data("phase")[...] = rng.normal(size=mesh.data("phase").shape) + 1j * rng.normal(size=mesh.data("phase").shape)
    mesh.data("wet")[...] = rng.random(mesh.data("wet").shape) < 0.5
    mesh.data("count")[...] = rng.integers(-50, 50, size=mesh.data("count").shape)
    return mesh


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_every_cell_variable_of_every_block_is_written_where_the_block_lies(tmp_path, ndim):
    mesh = _mesh(ndim)
    vtm = mesh.write_vtk(tmp_path / "run.00003", time=0.25, cycle=30)
    assert vtm == str(tmp_path / "run.00003.vtm")
    assert sorted(os.listdir(tmp_path / "run.00003")) == [f"block_{g:06d}.vti" for g in range(len(mesh.block_list))]
    blocks = vtk.read(vtm)
    assert len(blocks) == len(mesh.block_list)
    for block, back in zip(mesh.block_list, blocks):
        np.testing.assert_array_equal(back.origin, block.coords.xmin)
        np.testing.assert_array_equal(back.spacing, [block.coords.dx(d) for d in (1, 2, 3)])
        assert (back.time, back.cycle) == (0.25, 30)
        assert sorted(back.cells) == ["T", "count", "phase_im", "phase_re", "v_1", "v_2", "wet"]  # no node field
    whole = read_output(vtm)  # every block put in its place, as ParaView puts them
    assert (whole.time, whole.cycle) == (0.25, 30)
    lacking = (0,) * (3 - ndim)
    np.testing.assert_array_equal(whole.cells["T"][lacking], mesh.global_array("T"))
    np.testing.assert_array_equal(whole.cells["v_2"][lacking], mesh.global_array("v")[1])
    np.testing.assert_array_equal(whole.cells["phase_im"][lacking], mesh.global_array("phase").imag)
    np.testing.assert_array_equal(whole.cells["count"][lacking], mesh.global_array("count"))
    assert whole.cells["wet"].dtype == np.uint8 and whole.cells["v_1"].dtype == np.float32
    np.testing.assert_array_equal(whole.cells["wet"][lacking], mesh.global_array("wet"))
    head = (tmp_path / "run.00003" / "block_000000.vti").read_bytes().split(b'<AppendedData')[0]  # then raw bytes
    extent = [int(n) for n in re.search(rb'WholeExtent="([^"]*)"', head).group(1).split()]
    assert extent == [x for d in range(3) for x in (0, mesh.block_nx[d] if d < ndim else 0)]


def test_a_collection_lists_the_outputs_of_a_time_series(tmp_path):
    mesh = _mesh(2)
    series = tmp_path / "heat.pvd"
    for n in range(3):
        mesh.write_vtk(tmp_path / f"heat.{n:05d}", fields="T", time=0.5 * n, cycle=n, collection=series)
    assert vtk.read_collection(str(series)) == [(0.0, "heat.00000.vtm"), (0.5, "heat.00001.vtm"),
                                                (1.0, "heat.00002.vtm")]
    assert sorted(read_output(str(tmp_path / "heat.00001.vtm")).cells) == ["T"]
    # a series written again from its second output (a restart) drops the first run's later outputs
    mesh.write_vtk(tmp_path / "heat.00001", fields="T", time=0.5, cycle=1, collection=series)
    assert vtk.read_collection(str(series)) == [(0.0, "heat.00000.vtm"), (0.5, "heat.00001.vtm")]
    # a collection in another directory names the outputs relative to itself
    (tmp_path / "sub").mkdir()
    mesh.write_vtk(tmp_path / "sub" / "x", fields="T", time=2.0, collection=series)
    assert vtk.read_collection(str(series))[-1] == (2.0, "sub/x.vtm")


@pytest.mark.parametrize("kwargs, error, words", [
    ({"fields": "Tx"}, KeyError, "unknown field 'Tx'; did you mean 'T'"),
    ({"fields": "phi"}, ValueError, "write_vtk: field 'phi' is a node field; VTK outputs hold cell fields: write "
                                    "node fields with mesh.write_output"),
    ({"fields": ["T", "flux_b"]}, ValueError, "write_vtk: field 'flux_b' is a Face field"),
    ({"fields": []}, TypeError, "write_vtk: fields must be a field name or a non-empty list"),
    ({"fields": ["T", "T"]}, ValueError, "write_vtk: fields names a field twice"),
    ({"time": float("inf")}, TypeError, "write_vtk: time must be a finite number, got inf"),
    ({"cycle": 1.5}, TypeError, "write_vtk: cycle must be an integer, got 1.5"),
    ({"path_stem": 5}, TypeError, "write_vtk: path_stem must be a path"),
    ({"path_stem": ""}, ValueError, "write_vtk: path_stem '' names no file"),
    ({"collection": "series.txt"}, ValueError, "write_vtk: collection '.*series.txt' must be a .pvd file"),
    ({"collection": 3}, TypeError, "write_vtk: collection must be a path"),
])
def test_mistakes_are_refused_before_anything_is_written(tmp_path, kwargs, error, words):
    mesh = _mesh(2)
    args = {"path_stem": str(tmp_path / "out"), **kwargs}
    if "collection" in kwargs and isinstance(kwargs["collection"], str):
        args["collection"] = str(tmp_path / kwargs["collection"])
    with pytest.raises(error, match=words.replace("(", r"\(")):
        mesh.write_vtk(**args)
    assert os.listdir(tmp_path) == []


def test_a_mesh_without_cell_fields_has_nothing_to_write(tmp_path):
    pkg = Package("p")
    pkg.add_field("phi", Metadata("Node"))
    with pytest.raises(ValueError, match="write_vtk: the mesh has no cell-centred field to write"):
        Mesh((8,), (4,), nghost=1, packages=[pkg]).write_vtk(tmp_path / "out")
    assert os.listdir(tmp_path) == []


def test_an_output_that_cannot_be_written_names_the_file_and_leaves_nothing(tmp_path):
    mesh = _mesh(1)
    with pytest.raises(OutputError, match="cannot write '.*missing/out': no such file or directory "
                       r"\(the directory '.*missing' does not exist: outputs go into a directory that exists, create it first\)"):
        mesh.write_vtk(tmp_path / "missing" / "out")
    assert os.listdir(tmp_path) == []
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "block_000002.vti").mkdir()  # a directory where a block's file goes
    with pytest.raises(OutputError, match="block_000002.vti"):
        mesh.write_vtk(tmp_path / "out")
    assert sorted(os.listdir(tmp_path)) == ["out"] and os.listdir(tmp_path / "out") == ["block_000002.vti"]

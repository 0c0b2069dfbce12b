"""``Mesh.write_output``: a mesh's cell fields as HDF5 + XDMF, read back and compared with the mesh's
interior cells, the XDMF description checked against the HDF5 datasets, and each mistake refused
before a file is written."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from apps.xdmf_check import check_xdmf
from brickwork.io.files import OutputError
from brickwork.mesh import Mesh, Metadata, Package

h5py = pytest.importorskip("h5py")


def _mesh(ndim: int = 2, nghost: int = 2):
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell", "FillGhost"), dtype=np.float64)
    pkg.add_field("v", Metadata("Cell"), shape=(2,), dtype=np.float32)
    pkg.add_field("stress", Metadata("Cell"), shape=(2, 2), dtype=np.float64)
    pkg.add_field("phase", Metadata("Cell"), dtype=np.complex128)
    pkg.add_field("wet", Metadata("Cell"), dtype=np.bool_)
    pkg.add_field("h", Metadata("Cell"), dtype=np.float16)
    pkg.add_field("flux_b", Metadata("Face"), dtype=np.float64)
    pkg.add_field("tracer", Metadata("Cell", "Sparse"), sparse_ids=[3])
    nx, bnx = [(16,), (8, 6), (4, 6, 4)][ndim - 1], [(4,), (4, 3), (2, 3, 2)][ndim - 1]
    mesh = Mesh(nx, bnx, nghost=nghost, packages=[pkg], xmin=(0.0, -1.0, 2.0)[:ndim], xmax=(2.0, 2.0, 3.0)[:ndim])
    rng = np.random.default_rng(ndim)
    for name in ("T", "v", "stress", "h"):
        data = mesh.data(name)
        data[...] = rng.normal(size=data.shape)
    mesh.data("phase")[...] = rng.normal(size=mesh.data("phase").shape) + 1j * rng.normal(size=mesh.data("phase").shape)
    mesh.data("wet")[...] = rng.random(mesh.data("wet").shape) < 0.5
    mesh.allocate_sparse(1, "tracer", 3)
    mesh.data("tracer_3")[...] = 7.0
    return mesh


def _interior(mesh, name, slot=0):
    ng = mesh.nghost
    sl = tuple(slice(ng, ng + b) if d < mesh.ndim else slice(0, 1) for d, b in reversed(list(enumerate(mesh.block_nx))))
    return mesh.data(name)[(slice(None), slot) + sl]


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_every_component_is_written_as_the_interior_cells_of_every_block(tmp_path, ndim):
    mesh = _mesh(ndim)
    h5_path, xdmf_path = mesh.write_output(tmp_path / "run.00004", time=0.25, cycle=40)
    assert (h5_path, xdmf_path) == (str(tmp_path / "run.00004.h5"), str(tmp_path / "run.00004.xdmf"))
    with h5py.File(h5_path) as f:
        cells = f["cells"]
        assert sorted(cells) == sorted(["T", "v_1", "v_2", "stress_1_1", "stress_1_2", "stress_2_1", "stress_2_2",
                                        "phase_re", "phase_im", "wet", "h", "tracer_3"])
        np.testing.assert_array_equal(cells["T"][:], _interior(mesh, "T"))
        np.testing.assert_array_equal(cells["v_2"][:], _interior(mesh, "v", 1))
        np.testing.assert_array_equal(cells["stress_2_1"][:], _interior(mesh, "stress", 2))  # slots in C order
        np.testing.assert_array_equal(cells["phase_im"][:], _interior(mesh, "phase").imag)
        assert cells["wet"].dtype == np.uint8 and cells["h"].dtype == np.float32
        np.testing.assert_array_equal(cells["wet"][:], _interior(mesh, "wet"))
        np.testing.assert_array_equal(cells["h"][:], _interior(mesh, "h").astype(np.float32))
        tracer = cells["tracer_3"][:]  # allocated on block 1 only: zeros elsewhere
        assert (tracer[1] == 7.0).all() and not np.delete(tracer, 1, axis=0).any()
        assert f.attrs["time"] == 0.25 and f.attrs["cycle"] == 40
        for b, block in enumerate(mesh.block_list):
            np.testing.assert_array_equal(f["blocks/xmin"][b], block.coords.xmin)
            np.testing.assert_array_equal(f["blocks/dx"][b], [block.coords.dx(d) for d in (1, 2, 3)])
        shapes = {name: cells[name].shape for name in cells}
    assert check_xdmf(xdmf_path) > 0  # as ParaView's and VisIt's readers parse it
    grids = ET.parse(xdmf_path).getroot().findall("./Domain/Grid/Grid")
    assert len(grids) == len(mesh.block_list)
    for attribute in grids[-1].findall("Attribute"):
        source = attribute.find("DataItem").findall("DataItem")[1]
        file, dataset = source.text.split(":")
        assert file == "run.00004.h5" and dataset == f"/cells/{attribute.get('Name')}"
        assert tuple(int(n) for n in source.get("Dimensions").split()) == shapes[attribute.get("Name")]


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_node_fields_are_node_values_of_each_blocks_grid(tmp_path, ndim):
    pkg = Package("p")
    pkg.add_field("phi", Metadata("Node"), dtype=np.float64)
    pkg.add_field("E", Metadata("Node"), shape=(2,), dtype=np.float32)
    pkg.add_field("T", Metadata("Cell"))
    nx, bnx = [(8,), (8, 6), (4, 6, 4)][ndim - 1], [(4,), (4, 3), (2, 3, 2)][ndim - 1]
    mesh = Mesh(nx, bnx, nghost=1, packages=[pkg])
    rng = np.random.default_rng(7)
    for name in ("phi", "E"):
        mesh.data(name)[...] = rng.normal(size=mesh.data(name).shape)
    mesh.write_output(tmp_path / "n")
    b = [mesh.block_nx[d] if d < ndim else 0 for d in range(3)][::-1]  # cells along k, j, i (0: inactive)
    with h5py.File(tmp_path / "n.h5") as f:
        assert sorted(f["nodes"]) == ["E_1", "E_2", "phi"] and list(f["cells"]) == ["T"]
        phi = f["nodes/phi"][:]
        assert phi.shape == (len(mesh.block_list), *(n + 1 if n else 2 for n in b))
        stored = mesh.data("phi")[:, 0]
        inside = stored[(slice(None),) + tuple(slice(1, n + 2) if n else slice(0, 1) for n in b)]
        for axis, n in enumerate(b):  # an inactive direction: the one node layer twice
            if not n:
                inside = np.repeat(inside, 2, axis=1 + axis)
        np.testing.assert_array_equal(phi, inside)
        assert f["nodes/E_2"].dtype == np.float32
    assert check_xdmf(tmp_path / "n.xdmf") > 0
    grid = ET.parse(tmp_path / "n.xdmf").getroot().findall("./Domain/Grid/Grid")[0]
    nodes = [a for a in grid.findall("Attribute") if a.get("Center") == "Node"]
    assert sorted(a.get("Name") for a in nodes) == ["E_1", "E_2", "phi"]
    topology = tuple(int(n) for n in grid.find("Topology").get("Dimensions").split())
    for a in nodes:
        assert tuple(int(n) for n in a.find("DataItem").get("Dimensions").split()) == topology


def test_chosen_fields_only(tmp_path):
    mesh = _mesh(2)
    mesh.write_output(str(tmp_path / "a"), fields="T")
    mesh.write_output(str(tmp_path / "b"), fields=["v", "tracer_3"])
    mesh.write_output(str(tmp_path / "c"), fields=["tracer"])  # a sparse pool: every instance
    with h5py.File(tmp_path / "a.h5") as a, h5py.File(tmp_path / "b.h5") as b, h5py.File(tmp_path / "c.h5") as c:
        assert list(a["cells"]) == ["T"] and a.attrs["time"] == 0.0 and a.attrs["cycle"] == 0
        assert sorted(b["cells"]) == ["tracer_3", "v_1", "v_2"]
        assert list(c["cells"]) == ["tracer_3"]


@pytest.mark.parametrize("kwargs, error, words", [
    ({"fields": "Tx"}, KeyError, "unknown field 'Tx'; did you mean 'T'"),
    ({"fields": "flux_b"}, ValueError, "field 'flux_b' is a Face field; only cell- and node-centred fields"),
    ({"fields": []}, TypeError, "fields must be a field name or a non-empty list"),
    ({"fields": ["T", "T"]}, ValueError, "names a field twice"),
    ({"fields": 3}, TypeError, "fields must be a field name"),
    ({"time": float("nan")}, TypeError, "time must be a finite number, got nan"),
    ({"time": "0.1"}, TypeError, "time must be a finite number"),
    ({"cycle": 1.5}, TypeError, "cycle must be an integer, got 1.5"),
    ({"cycle": 2**70}, ValueError, "cycle must fit a 64-bit integer, got 1180591620717411303424"),
    ({"path_stem": 5}, TypeError, "path_stem must be a path"),
    ({"path_stem": ""}, ValueError, "names no file"),
])
def test_mistakes_are_refused_before_anything_is_written(tmp_path, kwargs, error, words):
    mesh = _mesh(2)
    args = {"path_stem": str(tmp_path / "out"), **kwargs}
    with pytest.raises(error, match=words.replace("(", r"\(").replace("'", "'")):
        mesh.write_output(**args)
    assert os.listdir(tmp_path) == []


def test_two_fields_written_under_one_name_are_refused(tmp_path):
    pkg = Package("p")
    pkg.add_field("v", Metadata("Cell"), shape=(2,))
    pkg.add_field("v_2", Metadata("Cell"))
    mesh = Mesh((8,), (4,), nghost=1, packages=[pkg])
    with pytest.raises(ValueError, match="fields 'v' and 'v_2' would both be written as 'v_2'"):
        mesh.write_output(tmp_path / "out")
    assert os.listdir(tmp_path) == []
    mesh.write_output(tmp_path / "out", fields="v_2")
    assert sorted(os.listdir(tmp_path)) == ["out.h5", "out.xdmf"]
    pkg = Package("q")
    pkg.add_field("rho/1", Metadata("Cell"))  # a name HDF5 would read as a group and a dataset
    with pytest.raises(ValueError, match="field 'rho/1' cannot name an HDF5 dataset"):
        Mesh((8,), (4,), nghost=1, packages=[pkg]).write_output(tmp_path / "slash")
    assert sorted(os.listdir(tmp_path)) == ["out.h5", "out.xdmf"]


def test_an_output_that_cannot_be_written_names_the_file_and_leaves_nothing(tmp_path):
    mesh = _mesh(1)
    with pytest.raises(OutputError, match="cannot write '.*missing/out.h5': no such file or directory "
                       r"\(the directory '.*missing' does not exist: outputs go into a directory that exists, create it first\)"):
        mesh.write_output(tmp_path / "missing" / "out")
    (tmp_path / "out.xdmf").mkdir()  # a directory where the XDMF file goes: neither file appears
    with pytest.raises(OutputError, match="out.xdmf"):
        mesh.write_output(tmp_path / "out")
    assert sorted(os.listdir(tmp_path)) == ["out.xdmf"]


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_global_array_places_every_block_where_it_lies(ndim):
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell"))
    pkg.add_field("v", Metadata("Cell"), shape=(2,), dtype=np.float32)
    pkg.add_field("phi", Metadata("Node"))
    pkg.add_field("B", Metadata("Face"))
    pkg.add_field("dye", Metadata("Cell", "Sparse"), sparse_ids=[1])
    nx, bnx = [(8,), (8, 6), (4, 6, 4)][ndim - 1], [(4,), (4, 3), (2, 3, 2)][ndim - 1]
    mesh = Mesh(nx, bnx, nghost=1, packages=[pkg], xmax=(1.0, 2.0, 3.0)[:ndim])
    for block in mesh.blocks:  # T = x + 10 y + 100 z at the cell centres; phi likewise at the nodes
        centres = [block.coords.x_center(d) for d in (1, 2, 3)]
        mesh.data("T")[block.lid, 0] = centres[0][None, None, :] + 10 * centres[1][None, :, None] + \
            100 * centres[2][:, None, None]
        mesh.data("v")[block.lid, 1] = block.gid
        faces = [block.coords.x_face(d) if d <= ndim else block.coords.x_center(d) for d in (1, 2, 3)]
        mesh.data("phi")[block.lid, 0] = faces[0][None, None, :] + 10 * faces[1][None, :, None] + \
            100 * faces[2][:, None, None]
    mesh.allocate_sparse(0, "dye", 1)
    mesh.data("dye_1")[...] = 3.0
    spatial = tuple(reversed(nx))
    x = [(np.arange(n) + 0.5) * (hi / n) for n, hi in zip(nx, (1.0, 2.0, 3.0))]
    inactive = np.array([0.5])  # the centre of a direction the mesh lacks (its default extent [0, 1])
    T = mesh.global_array("T")
    assert T.shape == spatial
    want = x[0][None, None, :] + 10 * (x[1] if ndim > 1 else inactive)[None, :, None] + \
        100 * (x[2] if ndim > 2 else inactive)[:, None, None]
    np.testing.assert_allclose(T, want.reshape(spatial), rtol=1e-13)
    v = mesh.global_array("v")
    assert v.shape == (2, *spatial) and v.dtype == np.float32 and not v[0].any()
    assert sorted(np.unique(v[1])) == list(range(len(mesh.block_list)))
    phi = mesh.global_array("phi")
    assert phi.shape == tuple(n + 1 for n in spatial)
    nodes = [np.linspace(0, hi, n + 1) for n, hi in zip(nx, (1.0, 2.0, 3.0))]
    want = nodes[0][None, None, :] + 10 * (nodes[1] if ndim > 1 else inactive)[None, :, None] + \
        100 * (nodes[2] if ndim > 2 else inactive)[:, None, None]
    np.testing.assert_allclose(phi, want.reshape(phi.shape), rtol=1e-13)
    dye = mesh.global_array("dye_1")
    assert (dye == 3.0).sum() == np.prod(bnx) and set(np.unique(dye)) == {0.0, 3.0}  # block 0 only
    with pytest.raises(ValueError, match="field 'B' is a Face field"):
        mesh.global_array("B")
    with pytest.raises(KeyError, match="unknown field 'Tx'"):
        mesh.global_array("Tx")
    for root in (1, -1, 0.0, True):
        with pytest.raises(ValueError, match=r"root must be a rank of the mesh \(0 to 0\), got"):
            mesh.global_array("T", root=root)

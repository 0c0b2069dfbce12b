"""What ``Mesh.write_output`` puts into its XDMF file is read back as a reader would: field names with XML
metacharacters are escaped, names XML cannot hold are refused when declared, a file name that XDMF readers
would split (a ':') is refused before any file is written, and uint64 is described as a type readers keep."""

from __future__ import annotations

import os
import xml.dom.minidom

import numpy as np
import pytest

from brickwork.io import hdf5
from brickwork.mesh import Mesh, Metadata, Package

h5py = pytest.importorskip("h5py")


def _mesh(**fields):
    pkg = Package("p")
    for name, dtype in fields.items():
        pkg.add_field(name, Metadata("Cell"), dtype=dtype)
    return Mesh(nx=(4, 4), block_nx=(2, 2), nghost=1, packages=[pkg])


def _attributes(xdmf_path) -> dict:
    """``{attribute name: the HDF DataItem element}`` of block 0, parsed by minidom."""
    doc = xml.dom.minidom.parse(str(xdmf_path))
    block0 = [g for g in doc.getElementsByTagName("Grid") if g.getAttribute("Name") == "block0"][0]
    return {a.getAttribute("Name"): a.getElementsByTagName("DataItem")[-1]
            for a in block0.getElementsByTagName("Attribute")}


def test_names_with_xml_metacharacters_are_escaped(tmp_path):
    names = ['rho"x', "a<b&c>'d", 'q"\'']
    mesh = _mesh(**{n: np.float64 for n in names})
    for k, n in enumerate(names):
        mesh.data(n)[...] = k + 1.5
    h5_path, xdmf_path = mesh.write_output(tmp_path / "q.00000")
    attrs = _attributes(xdmf_path)  # minidom raises on a file that is not well-formed
    assert sorted(attrs) == sorted(names)
    with h5py.File(h5_path) as f:
        for k, n in enumerate(names):
            ref = attrs[n].firstChild.data.strip()
            assert ref == f"q.00000.h5:/cells/{n}"
            assert np.all(f[ref.split(":", 1)[1]][...] == k + 1.5)


@pytest.mark.parametrize("name", ["r\x01", "\x00rho", "rho\x1b[0m", "a\x7f", "b\x9b"])
def test_control_characters_in_a_field_name_are_refused(name):
    pkg = Package("p")
    with pytest.raises(ValueError, match="must not contain control characters") as info:
        pkg.add_field(name, Metadata("Cell"))
    assert repr(name) in str(info.value)
    assert pkg.fields == {}  # nothing declared
    pkg.add_field("rho\u00e9", Metadata("Cell"))  # other non-ASCII letters stay valid names
    assert list(pkg.fields) == ["rho\u00e9"]


@pytest.mark.parametrize("stem", ["t:1.00000", ":a", "b\x01", "c\nd"])
def test_a_file_name_xdmf_cannot_refer_to_is_refused_before_writing(tmp_path, stem):
    mesh = _mesh(rho=np.float64)
    with pytest.raises(ValueError, match="output file name") as info:
        mesh.write_output(tmp_path / stem)
    assert repr(stem) in str(info.value)
    assert os.listdir(tmp_path) == []


def test_a_colon_in_the_directory_is_fine(tmp_path):
    mesh = _mesh(rho=np.float64)
    mesh.data("rho")[...] = 7.0
    folder = tmp_path / "run:2"
    folder.mkdir()
    h5_path, xdmf_path = mesh.write_output(folder / "t.00000")  # the XDMF file names the .h5 without its folder
    ref = _attributes(xdmf_path)["rho"].firstChild.data.strip()
    assert ref == "t.00000.h5:/cells/rho"
    with h5py.File(h5_path) as f:
        assert np.all(f["cells/rho"][...] == 7.0)


def test_uint64_is_exact_in_hdf5_and_described_as_int64(tmp_path):
    mesh = _mesh(big=np.uint64, u32=np.uint32, i64=np.int64)
    values = np.array([0, 2**32, 2**63 - 1, 2**64 - 1], dtype=np.uint64)
    mesh.data("big")[:, 0, 0, 1:3, 1:3] = values.reshape(2, 2)  # the interior cells of each of the 4 blocks
    mesh.data("u32")[...] = 2**32 - 1
    h5_path, xdmf_path = mesh.write_output(tmp_path / "u.00000")
    with h5py.File(h5_path) as f:
        assert f["cells/big"].dtype == np.uint64
        assert f["cells/big"].shape == (4, 1, 2, 2)
        for b in range(4):
            assert f["cells/big"][b, 0].ravel().tolist() == [0, 2**32, 2**63 - 1, 2**64 - 1]
    attrs = _attributes(xdmf_path)
    # readers read UInt as 32 bits whatever its Precision; Int of 8 bytes keeps every value below 2**63
    assert (attrs["big"].getAttribute("NumberType"), attrs["big"].getAttribute("Precision")) == ("Int", "8")
    assert (attrs["u32"].getAttribute("NumberType"), attrs["u32"].getAttribute("Precision")) == ("UInt", "4")
    assert (attrs["i64"].getAttribute("NumberType"), attrs["i64"].getAttribute("Precision")) == ("Int", "8")


def test_the_name_check_holds_for_direct_writers(tmp_path):
    # io.hdf5.write is also the hydro application's writer; its error is an OutputError too, which a mesh's
    # collective write_output reports on every rank
    data = {"rho": np.ones((1, 1, 2, 2))}
    with pytest.raises(hdf5.OutputNameError) as info:
        hdf5.write(str(tmp_path / "a:b"), data, np.zeros((1, 3)), np.ones((1, 3)), 0.0, 0)
    assert isinstance(info.value, ValueError) and isinstance(info.value, hdf5.OutputError)
    assert os.listdir(tmp_path) == []

"""Outputs read back by ``read_output`` that lie about their contents (attacker round 19, lead 1).

VTK: a ``.vtm`` naming ``/dev/zero`` as a block file was read for ever (all memory); a ``BigEndian``, 32-bit
header or compressed image, an array of three components and a negative extent were read as brickwork's own
without a word; a missing ``Origin``, ``Piece`` or ``WholeExtent``, an unknown type, an offset of 'abc' or past
the file, a truncated file, blocks of other variables were ``KeyError``/``AttributeError``/numpy errors naming
no file; a ``CYCLE`` stored as 2.5 read as 2 (the HDF5 reader refuses it). HDF5: a variable declared
(3, 2000, 1000, 1000) and never written was read (44.7 GiB of fill values) before its shape was compared
with the blocks; a group, a link to nothing, strings or records as a variable, string or complex corners
were h5py/numpy errors or read silently. Each is now a ValueError naming the file and what is wrong in it,
before any variable's values are read; the files are left as they were."""

import os

import h5py
import numpy as np
import pytest

from brickwork.io import read_output, vtk
from brickwork.mesh import Mesh, Metadata, Package


def _vtk_output(folder):
    """Two blocks of four cells (rho 0..7 and p = 1) at time 0.5, cycle 7: the ``.vtm`` file's path."""
    for b in range(2):
        vtk.write_block(str(folder / f"b{b}.vti"), {"rho": np.arange(4.0).reshape(1, 1, 4) + 4 * b,
                                                    "p": np.ones((1, 1, 4))},
                        (4.0 * b, 0.0, 0.0), (1.0, 1.0, 1.0), 0.5, 7, 1)
    return vtk.write_multiblock(str(folder / "o.vtm"), ["b0.vti", "b1.vti"])


def _replace(path, old: bytes, new: bytes):
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new))


def test_the_unedited_vtk_output_reads_back(tmp_path):
    out = read_output(_vtk_output(tmp_path))
    assert (out.time, out.cycle, out.xmin, out.dx) == (0.5, 7, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    np.testing.assert_array_equal(out.cells["rho"], np.arange(8.0).reshape(1, 1, 8))
    np.testing.assert_array_equal(out.cells["p"], np.ones((1, 1, 8)))


VTK_LIES = [  # file, text replaced, its replacement, the message after "read_output: "
    ("o.vtm", b'file="b1.vti"', b'file="/dev/zero"', r"'.*o\.vtm' lists '/dev/zero', which is not a regular file"),
    ("o.vtm", b'file="b1.vti"', b'file="/dev/null"', r"'.*o\.vtm' lists '/dev/null', which is not a regular file"),
    ("o.vtm", b'file="b1.vti"', b'file="."', r"'.*o\.vtm' lists '.*/\.', which is not a regular file"),
    ("o.vtm", b'file="b1.vti"', b"", r"'.*o\.vtm': a DataSet names no file"),
    ("b0.vti", b'byte_order="LittleEndian"', b'byte_order="BigEndian"',
     r"'.*b0\.vti' has byte_order='BigEndian'; a VTK image of brickwork's has 'LittleEndian'"),
    ("b0.vti", b'header_type="UInt64"', b'header_type="UInt32"', r"has header_type='UInt32'; .* has 'UInt64'"),
    ("b0.vti", b'header_type="UInt64"', b'header_type="UInt64" compressor="vtkZLibDataCompressor"',
     r"has compressor='vtkZLibDataCompressor'; a VTK image of brickwork's has no compressor"),
    ("b0.vti", b'WholeExtent="0 4 0 0 0 0"', b'WholeExtent="0 4 0 -3 0 0"',
     r"'.*b0\.vti' has WholeExtent='0 4 0 -3 0 0'; a block of brickwork's has '0 ni 0 nj 0 nk' \(whole numbers\)"),
    ("b0.vti", b'WholeExtent="0 4 0 0 0 0"', b"", r"has WholeExtent=None"),
    ("b0.vti", b'Origin="0.0 0.0 0.0"', b'Origin="0.0 0.0"',
     r"'.*b0\.vti' has Origin='0\.0 0\.0'; a block of brickwork's has three numbers \(x1, x2, x3\)"),
    ("b0.vti", b'Spacing=', b'Sxacing=', r"has Spacing=None"),
    ("b0.vti", b"Piece", b"Xiece", r"'.*b0\.vti' is not a VTK image of brickwork's \(no <CellData> in a <Piece>\)"),
    ("b0.vti", b'type="Float64" Name="rho"', b'type="Float128" Name="rho"',
     r"'.*b0\.vti': array 'rho' is described as type='Float128', format='appended', NumberOfComponents='1'"),
    ("b0.vti", b'Name="rho" NumberOfComponents="1"', b'Name="rho" NumberOfComponents="3"',
     r"array 'rho' is described as type='Float64', format='appended', NumberOfComponents='3'"),
    ("b0.vti", b'offset="16"', b'offset="abc"', r"array 'CYCLE' has offset='abc', which is not a place in its 140 "
                                                r"bytes of appended data"),
    ("b0.vti", b'offset="16"', b'offset="99999"', r"array 'CYCLE' has offset='99999', which is not a place"),
    ("b0.vti", b'type="Int64" Name="CYCLE"', b'type="Float64" Name="CYCLE"',
     r"'.*b0\.vti' has the field CYCLE = 3\.5e-323, which is not an integer"),
    ("b1.vti", b'Name="p"', b'Name="q"', r"the blocks of '.*o\.vtm' hold different variables: '.*b0\.vti' has p "
                                         r"\(1, 1, 4\) float64, rho \(1, 1, 4\) float64, '.*b1\.vti' has q "),
    ("b1.vti", b'Name="p"', b'Name="rho"', r"'.*b1\.vti' has two arrays named 'rho'"),
]


@pytest.mark.parametrize("file, old, new, message", VTK_LIES)
def test_a_vtk_output_that_lies_is_refused_naming_the_file(tmp_path, file, old, new, message):
    vtm = _vtk_output(tmp_path)
    _replace(tmp_path / file, old, new)
    before = {name: (tmp_path / name).read_bytes() for name in ("o.vtm", "b0.vti", "b1.vti")}
    with pytest.raises(ValueError, match="^read_output: ") as e:
        read_output(vtm)
    assert e.match(message)
    assert {name: (tmp_path / name).read_bytes() for name in before} == before


def _cycle_as_float64(folder, cycle: float) -> None:
    """Each block file's CYCLE stored as a Float64 of ``cycle`` (the second field value: 24 bytes into the
    appended data, after TimeValue's byte count and value and its own byte count)."""
    for b in range(2):
        path = folder / f"b{b}.vti"
        _replace(path, b'type="Int64" Name="CYCLE"', b'type="Float64" Name="CYCLE"')
        data = path.read_bytes()
        at = data.index(b'<AppendedData encoding="raw">\n_') + len(b'<AppendedData encoding="raw">\n_') + 24
        path.write_bytes(data[:at] + np.float64(cycle).tobytes() + data[at + 8:])


@pytest.mark.parametrize("cycle, message", [(2.5, "2.5"), (np.nan, "nan"), (np.inf, "inf")])
def test_a_cycle_stored_as_a_fraction_is_refused(tmp_path, cycle, message):
    vtm = _vtk_output(tmp_path)
    _cycle_as_float64(tmp_path, cycle)
    with pytest.raises(ValueError, match=rf"'.*b0\.vti' has the field CYCLE = {message}, which is not an integer$"):
        read_output(vtm)


def test_a_cycle_stored_as_an_integral_float_reads(tmp_path):
    vtm = _vtk_output(tmp_path)
    _cycle_as_float64(tmp_path, 7.0)
    out = read_output(vtm)
    assert out.cycle == 7 and isinstance(out.cycle, int)


def test_a_truncated_or_missing_block_file_is_named(tmp_path):
    vtm = _vtk_output(tmp_path)
    data = (tmp_path / "b1.vti").read_bytes()
    (tmp_path / "b1.vti").write_bytes(data[:-40])
    with pytest.raises(ValueError, match=r"'.*b1\.vti': array 'p' ends 12 bytes past the end of the file "
                                         r"\(a truncated file\?\)"):
        read_output(vtm)
    os.remove(tmp_path / "b1.vti")
    with pytest.raises(FileNotFoundError, match=r"^read_output: '.*o\.vtm' lists the block file '.*b1\.vti', which "
                                                r"does not exist$"):
        read_output(vtm)


def _hdf5_output(tmp_path, edit):
    """An output of a 12-cell mesh in 3 blocks (T = 3), changed by ``edit(h5py.File)``."""
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell"))
    mesh = Mesh((12,), (4,), packages=[pkg])
    mesh.data("T")[...] = 3.0
    mesh.write_output(tmp_path / "m")
    with h5py.File(tmp_path / "m.h5", "r+") as f:
        edit(f)
    return tmp_path / "m.h5"


def _replaced(name, make):
    def edit(f):
        del f[name]
        make(f, name)
    return edit


def _added(name, make):
    return lambda f: make(f, name)


def _never_written(shape):  # declared, chunked, no chunk stored: the file stays small
    return lambda f, name: f.create_dataset(name, shape=shape, dtype="f8", chunks=(1, 1, 100, 100))


HDF5_LIES = [
    (_added("cells/U", _never_written((3, 2000, 1000, 1000))),
     r"the blocks of '.*m\.h5' do not tile a box: 3 blocks of \(2000, 1000, 1000\) cells, placed by their corners "
     r"in a box of \(2000, 1000, 1008\)"),
    (_added("cells/U", _never_written((3000000, 1, 1000, 1000))),
     r"/cells/U of '.*m\.h5' has shape \(3000000, 1, 1000, 1000\), not \(nblocks=3, nk, nj, ni\)"),
    (_replaced("cells/T", lambda f, n: f.__setitem__(n, 5.0)), r"/cells/T of '.*m\.h5' has shape \(\), not"),
    (_replaced("cells/T", lambda f, n: f.create_group(n)),
     r"'.*m\.h5': /cells/T is a group, not a dataset; a variable of a brickwork output is a dataset of integers or "
     r"floating-point numbers"),
    (_added("cells/L", lambda f, n: f.__setitem__(n, h5py.SoftLink("/nothing"))),
     r"/cells/L is a link to nothing, not a dataset"),
    (_added("cells/L", lambda f, n: f.__setitem__(n, h5py.ExternalLink("/dev/null", "/x"))),
     r"/cells/L is a link to nothing, not a dataset"),
    (_replaced("cells/T", lambda f, n: f.__setitem__(n, np.full((3, 1, 1, 4), b"xx"))),
     r"/cells/T is a dataset of \|S2; a variable"),
    (_replaced("cells/T", lambda f, n: f.__setitem__(n, np.zeros((3, 1, 1, 4), [("a", "f8"), ("b", "i4")]))),
     r"/cells/T is a dataset of \[\('a', '<f8'\), \('b', '<i4'\)\]"),
    (_replaced("cells", lambda f, n: f.__setitem__(n, np.zeros(3))), r"has /cells that is not a group of variables"),
    (_replaced("blocks/xmin", lambda f, n: f.__setitem__(n, np.full((3, 3), b"xx"))),
     r"'.*m\.h5' has /blocks/xmin of type \|S2; a brickwork output has numbers"),
    (_replaced("blocks/xmin", lambda f, n: f.__setitem__(n, np.zeros((3, 3), complex))),
     r"has /blocks/xmin of type complex128"),
    (_replaced("blocks/dx", lambda f, n: f.__setitem__(n, np.ones((3, 3), bool))), r"has /blocks/dx of type bool"),
    (_replaced("blocks/dx", lambda f, n: f.create_dataset(n, shape=(2**40, 3), dtype="f8", chunks=(1, 3))),
     r"has /blocks/xmin of shape \(3, 3\) and /blocks/dx of shape \(1099511627776, 3\); a brickwork output has "
     r"\(nblocks, 3\) of each"),
]


@pytest.mark.parametrize("edit, message", HDF5_LIES)
def test_an_hdf5_output_that_lies_is_refused_before_its_values_are_read(tmp_path, edit, message):
    path = _hdf5_output(tmp_path, edit)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="^read_output: ") as e:
        read_output(path)
    assert e.match(message)
    assert path.read_bytes() == before


def test_the_unedited_hdf5_output_reads_back(tmp_path):
    out = read_output(_hdf5_output(tmp_path, lambda f: None))
    np.testing.assert_array_equal(out.cells["T"], np.full((1, 1, 12), 3.0))
    assert list(out.cells) == ["T"] and out.nodes == {}


def test_a_collection_that_is_no_regular_file_is_refused_and_replaced(tmp_path):
    """A .pvd that is a link to /dev/zero (or a FIFO) in a run's output directory was read for ever at the run's
    first VTK output (vtk.read_collection read it whole: MemoryError under a 3 GiB ulimit); /dev/null stands in
    here. The collection is written anew in its place, listing the outputs that exist."""
    series = tmp_path / "x.pvd"
    os.symlink("/dev/null", series)
    with pytest.raises(ValueError, match=r"^read_output: '.*x\.pvd' is not a regular file$"):
        vtk.read_collection(str(series))
    vtm = _vtk_output(tmp_path)
    vtk.update_collection(str(series), "later.vtm", 0.75, [os.path.basename(vtm)])
    assert not series.is_symlink()
    assert vtk.read_collection(str(series)) == [(0.5, "o.vtm"), (0.75, "later.vtm")]


@pytest.mark.parametrize("names", [5, b"rho", [1], ["rho", None], {"rho": 1}])
def test_names_that_are_no_names_are_a_type_error(tmp_path, names):
    """names=5 was "'int' object is not iterable", names=b'rho' "has no variable 114, 104, 111" (its bytes)."""
    vtm = _vtk_output(tmp_path)
    with pytest.raises(TypeError) as e:
        read_output(vtm, names=names)
    assert str(e.value) == f"read_output: names must be a variable's name or a list of names (str), got {names!r}"


def test_names_given_as_a_tuple_or_generator_read_those_variables(tmp_path):
    vtm = _vtk_output(tmp_path)
    assert list(read_output(vtm, names=("rho",)).cells) == ["rho"]
    assert list(read_output(vtm, names=(n for n in ["p"])).cells) == ["p"]

"""``Mesh.save_restart`` / ``Mesh.load_restart``: every field's storage (ghosts, faces, nodes, sparse
allocation) comes back bit for bit with the caller's metadata, and a file that does not fit the mesh is
refused, naming why, before anything changes."""

from __future__ import annotations

import functools
import io
import os
import stat
import zipfile

import numpy as np
import pytest

from brickwork.io import restart
from brickwork.io.files import OutputError
from brickwork.io.restart import RestartError
from brickwork.mesh import Mesh, Metadata, Package


def _mesh(ndim=2, nx=None, extra=False):
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell", "FillGhost"))
    pkg.add_field("B", Metadata("Face"), shape=(2,), dtype=np.float32)
    pkg.add_field("phi", Metadata("Node"), dtype=np.int64)
    pkg.add_field("dye", Metadata("Cell", "Sparse"), sparse_ids=[1, 4])
    if extra:
        pkg.add_field("more", Metadata("Cell"))
    nx = nx or [(16,), (8, 6), (4, 6, 4)][ndim - 1]
    bnx = [(4,), (4, 3), (2, 3, 2)][ndim - 1]
    return Mesh(nx, bnx, nghost=1, packages=[pkg])


def _fill(mesh, seed=0):
    rng = np.random.default_rng(seed)
    for name in ("T", "B", "phi"):
        mesh.data(name)[...] = rng.normal(size=mesh.data(name).shape) * 100
    mesh.allocate_sparse(1, "dye", 4)
    mesh.data("dye_4")[1] = rng.normal(size=mesh.data("dye_4")[1].shape)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_every_field_comes_back_bit_for_bit(tmp_path, ndim):
    a = _mesh(ndim)
    _fill(a)
    path = a.save_restart(tmp_path / "state.npz", {"time": 0.125, "cycle": 7, "note": ["x", None]})
    assert path == str(tmp_path / "state.npz")
    b = _mesh(ndim)
    b.allocate_sparse(0, "dye", 1)  # allocated here, not in the file: deallocated by the load
    assert b.load_restart(path) == {"time": 0.125, "cycle": 7, "note": ["x", None]}
    for name in ("T", "B", "phi", "dye_4"):
        np.testing.assert_array_equal(b.data(name), a.data(name))
        assert b.data(name).dtype == a.data(name).dtype
    assert [b.is_allocated(k, "dye", 4) for k in range(b.nblocks)] == [k == 1 for k in range(b.nblocks)]
    assert not any(b.is_allocated(k, "dye", 1) for k in range(b.nblocks))
    a.fill_ghosts()
    b.fill_ghosts()
    np.testing.assert_array_equal(b.data("T"), a.data("T"))


@pytest.mark.parametrize("make, words", [
    (lambda: _mesh(2, nx=(16, 6)), "was written by a mesh with nx [8, 6], but this mesh has [16, 6]"),
    (lambda: _mesh(2, extra=True), "was written by a mesh with fields"),
    (lambda: _mesh(1), "was written by a mesh with nx [8, 6], but this mesh has [16]"),
])
def test_a_restart_of_another_mesh_is_refused_and_nothing_changes(tmp_path, make, words):
    a = _mesh(2)
    _fill(a)
    a.save_restart(tmp_path / "s.npz")
    b = make()
    before = b.data("T").copy()
    with pytest.raises(RestartError, match=words.replace("[", r"\[").replace("]", r"\]")):
        b.load_restart(tmp_path / "s.npz")
    np.testing.assert_array_equal(b.data("T"), before)


def test_files_that_are_not_mesh_restarts_are_refused(tmp_path):
    mesh = _mesh(2)
    with pytest.raises(RestartError, match="no such file|does not exist|missing"):
        mesh.load_restart(tmp_path / "missing.npz")
    restart.save(str(tmp_path / "other.npz"), {"x": np.zeros(3)}, {"time": 0.0})
    with pytest.raises(RestartError, match="is not a mesh restart"):
        mesh.load_restart(tmp_path / "other.npz")
    good = _mesh(2)
    _fill(good)
    arrays, meta = restart.load(good.save_restart(tmp_path / "good.npz"))
    arrays["T"] = arrays["T"][:, :, :, :-1]  # a shape the mesh cannot take (metadata consistent: a new checksum)
    restart.save(str(tmp_path / "cut.npz"), arrays, {k: v for k, v in meta.items() if k not in ("format", "sha256")})
    before = mesh.data("phi").copy()
    with pytest.raises(RestartError, match="array 'T' is float64 of shape .* but this mesh needs float64 of shape"):
        mesh.load_restart(tmp_path / "cut.npz")
    np.testing.assert_array_equal(mesh.data("phi"), before)


def test_a_restart_is_checked_for_sizes_before_any_array_is_read(tmp_path):
    """A compressed member (a few kB that would unpack into gigabytes) and an array header declaring more
    than its member holds are refused before numpy allocates anything."""
    good = tmp_path / "good.npz"
    _mesh(1).save_restart(good)
    deflated = tmp_path / "deflated.npz"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    with pytest.raises(RestartError, match="is not a brickwork restart file .its member '.*' is compressed"):
        _mesh(1).load_restart(deflated)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (2**40,)})
    huge = tmp_path / "huge.npz"
    with zipfile.ZipFile(huge, "w") as dst:
        dst.writestr("T.npy", header.getvalue() + bytes(8))
    with pytest.raises(RestartError, match=r"is corrupt: its member 'T.npy' declares an array of shape "
                                           r"\(1099511627776,\) \(float64\) but holds \d+ bytes"):
        _mesh(1).load_restart(huge)


@pytest.mark.parametrize("args, error, words", [
    ((5,), TypeError, "save_restart: path must be a path"),
    (("",), ValueError, "path '' names no file"),
    (("x.npz", [1, 2]), TypeError, "meta must be a dict"),
    (("x.npz", {"t": float("nan")}), TypeError, "meta must hold JSON values only"),
    (("x.npz", {"a": np.zeros(2)}), TypeError, "meta must hold JSON values only"),
    (("x.npz", {"a": {1: 2}}), TypeError, "meta must hold JSON values only .*: key 1 is not a string"),
    (("x.npz", {"deep": functools.reduce(lambda inner, _: [inner], range(100_000), [])}), TypeError,
     "meta must hold JSON values only"),
])
def test_bad_arguments_are_refused_before_anything_is_written(tmp_path, monkeypatch, args, error, words):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=words):
        _mesh(1).save_restart(*args)
    assert not list(tmp_path.iterdir())


def test_a_restart_that_cannot_be_written_says_so(tmp_path):
    with pytest.raises(OutputError, match="no such file or directory"):
        _mesh(1).save_restart(tmp_path / "missing" / "s.npz")


def test_a_restart_never_replaces_a_pipe_or_a_device(tmp_path):
    """A save writes a new file and renames it over the old one: over a FIFO (or /dev/null, as root) that
    would replace the special file itself."""
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match=r"cannot write '.*pipe.npz': it is not a regular file \(a device, pipe "
                                          r"or socket\)"):
        _mesh(1).save_restart(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["pipe.npz"]

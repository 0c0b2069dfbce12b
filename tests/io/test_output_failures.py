"""Outputs and restart files that cannot be written as asked: a rename that fails part-way keeps the previous
output whole; long-double fields, lone surrogates in field names and NUL characters in paths are refused
before anything is written; a restart file whose ``user`` entry is not a dict is refused on loading."""

from __future__ import annotations

import errno
import os

import numpy as np
import pytest

from brickwork.io import restart
from brickwork.io.files import OutputError
from brickwork.io.restart import RestartError
from brickwork.mesh import Mesh, Metadata, Package

h5py = pytest.importorskip("h5py")


def _mesh(dtype=np.float64, value=1.0):
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell"), dtype=dtype)
    mesh = Mesh((8, 8), (4, 4), nghost=1, packages=[pkg])
    mesh.data("T")[...] = value
    return mesh


def _failing(real, ending: str):
    """``os.replace`` that fails (EBUSY, as for a bind-mounted file) when it would rename a temporary file to a
    name ending in ``ending``."""
    def replace(src, dst, *args, **kwargs):
        if str(src).endswith(".tmp") and str(dst).endswith(ending):
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
        return real(src, dst, *args, **kwargs)
    return replace


def _contents(directory):
    return {name: (directory / name).read_bytes() for name in sorted(os.listdir(directory))}


@pytest.mark.parametrize("links", [True, False], ids=["hard-links", "no-hard-links"])
def test_a_failed_second_rename_keeps_the_previous_output_whole(tmp_path, monkeypatch, links):
    """Before, the new .h5 had replaced the old one and was then removed: the old .xdmf pointed to no file."""
    stem = str(tmp_path / "o")
    _mesh(value=1.0).write_output(stem)
    before = _contents(tmp_path)
    if not links:  # a file system without hard links: the previous files are moved aside instead
        monkeypatch.setattr(os, "link", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.EPERM, "no links")))
    monkeypatch.setattr(os, "replace", _failing(os.replace, ".xdmf"))
    with pytest.raises(OutputError, match=r"cannot write '.*o\.xdmf': device or resource busy"):
        _mesh(value=2.0).write_output(stem)
    assert _contents(tmp_path) == before  # both files, byte for byte, and nothing else
    with h5py.File(stem + ".h5") as f:
        assert f["cells/T"][...].ravel().tolist() == [1.0] * 64


def test_a_failed_second_rename_without_a_previous_output_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "replace", _failing(os.replace, ".xdmf"))
    with pytest.raises(OutputError, match="device or resource busy"):
        _mesh().write_output(str(tmp_path / "o"))
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("links", [True, False], ids=["hard-links", "no-hard-links"])
def test_a_replaced_output_leaves_no_extra_file(tmp_path, monkeypatch, links):
    if not links:
        monkeypatch.setattr(os, "link", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.EPERM, "no links")))
    stem = str(tmp_path / "o")
    _mesh(value=1.0).write_output(stem)
    _mesh(value=3.0).write_output(stem)
    assert sorted(os.listdir(tmp_path)) == ["o.h5", "o.xdmf"]
    with h5py.File(stem + ".h5") as f:
        assert f["cells/T"][...].ravel().tolist() == [3.0] * 64


def test_a_failed_restart_rename_keeps_the_previous_restart_file(tmp_path, monkeypatch):
    path = str(tmp_path / "r.npz")
    _mesh(value=1.0).save_restart(path, {"cycle": 1})
    before = _contents(tmp_path)
    monkeypatch.setattr(os, "replace", _failing(os.replace, ".npz"))
    with pytest.raises(OutputError, match="device or resource busy"):
        _mesh(value=2.0).save_restart(path, {"cycle": 2})
    monkeypatch.undo()
    assert _contents(tmp_path) == before
    mesh = _mesh(value=0.0)
    assert mesh.load_restart(path) == {"cycle": 1} and (mesh.data("T") == 1.0).all()


@pytest.mark.parametrize("dtype", [np.longdouble, np.clongdouble])
@pytest.mark.parametrize("fields", [None, "T"])
def test_long_double_fields_are_refused_before_anything_is_written(tmp_path, dtype, fields):
    """Before, they were written and described as Float of Precision 16, which XDMF readers cannot read."""
    if np.dtype(dtype).itemsize <= np.dtype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64).itemsize:
        pytest.skip("long double is double on this platform")
    wide = "float64" if np.dtype(dtype).kind == "f" else "complex128"
    with pytest.raises(ValueError, match=rf"write_output: field 'T' is {np.dtype(dtype).name}, which XDMF readers "
                                         rf"cannot read .* copy it into a {wide} field"):
        _mesh(dtype).write_output(str(tmp_path / "o"), fields=fields)
    assert os.listdir(tmp_path) == []


def test_a_field_name_with_a_lone_surrogate_is_refused():
    """Before, add_field took it, and h5py raised a raw UnicodeEncodeError when the output was written."""
    pkg = Package("p")
    with pytest.raises(ValueError, match=r"field name must be valid Unicode text .*'bad\\ud800'.*lone surrogate"):
        pkg.add_field("bad\ud800", Metadata("Cell"))
    assert pkg.add_field("été", Metadata("Cell")).name == "été"  # any other Unicode is fine


@pytest.mark.parametrize("call", ["write_output", "save_restart", "load_restart"])
def test_a_path_with_a_nul_character_is_refused(tmp_path, call):
    """Before, the operating system's raw ``ValueError: embedded null byte`` came from deep inside the write."""
    mesh = _mesh()
    with pytest.raises(ValueError, match=rf"{call}: .*'{tmp_path}/a\\x00b/o' contains a NUL character"):
        getattr(mesh, call)(f"{tmp_path}/a\0b/o")
    assert os.listdir(tmp_path) == []


def test_restart_load_of_a_path_with_a_nul_character_says_so():
    with pytest.raises(RestartError, match=r"restart file 'r\\x00.npz' contains a NUL character"):
        restart.load("r\0.npz")


@pytest.mark.parametrize("user", [[1, 2], "x", 5, None])
def test_a_restart_file_whose_user_entry_is_not_a_dict_is_refused(tmp_path, user):
    """Before, ``load_restart`` loaded the fields and returned {} as if nothing had been saved."""
    path = str(tmp_path / "r.npz")
    _mesh(value=1.0).save_restart(path, {"cycle": 1})
    arrays, meta = restart.load(path)
    restart.save(path, arrays, dict(meta, user=user))  # a valid checksum over the edited metadata
    mesh = _mesh(value=0.0)
    with pytest.raises(RestartError, match=rf"its 'user' entry \(the meta saved with it\) is {type(user).__name__}, "
                                           rf"not a dict"):
        mesh.load_restart(path)
    assert (mesh.data("T") == 0.0).all()  # nothing changed

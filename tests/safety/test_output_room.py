"""An HDF5 output that the disk or the file size limit (``ulimit -f``) cannot hold is refused before HDF5 writes
anything (attacker probe): a write that failed inside HDF5 raised h5py's bare RuntimeError ('Can't decrement id
ref count (... errno = 27, error message = 'File too large')'), a traceback from ``brickwork run``, and the file
HDF5 could not close left the library half closed, so the process died of a segmentation fault at exit (status
139 after 'the run failed', on a 16 KiB tmpfs as under ulimit -f). A failure HDF5 still meets (the disk filled
meanwhile) is an ``OutputError`` naming the file."""

from __future__ import annotations

import os
import resource

import numpy as np
import pytest

from brickwork.io import hdf5
from brickwork.io.files import OutputError
from brickwork.mesh import Mesh, Metadata, Package

h5py = pytest.importorskip("h5py")


def _mesh(value):
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell"))
    mesh = Mesh((16, 16), (8, 8), nghost=1, packages=[pkg])
    mesh.data("T")[...] = value
    return mesh


def _contents(directory):
    return {name: (directory / name).read_bytes() for name in sorted(os.listdir(directory))}


def test_a_disk_without_room_is_refused_before_hdf5_writes(tmp_path, monkeypatch):
    stem = str(tmp_path / "o")
    _mesh(1.0).write_output(stem)
    before = _contents(tmp_path)
    real = os.statvfs

    def full(path):
        s = real(path)
        return os.statvfs_result((s.f_bsize, 1024, s.f_blocks, 3, 3, *tuple(s)[5:]))  # 3 KiB free

    monkeypatch.setattr(os, "statvfs", full)
    with pytest.raises(OutputError, match=r"cannot write '.*o\.h5': no space left on device \(the output needs up "
                                          r"to \d+ bytes, and 3072 bytes are free there\)") as caught:
        _mesh(2.0).write_output(stem)
    assert caught.value.path == stem + ".h5"
    assert _contents(tmp_path) == before  # the previous output whole, no temporary file
    with h5py.File(stem + ".h5") as f:
        assert f["cells/T"][...].ravel().tolist() == [1.0] * 256


def test_a_file_size_limit_below_the_output_is_refused(tmp_path):
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
    try:
        with pytest.raises(OutputError, match=r"cannot write '.*o\.h5': file too large \(the output needs up to "
                                              r"\d+ bytes, more than this process's file size limit, ulimit -f, "
                                              r"of 4096 bytes\)"):
            _mesh(2.0).write_output(str(tmp_path / "o"))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert os.listdir(tmp_path) == []


def test_the_estimate_holds_the_file(tmp_path):
    cells = {f"v{i}": np.ones((16, 1, 2, 2), np.float32) for i in range(5)}
    nodes = {"n": np.ones((16, 2, 3, 3))}
    hdf5.write(str(tmp_path / "a"), cells, np.zeros((16, 3)), np.ones((16, 3)), 0.0, 0, nodes)
    described = hdf5._file_bytes(hdf5._described(cells), hdf5._described(nodes), 96)
    assert described == 5 * 16 * 4 * 4 + 16 * 18 * 8 + 96 * 8 + 16384 + 6 * 4096
    assert os.path.getsize(tmp_path / "a.h5") < described


def test_a_write_failing_inside_hdf5_is_an_output_error(tmp_path):
    """h5py reports a failed system call of HDF5's as a RuntimeError whose text holds the errno."""
    def blocks():
        raise RuntimeError("Can't write data (file write failed: ..., errno = 28, error message = 'No space left "
                           "on device')")
        yield

    variables = {"T": hdf5.Variable(np.dtype(np.float64), (1, 1, 2, 2))}
    with pytest.raises(OutputError, match=r"cannot write '.*a\.h5': no space left on device$") as caught:
        hdf5.write_blocks(str(tmp_path / "a"), variables, np.zeros((1, 3)), np.ones((1, 3)), 0.0, 0, {}, blocks())
    assert caught.value.errno == 28
    assert os.listdir(tmp_path) == []
    with pytest.raises(RuntimeError, match="no errno here") as other:  # any other RuntimeError is left as it is
        hdf5.write_blocks(str(tmp_path / "a"), variables, np.zeros((1, 3)), np.ones((1, 3)), 0.0, 0, {},
                          iter(lambda: (_ for _ in ()).throw(RuntimeError("no errno here")), None))
    assert not isinstance(other.value, OutputError)
    assert os.listdir(tmp_path) == []

"""``restart.load`` refuses at once what cannot be a restart file: a named pipe (which it used to wait
on for ever), and an archive whose members claim more bytes than the file holds (whose claim numpy
used to try to allocate)."""

from __future__ import annotations

import io
import os
import signal
import zipfile

import numpy as np
import pytest

from brickwork.io import restart
from brickwork.io.restart import RestartError

ARRAYS = {"density": np.arange(6.0).reshape(2, 3), "energy": np.ones(4)}


@pytest.fixture
def deadline():
    """The test fails (``TimeoutError``) rather than hang past 20 s."""
    def expire(signum, frame):
        raise TimeoutError("still waiting after 20 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_a_saved_file_loads_back(tmp_path):
    path = restart.save(str(tmp_path / "a.npz"), ARRAYS, {"time": 0.5})
    arrays, meta = restart.load(path)
    assert meta["time"] == 0.5 and sorted(arrays) == ["density", "energy"]
    np.testing.assert_array_equal(arrays["density"], ARRAYS["density"])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
@pytest.mark.parametrize("through_link", [False, True])
def test_a_named_pipe_is_refused_at_once(tmp_path, deadline, through_link):
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    path = fifo
    if through_link:
        path = tmp_path / "link.npz"
        os.symlink(fifo, path)
    with pytest.raises(RestartError) as e:
        restart.load(str(path))
    assert str(e.value) == f"restart file {str(path)!r} is not a regular file (a restart file is an .npz archive " \
                           f"written by output.restart_dt)"


def test_a_device_is_refused():
    with pytest.raises(RestartError, match="^restart file '/dev/null' is not a regular file"):
        restart.load("/dev/null")


def test_a_member_larger_than_the_file_is_refused(tmp_path):
    """The zip directory and the array header agree on a 1 TiB member in a file of a few kB: a restart file
    stores its arrays as they are, so no member can be larger than the file."""
    good = restart.save(str(tmp_path / "good.npz"), ARRAYS, {"time": 0.5})
    path = tmp_path / "lie.npz"
    n = 2**40 // 8
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (n,)})
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            if info.filename != "density.npy":
                dst.writestr(info, src.read(info))
                continue
            lie = zipfile.ZipInfo(info.filename)
            dst.writestr(lie, header.getvalue() + bytes(64))
            lie.file_size = lie.compress_size = len(header.getvalue()) + 8 * n  # the directory says so too
    size = os.path.getsize(path)
    with pytest.raises(RestartError) as e:
        restart.load(str(path))
    assert str(e.value) == f"restart file {str(path)!r} is corrupt: its member 'density.npy' declares " \
                           f"{len(header.getvalue()) + 8 * n} bytes, but the file holds only {size}"

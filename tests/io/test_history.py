"""History files: a failed write leaves the file as it was before it (never part of a line), and
``read`` returns the rows or a ``HistoryError`` naming the file and the line."""

from __future__ import annotations

import errno
import os
import warnings

import numpy as np
import pytest

from brickwork.io import history
from brickwork.io.files import OutputError
from brickwork.io.history import History, HistoryError

COLUMNS = ["cycle", "time", "dt", "mass"]
HEADER = "# [1]=cycle  [2]=time  [3]=dt  [4]=mass\n"


class FullDisk:
    """A raw file whose next write stores ``room`` bytes of what it is given, then fails: a disk filling up."""

    def __init__(self, real, room: int):
        self.real, self.room = real, room

    def write(self, data) -> int:
        if self.room == 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = self.real.write(data[: self.room])
        self.room -= n
        return n

    def __getattr__(self, name):
        return getattr(self.real, name)


@pytest.mark.parametrize("room", [0, 5, 30])
def test_a_failed_write_leaves_the_file_as_it_was(tmp_path, room):
    """A full disk part-way through a line used to leave that part at the end of the file (no newline)."""
    path = tmp_path / "run.hst"
    h = History(str(path), COLUMNS)
    h.write([0, 0.0, 0.5, 1.0])
    before = path.read_bytes()
    real = h._file
    h._file = FullDisk(real, room)
    with pytest.raises(OutputError, match=f"^cannot write {str(path)!r}: no space left on device$"):
        h.write([1, 0.5, 0.25, 1.0])
    assert path.read_bytes() == before
    h._file = real  # room again: the next line follows the last whole one, with no gap
    h.write([2, 0.75, 0.25, 1.0])
    h.close()
    columns, rows = history.read(str(path))
    assert columns == COLUMNS
    np.testing.assert_array_equal(rows, [[0, 0.0, 0.5, 1.0], [2, 0.75, 0.25, 1.0]])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_pipe_in_place_of_the_file_is_refused_at_once(tmp_path):
    """Opening a pipe for writing would wait for a reader for ever."""
    path = tmp_path / "run.hst"
    os.mkfifo(path)
    with pytest.raises(OutputError, match=f"^cannot write {str(path)!r}: it is not a regular file \\(a device, pipe "
                                          f"or socket\\); move it away or set output.history = false$"):
        History(str(path), COLUMNS)


def test_read_returns_the_rows_as_written(tmp_path):
    path = tmp_path / "run.hst"
    h = History(str(path), COLUMNS)
    for row in ([0, 0.0, 0.1, 1.0 / 3.0], [1, 0.1, 0.1, 2.0 / 3.0]):
        h.write(row)
    h.close()
    columns, rows = history.read(str(path))
    assert columns == COLUMNS
    np.testing.assert_array_equal(rows, [[0, 0.0, 0.1, 1.0 / 3.0], [1, 0.1, 0.1, 2.0 / 3.0]])  # bit for bit


def test_a_file_with_a_header_only_has_no_rows_of_its_columns(tmp_path):
    """It used to give a numpy warning and rows of shape (0, 1)."""
    path = tmp_path / "run.hst"
    path.write_text(HEADER)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        columns, rows = history.read(str(path))
    assert columns == COLUMNS and rows.shape == (0, 4) and rows.dtype == np.float64


@pytest.mark.parametrize("content, message", [
    (b"", "it must start with a header naming the columns ('# [1]=cycle  [2]=time ...'), but the file is empty"),
    (b"# cycle time dt\n0 0 0\n", "it must start with a header naming the columns ('# [1]=cycle  [2]=time ...'), "
                                  "but line 1 is '# cycle time dt'"),
    (b"0 0.0 0.1 1.0\n", "it must start with a header naming the columns ('# [1]=cycle  [2]=time ...'), but line 1 "
                         "is '0 0.0 0.1 1.0'"),
    (b"# [1]=cycle  [3]=time\n", "it must start with a header naming the columns ('# [1]=cycle  [2]=time ...'), but "
                                 "line 1 is '# [1]=cycle  [3]=time'"),
    (HEADER.encode() + b"0 0.0 0.1 1.0\na b c d\n", "line 3 is not a row of 4 numbers ('a b c d')"),
    (HEADER.encode() + b"0 0.0 0.1\n", "line 2 is not a row of 4 numbers ('0 0.0 0.1')"),
    (HEADER.encode() + b"0 0.0 0.1 nan\n", "line 2 is not a row of 4 numbers ('0 0.0 0.1 nan')"),
    (HEADER.encode() + b"# t\xe9\n", "line 2 is not UTF-8 text (byte 0xe9)"),
], ids=["empty", "no-names", "no-header", "numbering", "words", "short", "nan", "latin-1"])
def test_a_file_that_is_not_a_history_file(tmp_path, content, message):
    """Each used to raise a raw IndexError, ValueError or UnicodeDecodeError."""
    path = tmp_path / "run.hst"
    path.write_bytes(content)
    with pytest.raises(HistoryError) as e:
        history.read(str(path))
    assert str(e.value) == f"{str(path)!r} is not a history file: {message}"
    assert isinstance(e.value, ValueError)


def test_a_file_that_cannot_be_read(tmp_path):
    with pytest.raises(HistoryError, match=f"^cannot read the history file {str(tmp_path / 'gone.hst')!r}: no such "
                                           f"file or directory$"):
        history.read(str(tmp_path / "gone.hst"))
    with pytest.raises(HistoryError, match=f"^cannot read the history file {str(tmp_path)!r}: is a directory$"):
        history.read(str(tmp_path))


def _history_with_rows(path, cycles) -> bytes:
    h = History(str(path), COLUMNS)
    for c in cycles:
        h.write([c, 0.25 * c, 0.25, 1.0])
    h.close()
    return path.read_bytes()


def test_a_restart_keeps_the_lines_up_to_its_cycle_and_the_file_mode(tmp_path):
    path = tmp_path / "run.hst"
    _history_with_rows(path, [0, 1, 2, 3])
    os.chmod(path, 0o640)
    h = History(str(path), COLUMNS, restart_cycle=1)
    h.write([2, 0.6, 0.1, 1.0])
    h.close()
    columns, rows = history.read(str(path))
    np.testing.assert_array_equal(rows[:, 0], [0, 1, 2])
    assert rows[2, 1] == 0.6 and os.stat(path).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.hst"]  # no temporary file left


@pytest.mark.parametrize("room", [0, 20])
def test_a_failed_rewrite_after_a_restart_leaves_the_history_as_it_was(tmp_path, monkeypatch, room):
    """The restart's rewrite used to truncate the file first: a full disk then lost the whole history."""
    path = tmp_path / "run.hst"
    before = _history_with_rows(path, [0, 1, 2, 3])
    real_write = os.write

    def full_disk(fd, data):
        nonlocal room
        if room == 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = real_write(fd, bytes(data[:room]))
        room -= n
        return n

    monkeypatch.setattr(history.os, "write", full_disk)
    with pytest.raises(OutputError, match=f"^cannot write {str(path)!r}: no space left on device$"):
        History(str(path), COLUMNS, restart_cycle=1)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.hst"]

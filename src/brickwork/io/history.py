"""History files: one line of numbers per step (cycle, time, dt and conserved totals), with a
commented header naming the columns; appending after a restart drops lines past the restart (the
file is replaced whole, so a failed rewrite leaves it as it was). The file is never written through a
symbolic link, and never ends in part of a line: a failed write cuts it back. ``read`` returns the
columns and rows, or ``HistoryError`` naming the line."""

from __future__ import annotations

import errno
import math
import os
import re
import stat

from ..errors import BrickworkError
from .files import OutputError, discard, output_error, reason, temporary_name


class HistoryError(BrickworkError, ValueError):
    """A file that ``read`` cannot take as a history file (the message names the file and the line)."""


class History:
    """``History(path, columns)``: ``write(values)`` appends one line, straight to the file. A failed
    write (a full disk) raises ``OutputError`` naming the file and cuts the file back to what it held
    before, so it never ends in part of a line. After a restart (``restart_cycle``) the lines of the
    existing file up to that cycle are kept (written to a new file that then replaces it, with its
    permissions: a failed rewrite changes nothing); a file that is not a history file of these columns (a
    line that is not a row of numbers, a directory, a pipe) or a symbolic link is refused with
    ``OutputError`` before anything is written."""

    def __init__(self, path: str, columns: list[str], restart_cycle: int | None = None):
        self.path = path
        self.columns = list(columns)
        _check_target(path)
        kept = _lines_up_to(path, restart_cycle, self.columns) if restart_cycle is not None else []
        self._file = None
        self._size = 0  # bytes of whole lines in the file
        try:
            if restart_cycle is not None and os.path.lexists(path):
                # the kept lines go to a new file that replaces the old one whole: a failed write (a full
                # disk) leaves the history as it was, not cut back to nothing
                self._size = _replace(path, (_header(self.columns) + "".join(kept)).encode())
                mode = "ab"
            else:
                mode = "wb"
            # unbuffered: a line is in the file or, after a failed write, cut off again (never half kept)
            self._file = open(path, mode, buffering=0, opener=_no_follow)
            if mode == "wb":
                self._append(_header(self.columns))
        except OSError as e:
            if self._file is not None:
                self._cut_back()
            self.abort()
            if e.errno == errno.ELOOP:  # a link made since the check
                raise _link_error(path) from None
            raise output_error(e, path) from None

    def write(self, values) -> None:
        if len(values) != len(self.columns):
            raise ValueError(f"history: {len(values)} values for {len(self.columns)} columns")
        line = " ".join(f"{v:d}" if isinstance(v, int) else f"{v:.17e}" for v in values) + "\n"
        try:
            self._append(line)
        except OSError as e:
            self._cut_back()
            raise output_error(e, self.path) from None

    def _append(self, text: str) -> None:
        data = text.encode()
        _write_all(self._file.write, data)
        self._size += len(data)

    def _cut_back(self) -> None:
        """Truncate the file to its whole lines (a failed write may have left part of one)."""
        try:
            self._file.truncate(self._size)
            self._file.seek(self._size)
        except OSError:  # nothing more to do: the write's own error is reported
            pass

    def close(self) -> None:
        """Close the file (``OutputError`` if that fails)."""
        if self._file is None:
            return
        f, self._file = self._file, None
        try:
            f.close()
        except OSError as e:
            raise output_error(e, self.path) from None

    def abort(self) -> None:
        """Close the file after a failure, ignoring errors."""
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None


def _replace(path: str, data: bytes) -> int:
    """Replace the file ``path`` by one holding ``data`` (same permissions), written to a temporary file
    beside it first; on failure the temporary file is removed and ``path`` is unchanged. Returns the size."""
    folder, name = os.path.split(path)
    made: list[str] = []  # the temporary file's name, recorded before it is made (temporary_name)
    try:
        temporary = temporary_name(os.path.join(folder, f".{name}"), ".tmp", made)
        fd = os.open(temporary, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            os.fchmod(fd, stat.S_IMODE(os.lstat(path).st_mode))
            _write_all(lambda view: os.write(fd, view), data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)  # replaces a link made since the check, never writes through it
    except BaseException:
        discard(*made)
        raise
    return len(data)


def _write_all(write, data: bytes) -> None:
    """All of ``data`` through ``write`` (a raw file's write, or ``os.write`` of a descriptor), which may
    write part of what it is given."""
    view = memoryview(data)
    while view:
        n = write(view)
        if not n:  # nothing written and no error: give up rather than try for ever
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        view = view[n:]


def _header(columns: list[str]) -> str:
    return "# " + "  ".join(f"[{n + 1}]={c}" for n, c in enumerate(columns)) + "\n"


def _no_follow(path: str, flags: int) -> int:
    """``open``'s opener: never through a symbolic link (so a link cannot send the lines elsewhere), and
    never waiting (a pipe planted as the file fails at once instead of waiting for a reader)."""
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), 0o666)


def _link_error(path: str) -> OutputError:
    return OutputError(f"cannot write {path!r}: it is a symbolic link, and history files are not written through "
                       f"links (remove it, or choose another output.dir)", path)


def _check_target(path: str) -> None:
    """``OutputError`` when ``path`` is a symbolic link, or a pipe, device or socket (a directory is
    reported by the write, as for any output)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return  # nothing there (or not reachable: the open says why)
    if stat.S_ISLNK(mode):
        raise _link_error(path)
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise OutputError(f"cannot write {path!r}: it is not a regular file (a device, pipe or socket); move it "
                          f"away or set output.history = false", path)


def _lines_up_to(path: str, cycle: int, columns: list[str]) -> list[str]:
    """The lines of the history file ``path`` (if any) up to ``cycle``; ``OutputError`` when it is not
    a history file of these ``columns`` (a header naming others, rows of another length), since rewriting it
    would lose what it holds."""
    if os.path.isdir(path):
        raise OutputError(f"cannot write {path!r}: is a directory", path, errno.EISDIR)  # as a new run says
    kept: list[str] = []
    ncolumns = len(columns)
    try:
        with open(path, encoding="utf-8", opener=_no_follow) as f:
            for number, line in enumerate(f, 1):
                if number == 1:
                    _check_header(path, line, columns)
                if _skipped(line):
                    continue
                row = _row(line, ncolumns)
                if row is None and not line.endswith("\n"):
                    break  # the end of a write cut short (by a crash): part of a line, dropped
                if row is None:
                    raise OutputError(f"cannot continue the history file {path!r} after the restart: line {number} "
                                      f"is not a row of {ncolumns} numbers ({line.strip()[:40]!r}); move the file "
                                      f"away or set output.history = false", path)
                if row[0] <= cycle:
                    kept.append(line if line.endswith("\n") else line + "\n")
    except FileNotFoundError:
        return []
    except UnicodeDecodeError:
        raise OutputError(f"cannot continue the history file {path!r} after the restart: it is not a text file; "
                          f"move it away or set output.history = false", path) from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise _link_error(path) from None
        raise OutputError(f"cannot read {path!r}: {reason(e)}", path, e.errno) from None
    return kept


def _check_header(path: str, line: str, columns: list[str]) -> None:
    """``OutputError`` when the header ``line`` names other columns than ``columns`` (a problem's ``HISTORY``
    or the passive scalars changed since the run that wrote it); a line that is no header is left to the rows'
    check."""
    try:
        found = _columns(path, line.rstrip("\n"))
    except HistoryError:
        return
    if found != list(columns):
        added = [c for c in columns if c not in found]
        removed = [c for c in found if c not in columns]
        change = "; ".join(part for part in (f"this run adds {', '.join(added)}" if added else "",
                                             f"drops {', '.join(removed)}" if removed else "") if part)
        raise OutputError(f"cannot continue the history file {path!r} after the restart: its columns are "
                          f"{' '.join(found)}, but this run writes {' '.join(columns)} "
                          f"({change or 'in another order'}); move the file away or set output.history = false", path)


def _skipped(line: str) -> bool:
    """Whether ``line`` is a comment or blank (no row)."""
    return line.startswith("#") or not line.strip()


def _row(line: str, ncolumns: int) -> list[float] | None:
    """The values of a row of ``ncolumns`` numbers (every one finite, the first a cycle), else None."""
    try:
        values = [float(field) for field in line.split()]
    except ValueError:
        return None
    if len(values) != ncolumns or not all(math.isfinite(v) for v in values):
        return None
    if values[0] < 0 or values[0] != int(values[0]):
        return None
    return values


#: the header of a history file: ``# [1]=cycle  [2]=time ...``
_COLUMN = re.compile(r"\[(\d+)\]=(\S+)")


def read(path: str):
    """``(columns, rows)`` of a history file: the column names and a float array of shape ``(lines,
    columns)``. ``HistoryError`` naming the file and the line for a file that cannot be read or is not
    a history file (no header naming the columns, a line that is not a row of that many numbers, not
    UTF-8 text)."""
    import numpy as np

    try:
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
    except OSError as e:
        raise HistoryError(f"cannot read the history file {path!r}: {reason(e)}") from None
    if lines[-1] == b"":
        lines.pop()  # after the last newline
    text = [_decode(path, number, line) for number, line in enumerate(lines, 1)]
    columns = _columns(path, text[0] if text else "")
    rows = []
    for number, line in enumerate(text[1:], 2):
        if _skipped(line):
            continue
        row = _row(line, len(columns))
        if row is None:
            raise HistoryError(f"{path!r} is not a history file: line {number} is not a row of {len(columns)} "
                               f"numbers ({line.strip()[:40]!r})")
        rows.append(row)
    return columns, np.array(rows, dtype=np.float64).reshape(len(rows), len(columns))


def _decode(path: str, number: int, line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise HistoryError(f"{path!r} is not a history file: line {number} is not UTF-8 text (byte "
                           f"0x{line[e.start]:02x})") from None


def _columns(path: str, header: str) -> list[str]:
    """The column names of the header line ``header``: ``# [1]=cycle  [2]=time ...``."""
    items = header[1:].split() if header.startswith("#") else []
    matches = [_COLUMN.fullmatch(item) for item in items]
    if not items or not all(matches) or [int(m[1]) for m in matches] != list(range(1, len(items) + 1)):
        what = "the file is empty" if not header else f"line 1 is {header.strip()[:60]!r}"
        raise HistoryError(f"{path!r} is not a history file: it must start with a header naming the columns "
                           f"('# [1]=cycle  [2]=time ...'), but {what}")
    return [m[2] for m in matches]

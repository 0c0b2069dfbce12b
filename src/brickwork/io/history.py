"""History files: one line of numbers per step (cycle, time, dt and conserved totals), with a
commented header naming the columns; appending after a restart drops lines past the restart.
The file is never written through a symbolic link."""

from __future__ import annotations

import errno
import math
import os

from .files import OutputError, output_error, reason


class History:
    """``History(path, columns)``: ``write(values)`` appends one line (flushed). A failed write (a
    full disk) raises ``OutputError`` naming the file. After a restart (``restart_cycle``) the lines
    of the existing file up to that cycle are kept; a file that is not a history file (a line that
    is not numbers, a directory) or a symbolic link is refused with ``OutputError`` before anything
    is written."""

    def __init__(self, path: str, columns: list[str], restart_cycle: int | None = None):
        self.path = path
        self.columns = list(columns)
        _refuse_link(path)
        kept = _lines_up_to(path, restart_cycle) if restart_cycle is not None else []
        self._file = None
        try:
            self._file = open(path, "w", opener=_no_follow)
            self._file.write("# " + "  ".join(f"[{n + 1}]={c}" for n, c in enumerate(self.columns)) + "\n")
            self._file.writelines(kept)
            self._file.flush()
        except OSError as e:
            self.abort()
            if e.errno == errno.ELOOP:  # a link made since the check
                raise _link_error(path) from None
            raise output_error(e, path) from None

    def write(self, values) -> None:
        if len(values) != len(self.columns):
            raise ValueError(f"history: {len(values)} values for {len(self.columns)} columns")
        try:
            self._file.write(" ".join(f"{v:d}" if isinstance(v, int) else f"{v:.17e}" for v in values) + "\n")
            self._file.flush()
        except OSError as e:
            raise output_error(e, self.path) from None

    def close(self) -> None:
        """Close the file; a failure to write its last buffered line raises ``OutputError``."""
        if self._file is None:
            return
        f, self._file = self._file, None
        try:
            f.close()
        except OSError as e:
            raise output_error(e, self.path) from None

    def abort(self) -> None:
        """Close the file after a failure, ignoring errors (its last line may be lost)."""
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None


def _no_follow(path: str, flags: int) -> int:
    """``open``'s opener: never through a symbolic link (so a link cannot send the lines elsewhere)."""
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o666)


def _link_error(path: str) -> OutputError:
    return OutputError(f"cannot write {path!r}: it is a symbolic link, and history files are not written through "
                       f"links (remove it, or choose another output.dir)", path)


def _refuse_link(path: str) -> None:
    if os.path.islink(path):
        raise _link_error(path)


def _lines_up_to(path: str, cycle: int) -> list[str]:
    """The lines of the history file ``path`` (if any) up to ``cycle``; ``OutputError`` when it is not
    a history file, since rewriting it would lose what it holds."""
    if os.path.isdir(path):
        raise OutputError(f"cannot write {path!r}: is a directory", path, errno.EISDIR)  # as a new run says
    kept: list[str] = []
    try:
        with open(path, encoding="utf-8", opener=_no_follow) as f:
            for number, line in enumerate(f, 1):
                if line.startswith("#") or not line.strip():
                    continue
                first = _history_row(line)
                if first is None:
                    raise OutputError(f"cannot continue the history file {path!r} after the restart: line {number} "
                                      f"is not a row of numbers ({line.strip()[:40]!r}); move the file away or set "
                                      f"output.history = false", path)
                if first <= cycle:
                    kept.append(line)
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


def _history_row(line: str) -> float | None:
    """The cycle of a line of numbers (every field a finite number, the first a cycle), else None."""
    try:
        values = [float(field) for field in line.split()]
    except ValueError:
        return None
    if not all(math.isfinite(v) for v in values) or values[0] < 0 or values[0] != int(values[0]):
        return None
    return values[0]


def read(path: str):
    """``(columns, rows)`` of a history file (rows as a 2-D float array)."""
    import numpy as np

    with open(path) as f:
        header = f.readline()
    columns = [item.split("=", 1)[1] for item in header[1:].split()]
    rows = np.loadtxt(path, comments="#", ndmin=2)
    return columns, rows

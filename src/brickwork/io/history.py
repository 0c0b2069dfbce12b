"""History files: one line of numbers per step (cycle, time, dt and conserved totals), with a
commented header naming the columns; appending after a restart drops lines past the restart."""

from __future__ import annotations

import os

from .files import output_error


class History:
    """``History(path, columns)``: ``write(values)`` appends one line (flushed). A failed write (a
    full disk) raises ``OutputError`` naming the file."""

    def __init__(self, path: str, columns: list[str], restart_cycle: int | None = None):
        self.path = path
        self.columns = list(columns)
        kept: list[str] = []
        if restart_cycle is not None and os.path.exists(path):
            with open(path) as f:
                for line in f:
                    if line.startswith("#"):
                        continue
                    fields = line.split()
                    if fields and int(float(fields[0])) <= restart_cycle:
                        kept.append(line)
        self._file = None
        try:
            self._file = open(path, "w")
            self._file.write("# " + "  ".join(f"[{n + 1}]={c}" for n, c in enumerate(self.columns)) + "\n")
            self._file.writelines(kept)
            self._file.flush()
        except OSError as e:
            self.abort()
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


def read(path: str):
    """``(columns, rows)`` of a history file (rows as a 2-D float array)."""
    import numpy as np

    with open(path) as f:
        header = f.readline()
    columns = [item.split("=", 1)[1] for item in header[1:].split()]
    rows = np.loadtxt(path, comments="#", ndmin=2)
    return columns, rows

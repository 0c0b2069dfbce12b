"""History files: one line of numbers per step (cycle, time, dt and conserved totals), with a
commented header naming the columns; appending after a restart drops lines past the restart."""

from __future__ import annotations

import os


class History:
    """``History(path, columns)``: ``write(values)`` appends one line (flushed)."""

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
        self._file = open(path, "w")
        self._file.write("# " + "  ".join(f"[{n + 1}]={c}" for n, c in enumerate(self.columns)) + "\n")
        self._file.writelines(kept)
        self._file.flush()

    def write(self, values) -> None:
        if len(values) != len(self.columns):
            raise ValueError(f"history: {len(values)} values for {len(self.columns)} columns")
        self._file.write(" ".join(f"{v:d}" if isinstance(v, int) else f"{v:.17e}" for v in values) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def read(path: str):
    """``(columns, rows)`` of a history file (rows as a 2-D float array)."""
    import numpy as np

    with open(path) as f:
        header = f.readline()
    columns = [item.split("=", 1)[1] for item in header[1:].split()]
    rows = np.loadtxt(path, comments="#", ndmin=2)
    return columns, rows

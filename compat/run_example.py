"""Run one of Warp's examples as ``__main__`` and write a digest of its final arrays as JSON.

Usage: python run_example.py EXAMPLE.py OUT.json [ARG ...]

The same script runs under Warp (the reference, compat/make_example_references.py) and under brickwork
(compat/run_examples.py, with ``warp`` aliased to brickwork): it imports only ``warp`` and numpy. The
digest covers the ``wp.array`` attributes of the example's ``example`` object after its ``__main__`` ran
(the module's own ``wp.array`` globals when it has none), and their gradients: per array the shape and
the float64 norm and sum of its finite values.
"""

from __future__ import annotations

import io
import json
import os
import re
import runpy
import sys
import time
import traceback

import numpy as np


def digest(value) -> dict | None:
    """Shape, norm and sum of a ``wp.array`` (None for arrays of structs, which have no single norm)."""
    data = value.numpy()
    if data.dtype.fields is not None:
        return None
    data = np.asarray(data, dtype=np.float64)
    finite = np.where(np.isfinite(data), data, 0.0)
    return {"shape": list(data.shape), "norm": float(np.linalg.norm(finite.ravel())), "sum": float(finite.sum()),
            "nonfinite": int(data.size - np.isfinite(data).sum())}


def final_arrays(namespace: dict) -> dict:
    import warp as wp

    state = os.environ.get("COMPAT_EXAMPLE_STATE", "example")
    source = vars(namespace[state]) if state in namespace else namespace
    digests = {}
    for name, value in sorted(source.items()):
        if not isinstance(value, wp.array) or name.startswith("__"):
            continue
        entry = digest(value)
        if entry is not None:
            digests[name] = entry
        grad = getattr(value, "grad", None) if getattr(value, "requires_grad", False) else None
        if grad is not None and (entry := digest(grad)) is not None:
            digests[name + ".grad"] = entry
    return digests


class LineRecorder(io.TextIOBase):
    """Passes what is printed through to ``stream`` and keeps the whole lines that match ``pattern``."""

    def __init__(self, stream, pattern: str):
        self.stream, self.pattern, self.pending, self.lines = stream, re.compile(pattern), "", []

    def write(self, text: str) -> int:
        self.stream.write(text)
        self.pending += text
        *done, self.pending = self.pending.split("\n")
        self.lines += [line for line in done if self.pattern.search(line)]
        return len(text)

    def flush(self):
        self.stream.flush()


def main(argv: list[str]) -> int:
    path, out, args = argv[0], argv[1], argv[2:]
    sys.argv = [path, *args]
    sys.path.insert(0, str(__import__("pathlib").Path(path).parent))
    start = time.perf_counter()
    result = {"args": args}
    if os.environ.get("COMPAT_EXAMPLE_LINES"):
        sys.stdout = recorder = LineRecorder(sys.stdout, os.environ["COMPAT_EXAMPLE_LINES"])
    try:
        namespace = runpy.run_path(path, run_name="__main__")
        result["seconds"] = time.perf_counter() - start
        result["arrays"] = final_arrays(namespace)
        if isinstance(sys.stdout, LineRecorder):
            result["lines"] = recorder.lines
    except SystemExit as e:  # an example that exits on its own (on the CPU: it needs CUDA)
        result["error"] = f"SystemExit({e.code})"
    except BaseException as e:  # noqa: BLE001 - every failure of the example is the result
        lines = traceback.format_exception(e)
        result["error"] = "".join(lines[-1:]).strip()
        result["traceback"] = "".join(lines[-12:])
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    return 0 if "arrays" in result else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""benchmarks/bench_numpy_views.py: one small run (brickwork alone; no Warp in the test environment) prints a
row per brickwork form and the load."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_numpy_views  # noqa: E402


def test_a_small_run_prints_a_row_per_form(capsys):
    assert bench_numpy_views.main(["--calls", "10", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^\| (brickwork [^|]+) \| ([0-9.]+) \|$", out, re.M)
    assert len(rows) == 4 and all(float(t) > 0 for _, t in rows), out
    assert "Warp" not in out
    assert re.search(r"^load [0-9.]+ -> [0-9.]+$", out, re.M)

"""benchmarks/bench_constant_loops.py: one small run prints a row per component count, with the three forms'
times and their ratios (the forms' values are checked equal by the script itself)."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_constant_loops  # noqa: E402


def test_a_small_run_prints_a_row_per_count(capsys):
    assert bench_constant_loops.main(["--counts", "3", "17", "--points", "64", "--launches", "1", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    for count in (3, 17):
        row = re.search(rf"^\| {count} \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|$", out, re.M)
        assert row and all(float(v) > 0 for v in row.groups()), out
    assert re.search(r"^load [0-9.]+ -> [0-9.]+$", out, re.M)

"""benchmarks/bvh_build.py: the table of one small run (brickwork alone; no Warp in the test environment)."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bvh_build  # noqa: E402


def test_a_small_run_prints_brickworks_medians_and_no_warp_column(capsys):
    assert bvh_build.main(["--n", "3000", "--reps", "2", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    rows = dict(re.findall(r"\| (rebuild|refit) \| ([0-9.]+) \| - \| - \|", out))
    assert set(rows) == {"rebuild", "refit"} and all(float(v) > 0 for v in rows.values())
    assert "3000 boxes" in out and "2 interleaved rounds" in out and "load average" in out

"""benchmarks/bvh_sah.py: the table of one small run (brickwork alone; no Warp in the test environment)."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bvh_sah  # noqa: E402


def test_a_small_run_prints_sah_and_median_times_and_the_same_hits_for_both(capsys):
    assert bvh_sah.main(["--n", "3000", "--tris", "2000", "--rays", "500", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"\| ([^|]+) \| ([0-9.]+) \| ([0-9.]+) \| - \| - \|", out)
    assert [label for label, _, _ in rows] == ["`Bvh.rebuild`, 3000 boxes", "`Mesh(...)`, 2000 triangles",
                                               "500 `mesh_query_ray`"]
    assert all(float(a) > 0 and float(b) > 0 for _, a, b in rows)
    hits = re.search(r"rays that hit: brickwork (\d+) \(SAH\), (\d+) \(median\)", out)
    assert hits and hits[1] == hits[2] and 150 < int(hits[1]) < 400  # about half: those going up escape

"""benchmarks/bench_mesh_closest.py: the table of one small run (brickwork alone; no Warp in the test environment)."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_mesh_closest  # noqa: E402


def test_a_small_run_prints_brickworks_time_and_the_largest_distance(capsys):
    assert bench_mesh_closest.main(["--level", "2", "--points", "2000", "--rounds", "1", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    row = re.search(r"\| mesh_query_point_no_sign, 2000 points, 320 triangles \| ([0-9.]+) \| - \| - \|", out)
    assert row and float(row[1]) > 0
    # a point of the cube [-1.5, 1.5]^3 is within sqrt(3) 1.5 of the centre, the faces of the 320-triangle icosphere
    # within 0.03 inside the unit sphere; the points near the centre are about 1 from it
    largest = float(re.search(r"largest distance: ([0-9.]+)", out)[1])
    assert 1.0 < largest < 3 ** 0.5 * 1.5 - 1 + 0.03

"""benchmarks/bench_mesh_build.py: the table of one small run (brickwork alone; no Warp in the test environment),
and the median over rounds."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_mesh_build  # noqa: E402
import child_script  # noqa: E402  (the medians over rounds: its median_of_rounds)


def test_a_small_run_prints_each_constructors_build_refit_and_query_times_and_the_distances(capsys):
    argv = ["--tris", "100", "--points", "200", "--reps", "1", "--rounds", "1", "--constructors", "default", "lbvh"]
    assert bench_mesh_build.main(argv) == 0
    out = capsys.readouterr().out
    sums = []
    for constructor in ("default", "lbvh"):  # a torus of 2 * 5 * 10 triangles
        times = r"([0-9.]+) / - \| - \| "
        row = re.search(rf"\| 100 \| {constructor} \| {times * 3}([0-9.]+) \|", out)
        assert row and float(row[1]) > 0 and float(row[2]) > 0 and float(row[3]) > 0, constructor
        sums.append(float(row[4]))
    # the same closest points whatever the tree: 200 points in [-1.5, 1.5]^3 lie within 1.5 of the torus
    assert sums[0] == sums[1] and 0 < sums[0] < 200 * 1.5


def test_the_rounds_median_takes_each_number():
    rounds = [{"build 1 sah": 1.0}, {"build 1 sah": 3.0}, {"build 1 sah": 2.5}]
    assert child_script.median_of_rounds(rounds) == {"build 1 sah": 2.5}
    assert child_script.median_of_rounds([rounds[0], None]) is None

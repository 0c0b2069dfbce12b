"""benchmarks/bench_winding.py: the table of one small run of two rounds (brickwork alone; no Warp in the test
environment), and the median over rounds."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_winding  # noqa: E402
import child_script  # noqa: E402  (the medians over rounds: its median_of_rounds)


def test_a_small_run_prints_each_steps_time_and_the_inside_count(capsys):
    assert bench_winding.main(["--levels", "1", "--points", "500", "--reps", "1", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    for step in ("build", "refit", "500 queries"):
        row = re.search(rf"\| {step}, 80 triangles \| ([0-9.]+) \| - \| - \|", out)
        assert row and float(row[1]) > 0, step
    # the 80-triangle icosphere holds about its volume's share of the cube [-1.5, 1.5]^3 (about 4.2 / 27 < 0.16)
    inside = int(re.search(r"per mesh: (\d+)", out)[1])
    assert 0.08 * 500 < inside < 0.16 * 500


def test_the_rounds_median_takes_each_time_and_keeps_the_counts():
    rounds = [{"build 3": 1.0, "tris 3": 1280}, {"build 3": 3.0, "tris 3": 1280}, {"build 3": 2.5, "tris 3": 1280}]
    assert child_script.median_of_rounds(rounds) == {"build 3": 2.5, "tris 3": 1280}
    assert child_script.median_of_rounds([rounds[0], None]) is None
    assert child_script.median_of_rounds([]) is None

"""benchmarks/bench_reduction_gradients.py: a small run checks that numpy, the 4-D kernel and the CPU's form give the
same gradient bits for every case, then prints a row per case with the three times, their ratio and the rule."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_reduction_gradients  # noqa: E402


def test_a_small_run_prints_every_case_with_its_ratio_and_rule(capsys):
    assert bench_reduction_gradients.main(["--scale", "0.001", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"\| ([^|]+?) \| (\d+) \| ([0-9.]+) \[[^]]*\] \| ([0-9.]+) \[[^]]*\] \| ([0-9.]+) \[[^]]*\] \| "
                      r"([0-9.]+) \| (numpy|kernel) \|", out)
    assert len(rows) == len(bench_reduction_gradients.CASES)
    assert all(float(ratio) > 0 for *_, ratio, _ in rows)
    assert {rule for *_, rule in rows} == {"numpy"}  # a thousandth of each size is below the kernel's threshold

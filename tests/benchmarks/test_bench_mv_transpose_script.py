"""benchmarks/bench_mv_transpose.py: a small run checks the fixed-order and the atomic transposed products against
numpy and each other, then prints a row per matrix and thread count with both times and their ratio."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_mv_transpose  # noqa: E402


def test_a_small_run_prints_both_products_and_their_ratio(capsys):
    assert bench_mv_transpose.main(["--sizes", "4", "--threads", "1,2", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"\| (csr|bsr3|random) 4\^3 \| (\d) \| ([0-9.]+) \[[^]]*\] \| ([0-9.]+) \[[^]]*\] \| ([0-9.]+) \|",
                      out)
    assert {(kind, threads) for kind, threads, *_ in rows} == {(k, t) for k in ("csr", "bsr3", "random")
                                                                for t in ("1", "2")}
    assert all(float(fixed) > 0 and float(atomic) > 0 and float(ratio) > 0 for *_, fixed, atomic, ratio in rows)

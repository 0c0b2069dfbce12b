"""benchmarks/bench_sparse.py: one small run (brickwork and the hand-written C++, no Warp) prints a row per
operation with both times and their ratio; the script checks both products against numpy and the C assembly's
layout against numpy's sort before timing."""

import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_sparse  # noqa: E402


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ for the C++ reference")
def test_a_small_run_prints_every_operation_beside_c(capsys):
    assert bench_sparse.main(["--sizes", "6", "--dtypes", "float64", "--threads", "1", "--reps", "1",
                              "--no-warp"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"\| (csr|bsr3) 6\^3 f64 \| (\w+) \| 1 \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|", out)
    assert {(kind, op) for kind, op, *_ in rows} == {("csr", op) for op in bench_sparse.OPS} | {
        ("bsr3", "mv"), ("bsr3", "triplets")}
    assert all(float(a) > 0 and float(c) > 0 for *_, a, c, _ in rows)


def test_the_stencil_is_the_7_point_laplacian():
    rows, cols, vals = bench_sparse.stencil(3, 1, np.float64)
    dense = np.zeros((27, 27))
    np.add.at(dense, (rows, cols), vals)
    assert np.array_equal(dense, dense.T) and (np.diag(dense) == 6.0).all()
    assert (dense.sum(axis=1)[13] == 0.0) and rows.size == 27 + 6 * 18  # the centre cell has all 6 neighbours

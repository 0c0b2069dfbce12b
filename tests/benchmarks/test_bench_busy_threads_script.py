"""benchmarks/bench_busy_threads.py: its stencil against numpy, and the table of a short run of one round."""

import re
import sys
from pathlib import Path

import numpy as np

import brickwork as wp

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_busy_threads  # noqa: E402


def test_the_stencil_is_a_jacobi_sweep_with_zero_outside():
    rng = np.random.default_rng(2)
    p, div = rng.random((7, 5), dtype=np.float32), rng.random((7, 5), dtype=np.float32)
    q = wp.zeros((7, 5), dtype=wp.float32)
    wp.launch(bench_busy_threads.jacobi, dim=(7, 5), inputs=[wp.array(p), q, wp.array(div)])
    padded = np.pad(p, 1)
    neighbours = padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:]
    np.testing.assert_allclose(q.numpy(), (neighbours - div) * np.float32(0.25), rtol=1e-6)


def test_a_short_run_prints_each_setting_and_grid_with_its_ratio_to_one_thread(capsys):
    assert bench_busy_threads.main(["--rounds", "1", "--seconds", "0.01"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"load before: \S+ \S+ \S+", out) and re.search(r"load after: \S+ \S+ \S+", out)
    for name in ("1 thread", "2 threads, guard off", "2 threads, guard on"):
        row = re.search(rf"^{name} +(.*)$", out, re.M)
        cells = re.findall(r"([0-9.]+) \( *([0-9.]+)x\)", row[1])
        assert len(cells) == len(bench_busy_threads.GRIDS) and all(float(us) > 0 for us, _ in cells), name
        if name == "1 thread":
            assert {ratio for _, ratio in cells} == {"1.00"}

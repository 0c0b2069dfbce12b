"""benchmarks/bench_tile_backward.py: its kernels against numpy, and the table of a short run."""

import re
import sys
from pathlib import Path

import numpy as np

import brickwork as wp

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_tile_backward  # noqa: E402


def test_the_kernels_are_a_stencil_in_two_buffers_and_numpys_fft():
    rng = np.random.default_rng(4)
    a = rng.random((2, 16), dtype=np.float32) * 0.5
    y = wp.zeros((2, 16), dtype=float)
    wp.launch_tiled(bench_tile_backward.ping_pong_kernel(16), dim=2, inputs=[wp.array(a), y], block_dim=1)
    expected = a.astype(np.float64)
    for _ in range(bench_tile_backward.STEPS):
        b = 0.5 * expected + 0.25 * np.roll(expected, -1, axis=1) * np.roll(expected, 1, axis=1)
        expected = np.sin(b) + np.roll(b, -3, axis=1)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5)
    z = rng.random((8, 8, 2), dtype=np.float32)
    out = wp.zeros((8, 8), dtype=wp.vec2f)
    wp.launch_tiled(bench_tile_backward.fft_kernel(8), dim=8, inputs=[wp.array(z, dtype=wp.vec2f), out], block_dim=1)
    got = out.numpy()
    np.testing.assert_allclose(got[..., 0] + 1j * got[..., 1], np.fft.fft(z[..., 0] + 1j * z[..., 1], axis=1),
                               atol=1e-5)


def test_a_short_run_prints_each_kernel_with_its_backward_to_forward_ratio(capsys):
    assert bench_tile_backward.main(["--reps", "1", "--n", "8", "--rows", "2", "--fft", "8"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"load before: \S+", out) and re.search(r"load after: \S+", out)
    for name in ("ping-pong 8", "tile_fft 8 x 8"):
        forward, backward, ratio = re.search(rf"^{name} +(\S+) +(\S+) +(\S+)$", out, re.M).groups()
        assert float(forward) >= 0 and float(backward) >= 0 and ratio

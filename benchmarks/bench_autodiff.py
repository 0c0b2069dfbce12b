"""Backward kernels against their forward kernels: the 7-point Laplacian and one hydro stage.

    python benchmarks/bench_autodiff.py [--reps 9] [--n 256] [--cells 4194304]

Rows (median of ``--reps`` interleaved calls after one warm-up of each):

* ``laplacian n^3 float32``: the 7-point Laplacian of a float32 ``n^3`` array (guarded interior),
  forward launch vs backward launch (``adjoint=True``, all gradients wanted);
* ``hydro stage (HLL + update) float64``: ``hll_flux`` and ``update`` of
  examples/optimize_initial_state.py on ``--cells`` cells, the two forward launches vs their two
  backward launches.

The ratio is backward / forward; the target is at most 3. The load average is printed before and
after: a table taken on a loaded machine is not a result.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine_load import load_average  # noqa: E402

import brickwork as wp  # noqa: E402


@wp.kernel
def laplacian(u: wp.array3d(dtype=float), out: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    if i > 0 and j > 0 and k > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1 and k < u.shape[2] - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1]
                        + u[i, j, k + 1] - 6.0 * u[i, j, k])


def _example():
    spec = importlib.util.spec_from_file_location("optimize_initial_state", ROOT / "examples" /
                                                  "optimize_initial_state.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def interleaved(forward, backward, reps: int) -> tuple[float, float]:
    forward()
    backward()
    f, b = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        forward()
        f.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        backward()
        b.append(time.perf_counter() - t0)
    return statistics.median(f), statistics.median(b)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=9)
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--cells", type=int, default=1 << 22)
    args = p.parse_args(argv)
    print(f"load average before: {load_average()}")
    rows = []

    n = args.n
    u = wp.array(np.random.default_rng(0).random((n, n, n), dtype=np.float32), requires_grad=True)
    out = wp.zeros((n, n, n), dtype=float, requires_grad=True)
    out.grad.fill_(1.0)
    rows.append((f"laplacian {n}^3 float32", *interleaved(
        lambda: wp.launch(laplacian, (n, n, n), inputs=[u, out]),
        lambda: wp.launch(laplacian, (n, n, n), inputs=[u, out], adj_inputs=[u.grad, out.grad], adjoint=True),
        args.reps)))

    ex = _example()
    m = args.cells
    x = (np.arange(m) + 0.5) / m
    state = np.stack([1.0 + 0.2 * np.sin(2 * np.pi * x), 0.1 * np.ones(m), 2.5 * np.ones(m)], axis=1)
    uh = wp.array(state, dtype=wp.vec3d, requires_grad=True)
    flux = wp.zeros(m, dtype=wp.vec3d, requires_grad=True)
    nxt = wp.zeros(m, dtype=wp.vec3d, requires_grad=True)
    nxt.grad.fill_(wp.vec3d(1.0, 1.0, 1.0))
    dt_dx = wp.float64(0.1)

    def forward():
        wp.launch(ex.hll_flux, m, inputs=[uh, flux])
        wp.launch(ex.update, m, inputs=[uh, flux, dt_dx, nxt])

    def backward():
        wp.launch(ex.update, m, inputs=[uh, flux, dt_dx, nxt], adj_inputs=[uh.grad, flux.grad, 0.0, nxt.grad],
                  adjoint=True)
        wp.launch(ex.hll_flux, m, inputs=[uh, flux], adj_inputs=[uh.grad, flux.grad], adjoint=True)

    rows.append((f"hydro stage (HLL + update) {m} cells float64", *interleaved(forward, backward, args.reps)))

    print(f"{'case':44s} {'forward ms':>11s} {'backward ms':>12s} {'ratio':>6s}")
    for name, f, b in rows:
        print(f"{name:44s} {1e3 * f:11.2f} {1e3 * b:12.2f} {b / f:6.2f}")
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()

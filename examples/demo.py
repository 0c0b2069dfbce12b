"""brickwork demo: a heat-diffusion stencil on a 2D grid, a generic kernel and a reduction.

Run with ``make demo`` or ``python examples/demo.py``. Prints what it computed and checks it
against numpy.
"""

import time
from typing import Any

import numpy as np

import brickwork as wp


@wp.kernel
def diffuse(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float), alpha: float):
    i, j = wp.tid()
    n = u.shape[0]
    m = u.shape[1]
    if i == 0 or j == 0 or i == n - 1 or j == m - 1:
        out[i, j] = u[i, j]
        return
    lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
    out[i, j] = u[i, j] + alpha * lap


@wp.kernel
def total(u: wp.array2d(dtype=Any), result: wp.array(dtype=Any)):
    i, j = wp.tid()
    result[0] += u[i, j]  # an atomic add


def main(n: int = 256, steps: int = 200) -> None:
    x = np.linspace(-1.0, 1.0, n, dtype=np.float32)
    start = np.exp(-20.0 * (x[:, None] ** 2 + x[None, :] ** 2)).astype(np.float32)
    a, b = wp.array(start, dtype=wp.float32), wp.zeros((n, n), dtype=wp.float32)
    t0 = time.perf_counter()
    for _ in range(steps):
        wp.launch(diffuse, dim=(n, n), inputs=[a, b, 0.2])
        a, b = b, a
    elapsed = time.perf_counter() - t0

    ref = start.copy()
    for _ in range(steps):
        nxt = ref.copy()
        nxt[1:-1, 1:-1] = ref[1:-1, 1:-1] + np.float32(0.2) * (
            ref[:-2, 1:-1] + ref[2:, 1:-1] + ref[1:-1, :-2] + ref[1:-1, 2:] - np.float32(4.0) * ref[1:-1, 1:-1])
        ref = nxt
    err = float(np.abs(a.numpy() - ref).max())

    s = wp.zeros(1, dtype=wp.float64)
    wp.launch(total, dim=(n, n), inputs=[wp.array(a.numpy().astype(np.float64), dtype=wp.float64), s])
    print(f"diffused a {n}x{n} float32 field for {steps} steps in {elapsed * 1e3:.1f} ms "
          f"(first step includes compiling or loading the kernel)")
    print(f"max |brickwork - numpy| = {err:.2e}; peak {a.numpy().max():.4f}; total heat {s.numpy()[0]:.4f}")
    if err != 0.0:  # same IEEE operations in the same order: bitwise equal
        raise SystemExit("demo result differs from numpy")


if __name__ == "__main__":
    main()

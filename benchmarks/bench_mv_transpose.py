"""The CPU's transposed sparse product in a fixed order (``bsr_mv(A, x, y, transpose=True)``,
sparse/mv_transpose_cpu.py) against the atomic product it replaced (the kernel a tape still records), side by side.

    python benchmarks/bench_mv_transpose.py [--sizes 32,64] [--threads 1,2] [--reps 20]

The matrices: the 7-point Laplacian of an ``n^3`` grid (CSR, and 3x3 blocks: ``bsr3``), whose row ranges reach
narrow spans of columns, and ``random``: as many blocks (7 a row) at random columns, the worst case, where every
range's span is every column. Both products are checked against numpy first, then timed interleaved
(``timing.measure_interleaved``) on each thread count of ``--threads`` with every launch parallel. The ratio is
the fixed order's time over the atomic one's (above 1.0: the fixed order costs more). The load average is printed
before and after: a loaded machine makes the ratios noisy.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import timing  # noqa: E402
from bench_sparse import stencil  # noqa: E402


def _matrix(wp, sp, kind: str, n: int, rng):
    block = 3 if kind == "bsr3" else 1
    rows, cols, vals = stencil(n, block, np.float64)
    if kind == "random":
        cols = rng.integers(0, n**3, rows.size).astype(np.int32)
    dtype = wp.float64 if block == 1 else wp.mat33d
    A = sp.bsr_from_triplets(n**3, n**3, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                             wp.array(vals, dtype=dtype))
    dense_t = None
    if n**3 <= 4096:  # the numpy check of small sizes
        dense_t = np.zeros((n**3 * block, n**3 * block))
        for r, c, v in zip(rows, cols, vals.reshape(-1, block, block)):
            dense_t[c * block:(c + 1) * block, r * block:(r + 1) * block] += v.T
    return A, block, dense_t


def _atomic(wp, A, x, y):
    """What ``bsr_mv(A, x, y, transpose=True)`` launched before: ``y`` zeroed, then one atomic add per block term."""
    from brickwork.sparse.matrix import counts_arg
    from brickwork.sparse.mv import _mv_transpose

    y.zero_()
    wp.launch(_mv_transpose, (A.nnz, A.block_shape[1]),
              inputs=[A.nrow, A.offsets, counts_arg(A), int(A.row_counts is not None), A.columns, A.scalar_values,
                      x, y, wp.float64(1.0)], device=A.device, record_tape=False)


def run(sizes, threads_list, reps: int) -> list[tuple]:
    import brickwork as wp
    import brickwork.sparse as sp
    from brickwork import config

    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        for kind in ("csr", "bsr3", "random"):
            A, block, dense_t = _matrix(wp, sp, kind, n, rng)
            x_np = rng.standard_normal(n**3 * block)
            x = wp.array(x_np, dtype=wp.float64)
            y_fixed, y_atomic = wp.zeros(n**3 * block, dtype=wp.float64), wp.zeros(n**3 * block, dtype=wp.float64)
            for threads in threads_list:
                with config.override(num_threads=threads, parallel_threshold=1):
                    fns = {"fixed": lambda A=A, x=x, y=y_fixed: sp.bsr_mv(A, x, y, transpose=True),
                           "atomic": lambda A=A, x=x, y=y_atomic: _atomic(wp, A, x, y)}
                    for fn in fns.values():
                        fn()
                    if dense_t is not None:
                        for y in (y_fixed, y_atomic):
                            np.testing.assert_allclose(y.numpy(), dense_t @ x_np, atol=1e-10)
                    np.testing.assert_allclose(y_fixed.numpy(), y_atomic.numpy(), rtol=1e-12, atol=1e-12)
                    times = timing.measure_interleaved(fns, reps)
                rows.append((kind, n, threads, times["fixed"], times["atomic"]))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="32,64")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    rows = run(sizes, threads, args.reps)
    print("| matrix | threads | fixed order ms | atomic ms | fixed / atomic |")
    print("|---|---|---|---|---|")
    for kind, n, t, fixed, atomic in rows:
        print(f"| {kind} {n}^3 | {t} | {fixed.ms()} | {atomic.ms()} | {fixed.median / atomic.median:.2f} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

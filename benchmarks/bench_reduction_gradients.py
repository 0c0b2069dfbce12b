"""The CPU's backward step of ``array_sum``/``array_inner`` under a tape (runtime/reduction_gradients.py): numpy's
(``_add_on_host``), ``device_reduce._spread``'s 4-D launch, and the CPU's forms of that kernel (``_spread_rows``,
``_spread_runs``; inner products of vectors keep the 4-D one), side by side.

    python benchmarks/bench_reduction_gradients.py [--scale 1.0] [--threads 1] [--reps 20]

Each case (a sum or an inner product of float32/float64 scalars or vec3 elements, whole, or along an axis; sizes
times ``--scale``) is checked first: the three give the same bits. Then they are timed interleaved
(``timing.measure_interleaved``) on ``--threads`` threads. ``kernel / numpy`` below 1.0: the CPU's form is faster;
``rule`` says which the backward step takes (``_kernel_on_cpu``). The load average is printed before and after: a
loaded machine makes the ratios noisy.
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

# (name, element shape, dtype name, axis, inner product)
CASES = [("f32 sum", (1_000_000,), "float32", None, False), ("f64 sum", (1_000_000,), "float64", None, False),
         ("f32 sum, axis 0", (1000, 1000), "float32", 0, False), ("vec3 sum", (300_000,), "vec3", None, False),
         ("f32 inner", (1_000_000,), "float32", None, True), ("vec3 inner", (300_000,), "vec3", None, True),
         ("vec3 inner, axis 0", (1000, 300), "vec3", 0, True), ("f32 inner", (65_536,), "float32", None, True)]


def _case(wp, shape, dtype_name, axis, inner_product, rng):
    """The inputs, the output (its gradient set) and the layout of one reduction's backward step."""
    from brickwork.runtime.device_reduce import layout

    dtype = getattr(wp, dtype_name)
    vector = dtype_name == "vec3"
    data = rng.uniform(-1.0, 1.0, shape + ((3,) if vector else ())).astype(np.float32 if dtype_name != "float64"
                                                                          else np.float64)
    a, b = (wp.array(x, dtype=dtype, requires_grad=True) for x in (data, 0.5 * data))
    inputs = [a, b] if inner_product else [a]
    out_dtype = (wp.float32 if vector else dtype) if inner_product else dtype
    out = wp.zeros((1,) if axis is None else shape[:axis] + (1,) + shape[axis + 1:], dtype=out_dtype,
                   requires_grad=True)
    grad = out.grad.numpy()
    out.grad.assign(rng.uniform(1.0, 2.0, grad.shape).astype(grad.dtype))
    return inputs, out, layout(shape, 3 if vector else 1, axis, None, inner_product)


def run(scale: float, threads: int, reps: int) -> list[tuple]:
    import brickwork as wp
    from brickwork import config
    from brickwork.runtime import reduction_gradients as rg

    rng = np.random.default_rng(0)
    rows = []
    for name, shape, dtype_name, axis, inner_product in CASES:
        shape = (max(1, int(shape[0] * scale)),) + shape[1:]
        inputs, out, lay = _case(wp, shape, dtype_name, axis, inner_product, rng)
        fns = {"numpy": lambda i=inputs, o=out, ax=axis: rg._add_on_host(i, o, None, ax),
               "4-D": lambda i=inputs, o=out, s=lay: rg._spread_by_kernel(i, o, s),
               "kernel": lambda i=inputs, o=out, s=lay: rg._spread_by_kernel(i, o, s, runs=True)}
        with config.override(num_threads=threads):
            bits = set()
            for fn in fns.values():
                for a in inputs:
                    a.grad.zero_()
                fn()
                bits.add(b"".join(a.grad.numpy().tobytes() for a in inputs))
            assert len(bits) == 1, f"{name}: the three give different gradients"
            times = timing.measure_interleaved(fns, reps)
        scalars = int(np.prod(shape)) * (3 if dtype_name == "vec3" else 1)
        rule = "kernel" if rg._kernel_on_cpu(inputs, lay) else "numpy"
        rows.append((f"{name} {'x'.join(map(str, shape))}", scalars, times, rule))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    rows = run(args.scale, args.threads, args.reps)
    print(f"threads: {args.threads}")
    print("| case | scalars | numpy ms | 4-D kernel ms | CPU form ms | kernel / numpy | rule |")
    print("|---|---|---|---|---|---|---|")
    for name, scalars, t, rule in rows:
        print(f"| {name} | {scalars} | {t['numpy'].ms()} | {t['4-D'].ms()} | {t['kernel'].ms()} | "
              f"{t['kernel'].median / t['numpy'].median:.2f} | {rule} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``brickwork.utils`` on 4M elements against numpy: an int32 exclusive scan, a float32 sum, a float32 inner
product, a radix sort of int32 and of float64 key-value pairs, run-length encoding and a float32-to-float64 cast.

Each case is first checked against numpy (scans, sorts, runs and casts exactly; sums to 1e-6), then timed
interleaved with numpy's equivalent (median of ``--reps`` runs; a device case synchronizes after each run). The
ratio is numpy time / brickwork time (above 1: brickwork is faster). ``--device cuda:0`` runs brickwork's side on
a GPU (numpy stays on the CPU: its time is the host baseline). Run:
``python benchmarks/bench_utils.py [--n 4000000] [--reps 7] [--device cpu]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import brickwork as wp  # noqa: E402
from brickwork import utils  # noqa: E402


def _order_bits(keys: np.ndarray) -> np.ndarray:
    bits = keys.dtype.itemsize * 8
    u = keys.view(np.dtype(f"uint{bits}"))
    sign = u.dtype.type(1 << (bits - 1))
    if keys.dtype.kind == "i":
        return u ^ sign
    return np.where(u & sign, ~u, u ^ sign) if keys.dtype.kind == "f" else u


def _cases(n: int, device: str, rng) -> list:
    """(name, brickwork call, numpy call, check) of each case; a check compares the last brickwork result."""
    ints = rng.integers(0, 100, n).astype(np.int32)
    floats = rng.standard_normal(n).astype(np.float32)
    keys32 = rng.integers(-2**31, 2**31, 2 * n).astype(np.int32)
    keys64 = rng.standard_normal(2 * n)
    runs = np.repeat(rng.integers(0, 5, n // 4).astype(np.int32), 4)
    a_ints, out_ints = wp.array(ints, device=device), wp.empty(n, dtype=wp.int32, device=device)
    a_floats = wp.array(floats, device=device)
    wide = wp.empty(n, dtype=wp.float64, device=device)
    run_values, run_lengths = (wp.empty(n, dtype=wp.int32, device=device) for _ in range(2))
    sort_arrays = {}

    def sorted_pairs(keys, value_dtype):
        def call():  # fresh unsorted keys each run (a device-to-device copy)
            k, v = sort_arrays.setdefault(keys.dtype, (wp.array(keys, device=device),
                                                       wp.array(np.arange(2 * n), dtype=value_dtype, device=device)))
            k.assign(sort_arrays.setdefault(("src", keys.dtype), wp.array(keys, device=device)))
            v.assign(sort_arrays.setdefault(("ids", keys.dtype), wp.array(np.arange(2 * n), dtype=value_dtype,
                                                                           device=device)))
            utils.radix_sort_pairs(k, v, n)

        def check():
            k, v = sort_arrays[keys.dtype]
            order = np.argsort(_order_bits(keys[:n]), kind="stable")
            return np.array_equal(v.numpy()[:n], order) and k.numpy()[:n].tobytes() == keys[:n][order].tobytes()

        return call, check

    sum_result = {}

    def exclusive_numpy():
        out = np.empty_like(ints)
        out[0] = 0
        np.cumsum(ints[:-1], out=out[1:])
        return out

    cases = [
        ("exclusive scan int32", lambda: utils.array_scan(a_ints, out_ints, inclusive=False), exclusive_numpy,
         lambda: np.array_equal(out_ints.numpy(), exclusive_numpy())),
        ("sum float32", lambda: sum_result.__setitem__("sum", utils.array_sum(a_floats)), lambda: floats.sum(),
         lambda: abs(sum_result["sum"] - floats.astype(np.float64).sum()) <= 1e-6 * np.abs(floats).sum()),
        ("inner float32", lambda: sum_result.__setitem__("inner", utils.array_inner(a_floats, a_floats)),
         lambda: floats @ floats, lambda: abs(sum_result["inner"] / (floats.astype(np.float64) ** 2).sum() - 1) < 1e-6),
    ]
    for label, keys, value_dtype in (("int32", keys32, wp.int32), ("float64", keys64, wp.int64)):
        call, check = sorted_pairs(keys, value_dtype)
        cases.append((f"radix sort pairs {label}", call, lambda k=keys: np.argsort(_order_bits(k[:n]), kind="stable"),
                      check))
    a_runs = wp.array(runs, device=device)

    def runs_numpy():
        starts = np.flatnonzero(np.concatenate([[True], runs[1:] != runs[:-1]]))
        return runs[starts], np.diff(np.append(starts, n))

    def runs_check():
        count = utils.runlength_encode(a_runs, run_values, run_lengths)
        values, lengths = runs_numpy()
        return count == len(values) and np.array_equal(run_values.numpy()[:count], values) and \
            np.array_equal(run_lengths.numpy()[:count], lengths)

    cases.append(("runlength encode int32", lambda: utils.runlength_encode(a_runs, run_values, run_lengths),
                  runs_numpy, runs_check))
    cases.append(("cast float32 to float64", lambda: utils.array_cast(a_floats, wide),
                  lambda: floats.astype(np.float64),
                  lambda: np.array_equal(wide.numpy(), floats.astype(np.float64))))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4_000_000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    device = wp.get_device(args.device)
    print(f"# brickwork.utils vs numpy, n = {args.n}, brickwork on {device} ({'cuda' if not device.is_cpu else 'cpu'})")
    print(f"{'case':28s} {'brickwork ms':>13s} {'numpy ms':>9s} {'ratio':>6s}  check")
    failed = False
    for name, ours, theirs, check in _cases(args.n, args.device, np.random.default_rng(0)):
        ours()  # compile or load
        wp.synchronize()
        ok = check()
        failed |= not ok
        times, base = [], []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            ours()
            wp.synchronize()
            times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            theirs()
            base.append(time.perf_counter() - t0)
        a, b = statistics.median(times), statistics.median(base)
        print(f"{name:28s} {1e3 * a:13.2f} {1e3 * b:9.2f} {b / a:6.2f}  {'ok' if ok else 'WRONG'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

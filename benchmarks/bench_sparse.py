"""brickwork.sparse on the CPU against hand-written OpenMP C++ and Warp's warp.sparse, in one table.

    python benchmarks/bench_sparse.py [--sizes 64,128] [--dtypes float64,float32] [--threads 1,2]
                                      [--ops mv,triplets,mm,transposed,cg,bicgstab] [--src OLD_CHECKOUT] [--no-warp]

The matrices: the 7-point Laplacian of an ``n^3`` grid (Dirichlet: 6 on the diagonal, -1 to each
neighbour; CSR) and the same stencil with 3x3 blocks (``bsr3``: a vector Laplacian with coupled components).
The operations, each as a user calls it:

* ``mv``: ``bsr_mv(A, x, y)`` (``y = A x``); C: a CSR (3x3 BSR) row loop;
* ``triplets``: ``bsr_set_from_triplets(A, rows, cols, vals)`` of the stencil's triplets, given one
  stencil direction after the other (duplicates none; every block's sum in input order), into a reused
  matrix; C: a stable counting sort by row, an insertion sort of each row by column, the sums;
* ``mm``: ``bsr_mm(A, A, C)`` into a reused ``C`` (CSR only, n <= 64 unless ``--mm-all``); C: Gustavson's
  row-by-row product (symbolic pass, then a dense accumulator per thread);
* ``transposed``: ``bsr_transposed(A)``; C: a column histogram, a scan and a scatter;
* ``cg``: ``cg(A, b, x, maxiter=20, M=preconditioner(A, "diag"))`` (CSR; ``tol`` too small to stop it,
  so exactly 20 iterations); C: Jacobi-preconditioned CG loops;
* ``bicgstab``: ``bicgstab(A, b, x, maxiter=20, M=preconditioner(A, "diag"))`` (as ``cg``; the preconditioner on
  the right); C: the same loops, each computing the inner products of what it writes.

brickwork (this checkout, in this process) and C are timed interleaved (``timing.measure_interleaved``:
medians of blocks of calls, one peer after the other), with the thread count of each ``--threads``
entry for both. Warp 1.19 (``--warp-python``, default /tmp/warpenv/bin/python; its CPU kernels run on one
thread) and each ``--src`` checkout (``brickwork@<dir>``: an older revision's src/, for before/after)
run in processes of their own with the same workload code, one per size and type, timed with
``timing.measure``. Ratios are brickwork's time over each peer's (below 1.0: brickwork is faster). The
machine's load is printed before and after (``machine_load``): a loaded machine makes the ratios noisy.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import child_script  # noqa: E402
import machine_load  # noqa: E402
import timing  # noqa: E402

SOURCE = HERE / "c" / "sparse.cpp"
FLAGS = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC")
CG_ITERS = 20
OPS = ("mv", "triplets", "mm", "transposed", "cg", "bicgstab")


# ----------------------------------------------------------------------------------------- the workload
def stencil(n: int, block: int, dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 7-point stencil's triplets on ``n^3`` cells, one direction after the other: rows, columns and values
    (``(m,)`` scalars, or ``(m, 3, 3)`` blocks: ``6 I + 0.5 (J - I)`` on the diagonal, ``-I`` off it)."""
    idx = np.arange(n**3, dtype=np.int32).reshape(n, n, n)
    rows, cols = [idx.ravel()], [idx.ravel()]
    for axis in range(3):
        for step in (-1, 1):
            inner = [slice(None)] * 3
            inner[axis] = slice(1, None) if step == -1 else slice(None, -1)
            moved = [slice(None)] * 3
            moved[axis] = slice(None, -1) if step == -1 else slice(1, None)
            rows.append(idx[tuple(inner)].ravel())
            cols.append(idx[tuple(moved)].ravel())
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    diag = n**3
    if block == 1:
        vals = np.full(rows.size, -1.0, dtype=dtype)
        vals[:diag] = 6.0
    else:
        vals = np.broadcast_to(-np.eye(3, dtype=dtype), (rows.size, 3, 3)).copy()
        vals[:diag] = 6.0 * np.eye(3) + 0.5 * (np.ones((3, 3)) - np.eye(3))
    return rows, cols, vals


def csr_of(n: int, block: int, dtype):
    """The matrix as sorted CSR numpy arrays (for the C code): offsets, columns, values."""
    rows, cols, vals = stencil(n, block, dtype)
    order = np.lexsort((cols, rows))
    offsets = np.zeros(n**3 + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows, minlength=n**3), out=offsets[1:])
    return offsets, cols[order].copy(), vals[order].copy()


def kernel_ops(wp, sp, linear, n: int, block: int, dtype_name: str, ops) -> dict:
    """Callables of the ``ops`` on a ``wp`` (brickwork or Warp) matrix, each checked once against numpy."""
    scalar = getattr(wp, dtype_name)
    np_dtype = np.dtype(dtype_name)
    rows_np, cols_np, vals_np = stencil(n, block, np_dtype)
    rows = wp.array(rows_np, dtype=wp.int32, device="cpu")
    cols = wp.array(cols_np, dtype=wp.int32, device="cpu")
    btype = scalar if block == 1 else getattr(wp, "mat33" + ("d" if dtype_name == "float64" else "f"))
    vals = wp.array(vals_np, dtype=btype, device="cpu")
    nb = n**3
    A = sp.bsr_zeros(nb, nb, btype, device="cpu")
    sp.bsr_set_from_triplets(A, rows, cols, vals)
    xtype = scalar if block == 1 else getattr(wp, "vec3" + ("d" if dtype_name == "float64" else "f"))
    x_np = np.random.default_rng(0).random(nb * block).astype(np_dtype)
    x = wp.array(x_np.reshape(nb, block) if block > 1 else x_np, dtype=xtype, device="cpu")
    y = wp.zeros(nb, dtype=xtype, device="cpu")
    result = {}
    if "mv" in ops:
        result["mv"] = lambda: sp.bsr_mv(A, x, y)
    if "triplets" in ops:
        B = sp.bsr_zeros(nb, nb, btype, device="cpu")
        result["triplets"] = lambda: sp.bsr_set_from_triplets(B, rows, cols, vals)
    if "mm" in ops and block == 1:
        C = sp.bsr_zeros(nb, nb, btype, device="cpu")
        result["mm"] = lambda: sp.bsr_mm(A, A, C)
    if "transposed" in ops:
        result["transposed"] = lambda: sp.bsr_transposed(A)
    if "cg" in ops and block == 1:
        M = linear.preconditioner(A, "diag")
        b = wp.array(np.ones(nb, dtype=np_dtype), dtype=scalar, device="cpu")
        xs = wp.zeros(nb, dtype=scalar, device="cpu")

        def run_cg():
            xs.zero_()
            linear.cg(A, b, xs, tol=1e-30, atol=1e-30, maxiter=CG_ITERS, M=M)

        result["cg"] = run_cg
    if "bicgstab" in ops and block == 1:
        M = linear.preconditioner(A, "diag")
        b = wp.array(np.ones(nb, dtype=np_dtype), dtype=scalar, device="cpu")
        xb = wp.zeros(nb, dtype=scalar, device="cpu")

        def run_bicgstab():
            xb.zero_()
            linear.bicgstab(A, b, xb, tol=1e-30, atol=1e-30, maxiter=CG_ITERS, M=M)

        result["bicgstab"] = run_bicgstab
    sp.bsr_mv(A, x, y)
    dense_check = _reference_mv(n, block, np_dtype, x_np)
    got = y.numpy().reshape(-1)
    if not np.allclose(got, dense_check, rtol=1e-12, atol=1e-4 if np_dtype == np.float32 else 1e-12):
        raise AssertionError("bsr_mv disagrees with numpy")
    return result


def _reference_mv(n, block, dtype, x):
    offsets, cols, vals = csr_of(n, block, dtype)
    rows = np.repeat(np.arange(n**3), np.diff(offsets))
    if block == 1:
        return np.bincount(rows, vals.astype(np.float64) * x[cols], minlength=n**3)
    xb = x.reshape(-1, 3).astype(np.float64)
    contrib = np.einsum("kij,kj->ki", vals.astype(np.float64), xb[cols])
    return np.stack([np.bincount(rows, contrib[:, i], minlength=n**3) for i in range(3)], axis=1).reshape(-1)


def import_kernel_language(name: str):
    """``(wp, sparse, linear)`` of ``brickwork`` or ``warp``."""
    if name == "warp":
        import warp as wp

        wp.config.quiet = True
        wp.init()
        import warp.optim.linear as linear
        import warp.sparse as sp
    else:
        import brickwork as wp
        import brickwork.optim.linear as linear
        import brickwork.sparse as sp
    return wp, sp, linear


# ------------------------------------------------------------------------------------------ the C peer
def build_c(tmp: str):
    out = os.path.join(tmp, "libbenchsparse.so")
    argv = [os.environ.get("CXX", "g++"), *FLAGS, str(SOURCE), "-o", out]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"C++ build failed: {shlex.join(argv)}\n{proc.stderr}")
    lib = ctypes.CDLL(out)
    lib.sp_set_threads.argtypes = [ctypes.c_int]
    for name in ("sp_csr_triplets", "sp_bsr3_triplets", "sp_csr_mm"):
        for s in ("f32", "f64"):
            getattr(lib, f"{name}_{s}").restype = ctypes.c_int64
    for s in ("f32", "f64"):
        getattr(lib, f"sp_csr_cg_{s}").restype = getattr(lib, f"sp_csr_bicgstab_{s}").restype = ctypes.c_double
    return lib, shlex.join([os.environ.get("CXX", "g++"), *FLAGS, "c/sparse.cpp"])


def _p(a: np.ndarray):
    return ctypes.c_void_p(a.ctypes.data)


def c_ops(lib, n: int, block: int, dtype_name: str, ops) -> dict:
    """Callables of the ``ops`` in C on the same matrix (as sorted CSR/BSR arrays)."""
    s = {"float32": "f32", "float64": "f64"}[dtype_name]
    kind = "csr" if block == 1 else "bsr3"
    np_dtype = np.dtype(dtype_name)
    nb = n**3
    i64 = ctypes.c_int64
    offsets, cols, vals = csr_of(n, block, np_dtype)
    rows_t, cols_t, vals_t = stencil(n, block, np_dtype)
    x = np.random.default_rng(0).random(nb * block).astype(np_dtype)
    y = np.zeros(nb * block, dtype=np_dtype)
    result = {}
    if "mv" in ops:
        fn = getattr(lib, f"sp_{kind}_mv_{s}")
        result["mv"] = lambda fn=fn: fn(i64(nb), _p(offsets), _p(cols), _p(vals), _p(x), _p(y))
        result["mv"]()
        if not np.allclose(y, _reference_mv(n, block, np_dtype, x), rtol=1e-12, atol=1e-4 if s == "f32" else 1e-12):
            raise AssertionError("C mv disagrees with numpy")
    if "triplets" in ops:
        fn = getattr(lib, f"sp_{kind}_triplets_{s}")
        t_off = np.zeros(nb + 1, np.int32)
        t_col = np.zeros(rows_t.size, np.int32)
        t_val = np.zeros_like(vals_t)
        result["triplets"] = lambda fn=fn: fn(i64(nb), i64(nb), i64(rows_t.size), _p(rows_t), _p(cols_t), _p(vals_t),
                                        _p(t_off), _p(t_col), _p(t_val))
        result["triplets"]()
        assert np.array_equal(t_off, offsets) and np.array_equal(t_col, cols) and np.array_equal(t_val, vals)
    if "mm" in ops and block == 1:
        fn = getattr(lib, f"sp_csr_mm_{s}")
        cap = 25 * nb
        m_off, m_col, m_val = np.zeros(nb + 1, np.int32), np.zeros(cap, np.int32), np.zeros(cap, np_dtype)
        result["mm"] = lambda fn=fn: fn(i64(nb), _p(offsets), _p(cols), _p(vals), _p(m_off), _p(m_col), _p(m_val),
                                  i64(cap))
    if "transposed" in ops and block == 1:
        fn = getattr(lib, f"sp_csr_transpose_{s}")
        tr_off, tr_col, tr_val = np.zeros(nb + 1, np.int32), np.zeros_like(cols), np.zeros_like(vals)
        result["transposed"] = lambda fn=fn: fn(i64(nb), i64(nb), _p(offsets), _p(cols), _p(vals), _p(tr_off),
                                          _p(tr_col), _p(tr_val))
    if "cg" in ops and block == 1:
        fn = getattr(lib, f"sp_csr_cg_{s}")
        b = np.ones(nb, np_dtype)
        xs = np.zeros(nb, np_dtype)
        work = np.zeros(4 * nb, np_dtype)

        def run_cg(fn=fn):
            xs[:] = 0
            fn(i64(nb), _p(offsets), _p(cols), _p(vals), _p(b), _p(xs), ctypes.c_int(CG_ITERS), _p(work))

        result["cg"] = run_cg
    if "bicgstab" in ops and block == 1:
        fn = getattr(lib, f"sp_csr_bicgstab_{s}")
        b = np.ones(nb, np_dtype)
        xb = np.zeros(nb, np_dtype)
        work_b = np.zeros(7 * nb, np_dtype)

        def run_bicgstab(fn=fn):
            xb[:] = 0
            fn(i64(nb), _p(offsets), _p(cols), _p(vals), _p(b), _p(xb), ctypes.c_int(CG_ITERS), _p(work_b))

        result["bicgstab"] = run_bicgstab
    return result


# ------------------------------------------------------------------------------------- children (Warp, --src)
CHILD = """\
import json, sys, time
sys.path.insert(0, {bench!r})
import bench_sparse, timing
name, n, block, dtype = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ops, reps = sys.argv[5].split(","), int(sys.argv[6])
wp, sp, linear = bench_sparse.import_kernel_language(name)
if name == "brickwork":
    wp.config.num_threads = int(sys.argv[7])
fns = bench_sparse.kernel_ops(wp, sp, linear, n, block, dtype, ops)
out = {{}}
for op, fn in fns.items():
    start = time.perf_counter()
    fn()  # compile or load
    if time.perf_counter() - start > 5.0:  # very slow (Warp's cg on the CPU): one more call is the sample
        out[op] = timing.measure(fn, 1, warmup=0).median
    else:
        out[op] = timing.measure(fn, reps, warmup=0, min_time=0.5).median
print(json.dumps(out))
"""


def run_child(python: str, name: str, src: str | None, n, block, dtype, ops, reps, threads) -> dict:
    code = CHILD.format(bench=str(HERE))
    if src is not None:  # an older checkout's brickwork ahead of everything else
        code = f"import sys\nsys.path.insert(0, {str(Path(src) / 'src')!r})\n" + code
    env_label = f"{name}@{src}" if src else name
    return child_script.run_json(python, code, [name, n, block, dtype, ",".join(ops), reps, threads],
                                 env_label) or {}


# ------------------------------------------------------------------------------------------------ main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,128")
    parser.add_argument("--dtypes", default="float64,float32")
    parser.add_argument("--threads", default="1,2", help="thread counts of brickwork and C (one table row each)")
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--blocks", default="1,3", help="1: CSR; 3: 3x3 blocks")
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--mm-all", action="store_true", help="bsr_mm on every size (default n <= 64)")
    parser.add_argument("--no-warp", action="store_true")
    parser.add_argument("--warp-python", default="/tmp/warpenv/bin/python")
    parser.add_argument("--src", action="append", default=[], help="an older checkout to time as well")
    parser.add_argument("--skip-peer-ops", default="", help="ops the Warp and --src processes leave out (e.g. cg: "
                        "Warp's cg takes minutes on the CPU at 128^3)")
    args = parser.parse_args(argv)
    ops_all = [o for o in args.ops.split(",") if o]
    threads = [int(t) for t in args.threads.split(",")]
    wp, sp, linear = import_kernel_language("brickwork")
    print(f"load average before: {machine_load.load_average()}; {os.cpu_count()} CPUs")
    header = ["case", "op", "thr", "brickwork ms", "C ms", "bw/C"]
    extra = ([] if args.no_warp else ["warp"]) + [f"brickwork@{s}" for s in args.src]
    for name in extra:
        header += [f"{name} ms", f"bw/{name.split('@')[0] if name == 'warp' else 'old'}"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    with tempfile.TemporaryDirectory(prefix="brickwork-bench-sparse-") as tmp:
        lib, command = build_c(tmp)
        for n in [int(s) for s in args.sizes.split(",")]:
            for dtype in args.dtypes.split(","):
                for block in [int(b) for b in args.blocks.split(",")]:
                    ops = [o for o in ops_all if not (o == "mm" and n > 64 and not args.mm_all)]
                    if block > 1:
                        ops = [o for o in ops if o in ("mv", "triplets")]
                    case = f"{'csr' if block == 1 else 'bsr3'} {n}^3 f{dtype[5:]}"
                    ours = kernel_ops(wp, sp, linear, n, block, dtype, ops)
                    theirs = c_ops(lib, n, block, dtype, ops)
                    others = {}
                    peer_ops = [o for o in ops if o not in args.skip_peer_ops.split(",")] or ["mv"]
                    if not args.no_warp:
                        others["warp"] = run_child(args.warp_python, "warp", None, n, block, dtype, peer_ops,
                                                   max(3, args.reps // 2), 1)
                    for t in threads:
                        wp.config.num_threads = t
                        lib.sp_set_threads(t)
                        for src in args.src:
                            others[f"brickwork@{src}"] = run_child(sys.executable, "brickwork", src, n, block,
                                                                   dtype, peer_ops, args.reps, t)
                        for op in ops:
                            fns = {"bw": ours[op]}
                            if op in theirs:
                                fns["c"] = theirs[op]
                            got = timing.measure_interleaved(fns, args.reps, min_time=0.3, block=2)
                            a = got["bw"].median
                            c = got["c"].median if "c" in got else float("nan")
                            row = [case, op, str(t), timing.fmt(1e3 * a), timing.fmt(1e3 * c), f"{a / c:.2f}"]
                            for name in extra:
                                other = others.get(name, {}).get(op, float("nan"))
                                row += [timing.fmt(1e3 * other), f"{a / other:.2f}"]
                            lines.append("| " + " | ".join(row) + " |")
                            print(lines[-1], flush=True)
                    del ours, theirs
    print()
    print(f"C reference: {command}")
    print(f"load average after: {machine_load.load_average()}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Memory and time of a distributed mesh's I/O: ``save_restart``, ``load_restart`` and ``write_output``.

    python benchmarks/bench_mesh_io.py [--ranks 4] [--n 128] [--block 32] [--rounds 3] [--src DIR] [--out FILE.md]

The case: a 3-D mesh of ``n^3`` cells in ``block^3`` blocks (64 blocks by default), two ghosts, the fields
``rho``, ``mom`` (3 components), ``E`` (float64) and ``dye`` (float32): 6 slots, about 2.2 MB a block.
Each operation runs in ``mpiexec -n RANKS`` processes of its own (the one next to this Python, from the
``mpi`` extra), twice: every rank builds the mesh and fills every cell (so that the storage is resident),
then either measures what the operation costs beyond the state before it, or times it (a second call, after
one that imports and warms what it needs; without ``tracemalloc``, which slows Python's allocations):

* ``arrays``: the peak of the memory Python and numpy allocate during the call (``tracemalloc``, started
  just before it: it does not see MPI's own buffers);
* ``rss``: the process's peak resident memory (``getrusage`` maxrss) minus its resident memory just before
  the call: everything, MPI's buffers included.

The table gives rank 0 and the largest of the other ranks, the median of ``--rounds`` runs (wall time:
the slowest rank's). ``--src DIR`` imports brickwork from ``DIR`` (another revision's ``src``, e.g. one
exported with ``git archive``) to compare before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

OPS = ("save", "load", "write")


def _rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def child(op: str, folder: str, n: int, block: int, timed: bool) -> None:
    """One rank of one operation: rank 0 prints a JSON line of every rank's measurements (``timed``: the time
    of a second call; else the memory of a first call)."""
    import numpy as np

    from brickwork.mesh import Mesh, Metadata, Package

    pkg = Package("bench")
    pkg.add_field("rho", Metadata("Cell", "FillGhost"))
    pkg.add_field("mom", Metadata("Cell", "FillGhost"), shape=(3,))
    pkg.add_field("E", Metadata("Cell", "FillGhost"))
    pkg.add_field("dye", Metadata("Cell"), dtype=np.float32)
    mesh = Mesh((n, n, n), (block, block, block), nghost=2, packages=[pkg])
    for name in ("rho", "mom", "E", "dye"):
        data = mesh.data(name)
        for lid, b in enumerate(mesh.blocks):  # a block at a time: no temporary as large as a field
            data[lid] = b.gid + np.linspace(0.0, 1.0, data[lid].size, dtype=data.dtype).reshape(data[lid].shape)
    restart, stem = os.path.join(folder, "state.npz"), os.path.join(folder, "out")
    comm = mesh.comm

    def call():
        if op == "save":
            mesh.save_restart(restart, {"cycle": 1})
        elif op == "load":
            mesh.load_restart(restart)
        else:
            mesh.write_output(stem)

    row = {"rank": mesh.rank, "local_mib": sum(mesh.data(k).nbytes for k in ("rho", "mom", "E", "dye")) / 2**20}
    if timed:
        call()
        comm.Barrier()
        start = time.perf_counter()
        call()
        row["seconds"] = comm.allreduce(time.perf_counter() - start, op=_max())
    else:
        comm.Barrier()
        before = _rss_kib()
        tracemalloc.start()
        call()
        row["arrays_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        row["rss_mib"] = max(0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    rows = comm.gather(row) if mesh.nranks > 1 else [row]
    if mesh.rank == 0:  # one line: the ranks' lines would interleave
        print(json.dumps(rows), flush=True)


def _max():
    from mpi4py import MPI

    return MPI.MAX


def _tool(name: str) -> str:
    found = shutil.which(name, path=os.path.dirname(sys.executable)) or shutil.which(name)
    if found is None:
        sys.exit(f"bench_mesh_io: no {name} (pip install 'brickwork[mpi]')")
    return found


def measure(op: str, folder: str, args, timed: bool) -> list[dict]:
    env = dict(os.environ, OMP_NUM_THREADS="1", BRICKWORK_NUM_THREADS="1")
    if args.src:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [args.src, env.get("PYTHONPATH")]))
    cmd = [_tool("mpiexec"), "-n", str(args.ranks), sys.executable, __file__, "--child", op, folder,
           "--n", str(args.n), "--block", str(args.block)] + (["--timed"] if timed else [])
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        sys.exit(f"bench_mesh_io: {' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(runs: list, key: str, ranks: slice) -> float:
    """The median over the runs of the largest ``key`` of the ranks ``ranks``."""
    return statistics.median(max(row[key] for row in run[ranks]) for run in runs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--block", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--src", help="import brickwork from this directory (another revision's src)")
    ap.add_argument("--out", help="write the table (Markdown) to this file too")
    ap.add_argument("--child", nargs=2, metavar=("OP", "FOLDER"), help=argparse.SUPPRESS)
    ap.add_argument("--timed", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.n, args.block, args.timed)
        return 0
    results: dict = {op: [] for op in OPS}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for op in OPS:  # save first: load reads the file it wrote
                memory, timed = measure(op, tmp, args, False), measure(op, tmp, args, True)
                results[op].append([dict(m, seconds=t["seconds"]) for m, t in zip(memory, timed)])
    local = results["save"][0][0]["local_mib"]
    lines = [f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs; python "
             f"{platform.python_version()}; load average {os.getloadavg()[0]:.2f} after",
             f"- case: {args.n}^3 cells in {args.block}^3 blocks, 6 slots (5 float64, 1 float32), 2 ghosts, "
             f"{args.ranks} ranks; rank 0 stores {local:.0f} MiB of fields",
             f"- command: `python benchmarks/bench_mesh_io.py --ranks {args.ranks} --n {args.n} --block {args.block} "
             f"--rounds {args.rounds}`" + (f" (brickwork from {args.src})" if args.src else ""), "",
             "| operation | wall s (median [min-max]) | rank 0 arrays MiB | rank 0 rss MiB | other ranks arrays MiB "
             "(max) | other ranks rss MiB (max) |", "|---|---|---|---|---|---|"]
    for op, runs in results.items():
        wall = [run[0]["seconds"] for run in runs]
        rank0 = [_median(runs, key, slice(0, 1)) for key in ("arrays_mib", "rss_mib")]
        others = [_median(runs, key, slice(1, None)) if args.ranks > 1 else 0.0 for key in ("arrays_mib", "rss_mib")]
        lines.append(f"| {op} | {statistics.median(wall):.3f} [{min(wall):.3f}-{max(wall):.3f}] | {rank0[0]:.1f} | "
                     f"{rank0[1]:.1f} | {others[0]:.1f} | {others[1]:.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

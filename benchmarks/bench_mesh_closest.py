"""The closest-point walk of ``wp.Mesh`` (``mesh_query_point_no_sign``): brickwork beside Warp on the CPU.

    python benchmarks/bench_mesh_closest.py [--warp-python PATH] [--level 5] [--points 100000] [--rounds 5]
                                            [--reps 5]

An icosphere of radius 1 (``--level`` subdivisions: 5 gives 20480 triangles) and ``--points`` random points of
the cube [-1.5, 1.5]^3, one thread each asking for the closest point (max_dist 1e6); ``--warp-python``: an
interpreter with warp-lang (without it only brickwork runs). brickwork runs on one
thread (``BRICKWORK_NUM_THREADS=1``), as Warp's CPU launches do. The machine may be shared, so the two sides
run alternately for ``--rounds`` rounds, each timing the median of ``--reps`` launches after a first one (in CPU
time of the process, ``time.process_time``: what the other loads of the machine take is not counted); the
table gives the median over rounds of each side and of the per-round ratio (Warp's time / brickwork's: above 1,
brickwork is faster). The answers are compared too: the same distances, and the same faces and weights but where
triangles tie (the trees differ).
Not a timed test: numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from bench_winding import ICOSPHERE
from child_script import PEER_PRELUDE, SRC, run_json

_CHILD = PEER_PRELUDE + ICOSPHERE + """
level, n, reps, out = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

@wp.kernel
def closest(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), faces: wp.array(dtype=wp.int32),
            uv: wp.array(dtype=wp.vec2), dist: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, qs[i], 1.0e6)
    faces[i] = q.face
    uv[i] = wp.vec2(q.u, q.v)
    dist[i] = wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - qs[i])

pts, tris = icosphere(level)
mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1), dtype=wp.int32))
qs = wp.array(np.random.default_rng(0).uniform(-1.5, 1.5, (n, 3)).astype(np.float32), dtype=wp.vec3)
faces, uv, dist = wp.zeros(n, dtype=wp.int32), wp.zeros(n, dtype=wp.vec2), wp.zeros(n, dtype=float)
run = lambda: wp.launch(closest, n, [mesh.id, qs, faces, uv, dist])
run()
times = []
for _ in range(reps):
    t = time.process_time()
    run()
    wp.synchronize()
    times.append(time.process_time() - t)
np.savez(out, faces=faces.numpy(), uv=uv.numpy(), dist=dist.numpy())
print(json.dumps({"time": float(np.median(times)), "tris": len(tris)}))
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warp-python", help="an interpreter with warp-lang installed")
    parser.add_argument("--level", type=int, default=5)
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args(argv)
    os.environ["BRICKWORK_NUM_THREADS"] = "1"
    sides = [("brickwork", sys.executable)] + ([("warp", args.warp_python)] if args.warp_python else [])
    times = {name: [] for name, _ in sides}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for name, python in sides:
                got = run_json(python, _CHILD, [name, args.level, args.points, args.reps, f"{tmp}/{name}.npz", SRC],
                               f"bench_mesh_closest: {name}")
                if got is None:
                    return 1
                times[name].append(got["time"])
        answers = {name: np.load(Path(tmp) / f"{name}.npz") for name, _ in sides}
        answers = {name: {k: a[k] for k in a.files} for name, a in answers.items()}
    mine = np.median(times["brickwork"])
    cells = "- | -"
    if args.warp_python:
        ratio = np.median(np.array(times["warp"]) / np.array(times["brickwork"]))
        cells = f"{np.median(times['warp']) * 1e3:.1f} | {ratio:.2f}"
    print(f"Closest points on the CPU, one thread (median of {args.rounds} rounds of {args.reps}; "
          f"`python benchmarks/bench_mesh_closest.py`)\n")
    print("| query | brickwork ms | Warp ms | Warp / brickwork |\n|---|---|---|---|")
    print(f"| mesh_query_point_no_sign, {args.points} points, {got['tris']} triangles | {mine * 1e3:.1f} | {cells} |")
    if args.warp_python:
        a, b = answers["brickwork"], answers["warp"]
        ratios = ", ".join(f"{t / s:.2f}" for s, t in zip(times["brickwork"], times["warp"]))
        same = a["faces"] == b["faces"]
        print(f"\nper-round ratios: {ratios}")
        print(f"same face at {same.mean() * 100:.3f} % of the points (elsewhere triangles tie at a shared edge or "
              f"vertex); largest |u, v| difference there {np.abs(a['uv'] - b['uv'])[same].max():.2e}; largest "
              f"distance difference {np.abs(a['dist'] - b['dist']).max():.2e}")
    else:
        print(f"\nlargest distance: {answers['brickwork']['dist'].max():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

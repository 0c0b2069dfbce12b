"""The fast winding number of ``wp.Mesh(..., support_winding_number=True)``: brickwork beside Warp.

    python benchmarks/bench_winding.py [--levels 3 5] [--points 100000] [--reps 5] [--rounds 3] [--device cpu]
                                       [--warp-python PATH]

Icospheres of radius 1 (``--levels`` subdivisions of the icosahedron: 3 gives the 1280 triangles of Warp's
swept-volume tests, 5 gives 20480), each built with ``support_winding_number=True``; steps: the build, a
``refit()`` after the points moved, and ``--points`` calls of ``mesh_query_point_sign_winding_number`` (default
accuracy 2.0, one thread each) at random points of the cube [-1.5, 1.5]^3. Each kernel language runs in a process
of its own (``--warp-python``: an interpreter with warp-lang; without it only brickwork runs); times are medians
of ``--reps`` runs after a first one (which loads the kernels), and then the median over ``--rounds`` rounds,
each running brickwork's process and then Warp's, so that both sides meet the same load; the ratio is Warp's
time / brickwork's (above 1: brickwork is faster). Both sides' inside counts are printed (they should agree but
for points on the surface). brickwork runs on ``BRICKWORK_NUM_THREADS`` threads, Warp's CPU launches on one. Not
a timed test: numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import sys

from child_script import PEER_PRELUDE, SRC, interleaved_medians, run_json

#: ``icosphere(level)``: points (float32) and triangles (int32) of the subdivided icosahedron on the unit
#: sphere, for the children of this script and of bench_mesh_closest.py.
ICOSPHERE = """
def icosphere(level):
    t = (1 + 5 ** 0.5) / 2
    pts = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t],
           [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]]
    faces = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2],
             [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11],
             [6, 2, 10], [8, 6, 7], [9, 8, 1]]
    pts = [list(np.array(p) / np.linalg.norm(p)) for p in pts]
    for _ in range(level):
        mids, out = {}, []
        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in mids:
                m = np.add(pts[a], pts[b])
                pts.append(list(m / np.linalg.norm(m)))
                mids[key] = len(pts) - 1
            return mids[key]
        for a, b, c in faces:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            out += [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
        faces = out
    return np.array(pts, np.float32), np.array(faces, np.int32)
"""

_CHILD = PEER_PRELUDE + ICOSPHERE + """
name, levels, n, reps, device = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

@wp.kernel
def classify(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), inside: wp.array(dtype=wp.int32)):
    i = wp.tid()
    q = wp.mesh_query_point_sign_winding_number(mesh, qs[i], 1.0e6)
    inside[i] = wp.where(q.sign < 0.0, 1, 0)

rng = np.random.default_rng(0)
qs = wp.array(rng.uniform(-1.5, 1.5, (n, 3)).astype(np.float32), dtype=wp.vec3, device=device)
inside = wp.zeros(n, dtype=wp.int32, device=device)
out = {}
for level in levels:
    pts, faces = icosphere(level)
    points = wp.array(pts, dtype=wp.vec3, device=device)
    indices = wp.array(faces.reshape(-1), dtype=wp.int32, device=device)
    make = lambda: wp.Mesh(points, indices, support_winding_number=True)
    out[f"build {level}"] = median_time(make, reps)
    mesh = make()
    points.assign(pts * np.float32(1.01))
    out[f"refit {level}"] = median_time(mesh.refit, reps)
    out[f"query {level}"] = median_time(lambda: wp.launch(classify, n, [mesh.id, qs, inside], device=device), reps)
    out[f"inside {level}"] = int(inside.numpy().sum())
    out[f"tris {level}"] = len(faces)
print(json.dumps(out))
"""


def measure(python: str, name: str, args) -> dict | None:
    return run_json(python, _CHILD, [name, json.dumps(args.levels), args.points, args.reps, args.device, SRC],
                    f"bench_winding: {name}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--warp-python", help="an interpreter with warp-lang installed")
    args = parser.parse_args(argv)
    mine, theirs = interleaved_medians(measure, args)
    if mine is None:
        return 1
    print(f"Fast winding numbers on {args.device} (median of {args.reps}, then of {args.rounds} interleaved rounds; "
          f"`python benchmarks/bench_winding.py`)\n")
    print("| step | brickwork ms | Warp ms | Warp / brickwork |\n|---|---|---|---|")
    for level in args.levels:
        tris = mine[f"tris {level}"]
        for label, key in (("build", "build"), ("refit", "refit"), (f"{args.points} queries", "query")):
            a = mine[f"{key} {level}"]
            b = theirs[f"{key} {level}"] if theirs else None
            cells = f"{a * 1e3:.2f} | " + (f"{b * 1e3:.2f} | {b / a:.2f}" if b else "- | -")
            print(f"| {label}, {tris} triangles | {cells} |")
    inside = ", ".join(f"{mine[f'inside {lv}']}" + (f" / {theirs[f'inside {lv}']}" if theirs else "")
                       for lv in args.levels)
    print(f"\npoints inside (brickwork / Warp) per mesh: {inside}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

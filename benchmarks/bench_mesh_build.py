"""Building a ``wp.Mesh`` on the CPU, by each constructor, from 1k to 1M triangles: brickwork beside Warp.

    python benchmarks/bench_mesh_build.py [--tris 1024 16384 262144 1048576] [--constructors default sah lbvh]
                                          [--points 10000] [--reps 7] [--rounds 3] [--warp-python PATH]

Meshes: a torus of ``2 * m * 2m`` triangles (``--tris`` rounded to that form), its tube's radius wavy so that the
triangles differ in size. Steps per constructor ("default": ``bvh_constructor`` left out, "sah" on the CPU for
both; Warp builds its SAH tree for "lbvh" on the CPU, with a warning): the build (``wp.Mesh(points, indices,
bvh_constructor=...)``, the default ``bvh_leaf_size``, 4 for both), ``mesh.refit()`` and ``--points`` closest-point
queries
(``wp.mesh_query_point_no_sign``, one thread each) at random points around the torus, whose time shows the tree's
quality; the sums of the distances found are printed for both sides (they should agree). Each kernel language
runs in a process of its own (``--warp-python``: an interpreter with warp-lang; without it only brickwork runs);
times are medians of ``--reps`` runs after a first one, then the median over ``--rounds`` rounds, each running
brickwork's process and then Warp's, so that both sides meet the same load; ratio: Warp's time / brickwork's
(above 1: brickwork is faster). brickwork runs on ``BRICKWORK_NUM_THREADS`` threads, Warp's CPU builds on one.
Not a timed test.
"""

from __future__ import annotations

import argparse
import json
import sys

from child_script import PEER_PRELUDE, SRC, interleaved_medians, run_json

_CHILD = PEER_PRELUDE + """
name, sizes, constructors, n, reps = (sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), int(sys.argv[4]),
                                      int(sys.argv[5]))

def torus(m):
    # 2m rings of m points around a tube of wavy radius; 2 * m * 2m triangles
    u, v = np.meshgrid(np.arange(2 * m) * (2 * np.pi / (2 * m)), np.arange(m) * (2 * np.pi / m), indexing="ij")
    r = 0.3 + 0.1 * np.sin(5 * u) * np.cos(3 * v)
    pts = np.stack([(1 + r * np.cos(v)) * np.cos(u), (1 + r * np.cos(v)) * np.sin(u), r * np.sin(v)], -1)
    i, j = np.meshgrid(np.arange(2 * m), np.arange(m), indexing="ij")
    a, b = i * m + j, ((i + 1) % (2 * m)) * m + j
    c, d = ((i + 1) % (2 * m)) * m + (j + 1) % m, i * m + (j + 1) % m
    faces = np.stack([np.stack([a, b, c], -1), np.stack([a, c, d], -1)], 2).reshape(-1, 3)
    return pts.reshape(-1, 3).astype(np.float32), faces.astype(np.int32)

@wp.kernel
def closest(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), dist: wp.array(dtype=wp.float32)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, qs[i], 1.0e6)
    dist[i] = wp.length(qs[i] - wp.mesh_eval_position(mesh, q.face, q.u, q.v))

rng = np.random.default_rng(0)
qs = wp.array(rng.uniform(-1.5, 1.5, (n, 3)).astype(np.float32), dtype=wp.vec3, device="cpu")
dist = wp.zeros(n, dtype=wp.float32, device="cpu")
out = {}
for size in sizes:
    pts, faces = torus(max(2, round((size / 4) ** 0.5)))
    points = wp.array(pts, dtype=wp.vec3, device="cpu")
    indices = wp.array(faces.reshape(-1), dtype=wp.int32, device="cpu")
    reps_here = max(1, min(reps, int(reps * 65536 / len(faces))))
    for constructor in constructors:
        kw = {} if constructor == "default" else {"bvh_constructor": constructor}
        make = lambda: wp.Mesh(points, indices, **kw)
        key = f"{len(faces)} {constructor}"
        out["build " + key] = median_time(make, reps_here)
        mesh = make()
        out["refit " + key] = median_time(mesh.refit, reps_here)
        out["query " + key] = median_time(lambda: wp.launch(closest, n, [mesh.id, qs, dist], device="cpu"),
                                           reps_here)
        out["dist " + key] = float(dist.numpy().astype(np.float64).sum())
print(json.dumps(out))
"""


def measure(python: str, name: str, args) -> dict | None:
    return run_json(python, _CHILD, [name, json.dumps(args.tris), json.dumps(args.constructors), args.points, args.reps,
                                     SRC], f"bench_mesh_build: {name}")


def _ms(seconds: float) -> str:
    """Milliseconds: two decimals, four below 1 ms (a small mesh's refit takes 0.01 ms)."""
    ms = seconds * 1e3
    return f"{ms:.2f}" if ms >= 1 else f"{ms:.4f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tris", type=int, nargs="+", default=[1024, 16384, 262144, 1048576])
    parser.add_argument("--constructors", nargs="+", default=["default", "sah", "lbvh"],
                        choices=["default", "sah", "median", "lbvh"])
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warp-python", help="an interpreter with warp-lang installed")
    args = parser.parse_args(argv)
    mine, theirs = interleaved_medians(measure, args)
    if mine is None:
        return 1
    print(f"wp.Mesh builds on the CPU (median of {args.reps}, then of {args.rounds} interleaved rounds; "
          f"`python benchmarks/bench_mesh_build.py`)\n")
    print("| triangles | constructor | build ms (brickwork / Warp) | Warp / brickwork | refit ms (brickwork / Warp) | "
          f"Warp / brickwork | {args.points} queries ms (brickwork / Warp) | Warp / brickwork | distance sums |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key in [k[len("build "):] for k in mine if k.startswith("build ")]:
        tris, constructor = key.split()
        row = [tris, constructor]
        for step in ("build", "refit", "query"):
            a, b = mine[f"{step} {key}"], theirs[f"{step} {key}"] if theirs else None
            row += [f"{_ms(a)} / {_ms(b)}", f"{b / a:.2f}"] if b else [f"{_ms(a)} / -", "-"]
        row.append(f"{mine[f'dist {key}']:.4f}" + (f" / {theirs[f'dist {key}']:.4f}" if theirs else ""))
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

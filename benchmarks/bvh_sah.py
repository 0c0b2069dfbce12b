"""SAH trees against median trees on the CPU: build times, and ray casts on a skewed mesh, brickwork beside Warp.

    python benchmarks/bvh_sah.py [--n 100000 1000000] [--tris 200000] [--rays 200000] [--reps 5]
                                 [--warp-python PATH]

Each kernel language runs in a process of its own, a script written to a temporary file (``--warp-python``:
the interpreter of an environment with warp-lang; without it only brickwork runs). Builds:
``wp.Bvh(...).rebuild(constructor)`` over ``n`` random unit-cube boxes with sides up to 0.01 (float32), and
``wp.Mesh(...)`` of a "teapot in a stadium" (``--tris`` triangles: a 200 x 200 ground and 1000 wall panels
around a ball of radius 1 holding the rest, triangles about 0.02 across: sizes differ by four orders of
magnitude, and the median split mixes the stadium's triangles into the ball's nodes). Queries:
``wp.mesh_query_ray`` from ``--rays`` random points in the stadium in random directions, one thread each. Times
are medians of ``reps`` runs after a first one (which loads the kernels). Meshes are built with
``bvh_leaf_size=4`` (both's default). brickwork runs on ``BRICKWORK_NUM_THREADS`` threads
(Warp's CPU builds and launches on one). Not a timed test: numbers depend on the machine and its load
(``uptime`` before a run).
"""

from __future__ import annotations

import argparse
import json
import sys

from child_script import PEER_PRELUDE, SRC, run_json

_CHILD = PEER_PRELUDE + """
name, sizes = sys.argv[1], json.loads(sys.argv[2])
tris, rays, reps = (int(x) for x in sys.argv[3:6])

def median(f):
    return median_time(f, reps)

out = {}
for n in sizes:
    rng = np.random.default_rng(0)
    lo = rng.random((n, 3), dtype=np.float32)
    hi = lo + rng.random((n, 3), dtype=np.float32) * np.float32(0.01)
    lowers = wp.array(lo, dtype=wp.vec3, device="cpu")
    uppers = wp.array(hi, dtype=wp.vec3, device="cpu")
    for constructor in ("sah", "median"):
        bvh = wp.Bvh(lowers, uppers, constructor=constructor)
        out[f"bvh {n} {constructor}"] = median(lambda: bvh.rebuild(constructor))

rng = np.random.default_rng(1)
# a "teapot in a stadium": a 200 x 200 ground and a ring of 1000 wall panels 30 high at radius 100, around a
# ball of radius 1 (5 above the ground) holding the other triangles, each about 0.02 across
ring = np.linspace(0, 2 * np.pi, 1001)
walls = np.stack([100 * np.cos(ring[:-1]), 100 * np.sin(ring[:-1]), 100 * np.cos(ring[1:]),
                  100 * np.sin(ring[1:])], 1)
pts = [[-100, -100, 0], [100, -100, 0], [100, 100, 0], [-100, 100, 0]]
pts += [[x0, y0, z] for x0, y0, x1, y1 in walls for z in (0, 30)] + [[x1, y1, 0] for x0, y0, x1, y1 in walls]
pts = np.array(pts, np.float64)
panels = np.arange(1000)
faces = [[0, 1, 2], [0, 2, 3]] + [[4 + 2 * k, 4 + 2000 + k, 5 + 2 * k] for k in panels]
small = tris - len(faces)
centre = rng.normal(size=(small, 3))
centre *= rng.random((small, 1)) ** (1 / 3) / np.linalg.norm(centre, axis=1, keepdims=True)
corners = centre[:, None, :] + [0, 0, 5] + rng.normal(size=(small, 3, 3)) * 0.01
faces = np.concatenate([np.array(faces), len(pts) + np.arange(3 * small).reshape(-1, 3)]).astype(np.int32)
pts = np.concatenate([pts, corners.reshape(-1, 3)]).astype(np.float32)
points = wp.array(pts, dtype=wp.vec3, device="cpu")
indices = wp.array(faces.reshape(-1), dtype=wp.int32, device="cpu")
starts = np.concatenate([rng.uniform(-60, 60, (rays, 2)), rng.uniform(1, 20, (rays, 1))], 1).astype(np.float32)
dirs = rng.normal(size=(rays, 3)).astype(np.float32)
starts, dirs = wp.array(starts, dtype=wp.vec3, device="cpu"), wp.array(dirs, dtype=wp.vec3, device="cpu")
hit = wp.zeros(rays, dtype=wp.float32, device="cpu")

@wp.kernel
def cast(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3), hit: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_ray(mesh, starts[i], dirs[i], 1000.0)
    if q.result:
        hit[i] = q.t

for constructor in ("sah", "median"):
    make = lambda: wp.Mesh(points, indices, bvh_constructor=constructor, bvh_leaf_size=4)
    out[f"mesh build {constructor}"] = median(make)
    mesh = make()
    out[f"rays {constructor}"] = median(lambda: (wp.launch(cast, rays, [mesh.id, starts, dirs, hit], device="cpu"),
                                                 wp.synchronize()))
    out[f"hits {constructor}"] = float(np.count_nonzero(hit.numpy()))
print(json.dumps(out))
"""


def measure(python: str, name: str, args) -> dict | None:
    return run_json(python, _CHILD, [name, json.dumps(args.n), args.tris, args.rays, args.reps, SRC],
                    f"bvh_sah: {name}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--tris", type=int, default=200_000)
    parser.add_argument("--rays", type=int, default=200_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--warp-python", help="an interpreter with warp-lang installed")
    args = parser.parse_args(argv)
    mine = measure(sys.executable, "brickwork", args)
    theirs = measure(args.warp_python, "warp", args) if args.warp_python else None
    if mine is None:
        return 1
    print(f"SAH and median trees on the CPU (median of {args.reps}; `python benchmarks/bvh_sah.py`)\n")
    print("| step | brickwork SAH ms | brickwork median ms | Warp SAH ms | Warp median ms |\n|---|---|---|---|---|")
    steps = [(f"`Bvh.rebuild`, {n} boxes", f"bvh {n}") for n in args.n]
    steps += [(f"`Mesh(...)`, {args.tris} triangles", "mesh build"), (f"{args.rays} `mesh_query_ray`", "rays")]
    for label, key in steps:
        cells = [f"{r[f'{key} {c}'] * 1e3:.1f}" if r else "-" for r in (mine, theirs) for c in ("sah", "median")]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print(f"\nrays that hit: brickwork {mine['hits sah']:.0f} (SAH), {mine['hits median']:.0f} (median)" +
          (f"; Warp {theirs['hits sah']:.0f}, {theirs['hits median']:.0f}" if theirs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

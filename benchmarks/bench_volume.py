"""``wp.Volume`` on the CPU: sampling, lookups, stores and builds, brickwork beside Warp.

    python benchmarks/bench_volume.py [--warp-python PATH] [--points 1000000] [--size 128] [--radius 115]
                                      [--rounds 3] [--reps 5]

Grids: a dense float grid of ``--size``^3 voxels from numpy (``load_from_numpy``), a vec3 grid of the same
size, a sparse float narrow-band signed distance of a sphere of ``--radius`` voxels (the 8^3 tiles within
3 voxels of the surface by ``allocate_by_tiles``, their voxels' distances written by ``volume_store_f``), and
an index grid of the band's voxels (``allocate_by_voxels``; about 1M voxels at the default radius) with the
distances in an array. Rows: ``--points`` random points sampled LINEAR and CLOSEST (anywhere in the dense
grids, within the band for the sparse ones), ``volume_sample_grad_f``, ``volume_lookup_f`` and
``volume_store_f`` over every voxel of the sparse grid, ``volume_sample_index``, and the three builds.

Each side runs in a process of its own (``--warp-python``: an interpreter with warp-lang; without it only
brickwork runs): brickwork on one thread (``BRICKWORK_NUM_THREADS=1``, as Warp's CPU launches) and brickwork on
two threads. The machine may be shared, so the sides run alternately for ``--rounds`` rounds, each timing the
median of ``--reps`` calls after a first one; one-thread sides in CPU time of the process
(``time.process_time``, the other loads of the machine not counted), the two-thread side in wall time. The
table gives each side's median over rounds, the median per-round ratio (Warp's time / brickwork's: above 1,
brickwork is faster) and its spread (lowest-highest per-round ratio). The results of every row are compared
with Warp's (the largest difference; 0 when bit-identical). Not a timed test: numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from child_script import PEER_PRELUDE, SRC, run_json

_CHILD = PEER_PRELUDE + """
n, size, radius, reps, out_path = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]

@wp.kernel
def sample_linear(v: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.volume_sample_f(v, p[i], wp.Volume.LINEAR)

@wp.kernel
def sample_closest(v: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.volume_sample_f(v, p[i], wp.Volume.CLOSEST)

@wp.kernel
def sample_grad(v: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    g = wp.vec3()
    s = wp.volume_sample_grad_f(v, p[i], wp.Volume.LINEAR, g)
    out[i] = wp.vec4(s, g[0], g[1], g[2])

@wp.kernel
def sample_vec3(v: wp.uint64, p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.volume_sample_v(v, p[i], wp.Volume.LINEAR)

@wp.kernel
def sample_index(v: wp.uint64, p: wp.array(dtype=wp.vec3), data: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.volume_sample_index(v, p[i], wp.Volume.LINEAR, data, 5.0)

@wp.kernel
def lookup(v: wp.uint64, ijk: wp.array(dtype=wp.vec3i), out: wp.array(dtype=float)):
    i = wp.tid()
    c = ijk[i]
    out[i] = wp.volume_lookup_f(v, c[0], c[1], c[2])

@wp.kernel
def store_sdf(v: wp.uint64, ijk: wp.array(dtype=wp.vec3i), r: float):
    i = wp.tid()
    c = ijk[i]
    p = wp.vec3(float(c[0]), float(c[1]), float(c[2]))
    wp.volume_store_f(v, c[0], c[1], c[2], wp.length(p) - r)

def timed(f):
    f()
    wp.synchronize()
    cpu, wall = [], []
    for _ in range(reps):
        t, w = time.process_time(), time.perf_counter()
        f()
        wp.synchronize()
        cpu.append(time.process_time() - t)
        wall.append(time.perf_counter() - w)
    return [float(np.median(cpu)), float(np.median(wall))]

rng = np.random.default_rng(0)
times, results = {}, {}
launch = lambda k, dim, args: (lambda: wp.launch(k, dim, args))

# dense grids from numpy
x = np.arange(size, dtype=np.float32)
dense = np.sin(0.1 * x)[:, None, None] + np.cos(0.07 * x)[None, :, None] * np.sin(0.05 * x)[None, None, :]
dense = dense.astype(np.float32)
times["build numpy"] = timed(lambda: wp.Volume.load_from_numpy(dense, bg_value=0.0))
vol = wp.Volume.load_from_numpy(dense, bg_value=0.0)
vvol = wp.Volume.load_from_numpy(np.stack([dense, -dense, 2 * dense], axis=-1), bg_value=(0.0, 0.0, 0.0))
pts = wp.array(rng.uniform(0.0, size - 1.0, (n, 3)).astype(np.float32), dtype=wp.vec3)
f_out, v_out, g_out = wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec4)
for label, k, v, out in (("dense linear", sample_linear, vol, f_out), ("dense closest", sample_closest, vol, f_out),
                         ("vec3 linear", sample_vec3, vvol, v_out)):
    times[label] = timed(launch(k, n, [v.id, pts, out]))
    results[label] = out.numpy().copy()

# the sphere's narrow band: voxels within 3 of the surface
lim = int(radius) + 4
axis = np.arange(-lim, lim + 1)
band = []
for a in axis:
    b, c = np.meshgrid(axis, axis, indexing="ij")
    d = np.sqrt(a * a + b * b + c * c) - radius
    near = np.abs(d) <= 3.0
    band.append(np.stack([np.full(near.sum(), a), b[near], c[near]], axis=-1))
band = np.concatenate(band).astype(np.int32)
band_wp = wp.array(band, dtype=wp.vec3i)
times["build voxels"] = timed(lambda: wp.Volume.allocate_by_voxels(band_wp, voxel_size=1.0))
tiles_wp = wp.array(np.unique(band // 8 * 8, axis=0).astype(np.int32), dtype=wp.vec3i)
times["build tiles"] = timed(lambda: wp.Volume.allocate_by_tiles(tiles_wp, voxel_size=1.0, bg_value=5.0))
sdf = wp.Volume.allocate_by_tiles(tiles_wp, voxel_size=1.0, bg_value=5.0)
nv = sdf.get_voxel_count()
voxels = sdf.get_voxels(out=wp.empty(nv, dtype=wp.vec3i))
times["store"] = timed(launch(store_sdf, nv, [sdf.id, voxels, radius]))
lk = wp.zeros(nv, dtype=float)
times["lookup"] = timed(launch(lookup, nv, [sdf.id, voxels, lk]))
results["lookup"] = lk.numpy().copy()

# points in the band: random directions at radius +- 2.5
u = rng.normal(size=(n, 3))
u /= np.linalg.norm(u, axis=1, keepdims=True)
bpts = wp.array((u * (radius + rng.uniform(-2.5, 2.5, (n, 1)))).astype(np.float32), dtype=wp.vec3)
for label, k, out in (("sparse linear", sample_linear, f_out), ("sparse closest", sample_closest, f_out),
                      ("sparse grad", sample_grad, g_out)):
    times[label] = timed(launch(k, n, [sdf.id, bpts, out]))
    results[label] = out.numpy().copy()

index = wp.Volume.allocate_by_voxels(band_wp, voxel_size=1.0)
ivox = index.get_voxels().numpy().astype(np.float64)
data = wp.array((np.sqrt((ivox ** 2).sum(axis=1)) - radius).astype(np.float32), dtype=float)
times["index linear"] = timed(launch(sample_index, n, [index.id, bpts, data, f_out]))
results["index linear"] = f_out.numpy().copy()
np.savez(out_path, **{k.replace(" ", "_"): a for k, a in results.items()})
print(json.dumps({"times": times, "voxels": nv, "index voxels": index.get_voxel_count()}))
"""

#: (label, key) per row, in the table's order
ROWS = (
    ("sample_f LINEAR, dense {size}^3", "dense linear"),
    ("sample_f CLOSEST, dense {size}^3", "dense closest"),
    ("sample_f LINEAR, sparse SDF", "sparse linear"),
    ("sample_f CLOSEST, sparse SDF", "sparse closest"),
    ("sample_grad_f LINEAR, sparse SDF", "sparse grad"),
    ("sample_v LINEAR, vec3 {size}^3", "vec3 linear"),
    ("sample_index LINEAR, index grid", "index linear"),
    ("lookup_f, every voxel ({voxels})", "lookup"),
    ("store_f, every voxel ({voxels})", "store"),
    ("load_from_numpy {size}^3", "build numpy"),
    ("allocate_by_voxels ({index_voxels} voxels)", "build voxels"),
    ("allocate_by_tiles ({voxels} voxels)", "build tiles"),
)


def _ratio_cells(base: list, other: list) -> str:
    r = np.array(base) / np.array(other)
    return f"{np.median(r):.2f} ({r.min():.2f}-{r.max():.2f})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warp-python", help="an interpreter with warp-lang installed")
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--radius", type=float, default=115.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args(argv)
    # (name, package, interpreter, threads, which time: 0 CPU, 1 wall)
    sides = [("bw1", "brickwork", sys.executable, "1", 0)]
    if args.warp_python:
        sides.append(("warp", "warp", args.warp_python, "1", 0))
    sides.append(("bw2", "brickwork", sys.executable, "2", 1))
    times = {name: {key: [] for _, key in ROWS} for name, *_ in sides}
    saved = os.environ.get("BRICKWORK_NUM_THREADS")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(args.rounds):
                for name, package, python, threads, which in sides:
                    os.environ["BRICKWORK_NUM_THREADS"] = threads
                    got = run_json(python, _CHILD, [package, args.points, args.size, args.radius, args.reps,
                                                    f"{tmp}/{name}.npz", SRC], f"bench_volume: {name}")
                    if got is None:
                        return 1
                    for _, key in ROWS:
                        times[name][key].append(got["times"][key][which])
            answers = {name: dict(np.load(Path(tmp) / f"{name}.npz")) for name, *_ in sides}
    finally:
        if saved is None:
            os.environ.pop("BRICKWORK_NUM_THREADS", None)
        else:
            os.environ["BRICKWORK_NUM_THREADS"] = saved
    fill = {"size": args.size, "voxels": got["voxels"], "index_voxels": got["index voxels"]}
    warp = "warp" in times
    print(f"wp.Volume on the CPU, {args.points} points (median of {args.rounds} rounds of {args.reps}; "
          f"`python benchmarks/bench_volume.py`)\n")
    print("| row | brickwork 1 thread ms | Warp ms | Warp / brickwork 1 thread | brickwork 2 threads ms | "
          "Warp / brickwork 2 threads | largest difference from Warp |\n|---|---|---|---|---|---|---|")
    for label, key in ROWS:
        one, two = times["bw1"][key], times["bw2"][key]
        cells = [f"{np.median(one) * 1e3:.1f}"]
        if warp:
            w = times["warp"][key]
            cells += [f"{np.median(w) * 1e3:.1f}", _ratio_cells(w, one)]
        else:
            cells += ["-", "-"]
        cells.append(f"{np.median(two) * 1e3:.1f}")
        cells.append(_ratio_cells(times["warp"][key], two) if warp else "-")
        stored = key.replace(" ", "_")
        if warp and stored in answers["bw1"]:
            cells.append(f"{np.abs(answers['bw1'][stored] - answers['warp'][stored]).max():.3g}")
        else:
            cells.append("-")
        print(f"| {label.format(**fill)} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

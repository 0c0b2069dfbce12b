"""Launch overhead of ``la.outer`` over one small block, next to a plain one-array launch.

    python benchmarks/bench_la_launch.py [--launches N] [--rounds R]

Both launch kernels that do almost nothing (an 8x8 interior, 64 cells), so the time per call is
the host path: argument checks, packing and the foreign call. Prints the best round of each in
microseconds per launch.
"""

from __future__ import annotations

import argparse
import time

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

U = VarTag("u")


def make_outer():
    pkg = Package("launch_bench")
    pkg.add_field("u", Metadata("Cell"))
    mesh = Mesh(nx=(8, 8), block_nx=(8, 8), nghost=1, packages=[pkg])
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [U]).get_pack(md)
    space = la.IndexSpace(la.bvoi, la.logical_flat, ninner=la.ij_slab, domain=IndexDomain.interior,
                          nblocks=pack.get_nblocks(), md=md)

    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[U(), idx] = pv[U(), idx] + wp.float64(1.0)

    return lambda: la.outer(space, body)


@wp.kernel
def add_one(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] + wp.float64(1.0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    a = wp.zeros(64, dtype=wp.float64)
    calls = {"la.outer, one 8x8 block": make_outer(), "wp.launch, one array of 64": lambda: wp.launch(add_one, dim=64,
                                                                                                     inputs=[a])}
    best = {}
    for _ in range(args.rounds):  # rounds alternate the two
        for name, call in calls.items():
            call()
            t = time.perf_counter()
            for _ in range(args.launches):
                call()
            us = (time.perf_counter() - t) / args.launches * 1e6
            best[name] = min(best.get(name, us), us)
    for name, us in best.items():
        print(f"{name}: {us:.2f} us per launch (best of {args.rounds} rounds of {args.launches})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

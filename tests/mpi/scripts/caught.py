"""Run under mpiexec -n 2: a collective call that fails on rank 1 alone raises on every rank, and a program that
catches the error goes on with every rank (before, rank 0 waited for rank 1 for ever). Rank 1 raises its own
error, rank 0 an ``OtherRankError`` naming it. ``argv[1]`` "caught": three such calls, each caught, each followed
by a right call whose values are checked; "uncaught": a reduction that fails on rank 1, caught nowhere."""

import sys

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

pkg = Package("p")
pkg.add_field("q", Metadata("Cell", "FillGhost"), dtype=np.float64)
plane = Mesh((32, 16), (8, 4), nghost=1, packages=[pkg])
rank = plane.rank
plane.data("q")[...] = 1.0
md = plane.mesh_data()
q = VarTag("q")
pack = PackDescriptor(plane, [q]).get_pack(md)
cells = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior, md=md,
                      nblocks=pack.get_nblocks()).with_reducer(la.Sum(wp.float64))


def fold_q(rng, b):
    v = la.make_pack_view(rng, pack)
    la.inner_reduce(rng, lambda idx: v[q(), idx])


def say(text: str) -> None:
    sys.stdout.write(f"rank {rank} {text}\n")
    sys.stdout.flush()


# rank 1 passes an out array of another dtype than the reducer's: a LaunchError there
out = wp.zeros(1, dtype=wp.float64 if rank == 0 else wp.float32)
if sys.argv[1] == "uncaught":
    la.outer_reduce(cells, fold_q, out=out)
    say("unreachable")
try:
    la.outer_reduce(cells, fold_q, out=out)
    say("reduce: no error")
except Exception as e:  # noqa: BLE001 - the test reads the type
    say(f"reduce: {type(e).__name__}: {e}")
say(f"sum {la.outer_reduce(cells, fold_q)}")

# a mesh that rank 1 alone refuses (its nx is not a multiple of the block)
try:
    Mesh((16,) if rank == 0 else (15,), (4,), nghost=1, packages=[pkg])
    say("mesh: no error")
except Exception as e:  # noqa: BLE001
    say(f"mesh: {type(e).__name__}: {e}")

# a user boundary function that raises on rank 1 alone (it holds the block of the outer x1 side)
broken = [True]


def copy_nearest(block, view, side):
    if side == IndexDomain.outer_x1:
        if broken[0]:
            raise ZeroDivisionError("the outer side's function failed")
        view[..., -1] = view[..., -2]
    else:
        view[..., 0] = view[..., 1]


line = Mesh((16,), (4,), nghost=1, packages=[pkg], boundaries={"x1": copy_nearest})
for block in line.blocks:
    line.data("q")[block.lid, 0, 0, 0, 1:-1] = np.arange(4 * block.gid, 4 * block.gid + 4)
try:
    line.fill_ghosts()
    say("fill_ghosts: no error")
except Exception as e:  # noqa: BLE001
    say(f"fill_ghosts: {type(e).__name__}: {e}")
broken[0] = False
line.fill_ghosts()
for block in line.blocks:
    got = line.data("q")[block.lid, 0, 0, 0]
    want = np.arange(4 * block.gid - 1, 4 * block.gid + 5).clip(0, 15)
    say(f"block {block.gid} ghosts {'right' if np.array_equal(got, want) else f'wrong: {got} for {want}'}")

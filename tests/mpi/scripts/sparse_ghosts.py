"""Run under mpiexec (1, 2 or 4 ranks): a sparse instance allocated on some blocks only gets the same ghosts
and the same ghost-exchange gradients on every rank count, also where a rank holds none of its allocated blocks.

In one process a block without the instance holds zeros but still takes part in the exchange: it gets
ghosts in the x1 sweep and passes them on as the edge and corner ghosts of the later sweeps. On several ranks
a rank holding none of the allocated blocks must relay them alike. Each case fills every block's array with
random values (also the blocks without the instance: the exchange must read those as zeros), fills the
ghosts, and compares each rank's blocks with a one-process mesh (``comm=SERIAL``) bit for bit, and with an
np.pad reference where every side is periodic; then the same for the adjoint of ``fill_ghosts`` (small
integers: every sum is exact). The allocations are chosen so that on 2 and on 4 ranks some rank holds none.
"""

import sys

import numpy as np

import brickwork as wp
from brickwork import comm as C
from brickwork.mesh import Mesh, Metadata, Package

world = C.world()
rank, size = world.Get_rank(), world.Get_size()


def user_x1(block, view, side, field):
    """A user inner_x1 side: the ghosts name the block, so a relayed value is recognisable."""
    view[..., : block.mesh.nghost] = 10.0 * (block.gid + 1)


# (nx, block_nx, nghost, boundaries, gids where s_1 is allocated)
CASES = [
    # 3 x 2 blocks; 4 ranks own [0, 1, 3, 1, 2, 3]: rank 1 holds only unallocated blocks 1 and 3
    ((24, 16), (8, 8), 2, "periodic", {0, 2, 4}),
    # 2 ranks own [0, 0, 1, 0, 1, 1]: rank 1 holds only unallocated blocks; block 4 relays block 3 to 1's corner
    ((24, 16), (8, 8), 2, "periodic", {0, 1, 3}),
    # 2 x 4 blocks, x1 walls with a user function: block 4 (rank 1 of 2, rank 2 of 4, no allocated block)
    # gets the user function's x1 ghosts that block 2's corners take from it
    ((16, 32), (8, 8), 2, {"inner_x1": user_x1, "outer_x1": "outflow", "x2": "periodic"}, {0, 1, 2, 3}),
    # 2 x 2 x 2 blocks: block 0's corner (1, 1, 1) comes from block 7 through blocks 6 and 4 (ranks 3 and 2 of 4)
    ((8, 8, 8), (4, 4, 4), 2, "periodic", {0, 7}),
]


def package():
    pkg = Package("p")
    pkg.add_field("s", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[1, 2])  # s_2: allocated nowhere
    return pkg


def build(case, comm):
    nx, bnx, ng, bcs, gids = case
    mesh = Mesh(nx, bnx, nghost=ng, boundaries=bcs, packages=[package()], comm=comm)
    for b in mesh.blocks:
        if b.gid in gids:
            mesh.allocate_sparse(b, "s", 1)
    fld = mesh.field("s_1")
    every = np.random.default_rng(3).integers(-50, 50, size=(len(mesh.block_list), 1, *fld.extents)) + 0.0
    if fld.data is not None:
        fld.data[...] = mesh.local_part(every)  # values in the blocks without s_1 too: read as zeros
    return mesh, every


def padded(mesh, every, gids):
    """Every block's array with its ghosts as np.pad (wrap) of the global array with zeros off ``gids``."""
    ng, ndim = mesh.nghost, mesh.ndim
    nb = mesh.nblocks_per_dim[:ndim][::-1]  # (nb3, nb2, nb1) of the active directions
    bn = mesh.block_nx[:ndim][::-1]
    inner = tuple(slice(ng, ng + n) for n in bn)
    glob = np.zeros([a * n for a, n in zip(nb, bn)])
    for b in mesh.block_list:
        if b.gid in gids:
            at = tuple(slice(loc * n, (loc + 1) * n) for loc, n in zip(b.location[:ndim][::-1], bn))
            glob[at] = every[b.gid][(0,) + (0,) * (3 - ndim) + inner]
    glob = np.pad(glob, ng, mode="wrap")
    out = np.zeros_like(every)
    for b in mesh.block_list:
        at = tuple(slice(loc * n, (loc + 1) * n + 2 * ng) for loc, n in zip(b.location[:ndim][::-1], bn))
        out[b.gid][(0,) + (0,) * (3 - ndim)] = glob[at] if b.gid in gids else 0.0
    return out


def ghosts(case, comm):
    mesh, every = build(case, comm)
    mesh.fill_ghosts()
    return mesh, every


def gradients(case, comm):
    mesh, _ = build(case, comm)
    fld = mesh.field("s_1")
    y = np.random.default_rng(4).integers(-8, 9, size=(len(mesh.block_list), 1, *fld.extents)) + 0.0
    with wp.Tape() as tape:
        mesh.fill_ghosts()
    if fld.data is not None:
        fld.grad[...] = mesh.local_part(y)
    tape.backward()
    return mesh


def blocks_of(mesh):
    """Each local block's array of s_1 by gid (zeros where this rank holds no array for it)."""
    fld = mesh.field("s_1")
    return {b.gid: (np.zeros((1, *fld.extents)) if fld.data is None else fld.data[b.lid]) for b in mesh.blocks}


checked = 0
for case in CASES:
    dist, every = ghosts(case, None)
    ref, _ = ghosts(case, C.SERIAL)
    want = padded(ref, every, case[4]) if case[3] == "periodic" else None
    if want is not None:
        np.testing.assert_array_equal(ref.data("s_1"), want, err_msg=f"one process vs np.pad, case {case[:2]}")
    assert dist.field("s_2").data is None
    if dist.field("s_1").data is None:  # this rank holds none of the allocated blocks: it says so
        try:
            dist.data("s_1")
        except ValueError as e:
            assert f"not allocated on any block of rank {rank} (of {size})" in str(e), e
        else:
            raise AssertionError("mesh.data of an instance this rank does not store")
    for gid, got in blocks_of(dist).items():
        if not np.array_equal(got, ref.data("s_1")[gid]):
            bad = np.argwhere(got != ref.data("s_1")[gid])[:3].tolist()
            raise AssertionError(f"rank {rank}: case {case[:2]} block {gid} ghosts differ at {bad}")
        checked += 1
    if not isinstance(case[3], str):
        continue  # a user boundary function has no adjoint
    dist, ref = gradients(case, None), gradients(case, C.SERIAL)
    if dist.field("s_1").data is None:
        continue
    for b in dist.blocks:
        got, want = dist.field("s_1").grad[b.lid], ref.field("s_1").grad[b.gid]
        if not np.array_equal(got, want):
            bad = np.argwhere(got != want)[:3].tolist()
            raise AssertionError(f"rank {rank}: case {case[:2]} block {b.gid} gradients differ at {bad}")
        checked += 1
print(f"rank {rank} of {size}: {checked} sparse blocks equal", flush=True)
sys.exit(0)

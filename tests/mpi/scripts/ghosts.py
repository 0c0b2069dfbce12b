"""Run under mpiexec: every ghost-exchange case on the distributed mesh equals a one-process mesh.

Each rank builds the case twice, distributed (``comm=None``: COMM_WORLD) and in one process
(``comm=SERIAL``), fills the interiors with the same values by global block id, fills the ghosts,
and compares its blocks with the same blocks of the one-process mesh (ghosts included).
"""

import sys

import numpy as np

from brickwork import comm as C
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package

world = C.world()
rank, size = world.Get_rank(), world.Get_size()


def package():
    pkg = Package("p")
    pkg.add_field("cs", Metadata("Cell", "FillGhost"), dtype=np.float64)
    pkg.add_field("cv", Metadata("Cell", "FillGhost", "Vector"), shape=(3,), dtype=np.float32)
    pkg.add_field("fv", Metadata("Face", "FillGhost", "Vector"), shape=(2,))
    pkg.add_field("fa", Metadata("Face", "FillGhost", "CellMemAligned"))
    pkg.add_field("ed", Metadata("Edge", "FillGhost"), dtype=np.int32)
    pkg.add_field("nd", Metadata("Node", "FillGhost"))
    pkg.add_field("sp", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[1, 4])
    pkg.add_field("nofill", Metadata("Cell"))
    return pkg


def user_x2(block, view, side, field):
    ng = block.mesh.nghost
    value = 100.0 * block.gid + (1 if side == IndexDomain.inner_x2 else 2)
    if side == IndexDomain.inner_x2:
        view[:, :, :ng, :] = value
    else:
        view[:, :, view.shape[2] - ng:, :] = value


def build(case, comm):
    nx, bnx, ng, bcs = case
    mesh = Mesh(nx, bnx, nghost=ng, boundaries=bcs, packages=[package()], comm=comm)
    nblocks = len(mesh.block_list)
    # sparse instances: id 1 on even blocks, id 4 nowhere (unallocated on every rank)
    for b in mesh.blocks:
        if b.gid % 2 == 0:
            mesh.allocate_sparse(b, "sp", 1)
    rng = np.random.default_rng(7)
    for name, fld in mesh.fields.items():
        shape = (nblocks, *(fld.spec.nslots,), *fld.extents)
        full = (rng.standard_normal(shape) * 100).astype(fld.spec.dtype)
        if fld.data is None:
            continue
        for b in mesh.blocks:
            if fld.allocated[b.lid]:
                fld.data[b.lid] = full[b.gid]
    mesh.fill_ghosts()
    return mesh


CASES = [
    ((32,), (8,), 2, "periodic"),
    ((32,), (4,), 3, {"inner_x1": "reflecting", "outer_x1": "outflow"}),
    ((16, 16), (4, 4), 2, "periodic"),
    ((16, 8), (4, 4), 2, {"x1": "periodic", "inner_x2": "reflecting", "outer_x2": "outflow"}),
    ((16, 16), (8, 4), 1, {"x1": "outflow", "x2": user_x2}),
    ((8, 8, 8), (4, 4, 4), 2, "periodic"),
    ((8, 8, 8), (4, 4, 4), 2, {"x1": "reflecting", "x2": "periodic", "x3": "outflow"}),
]

checked = 0
for case in CASES:
    dist = build(case, None)
    ref = build(case, C.SERIAL)
    assert dist.nranks == size and len(dist.blocks) < len(dist.block_list) or size == 1
    for name, fld in dist.fields.items():
        mine = fld.data
        theirs = ref.fields[name].data
        if mine is None and theirs is None:  # allocated nowhere
            continue
        for b in dist.blocks:
            got = np.zeros_like(theirs[0]) if mine is None else mine[b.lid]
            want = theirs[b.gid] if theirs is not None else np.zeros_like(got)
            if not np.array_equal(got, want):
                bad = np.argwhere(got != want)[:3].tolist()
                raise AssertionError(f"rank {rank}: case {case[:3]} field {name} block {b.gid} differs at {bad}")
            checked += 1
print(f"rank {rank} of {size}: {checked} block fields equal", flush=True)
sys.exit(0)

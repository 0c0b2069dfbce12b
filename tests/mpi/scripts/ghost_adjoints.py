"""Run under mpiexec: the adjoint of the ghost exchange between ranks equals the one-process adjoint.

For every case (periodic, outflow and reflecting sides; cell, vector, face, edge, node and sparse
fields; 1-D, 2-D, 3-D) each rank records ``fill_ghosts`` on a ``wp.Tape`` twice, on the distributed
mesh and on a one-process mesh (``comm=SERIAL``), sets the same gradient of the filled state on both,
runs the backward pass and compares its blocks' gradients with the same blocks of the one-process
mesh, bit for bit (the values are small integers: every sum is exact). On the one-process mesh it
also checks the transposition itself: ``<y, G x> == <G^T y, x>``.
"""

import sys

import numpy as np

import brickwork as wp
from brickwork import comm as C
from brickwork.mesh import Mesh, Metadata, Package

world = C.world()
rank, size = world.Get_rank(), world.Get_size()


def package():
    pkg = Package("p")
    pkg.add_field("cs", Metadata("Cell", "FillGhost"), dtype=np.float64)
    pkg.add_field("cv", Metadata("Cell", "FillGhost", "Vector"), shape=(3,), dtype=np.float32)
    pkg.add_field("fv", Metadata("Face", "FillGhost", "Vector"), shape=(2,))
    pkg.add_field("ed", Metadata("Edge", "FillGhost"))
    pkg.add_field("nd", Metadata("Node", "FillGhost"))
    pkg.add_field("sp", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[1, 4])
    return pkg


def integers(mesh, seed, state=True):
    """Small integers for every field and every block (ghosts included), drawn alike on every rank count; a
    ``state`` holds zeros where a sparse instance is not allocated, a gradient need not."""
    rng = np.random.default_rng(seed)
    values = {}
    for name, fld in sorted(mesh.fields.items()):
        every = rng.integers(-8, 9, size=(len(mesh.block_list), fld.spec.nslots, *fld.extents))
        if fld.data is not None:
            values[name] = np.stack([every[b.gid] for b in mesh.blocks]).astype(fld.spec.dtype)
            if state:
                values[name][~fld.allocated] = 0
    return values


def adjoint(case, comm):
    """(mesh, x, G x, y, G^T y) of the case's exchange on a mesh over ``comm``."""
    nx, bnx, ng, bcs = case
    mesh = Mesh(nx, bnx, nghost=ng, boundaries=bcs, packages=[package()], comm=comm)
    for b in mesh.blocks:  # sparse instance 1 on even blocks, 4 nowhere
        if b.gid % 2 == 0:
            mesh.allocate_sparse(b, "sp", 1)
    x, y = integers(mesh, 7), integers(mesh, 8, state=False)
    for name, v in x.items():
        mesh.data(name)[...] = v
    with wp.Tape() as tape:
        mesh.fill_ghosts()
    gx = {name: mesh.data(name).copy() for name in x}
    for name, v in y.items():
        mesh.field(name).grad[...] = v
    tape.backward()
    gty = {name: mesh.field(name).grad.copy() for name in y}
    return mesh, x, gx, y, gty


CASES = [
    ((32,), (8,), 2, "periodic"),
    ((32,), (4,), 3, {"inner_x1": "reflecting", "outer_x1": "outflow"}),
    ((16, 16), (4, 4), 2, "periodic"),
    ((16, 8), (4, 4), 2, {"x1": "periodic", "inner_x2": "reflecting", "outer_x2": "outflow"}),
    ((8, 8, 8), (4, 4, 4), 2, "periodic"),
    ((8, 8, 8), (4, 4, 4), 2, {"x1": "reflecting", "x2": "periodic", "x3": "outflow"}),
]

checked = 0
for case in CASES:
    dist, _, _, _, dist_gty = adjoint(case, None)
    ref, x, gx, y, gty = adjoint(case, C.SERIAL)
    dot_y_gx = sum(float((y[n].astype(np.float64) * gx[n]).sum()) for n in x)
    dot_gty_x = sum(float((gty[n].astype(np.float64) * x[n]).sum()) for n in x)
    assert dot_y_gx == dot_gty_x, (case[:3], dot_y_gx, dot_gty_x)
    for name, got in dist_gty.items():
        for b in dist.blocks:
            want = gty[name][ref.blocks[b.gid].lid]
            if not np.array_equal(got[b.lid], want):
                bad = np.argwhere(got[b.lid] != want)[:3].tolist()
                raise AssertionError(f"rank {rank}: case {case[:3]} field {name} block {b.gid} differs at {bad}")
            checked += 1
print(f"rank {rank} of {size}: {checked} block gradients equal", flush=True)
sys.exit(0)

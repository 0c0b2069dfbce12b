"""Run under mpiexec -n 2: ``mesh.gather_blocks`` called with a different root, block shape, dtype or number of
blocks on each rank, or a root that is no rank. Each is a ValueError on every rank, and a right call works after
them. Before: a different root hung both ranks, a root out of range was MPI's raw error, a wrong length on one rank
raised there alone (the other waited for ever), another shape failed on rank 0 only, another dtype was cast; a root out of range on rank 1 alone raised there
alone."""

import sys

import numpy as np

from brickwork.mesh import Mesh, Metadata, Package

pkg = Package("p")
pkg.add_field("q", Metadata("Cell"))
mesh = Mesh((16,), (8,), nghost=1, packages=[pkg])
mesh.data("q")[...] = 1.0 + mesh.rank
local = np.asarray(mesh.data("q"))
cases = {
    "root": lambda: mesh.gather_blocks(local, root=mesh.rank),
    "range": lambda: mesh.gather_blocks(local, root=2),
    "range on rank 1": lambda: mesh.gather_blocks(local, root=2 if mesh.rank else np.int64(0)),
    "shape": lambda: mesh.gather_blocks(local[..., : 4 + mesh.rank]),
    "dtype": lambda: mesh.gather_blocks(local.astype(np.float32) if mesh.rank else local),
    "length": lambda: mesh.gather_blocks(local[:0] if mesh.rank else local),
}
for name, call in cases.items():
    try:
        call()
        sys.stdout.write(f"rank {mesh.rank} {name}: no error\n")
    except ValueError as e:
        sys.stdout.write(f"rank {mesh.rank} {name}: {e}\n")
whole = mesh.gather_blocks(local)
if mesh.rank == 0:
    sys.stdout.write(f"gathered {whole[:, 0, 0, 0, 1].tolist()}\n")

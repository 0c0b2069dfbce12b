"""Run under mpiexec (any number of ranks): ``mesh.gather_blocks`` gives rank 0 a new array, on one rank as on
several, so what it gathered does not change with the field."""

import sys

import numpy as np

from brickwork.mesh import Mesh, Metadata, Package

pkg = Package("p")
pkg.add_field("q", Metadata("Cell"))
mesh = Mesh((16,), (8,), nghost=1, packages=[pkg])
mesh.data("q")[...] = 1.0
snapshot = mesh.gather_blocks(mesh.data("q"))
mesh.data("q")[...] = 2.0  # the run goes on
if mesh.rank == 0:
    assert snapshot.shape == (2, *mesh.data("q").shape[1:])
    assert not np.shares_memory(snapshot, mesh.data("q"))
    sys.stdout.write(f"gathered {np.unique(snapshot).tolist()}\n")

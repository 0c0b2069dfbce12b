"""Run under mpiexec, each rank in a folder of its own (``-wdir``), to give the ranks different files under one
path. ``save VALUE`` (one rank) writes ``r.npz``: q = VALUE on every block, the sparse instance sp_1 allocated
on every block, meta {"q": VALUE}. ``load`` sets q to -1 and loads ``r.npz``: it prints what each rank got, and
after a ``RestartError`` checks that nothing changed (q still -1, sp_1 allocated nowhere)."""

import sys

import numpy as np

from brickwork.io.restart import RestartError
from brickwork.mesh import Mesh, Metadata, Package

pkg = Package("p")
pkg.add_field("q", Metadata("Cell", "FillGhost"))
pkg.add_field("sp", Metadata("Cell", "Sparse"), sparse_ids=[1])
mesh = Mesh((16,), (8,), nghost=1, packages=[pkg], boundaries="periodic")

if sys.argv[1] == "save":
    value = float(sys.argv[2])
    mesh.data("q")[...] = value
    for block in mesh.blocks:
        mesh.allocate_sparse(block, "sp", 1)
    mesh.save_restart("r.npz", {"q": value})
else:
    mesh.data("q")[...] = -1.0
    try:
        meta = mesh.load_restart("r.npz")
    except RestartError as e:
        assert (mesh.data("q") == -1.0).all()
        assert not any(mesh.is_allocated(b, "sp", 1) for b in mesh.blocks)
        line = f"rank {mesh.rank} unchanged after RestartError: {e}\n"
    else:
        line = f"rank {mesh.rank} loaded {meta} q={np.unique(mesh.data('q')).tolist()}\n"
    sys.stdout.write(line)  # one write: lines of the ranks may interleave
    sys.stdout.flush()

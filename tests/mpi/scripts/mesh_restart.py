"""Run under mpiexec: ``save PATH`` fills a mesh by global block id and saves a restart file; ``load PATH``
builds the same mesh (on any number of ranks), loads the file and checks its own blocks (ghosts, a face
field, a sparse instance allocated on the blocks of even id)."""

import sys

import numpy as np

from brickwork.mesh import Mesh, Metadata, Package

mode, path = sys.argv[1], sys.argv[2]
pkg = Package("p")
pkg.add_field("q", Metadata("Cell", "FillGhost"))
pkg.add_field("f", Metadata("Face"), dtype=np.float32)
pkg.add_field("sp", Metadata("Cell", "Sparse"), sparse_ids=[3])
mesh = Mesh((16, 8), (4, 4), nghost=2, packages=[pkg])


def expected(name, gid):
    shape = mesh.data(name).shape[1:]
    return (1000.0 * gid + np.arange(np.prod(shape)).reshape(shape)).astype(mesh.data(name).dtype)


if mode == "save":
    for block in mesh.blocks:
        for name in ("q", "f"):
            mesh.data(name)[block.lid] = expected(name, block.gid)
        if block.gid % 2 == 0:
            mesh.allocate_sparse(block, "sp", 3)
            mesh.data("sp_3")[block.lid] = -block.gid - 1.0
    mesh.save_restart(path, {"cycle": 9})
else:
    assert mesh.load_restart(path) == {"cycle": 9}
    for block in mesh.blocks:
        for name in ("q", "f"):
            np.testing.assert_array_equal(mesh.data(name)[block.lid], expected(name, block.gid))
        assert mesh.is_allocated(block, "sp", 3) == (block.gid % 2 == 0)
        if block.gid % 2 == 0:
            assert (mesh.data("sp_3")[block.lid] == -block.gid - 1.0).all()
    sys.stdout.write(f"rank {mesh.rank} restored {len(mesh.blocks)} blocks\n")  # one write: lines may interleave
    sys.stdout.flush()

"""Run under mpiexec: ``Mesh.write_output`` of a distributed mesh into argv[1] (a path stem), and
``Mesh.write_vtk`` into argv[1] + "_vtk" (listed in the collection argv[1] + ".pvd").

The interiors are filled by global block id and cell (the same values on any number of ranks), a sparse
instance is allocated on the blocks of even id only, and every rank prints the paths it got back; rank 0
saves ``mesh.global_array("v")`` next to them.
"""

import sys

import numpy as np

from brickwork.mesh import Mesh, Metadata, Package

pkg = Package("p")
pkg.add_field("q", Metadata("Cell"), dtype=np.float64)
pkg.add_field("v", Metadata("Cell"), shape=(3,), dtype=np.float32)
pkg.add_field("sp", Metadata("Cell", "Sparse"), sparse_ids=[2])
mesh = Mesh((16, 8), (4, 4), nghost=1, packages=[pkg], xmin=(-1.0, 0.0), xmax=(1.0, 0.5))
for block in mesh.blocks:
    cells = np.arange(mesh.data("q")[block.lid, 0].size, dtype=np.float64).reshape(mesh.data("q")[block.lid, 0].shape)
    mesh.data("q")[block.lid, 0] = 1000.0 * block.gid + cells
    mesh.data("v")[block.lid] = np.arange(3)[:, None, None, None] + block.gid
    if block.gid % 2 == 0:
        mesh.allocate_sparse(block, "sp", 2)
        mesh.data("sp_2")[block.lid] = -block.gid - 1.0
paths = mesh.write_output(sys.argv[1], time=1.5, cycle=12)
whole = mesh.global_array("v")  # collective: rank 0 gets the array, the others None
assert (whole is None) == (mesh.rank != 0)
if mesh.rank == 0:
    np.save(sys.argv[1] + ".v.npy", whole)
vtm = mesh.write_vtk(sys.argv[1] + "_vtk", time=1.5, cycle=12, collection=sys.argv[1] + ".pvd")
sys.stdout.write(f"rank {mesh.rank} wrote {paths} and {vtm}\n")  # one write: the ranks' lines may interleave otherwise
sys.stdout.flush()

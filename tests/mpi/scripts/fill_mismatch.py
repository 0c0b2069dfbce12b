"""Run under mpiexec -n 2 in debug mode: rank 0 fills the ghosts of "a", rank 1 those of "b" (same shapes).
Debug mode compares the fields across the ranks first: a ValueError on every rank, no ghost changed (in
release mode the ranks would swap the two fields' data). Then rank 1 names a field the mesh lacks: its KeyError,
and an OtherRankError on rank 0 (which waited for rank 1 for ever before)."""

import sys

import numpy as np

import brickwork as wp
from brickwork.mesh import Mesh, Metadata, Package

wp.config.mode = "debug"
pkg = Package("p")
pkg.add_field("a", Metadata("Cell", "FillGhost"))
pkg.add_field("b", Metadata("Cell", "FillGhost"))
mesh = Mesh((16,), (8,), nghost=1, packages=[pkg], boundaries="periodic")
mesh.data("a")[...] = 1.0 + mesh.rank
mesh.data("b")[...] = 100.0 + mesh.rank
try:
    mesh.fill_ghosts("a" if mesh.rank == 0 else "b")
except ValueError as e:
    unchanged = bool(np.all(mesh.data("a") == 1.0 + mesh.rank) and np.all(mesh.data("b") == 100.0 + mesh.rank))
    sys.stdout.write(f"rank {mesh.rank}: {e} | unchanged {unchanged}\n")
try:
    mesh.fill_ghosts("a" if mesh.rank == 0 else "c")
except (KeyError, wp.errors.BrickworkError) as e:
    sys.stdout.write(f"rank {mesh.rank}: {type(e).__name__}: {e}\n")

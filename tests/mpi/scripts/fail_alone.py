"""Run under mpiexec: rank 1 alone goes wrong (argv[1] says how); every rank must end within moments.

``early``: rank 1 raises before the program's first MPI call, while rank 0 builds a mesh (collective);
``interrupt``: rank 1 raises KeyboardInterrupt while rank 0 waits for its ghost messages;
``mesh``: rank 1 builds a mesh of another size, which is an error on every rank.
"""

import os
import sys

import numpy as np

from brickwork.mesh import Mesh, Metadata, Package

how = sys.argv[1]
rank = int(os.environ.get("PMI_RANK", "0"))
if how == "early" and rank == 1:
    raise FileNotFoundError("an input file that only rank 1 cannot read")
pkg = Package("p")
pkg.add_field("q", Metadata("Cell", "FillGhost"), dtype=np.float64)
mesh = Mesh((32,) if how == "mesh" and rank == 1 else (16,), (4,), nghost=1, packages=[pkg])
if how == "interrupt" and rank == 1:
    raise KeyboardInterrupt
mesh.fill_ghosts()  # rank 1's messages never come
print("unreachable: rank", mesh.rank, flush=True)

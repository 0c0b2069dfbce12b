"""Run under mpiexec: rank 1 raises while rank 0 waits for its ghost messages; every rank must end."""

import numpy as np

from brickwork import comm as C
from brickwork.mesh import Mesh, Metadata, Package

pkg = Package("p")
pkg.add_field("q", Metadata("Cell", "FillGhost"), dtype=np.float64)
mesh = Mesh((16,), (4,), nghost=1, packages=[pkg])
if C.world().Get_rank() == 1:
    raise RuntimeError("deliberate failure on rank 1")
mesh.fill_ghosts()  # rank 1's messages never come
mesh.fill_ghosts()
print("unreachable: rank", mesh.rank, flush=True)

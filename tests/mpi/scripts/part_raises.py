"""Run under mpiexec: making a part of the blocks (a field's host copy) raises on one rank (``argv[2]``), as a
device copy or an allocation may on one rank only, in ``save_restart`` and in ``write_output``. Every rank
catches what it gets (and its cause), and rank 0 prints what they got. Before, the other ranks waited for that rank's blocks
(or rank 0 for them) for ever."""

import sys

import numpy as np

from brickwork import comm as C
from brickwork.mesh import Mesh, Metadata, Package, checkpoint, output

failing = int(sys.argv[2])
pkg = Package("p")
pkg.add_field("q", Metadata("Cell"), dtype=np.float64)
pkg.add_field("r", Metadata("Cell"), dtype=np.float32)
mesh = Mesh((8, 8), (4, 4), nghost=1, packages=[pkg])
real_storage, real_values = checkpoint.host_storage, output._FieldValues.__call__


def host_storage(mesh, field):
    if mesh.rank == failing and field.spec.name == "r":  # the second part: the first was sent already
        raise MemoryError("no memory for the host copy")
    return real_storage(mesh, field)


def values(self, name):
    if mesh.rank == failing and name == "r":
        raise MemoryError("no memory for the host copy")
    return real_values(self, name)


checkpoint.host_storage, output._FieldValues.__call__ = host_storage, values
got = []
for call in (lambda: mesh.save_restart(sys.argv[1] + "/r.npz"), lambda: mesh.write_output(sys.argv[1] + "/o")):
    try:
        call()
        got.append(f"rank {mesh.rank}: returned")
    except Exception as e:  # noqa: BLE001 - what each rank gets is what is checked
        cause = f" (caused by {type(e.__cause__).__name__})" if e.__cause__ is not None else ""
        got.append(f"rank {mesh.rank}: {type(e).__name__}: {e}{cause}")
every = C.world().gather(got, root=0)  # rank 0 prints all: lines of several ranks would interleave
if mesh.rank == 0:
    print("\n".join(line for lines in every for line in lines), flush=True)

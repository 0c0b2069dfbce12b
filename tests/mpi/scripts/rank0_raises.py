"""Run under mpiexec: rank 0's writer raises something other than an ``OutputError`` (here the
UnicodeEncodeError h5py raised for a name with a lone surrogate) in ``write_output`` and in
``save_restart``, after taking a few of the blocks the other ranks send it (the rest must still be received);
every rank catches what it gets, and rank 0 prints what they got. Before, only an OutputError reached the
other ranks, which waited for rank 0 for ever."""

import sys

import numpy as np

from brickwork import comm as C
from brickwork.io import block_restart, hdf5
from brickwork.mesh import Mesh, Metadata, Package


def fail(*args, **kwargs):
    blocks = args[-1]  # the blocks, in order, as the ranks send them
    for _ in range(3):
        next(blocks)
    raise UnicodeEncodeError("utf-8", "bad\ud800", 3, 4, "surrogates not allowed")


hdf5.write_blocks = block_restart.save = fail  # only rank 0 writes
pkg = Package("p")
pkg.add_field("q", Metadata("Cell"), dtype=np.float64)
mesh = Mesh((8, 8), (4, 4), nghost=1, packages=[pkg])
got = []
for call in (lambda: mesh.write_output(sys.argv[1] + "/o"), lambda: mesh.save_restart(sys.argv[1] + "/r.npz")):
    try:
        call()
        got.append(f"rank {mesh.rank}: returned")
    except Exception as e:  # noqa: BLE001 - what each rank gets is what is checked
        got.append(f"rank {mesh.rank}: {type(e).__name__}: {e}")
every = C.world().gather(got, root=0)  # rank 0 prints all: lines of several ranks would interleave
if mesh.rank == 0:
    print("\n".join(line for lines in every for line in lines), flush=True)

"""Run under mpiexec: ``load_restart`` where reading a block fails on one rank (``argv[2]``) while checking the
blocks (``argv[3]``: "io", an I/O error of the file system; "memory", a ``MemoryError``) or while reading them
into the fields ("fill": a ``RestartError``, the file changed in place after the check). Every rank catches what it gets and says whether its fields changed; rank 0 prints the
lines. Before, the other ranks went on (or waited in a collective) while that rank raised."""

import errno
import sys

import numpy as np

from brickwork import comm as C
from brickwork.io import block_restart
from brickwork.io.restart import RestartError
from brickwork.mesh import Mesh, Metadata, Package

path, failing, when = sys.argv[1], int(sys.argv[2]), sys.argv[3]
pkg = Package("p")
pkg.add_field("q", Metadata("Cell"), dtype=np.float64)
mesh = Mesh((8, 8), (4, 4), nghost=1, packages=[pkg])
mesh.data("q")[...] = mesh.rank + 1.0
mesh.save_restart(path)
mesh.data("q")[...] = -1.0
reads, real = [], block_restart.BlockFile.read


class Failing:
    """The restart file, whose reads fail as a disk's do."""

    def __init__(self, f):
        self.f = f

    def seek(self, offset):
        return self.f.seek(offset)

    def readinto(self, view):
        raise OSError(errno.EIO, "Input/output error")

    def close(self):
        self.f.close()


def read(self, name, gid, out=None):
    reads.append(gid)
    # each block is read twice: checked, then into the field
    if mesh.rank == failing and (when != "fill" or len(reads) > len(mesh.blocks)):
        if when == "io":
            self._f = Failing(self._f)
        elif when == "memory":
            raise MemoryError("no memory for the block")
        else:
            raise RestartError(f"restart file {path!r} is corrupt: block {gid} of its array 'q' does not match its "
                           f"checksum")
    return real(self, name, gid, out)


block_restart.BlockFile.read = read
try:
    mesh.load_restart(path)
    got = f"rank {mesh.rank}: loaded"
except Exception as e:  # noqa: BLE001 - what each rank gets is what is checked
    cause = f" (caused by {type(e.__cause__).__name__})" if e.__cause__ is not None else ""
    got = f"rank {mesh.rank}: {type(e).__name__}: {e}{cause}"
got += f" (fields unchanged: {bool((mesh.data('q') == -1.0).all())})"
every = C.world().gather(got, root=0)
if mesh.rank == 0:
    print("\n".join(every), flush=True)

"""Run under mpiexec: restart files of a mesh read a block at a time.

``save PATH``: fills a 2-D mesh of 16 blocks (about 40 kB each) by global block id (a cell field with ghosts, a float32 face
field, an int64 node field, a sparse instance allocated on the blocks of even id) and saves it.
``old PATH`` (one rank): writes the same state in the second format (one checksum over the whole file), as
``save_restart`` wrote it before.
``load PATH``: sets every field to -1, loads the file and checks its own blocks bit for bit; counts what
it reads (``BlockFile.read``: which blocks of which array, and the bytes the process read from files),
checks that it read its own blocks only and prints ``rank R read own blocks ...``.
``memory PATH``: the peak of the memory Python and numpy allocate (``tracemalloc``) in ``save_restart``,
``write_output`` (to ``PATH.out``) and ``load_restart``, beside the bytes of the whole mesh's fields; prints
``rank R peaks ...``.
``refuse PATH``: sets every field to -1, expects a ``RestartError`` and checks that nothing changed; prints
``rank R unchanged after RestartError: MESSAGE``.
"""

import sys
import tracemalloc

import numpy as np

from brickwork.io import block_restart, restart
from brickwork.io.restart import RestartError
from brickwork.mesh import Mesh, Metadata, Package
from brickwork.mesh.checkpoint import _described  # imported here: not while reads are counted

mode, path = sys.argv[1], sys.argv[2]
pkg = Package("p")
pkg.add_field("q", Metadata("Cell", "FillGhost"))
pkg.add_field("f", Metadata("Face"), dtype=np.float32)
pkg.add_field("n", Metadata("Node"), dtype=np.int64)
pkg.add_field("sp", Metadata("Cell", "Sparse"), sparse_ids=[3])
mesh = Mesh((128, 128), (32, 32), nghost=2, packages=[pkg])
DENSE = ("q", "f", "n")


def expected(name, gid):
    shape = mesh.data(name).shape[1:]
    return (1000 * gid + np.arange(np.prod(shape)).reshape(shape)).astype(mesh.data(name).dtype)


def rchar() -> int:
    """The bytes this process has read with read calls, from any file (Linux)."""
    with open("/proc/self/io") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("rchar:"))


def reset():
    for name in DENSE:
        mesh.data(name)[...] = -1
    for block in mesh.blocks:
        mesh.deallocate_sparse(block, "sp", 3)


def say(line: str) -> None:
    sys.stdout.write(line + "\n")  # one write: the ranks' lines may interleave otherwise
    sys.stdout.flush()


if mode in ("save", "old", "memory"):
    for block in mesh.blocks:
        for name in DENSE:
            mesh.data(name)[block.lid] = expected(name, block.gid)
        if block.gid % 2 == 0:
            mesh.allocate_sparse(block, "sp", 3)
            mesh.data("sp_3")[block.lid] = -block.gid - 1.0
    if mode == "save":
        mesh.save_restart(path, {"cycle": 9})
    elif mode == "memory":
        whole = sum(mesh.data(name)[:1].nbytes for name in (*DENSE, "sp_3")) * mesh.nblocks_global
        peaks = []
        import h5py  # noqa: F401 - imported before the peaks are measured (write_output imports it)

        tracemalloc.start()
        for call in (lambda: mesh.save_restart(path, {"cycle": 9}), lambda: mesh.write_output(path + ".out"),
                     lambda: mesh.load_restart(path)):
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            call()
            peaks.append(tracemalloc.get_traced_memory()[1] - base)
        say(f"rank {mesh.rank} peaks save {peaks[0]} write_output {peaks[1]} load {peaks[2]} of fields of {whole} bytes")
    else:  # the second format, as save_restart wrote it: every array whole, in global block order
        assert mesh.nranks == 1
        arrays = {name: mesh.data(name).copy() for name in DENSE}
        arrays["sp_3"] = mesh.data("sp_3").copy()
        arrays["allocated:sp_3"] = mesh.field("sp_3").allocated.copy()
        restart.save(path, arrays, {"kind": "brickwork-mesh", "mesh": _described(mesh), "user": {"cycle": 9}})
elif mode == "load":
    reset()
    reads = []
    original = block_restart.BlockFile.read

    def counted(self, name, gid, out=None):
        reads.append((name, gid))
        return original(self, name, gid, out)

    block_restart.BlockFile.read = counted
    before = rchar()
    assert mesh.load_restart(path) == {"cycle": 9}
    read_bytes = rchar() - before
    for block in mesh.blocks:
        for name in DENSE:
            np.testing.assert_array_equal(mesh.data(name)[block.lid], expected(name, block.gid))
        assert mesh.is_allocated(block, "sp", 3) == (block.gid % 2 == 0)
        if block.gid % 2 == 0:
            assert (mesh.data("sp_3")[block.lid] == -block.gid - 1.0).all()
    own = sorted(b.gid for b in mesh.blocks)
    for name in (*DENSE, "sp_3", "allocated:sp_3"):
        assert sorted({gid for n, gid in reads if n == name}) == own, (name, reads)
    fmt = restart.load(path)[1]["format"]
    block_bytes = sum(mesh.data(name)[:1].nbytes for name in (*DENSE, "sp_3")) + 1  # + the allocation flag
    say(f"rank {mesh.rank} read own blocks {own} ({fmt}): {read_bytes} bytes; blocks of "
        f"{block_bytes * len(own)} bytes of {block_bytes * mesh.nblocks_global}")
elif mode == "refuse":
    reset()
    try:
        mesh.load_restart(path)
    except RestartError as e:
        assert all((mesh.data(name) == -1).all() for name in DENSE)
        assert not any(mesh.is_allocated(b, "sp", 3) for b in mesh.blocks)
        say(f"rank {mesh.rank} unchanged after RestartError: {e}")
    else:
        say(f"rank {mesh.rank} loaded")

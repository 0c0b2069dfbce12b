"""Rank 0 writes a file of every block, receiving the blocks a few at a time: ``write_on_rank_0``.

The blocks of a distributed mesh reach rank 0 in the file's order (part by part, each part's blocks by
global id), in messages of consecutive blocks of one owner (a run of at most ``RUN_BYTES``, or one block)
sent with a synchronous send, so that rank 0 never holds more than its own blocks of the part being
written and two runs received (the next is on its way while the writer writes the current one), and
at most one message per rank waiting: not the whole mesh. Every rank makes its own blocks of one part at
a time (``parts``: functions called in order), so a field copied from a device or converted for the
output exists for one part only.

The call is collective whatever happens on rank 0: should its writer fail part-way, rank 0 still
receives (and drops) every block still to come, so no rank waits for ever; then every rank raises
the writer's error: rank 0 its own exception, the others an ``OutputError`` with its message. Should a
rank fail to make its blocks of a part (a device copy, an allocation), every rank learns it before any
block of that part is sent (``_made``: one ``allgather`` per part) and stops there: rank 0's writer fails
with an ``OutputError`` naming that rank, which every rank raises as above (one type on every rank, so that a
program's ``except OutputError`` goes on alike everywhere; the failing rank's own exception is its cause).
"""

from __future__ import annotations

import numpy as np

from ..io.files import OutputError

#: The tag of the blocks' messages (on the mesh's own communicator; the ghost sweeps use 0x5B00 and up).
TAG = 0x5C00
#: The most bytes of consecutive blocks sent in one message (fewer messages; a larger block goes alone).
RUN_BYTES = 4 << 20


def write_on_rank_0(mesh, parts: list, write, what: str) -> None:
    """``write(blocks)`` on rank 0, ``blocks`` an iterator over the blocks of every part of ``parts`` in
    order (each part's blocks by global id; a block is only valid until the next is taken). ``parts``
    are functions returning this rank's ``(local blocks, ...)`` array of a part, called in order on every
    rank. Collective; what ``write`` raises is raised on every rank (``raise_everywhere``)."""
    failure, own = None, []  # own: this rank's exception making a part
    if mesh.rank == 0:
        blocks = _received(mesh, parts, own)
        try:
            write(blocks)
        except Exception as e:  # not only OutputError: the other ranks would wait for ever
            failure = e
        try:
            for _ in blocks:  # what write did not take (it failed): received and dropped
                pass
        except Exception as e:  # a part some rank could not make, met while dropping
            failure = failure or e
    else:
        _send(mesh, parts, own)
    try:
        raise_everywhere(mesh, failure, what)
    except OutputError as e:
        if own:  # the cause, where it happened
            raise e from own[0]
        raise


def raise_everywhere(mesh, failure: Exception | None, what: str) -> None:
    """Raise rank 0's ``failure`` (None: none) on every rank: itself on rank 0, an ``OutputError`` naming
    ``what`` rank 0 could not write elsewhere (collective)."""
    if mesh.nranks > 1:  # every rank learns whether rank 0 wrote
        told = None
        if failure is not None:
            message = str(failure) if isinstance(failure, OutputError) else f"{type(failure).__name__}: {failure}"
            told = (message, getattr(failure, "path", None))
        told = mesh._halo_comm.bcast(told, root=0)
        if told is not None and failure is None:
            failure = OutputError(f"rank 0 could not write {what}: {told[0]}", told[1])
    if failure is not None:
        raise failure


def _as_bytes(blocks: np.ndarray) -> np.ndarray:
    return blocks.reshape(-1).view(np.uint8)


def _runs(mesh, block_bytes: int) -> list:
    """``(owner, first gid, count)``: the mesh's blocks in global id order cut into runs of consecutive blocks
    of one owner, each at most ``RUN_BYTES`` (or one block). The same on every rank: an owner's run is one
    message, and its blocks are consecutive in its storage too (local ids follow global ids)."""
    most = max(1, RUN_BYTES // max(1, block_bytes))
    runs = []
    for block in mesh.block_list:
        if runs and runs[-1][0] == block.rank and runs[-1][2] < most:
            runs[-1][2] += 1
        else:
            runs.append([block.rank, block.gid, 1])
    return runs


def _made(mesh, make, own: list) -> np.ndarray | None:
    """This rank's array of a part (``make()``), once every rank has made its own (collective); None on every
    rank when some rank could not: rank 0 then raises an ``OutputError`` naming the first such rank (one rank:
    its exception itself), which keeps its exception in ``own``."""
    try:
        local, failure = np.ascontiguousarray(make()), None
    except Exception as e:
        local, failure = None, f"{type(e).__name__}: {e}"
        own.append(e)
    failures = mesh._halo_comm.allgather(failure) if mesh.nranks > 1 else [failure]
    failed = [rank for rank, message in enumerate(failures) if message is not None]
    if not failed:
        return local
    if mesh.nranks == 1:
        raise own[0]
    if mesh.rank == 0:
        raise OutputError(f"rank {failed[0]} could not make its blocks: {failures[failed[0]]}")
    return None


def _received(mesh, parts: list, own: list):
    """Rank 0's iterator over every block of every part in order: its own from ``parts``, the others' as they
    arrive, the next run of another rank received while the current one is being taken."""
    for make in parts:
        local = _made(mesh, make, own)
        part = _Part(mesh, local.shape[1:], local.dtype, _runs(mesh, local[:1].nbytes))
        for i, (rank, first, count) in enumerate(part.runs):
            if rank == mesh.rank:
                part.post_next(0)  # meanwhile (both buffers are free: every earlier block was taken)
                lid = mesh.block_list[first].lid
                for k in range(count):
                    yield local[lid + k]
            else:
                received = part.take(i)
                for k in range(count):
                    yield received[k]


class _Part:
    """The runs of one part that rank 0 receives from other ranks, one posted ahead at a time into the
    buffer not being read (two buffers of the longest run)."""

    def __init__(self, mesh, shape: tuple, dtype, runs: list):
        self.comm, self.runs = mesh._halo_comm, runs
        self.remote = [i for i, run in enumerate(runs) if run[0] != mesh.rank]
        size = max((runs[i][2] for i in self.remote), default=0)
        self.buffers = [np.empty((size, *shape), dtype=dtype) for _ in range(min(2, len(self.remote)))]
        self.posted = None  # (run index, request, buffer index)
        self.ahead = 0  # index into remote of the next run to post

    def post_next(self, free: int) -> None:
        """Post the receive of the next remote run into buffer ``free``, unless one is posted already."""
        if self.posted is None and self.ahead < len(self.remote):
            i = self.remote[self.ahead]
            rank, _, count = self.runs[i]
            request = self.comm.Irecv(_as_bytes(self.buffers[free][:count]), source=rank, tag=TAG)
            self.posted = (i, request, free)
            self.ahead += 1

    def take(self, i: int) -> np.ndarray:
        """Remote run ``i``'s blocks, received (the receive of the next posted meanwhile)."""
        self.post_next(0)  # not posted ahead: the first remote run of the part
        posted, request, which = self.posted
        assert posted == i, (posted, i)  # runs are taken in order
        self.posted = None
        request.Wait()
        self.post_next(1 - which)
        return self.buffers[which]


def _send(mesh, parts: list, own: list) -> None:
    """This rank's runs of blocks of every part, to rank 0, in order (synchronous sends: one at a time); none
    from the first part some rank could not make on."""
    comm = mesh._halo_comm
    for make in parts:
        local = _made(mesh, make, own)
        if local is None:
            return
        for rank, first, count in _runs(mesh, local[:1].nbytes):
            if rank == mesh.rank:
                lid = mesh.block_list[first].lid
                comm.Ssend(_as_bytes(local[lid:lid + count]), dest=0, tag=TAG)
        del local

"""Ghost exchange across ranks: the fields' exchange steps run sweep by sweep, with messages.

In sweep d (x1, then x2, then x3; see ``exchange``) a rank sends each neighbour rank *one* message:
the ghost data of every field and every block that rank needs from it in this sweep, packed into
one byte buffer in the order both ranks list their steps. Per sweep:

1. receives are posted for every neighbour rank (non-blocking, into preallocated buffers);
2. the send buffer is packed by one box-copy launch (``copies``) on the mesh's device, and sent
   (non-blocking);
3. the local copies (one launch) and the user boundary functions of the sweep run while the
   messages are in flight;
4. the receives are waited for and the receive buffer is unpacked by one launch into the ghost
   cells; then the sends are waited for.

The buffers live on the mesh's device. On a CUDA device they are staged through host memory (one
copy to the host after packing, one to the device before unpacking): MPI is handed host buffers,
which every MPI accepts. Each part starts at a multiple of 16 bytes, so that every element copy is
aligned. Sweeps follow one another because sweep d's messages carry the ghosts of the earlier
directions (edges and corners travel that way).

Sparse instances: the exchange runs on every field that is ``live`` (has storage on some rank), so
both ranks of a message list the same parts; an instance allocated on no block of any rank is left
out everywhere. A rank holding none of the blocks where a live instance is allocated has no array
for it, yet in one process its blocks would hold zeros and still take part in the exchange: they get
ghosts in sweep x1 and pass them on as the edge and corner ghosts of sweep x2 (from a neighbour
that *is* allocated, across this rank's blocks). So the rank runs the instance's steps on a
stand-in array of its blocks, zeroed before every exchange, exactly as one process runs them on its
unallocated blocks (user boundary functions included).
"""

from __future__ import annotations

import numpy as np

from ..types.array_constructors import zeros
from ..types.scalars import uint8
from . import storage
from .copies import Box, Copy, CopyProgram, ZeroFill
from .exchange import COPY, RECV, SEND, USER

#: Message tags: one per sweep, above the small tags programs tend to use for their own messages.
TAG_BASE = 0x5B00
ALIGN = 16


def _contiguous(counts: tuple) -> Box:
    strides, step = [], 1
    for n in reversed(counts):
        strides.append(step)
        step *= n
    return Box(0, counts, tuple(reversed(strides)))


class _Buffer:
    """The byte buffer of one sweep's messages in one direction (send or receive), on the device, and
    the byte range of each neighbour rank's message in it."""

    def __init__(self, parts: dict, device):
        """``parts``: rank -> list of (dtype, field address, field Box)."""
        self.ranges: dict[int, tuple[int, int]] = {}
        layout: list[tuple[int, tuple]] = []
        offset = 0
        for rank, items in sorted(parts.items()):
            start = offset
            for part in items:
                layout.append((offset, part))
                offset += -(-int(np.prod(part[2].counts, dtype=np.int64)) * np.dtype(part[0]).itemsize // ALIGN) * ALIGN
            self.ranges[rank] = (start, offset)
        self.device = device
        self.data = zeros(max(offset, ALIGN), dtype=uint8, device=device)
        self.host = self.data.numpy() if device.is_cpu else np.zeros(max(offset, ALIGN), dtype=np.uint8)
        self.layout = layout

    def copies(self, into_buffer: bool) -> list[Copy]:
        """Box copies between the fields and this buffer (pack: ``into_buffer``; unpack: out of it)."""
        out = []
        base = self.data.ptr
        for offset, (dtype, addr, fbox) in self.layout:
            bbox = _contiguous(fbox.counts)
            if into_buffer:
                out.append(Copy(dtype, base + offset, bbox, addr, fbox))
            else:
                out.append(Copy(dtype, addr, fbox, base + offset, bbox))
        return out

    def message(self, rank: int) -> np.ndarray:
        start, stop = self.ranges[rank]
        return self.host[start:stop]

    def to_host(self) -> None:
        if self.device.is_cuda:
            self.host[...] = self.data.numpy()

    def to_device(self) -> None:
        if self.device.is_cuda:
            self.data.assign(self.host)


class MessageExchange:
    """The ghost exchange of a fixed list of fields on a mesh spread over several ranks.

    ``live``: per field, whether some rank stores it (the same on every rank); a live field without
    storage here is exchanged on a stand-in array (``stand_ins``), a field that is not live is left out.
    """

    def __init__(self, comm, fields: list, plans: list, device, live=None):
        self.comm = comm
        live = [True] * len(fields) if live is None else list(live)
        datas = []
        #: Zero arrays standing in for live sparse instances not allocated on any block of this rank.
        self.stand_ins = []
        for fld, alive in zip(fields, live):
            data = fld.data
            if data is None and alive:
                data = storage.zeros((len(fld.allocated), fld.spec.nslots, *fld.extents), fld.spec.dtype, device)
                self.stand_ins.append(data)
            datas.append(data)
        self._clear = None  # zeroes the stand-ins on a device
        if self.stand_ins and device.is_cuda:
            self._clear = ZeroFill(self.stand_ins, device)
        nsweeps = max((len(p.sweeps) for p in plans), default=0)
        self.sweeps = []
        for d in range(nsweeps):
            local: list[Copy] = []
            users: list[tuple] = []
            sends: dict[int, list] = {}
            recvs: dict[int, list] = {}
            for fld, plan, data in zip(fields, plans, datas):
                if data is None or d >= len(plan.sweeps):  # allocated nowhere: left out on every rank
                    continue
                for step in plan.steps[plan.sweeps[d]]:
                    if step[0] in (SEND, RECV):
                        addr, fbox = plan.box(step[2], data)
                        (sends if step[0] == SEND else recvs).setdefault(step[1], []).append(
                            (fld.spec.dtype, addr, fbox))
                    elif step[0] == COPY:
                        local.append(plan.copy(step, data))
                    elif step[0] == USER:
                        users.append((fld, step[1], step[2], data))
            send, recv = _Buffer(sends, device), _Buffer(recvs, device)
            self.sweeps.append((CopyProgram(send.copies(True), device), send,
                                CopyProgram(local, device), users,
                                recv, CopyProgram(recv.copies(False), device)))

    def run(self, call_user) -> None:
        """Fill the ghosts; ``call_user(field, side, lids, data)`` runs a user boundary function on the
        field's storage ``data`` (its own or a stand-in)."""
        from mpi4py import MPI  # only a multi-rank mesh gets here

        if self._clear is not None:
            self._clear.run()
        else:
            for data in self.stand_ins:
                data.fill(0)
        comm = self.comm
        for d, (pack, send, local, users, recv, unpack) in enumerate(self.sweeps):
            tag = TAG_BASE + d
            requests = [comm.Irecv(recv.message(r), source=r, tag=tag) for r in recv.ranges]
            pack.run()
            send.to_host()
            send_requests = [comm.Isend(send.message(r), dest=r, tag=tag) for r in send.ranges]
            local.run()
            for fld, side, lids, data in users:
                call_user(fld, side, lids, data)
            MPI.Request.Waitall(requests)
            recv.to_device()
            unpack.run()
            MPI.Request.Waitall(send_requests)

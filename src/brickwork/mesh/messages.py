"""Ghost exchange across ranks: the fields' bound exchange steps run sweep by sweep, with messages.

In sweep d (x1, then x2, then x3; see ``exchange``) a rank sends each neighbour rank *one* message:
the ghost data of every field and every block that rank needs from it in this sweep, packed into
one byte buffer in the order both ranks list their steps. Per sweep:

1. receives are posted for every neighbour rank (non-blocking, into preallocated buffers);
2. the send buffers are packed and sent (non-blocking);
3. the local copies and boundary conditions of the sweep run while the messages are in flight;
4. the receives are waited for and unpacked into the ghost cells; then the sends are waited for.

Sweeps follow one another because sweep d's messages carry the ghosts of the earlier directions
(edges and corners travel that way). A sparse instance not allocated on a rank sends zeros and
drops what it receives, so the message layout never depends on allocation.
"""

from __future__ import annotations

import numpy as np

from .exchange import COPY, RECV, SEND, USER, run_copy

#: Message tags: one per sweep, above the small tags programs tend to use for their own messages.
TAG_BASE = 0x5B00


class _Buffer:
    """One packed message: a byte buffer and, per part, a view of it shaped like the field data."""

    def __init__(self, views: list[np.ndarray]):
        self.sizes = [v.nbytes for v in views]
        self.data = np.empty(sum(self.sizes), dtype=np.uint8)
        self.parts = []
        offset = 0
        for view, size in zip(views, self.sizes):
            part = self.data[offset:offset + size].view(view.dtype).reshape(view.shape)
            self.parts.append(part)
            offset += size


class MessageExchange:
    """The ghost exchange of a fixed list of fields on a mesh spread over several ranks."""

    def __init__(self, comm, fields: list, bound: list[list[tuple]], sweeps: list[list[slice]]):
        self.comm = comm
        self.fields = fields
        nsweeps = max((len(s) for s in sweeps), default=0)
        self.sweeps = []
        for d in range(nsweeps):
            local: list[tuple[int, tuple]] = []
            sends: dict[int, list[np.ndarray]] = {}
            recvs: dict[int, list[tuple[np.ndarray, bool]]] = {}
            for f, (fld, steps, bounds) in enumerate(zip(fields, bound, sweeps)):
                keep = fld.data is not None  # unallocated sparse instance: received data is dropped
                for step in steps[bounds[d]]:
                    if step[0] == SEND:
                        sends.setdefault(step[1], []).append(step[2])
                    elif step[0] == RECV:
                        recvs.setdefault(step[1], []).append((step[2], keep))
                    elif keep:
                        local.append((f, step))
            send_buffers = {r: (_Buffer(views), views) for r, views in sorted(sends.items())}
            recv_buffers = {r: (_Buffer([v for v, _ in parts]), parts) for r, parts in sorted(recvs.items())}
            self.sweeps.append((local, send_buffers, recv_buffers))

    def run(self, call_user) -> None:
        """Fill the ghosts; ``call_user(field, side, lids)`` runs a user boundary function."""
        from mpi4py import MPI  # only a multi-rank mesh gets here

        comm = self.comm
        for d, (local, sends, recvs) in enumerate(self.sweeps):
            tag = TAG_BASE + d
            requests = [comm.Irecv(buf.data, source=r, tag=tag) for r, (buf, _) in recvs.items()]
            send_requests = []
            for r, (buf, views) in sends.items():
                for part, view in zip(buf.parts, views):
                    np.copyto(part, view)
                send_requests.append(comm.Isend(buf.data, dest=r, tag=tag))
            for f, step in local:
                if step[0] == COPY:
                    run_copy(step)
                elif step[0] == USER:
                    call_user(self.fields[f], step[1], step[2])
            MPI.Request.Waitall(requests)
            for buf, parts in recvs.values():
                for part, (view, keep) in zip(buf.parts, parts):
                    if keep:
                        view[...] = part
            MPI.Request.Waitall(send_requests)

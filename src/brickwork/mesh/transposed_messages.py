"""The adjoint of the ghost exchange across ranks: the transposed copies and messages, on the gradients.

The forward exchange (``messages``) moves, in each sweep, ghost values from an owner block to a
neighbour's ghost cells: by local copies, or by a message when the two blocks live on different
ranks. The adjoint runs the sweeps in reverse order and, in each sweep, transposes every step on the
fields' gradients (``Field.grad``):

* a local copy: the ghosts' gradient is added to the source cells' gradient and cleared
  (``exchange.run_transposed``);
* a message: the rank that received the ghosts sends their gradient back to the rank that sent them
  (one message per neighbour rank and sweep, parts in the order both ranks list their steps) and
  clears it; the sending rank adds each part into the gradient of the cells it had packed.

The ghost cells of a sweep and the cells its copies read are disjoint, so the steps of one sweep
may run in any order; the sweeps run one after the other because sweep d's sources include the
ghosts of earlier directions. A sparse instance not allocated on a rank sends a zero gradient and
drops what it receives, as the forward exchange sends zeros and drops values. The gradients live
on the host (a mesh on the CPU), so the parts are numpy views and MPI is handed host buffers.
"""

from __future__ import annotations

import numpy as np

from .exchange import COPY, RECV, SEND, USER, run_transposed

#: Message tags: one per sweep, apart from the forward exchange's (``messages.TAG_BASE``).
TAG_BASE = 0x5B40


class _Part:
    """One step's box of one field's gradient in a message: a numpy view, or None (not allocated here)."""

    def __init__(self, grad, index: tuple, storage_shape: tuple, dtype):
        self.view = None if grad is None else grad[index]
        shape = np.broadcast_to(np.empty((), dtype=np.uint8), storage_shape)[index].shape  # no storage needed
        self.shape = shape
        self.dtype = np.dtype(dtype)
        self.nbytes = int(np.prod(shape, dtype=np.int64)) * self.dtype.itemsize


class TransposedMessageExchange:
    """The adjoint of the ghost exchange of a fixed list of fields (and gradient arrays) on a mesh
    spread over several ranks."""

    def __init__(self, comm, fields: list, plans: list):
        self.comm = comm
        self.fields = fields
        nsweeps = max((len(p.sweeps) for p in plans), default=0)
        self.sweeps = []
        for d in range(nsweeps):
            local: list[tuple] = []
            returned: dict[int, list[_Part]] = {}  # ghosts this rank received: their gradients go back
            incoming: dict[int, list[_Part]] = {}  # cells this rank sent: their ghosts' gradients come here
            for fld, plan in zip(fields, plans):
                if d >= len(plan.sweeps):
                    continue
                grad = fld.grad if fld.data is not None else None
                storage_shape = (len(fld.allocated), fld.spec.nslots, *fld.extents)
                for step in plan.steps[plan.sweeps[d]]:
                    if step[0] == USER:
                        raise ValueError("a user boundary function has no adjoint")
                    if step[0] == COPY:
                        if grad is not None:
                            local.append((grad[step[1]], grad[step[2]], step[3]))
                        continue
                    parts = returned if step[0] == RECV else incoming
                    assert step[0] in (RECV, SEND)
                    parts.setdefault(step[1], []).append(_Part(grad, step[2], storage_shape, fld.spec.dtype))
            self.sweeps.append((local, returned, incoming))

    def run(self) -> None:
        """Add every ghost's gradient into the cells it was copied from (on whichever rank), clear it."""
        from mpi4py import MPI  # only a multi-rank mesh gets here

        for fld in self.fields:  # the forward pass zeroed the blocks without a sparse instance
            if fld.spec.is_sparse and fld.data is not None and not fld.allocated.all():
                fld.grad[~fld.allocated] = 0
        comm = self.comm
        for d in reversed(range(len(self.sweeps))):
            local, returned, incoming = self.sweeps[d]
            tag = TAG_BASE + d
            buffers = {r: np.empty(max(sum(p.nbytes for p in parts), 1), dtype=np.uint8)
                       for r, parts in incoming.items()}
            requests = [comm.Irecv(buffers[r], source=r, tag=tag) for r in sorted(buffers)]
            outgoing = {r: _gather(parts) for r, parts in returned.items()}
            send_requests = [comm.Isend(outgoing[r], dest=r, tag=tag) for r in sorted(outgoing)]
            run_transposed(local)
            MPI.Request.Waitall(requests)
            for r, parts in incoming.items():
                _scatter_add(buffers[r], parts)
            MPI.Request.Waitall(send_requests)


def _gather(parts: list[_Part]) -> np.ndarray:
    """The parts' gradients packed into one byte buffer (zeros for a part not allocated here), each cleared."""
    out = np.zeros(max(sum(p.nbytes for p in parts), 1), dtype=np.uint8)
    offset = 0
    for p in parts:
        if p.view is not None:
            out[offset:offset + p.nbytes].view(p.dtype).reshape(p.shape)[...] = p.view
            p.view[...] = 0  # the forward copy overwrote these ghosts
        offset += p.nbytes
    return out


def _scatter_add(buffer: np.ndarray, parts: list[_Part]) -> None:
    """Add each part of ``buffer`` into its gradient view (dropped where the field is not allocated here)."""
    offset = 0
    for p in parts:
        if p.view is not None:
            p.view += buffer[offset:offset + p.nbytes].view(p.dtype).reshape(p.shape)
        offset += p.nbytes

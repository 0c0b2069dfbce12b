"""The adjoint of the ghost exchange across ranks: the transposed copies and messages, on the gradients.

The forward exchange (``messages``) moves, in each sweep, ghost values from an owner block to a
neighbour's ghost cells: by local copies, or by a message when the two blocks live on different
ranks. The adjoint runs the sweeps in reverse order and, in each sweep, transposes every step on the
fields' gradients (``Field.grad``):

* a local copy: the ghosts' gradient is added to the source cells' gradient and cleared
  (``transposed_copies.TransposedProgram``, the kernels of a one-rank mesh);
* a message: the rank that received the ghosts sends their gradient back to the rank that sent them
  (one message per neighbour rank and sweep, parts in the order both ranks list their steps) and
  clears it; the sending rank adds each part into the gradient of the cells it had packed.

The ghost cells of a sweep and the cells its copies read are disjoint, so the steps of one sweep
may run in any order; the sweeps run one after the other because sweep d's sources include the
ghosts of earlier directions. Sparse instances as in the forward exchange: one allocated nowhere is
left out; one allocated only on other ranks' blocks runs its transposed steps on a stand-in gradient
(zeroed before each pass), so the gradient of a corner ghost relayed across this rank's unallocated
blocks goes back to the cell it came from. ``fill_ghosts`` zeroes the blocks without an instance
before and after the exchange; the adjoint clears their gradient before and after the transposed
steps. The gradients live on the host (a mesh on the CPU), so the parts are numpy views and MPI is
handed host buffers.
"""

from __future__ import annotations

import numpy as np

from .exchange import COPY, RECV, SEND, USER
from .transposed_copies import TransposedProgram

#: Message tags: one per sweep, apart from the forward exchange's (``messages.TAG_BASE``).
TAG_BASE = 0x5B40


class _Part:
    """One step's box of one field's gradient (or stand-in gradient) in a message: a numpy view."""

    def __init__(self, grad: np.ndarray, index: tuple):
        self.view = grad[index]
        self.shape = self.view.shape
        self.dtype = self.view.dtype
        self.nbytes = int(self.view.size) * self.dtype.itemsize


class TransposedMessageExchange:
    """The adjoint of the ghost exchange of a fixed list of fields (and gradient arrays) on a mesh
    spread over several ranks. ``live``: per field, whether some rank stores it (as for
    ``messages.MessageExchange``)."""

    def __init__(self, comm, fields: list, plans: list, live=None):
        from ..device import CPU

        self.comm = comm
        self.fields = [f for f in fields if f.data is not None]
        live = [True] * len(fields) if live is None else list(live)
        #: Zero gradients standing in for live sparse instances not allocated on any block of this rank.
        self.stand_ins = []
        grads = []
        for fld, alive in zip(fields, live):
            grad = None
            if fld.data is not None:
                grad = fld.grad
            elif alive:
                grad = np.zeros((len(fld.allocated), fld.spec.nslots, *fld.extents), dtype=fld.spec.dtype)
                self.stand_ins.append(grad)
            grads.append(grad)
        nsweeps = max((len(p.sweeps) for p in plans), default=0)
        self.sweeps = []
        for d in range(nsweeps):
            local: list[tuple] = []
            returned: dict[int, list[_Part]] = {}  # ghosts this rank received: their gradients go back
            incoming: dict[int, list[_Part]] = {}  # cells this rank sent: their ghosts' gradients come here
            for plan, grad in zip(plans, grads):
                if grad is None or d >= len(plan.sweeps):  # allocated nowhere: left out on every rank
                    continue
                for step in plan.steps[plan.sweeps[d]]:
                    if step[0] == USER:
                        raise ValueError("a user boundary function has no adjoint")
                    if step[0] == COPY:
                        local.append(plan.copy(step, grad))
                        continue
                    parts = returned if step[0] == RECV else incoming
                    assert step[0] in (RECV, SEND)
                    parts.setdefault(step[1], []).append(_Part(grad, step[2]))
            self.sweeps.append((TransposedProgram(local, CPU), returned, incoming))

    def run(self) -> None:
        """Add every ghost's gradient into the cells it was copied from (on whichever rank), clear it."""
        from mpi4py import MPI  # only a multi-rank mesh gets here

        self._clear_unallocated()  # the forward pass zeroed the blocks without a sparse instance afterwards
        for grad in self.stand_ins:
            grad.fill(0)
        comm = self.comm
        for d in reversed(range(len(self.sweeps))):
            local, returned, incoming = self.sweeps[d]
            tag = TAG_BASE + d
            buffers = {r: np.empty(max(sum(p.nbytes for p in parts), 1), dtype=np.uint8)
                       for r, parts in incoming.items()}
            requests = [comm.Irecv(buffers[r], source=r, tag=tag) for r in sorted(buffers)]
            outgoing = {r: _gather(parts) for r, parts in returned.items()}
            send_requests = [comm.Isend(outgoing[r], dest=r, tag=tag) for r in sorted(outgoing)]
            local.run()
            MPI.Request.Waitall(requests)
            for r, parts in incoming.items():
                _scatter_add(buffers[r], parts)
            MPI.Request.Waitall(send_requests)
        self._clear_unallocated()  # ... and before: their values were not inputs of the exchange

    def _clear_unallocated(self) -> None:
        for fld in self.fields:
            if fld.spec.is_sparse and not fld.allocated.all():
                fld.grad[~fld.allocated] = 0


def _gather(parts: list[_Part]) -> np.ndarray:
    """The parts' gradients packed into one byte buffer, each cleared."""
    out = np.zeros(max(sum(p.nbytes for p in parts), 1), dtype=np.uint8)
    offset = 0
    for p in parts:
        out[offset:offset + p.nbytes].view(p.dtype).reshape(p.shape)[...] = p.view
        p.view[...] = 0  # the forward copy overwrote these ghosts
        offset += p.nbytes
    return out


def _scatter_add(buffer: np.ndarray, parts: list[_Part]) -> None:
    """Add each part of ``buffer`` into its gradient view."""
    offset = 0
    for p in parts:
        p.view += buffer[offset:offset + p.nbytes].view(p.dtype).reshape(p.shape)
        offset += p.nbytes

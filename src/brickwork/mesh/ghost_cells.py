"""The ghost cells of a mesh (``Mesh.fill_ghosts``): the exchange plans and exchanges of the fields a call names
(cached on the mesh, rebuilt when a storage array changes), the collective checks on several ranks, the adjoint an
exchange records under a ``wp.Tape``, and the calls of user boundary functions."""

from __future__ import annotations

import functools
from collections.abc import Iterable

import numpy as np

from .. import comm as _comm
from .. import config as _config
from ..errors import KernelNotDifferentiableError
from ..runtime import tape as _tape
from ..same_on_ranks import check_same
from . import storage
from .boundary import BoundaryCondition
from .copies import gpu_items
from .exchange import USER, ExchangePlan, LocalExchange, TransposedExchange, layout_of
from .fields import Field
from .indexing import IndexDomain
from .metadata import MetadataFlag


def strategy(mesh) -> str:
    """The exchange strategy the mesh runs: its own, or for "auto" "lattice" where every block is local and in
    global order, else "pairwise"."""
    lattice_ok = len(mesh.blocks) == len(mesh.block_list) and all(b.lid == b.gid for b in mesh.blocks)
    if mesh._exchange == "lattice" and not lattice_ok:
        raise ValueError("the lattice exchange needs every block local and in global order")
    if mesh._exchange == "auto":
        return "lattice" if lattice_ok else "pairwise"
    return mesh._exchange


def plan(mesh, fld: Field) -> ExchangePlan:
    """The exchange plan of ``fld``'s layout under the mesh's strategy (cached on the mesh)."""
    layout = layout_of(fld, mesh.cellbounds)
    key = (layout, strategy(mesh))
    found = mesh._plans.get(key)
    if found is None:
        found = mesh._plans[key] = ExchangePlan(mesh, layout, key[1])
    return found


def exchange_of(mesh, fields: list[Field], live: tuple[bool, ...] | None = None):
    """The ``LocalExchange`` (one rank) or ``MessageExchange`` of these fields, built for their
    current storage arrays and ``live`` (``live_fields``; None: found now, collectively) (cached; rebuilt
    when one changed, as a sparse allocation does)."""
    if live is None:
        live = live_fields(mesh, fields)
    names = tuple(f.name for f in fields)
    datas = tuple(f.data for f in fields)
    cached = mesh._exchanges.get(names)
    if cached is None or cached[1] != live or any(a is not b for a, b in zip(cached[0], datas)):
        plans = [plan(mesh, f) for f in fields]  # plans (and so validates) every field first
        if mesh.nranks > 1:
            from .messages import MessageExchange

            exchange = MessageExchange(mesh._halo_comm, fields, plans, mesh.device, live)
        else:
            exchange = LocalExchange(fields, plans, mesh.device)
        cached = mesh._exchanges[names] = (datas, live, exchange)
    return cached[2]


def live_fields(mesh, fields: list[Field]) -> tuple[bool, ...]:
    """Per field, whether some rank stores it: a dense field always, a sparse instance where any
    block of any rank allocates it. On several ranks this takes one small allreduce (collective),
    made only when a sparse field is exchanged: a rank holding none of an instance's allocated blocks
    still relays its neighbours' ghosts as edges and corners (``messages``)."""
    mine = [f.data is not None for f in fields]
    if mesh.nranks == 1 or not any(f.spec.is_sparse for f in fields):
        return tuple(mine)
    from mpi4py import MPI

    flags = np.array(mine, dtype=np.int32)
    mesh._halo_comm.Allreduce(MPI.IN_PLACE, flags, op=MPI.MAX)
    return tuple(bool(v) for v in flags)


def ghost_fields(mesh, names: Iterable[str] | None) -> list[Field]:
    """The fields ``names`` names (a sparse pool: its instances; None: every ``FillGhost`` field), each checked."""
    if names is None:
        return [f for f in mesh.fields.values() if f.spec.has(MetadataFlag.FillGhost)]
    if isinstance(names, str):
        names = [names]
    chosen: list[Field] = []
    for name in names:
        if name in mesh._pools:
            group = [mesh.fields[s.name] for s in mesh._pools[name].instances]
        else:
            group = [mesh.field(name)]
        for fld in group:
            if not fld.spec.has(MetadataFlag.FillGhost):
                raise ValueError(
                    f"field {fld.name!r} lacks Metadata.FillGhost: its ghosts are not exchanged"
                )
        chosen.extend(group)
    return chosen


def fill_ghosts(mesh, names) -> None:
    """``Mesh.fill_ghosts`` without its clock."""
    if names is None:
        if mesh._all_ghost_fields is None:
            mesh._all_ghost_fields = ghost_fields(mesh, None)
        fields = mesh._all_ghost_fields
    elif mesh.nranks > 1 and _config.mode == "debug":  # a name only some ranks refuse: an error on every rank
        with _comm.together(mesh._halo_comm, "fill_ghosts"):
            fields = ghost_fields(mesh, names)
    else:
        fields = ghost_fields(mesh, names)
    if mesh.nranks > 1 and _config.mode == "debug":  # one allgather per call: debug mode only
        # ranks that name other fields of the same shapes would swap their data without an error
        check_same(mesh._halo_comm, "fill_ghosts", {"fields": [f.name for f in fields]},
                   hint="every rank calls mesh.fill_ghosts with the same fields (the exchange is collective)")
    live = live_fields(mesh, fields)
    exchange = exchange_of(mesh, fields, live)  # plans (and so validates) every field before the first copy
    if _tape.recording:  # differentiated: the transposed copies, checked before any copy is made
        _record_adjoint(mesh, fields, live)
    sparse = [fld for fld in fields if fld.spec.is_sparse]
    # Blocks without a sparse instance hold zeros, and the exchange reads them as zeros (whatever was
    # written there: on several ranks a rank without the instance's array has nothing else to send)...
    for fld in sparse:
        fld.zero_unallocated()
    if mesh.nranks > 1 and any(b.kind is BoundaryCondition.user for b in mesh.boundaries.values()):
        _exchange_agreeing(mesh, exchange)
    else:
        exchange.run(functools.partial(_call_user, mesh))
    for fld in sparse:  # ... and after it, not the ghosts it relayed through them (docs/mesh.md)
        fld.zero_unallocated()


def _record_adjoint(mesh, fields: list[Field], live: tuple[bool, ...]) -> None:
    """Record the exchange's adjoint on the current tape: its transposed copies on the gradients, kernels on
    the mesh's device (on several ranks also its transposed messages: each ghost's gradient goes back to the
    owner's cell)."""
    for fld in fields:
        if any(step[0] == USER for step in plan(mesh, fld).steps):
            raise KernelNotDifferentiableError(
                f"fill_ghosts under a wp.Tape: field {fld.name!r} has a user boundary function, "
                f"which has no adjoint (use periodic, outflow or reflecting sides)")
    if mesh.nranks > 1:
        if mesh.device.is_cuda:
            raise KernelNotDifferentiableError(
                f"fill_ghosts under a wp.Tape: a mesh on {mesh.device} spread over {mesh.nranks} MPI ranks is not "
                f"differentiated yet (the transposed ghost messages are host-only); differentiate it on one rank, "
                f"or on the CPU (device='cpu')")
        from .transposed_messages import TransposedMessageExchange

        exchange = TransposedMessageExchange(mesh._halo_comm, fields, [plan(mesh, f) for f in fields], live)
        _tape.recording[-1].record_func(exchange.run, [])
        return
    _tape.recording[-1].record_func(transposed_of(mesh, fields).run, [])


def transposed_of(mesh, fields: list[Field]) -> TransposedExchange:
    """The ``TransposedExchange`` of these fields on a one-rank mesh, for their gradients' current storage
    (cached on the mesh, as ``exchange_of``'s exchanges are: its tables are built and uploaded once)."""
    names = tuple(f.name for f in fields)
    key = tuple(storage.address(f.grad) for f in fields if f.data is not None)
    cached = mesh._transposed.get(names)
    if cached is None or cached.key != key:
        cached = mesh._transposed[names] = TransposedExchange(fields, [plan(mesh, f) for f in fields], mesh.device)
    return cached


def _exchange_agreeing(mesh, exchange) -> None:
    """Run a multi-rank ``exchange`` whose user boundary functions may raise on some ranks only: a rank
    whose function raised calls no more of them but sends and receives every message of the exchange, and
    then the ranks agree (one small allgather): that rank raises its error, the others an
    ``OtherRankError`` naming it, instead of the others waiting for its next message for ever."""
    failures: list[BaseException] = []

    def call_user(*args) -> None:
        if not failures:
            try:
                _call_user(mesh, *args)
            except (Exception, SystemExit) as e:  # a KeyboardInterrupt ends the job (brickwork.comm)
                failures.append(e)

    exchange.run(call_user)
    _comm.gather_checked(mesh._halo_comm, "fill_ghosts", failures[0] if failures else None)
    if failures:
        raise failures[0]


def _call_user(mesh, fld: Field, side: IndexDomain, lids: tuple[int, ...], data) -> None:
    """Run the user boundary function of ``side`` on blocks ``lids`` of ``fld``'s storage ``data`` (its
    own, or the stand-in of a sparse instance allocated on other ranks only); on a device it sees a host
    copy, copied back afterwards, unless it has a ``fill_device`` method (boundary.py). A sparse instance's
    blocks without it are skipped: the exchange zeroes their ghosts afterwards, so a call there would be wasted
    (and on a device a copy to and fro)."""
    if fld.spec.is_sparse:
        lids = tuple(lid for lid in lids if fld.allocated[lid])
        if not lids:
            return
    bc = mesh.boundaries[side]
    if bc.fill_device is not None and gpu_items(mesh.device):  # its own kernels, no host copy (boundary.py)
        bc.fill_device(mesh, data, side, lids, fld.name)
        return
    host = storage.host(data)
    for lid in lids:
        view = host[lid]
        bc.call_user(mesh.blocks[lid], view, side, fld.name)
        # the view is for the call: on the CPU it is the block's storage itself, and a function keeping it
        # would write the field later, between exchanges (on a device, into a copy already sent back)
        view.flags.writeable = False
    if host is not data:
        data.assign(host)

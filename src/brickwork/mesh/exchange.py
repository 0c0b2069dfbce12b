"""Ghost exchange and physical boundary conditions as precomputed slice copies.

Algorithm: one sweep per active direction d = x1, x2, x3. In sweep d every block's two ghost slabs
of direction d are filled - from the neighbour block along d (periodic wrap included), or by the
boundary condition on a physical side - over the *entire* index range of the directions already
swept and the *interior* range of the later ones. Edge and corner ghosts are therefore copied
from the neighbours' ghosts that earlier sweeps filled, which gives exactly the values of the 26
(3-D) edge and corner neighbours, boundary conditions included (each ghost value is the global
array at ``(m1(i), m2(j), m3(k))`` where ``m_d`` is the index map of direction d's condition).

A ghost slot of element ``te`` in direction d is an index of ``get_bounds(inner_xd/outer_xd, te)``.
For a face-like direction (offset 1) the face shared by two blocks is interior to both and is never
exchanged: each block keeps its own copy.

Plans: ``ExchangePlan`` holds the steps for one storage layout (element offsets, component count,
extents, dtype size): a list of ``(dst index, src index)`` slice copies (``negate`` for the flipped
components of reflecting boundaries) and user-function calls. Two strategies build the copies:

* ``lattice`` (all blocks local, block ids in lattice order): the block axis is viewed as the block
  lattice ``(nb3, nb2, nb1)``, so one copy moves a ghost slab of *every* block at once (a shift by
  one block, plus one copy for the periodic wrap). About four copies per field and direction, for
  any number of blocks.
* ``pairwise``: one copy per (block, side). A neighbour owned by another rank turns the copy into a
  ``SEND`` step (on the rank owning the source block) and a ``RECV`` step (on the rank owning the
  ghosts); ``messages`` packs them into one message per neighbour rank and sweep. Both ranks list
  these steps in the same order (global block order), so the packed segments match.

The steps of sweep d are ``steps[sweeps[d-1]]``: a sweep's copies read only data that earlier sweeps
completed, so a sweep's messages may be in flight while its local copies run.

Running: the copies of a sweep, of every field exchanged together, are independent (each writes
ghosts of direction d and reads cells that earlier sweeps completed), so ``LocalExchange`` turns
them into one ``copies.CopyProgram`` per sweep: one kernel launch per sweep and kind of copy, on the
device that holds the fields (the CPU or a GPU), with no numpy on field data. User boundary
functions run on the host after their sweep's copies. Under a ``wp.Tape`` the adjoint,
``TransposedExchange``, runs the sweeps' transposed copies on the gradients as kernels of their own
(``transposed_copies``).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import storage
from .boundary import BoundaryCondition, SideBoundary
from .copies import Copy, CopyProgram, box
from .indexing import IndexDomain

_ALL = slice(None)
COPY = 0
USER = 1
SEND = 2  # (SEND, rank, src index): ghosts of a block of ``rank`` taken from a local block
RECV = 3  # (RECV, rank, dst index): ghosts of a local block that ``rank`` sends


@dataclass(frozen=True)
class Layout:
    """Everything about a field's storage that shapes its exchange plan."""

    offsets: tuple[tuple[int, int, int], ...]  # per element: offset in x1, x2, x3 (active dirs only)
    ncomp: int
    extents: tuple[int, int, int]  # (nk, nj, ni)
    flips: tuple[frozenset[int], frozenset[int], frozenset[int]]  # slots negated at x1/x2/x3 walls
    itemsize: int


def _stop(index: int) -> int | None:
    """Stop value for a descending slice: a stop below 0 must be None, not a wrap-around."""
    return None if index < 0 else index


class _Axis:
    """Index geometry of one direction for one element offset."""

    def __init__(self, n: int, ng: int, off: int, extent: int):
        self.n, self.ng, self.off, self.extent = n, ng, off, extent
        self.s = ng
        self.last = ng + n - 1 + off  # last interior index of the element
        # Upper ghosts can run past a cell-aligned node array's end: keep the part that is stored.
        self.nup = max(0, min(ng, extent - (self.last + 1)))

    def lower(self) -> slice:
        return slice(self.s - self.ng, self.s)

    def upper(self) -> slice:
        return slice(self.last + 1, self.last + 1 + self.nup)

    def entire(self) -> slice:
        if self.n == 0:  # inactive direction: its single index
            return slice(0, 1)
        return slice(0, min(self.extent, self.n + 2 * self.ng + self.off))

    def interior(self) -> slice:
        if self.n == 0:
            return slice(0, 1)
        return slice(self.s, min(self.extent, self.s + self.n + self.off))

    def exchange_source(self, lower: bool) -> slice:
        """Indices in the neighbour that hold this block's lower/upper ghosts."""
        if lower:
            return slice(self.s - self.ng + self.n, self.s + self.n)
        return slice(self.last + 1 - self.n, self.last + 1 - self.n + self.nup)

    def boundary_source(self, kind: BoundaryCondition, lower: bool) -> slice:
        """Indices of the same block that a physical boundary copies into the ghosts."""
        s, last, off, ng = self.s, self.last, self.off, self.ng
        if kind is BoundaryCondition.outflow:
            return slice(s, s + 1) if lower else slice(last, last + 1)
        # Mirror about the boundary: cells map s-1-m <- s+m, faces/nodes s-m <- s+m.
        if lower:
            return slice(s + off + ng - 1, _stop(s + off - 1), -1)
        return slice(last - off, _stop(last - off - self.nup), -1)


class ExchangePlan:
    """The slice copies and user calls that fill one layout's ghosts on the whole mesh."""

    def __init__(self, mesh, layout: Layout, strategy: str):
        self.layout = layout
        self.strategy = strategy
        nb = mesh.nblocks_per_dim
        self.lattice_shape = (nb[2], nb[1], nb[0]) if strategy == "lattice" else None
        self.steps: list[tuple] = []
        self.sweeps: list[slice] = []
        shape = mesh.cellbounds
        for d in range(1, mesh.ndim + 1):
            first = len(self.steps)
            for lower in (True, False):
                self._add_exchange(mesh, shape, d, lower)
            for lower in (True, False):
                side = IndexDomain.inner(d) if lower else IndexDomain.outer(d)
                bc = mesh.boundaries[side]
                if bc.kind is not BoundaryCondition.periodic:
                    self._add_boundary(mesh, shape, d, lower, side, bc)
            self.sweeps.append(slice(first, len(self.steps)))

    # -- building -------------------------------------------------------------------------------
    def _axes(self, shape, offsets) -> list[_Axis]:
        nk, nj, ni = self.layout.extents
        return [
            _Axis(shape.nx(d), shape.ng if shape.is_active(d) else 0, offsets[d - 1], ext)
            for d, ext in ((1, ni), (2, nj), (3, nk))
        ]

    def _spans(self, axes: list[_Axis], d: int) -> list[slice]:
        """Ranges of the other directions during sweep d: entire before d, interior after."""
        return [ax.entire() if e < d else ax.interior() for e, ax in enumerate(axes, start=1)]

    def _slot_groups(self, element: int, flipped: frozenset[int]) -> list[tuple[slice, bool]]:
        """Runs of consecutive slots of one element that share their flip status."""
        nc = self.layout.ncomp
        groups: list[tuple[slice, bool]] = []
        start = element * nc
        for slot in range(element * nc, (element + 1) * nc + 1):
            at_end = slot == (element + 1) * nc
            if at_end or (slot in flipped) != (start in flipped):
                groups.append((slice(start, slot), start in flipped))
                start = slot
        return groups

    def _key(self, prefix: tuple, slots: slice, spans: list[slice]) -> tuple:
        return (*prefix, slots, spans[2], spans[1], spans[0])

    def _add_copy(self, dst: tuple, src: tuple, negate: bool) -> None:
        self.steps.append((COPY, dst, src, negate))

    def _prefixes(self, mesh, d: int, lower: bool, physical: bool) -> list[tuple]:
        """(dst prefix, src prefix, peer) selecting blocks, one per copy to emit; ``peer`` is None for
        a local copy, else ``(SEND or RECV, rank)``."""
        if self.lattice_shape is not None:
            axis = 3 - d  # lattice axes are (x3, x2, x1)
            nbd = mesh.nblocks_per_dim[d - 1]

            def pick(sl: slice) -> tuple:
                prefix = [_ALL, _ALL, _ALL]
                prefix[axis] = sl
                return tuple(prefix)

            edge = slice(0, 1) if lower else slice(nbd - 1, nbd)
            if physical:
                return [(pick(edge), pick(edge), None)]
            pairs = []
            if nbd > 1:
                inner, shifted = slice(1, nbd), slice(0, nbd - 1)
                pairs.append((pick(inner), pick(shifted), None) if lower else (pick(shifted), pick(inner), None))
            if mesh.periodic[d - 1]:
                other = slice(nbd - 1, nbd) if lower else slice(0, 1)
                pairs.append((pick(edge), pick(other), None))
            return pairs
        pairs = []
        offset = [0, 0, 0]
        offset[d - 1] = -1 if lower else 1
        if physical:
            return [((b.lid,), (b.lid,), None) for b in mesh.blocks if b.neighbor(*offset) is None]
        # Every block of the mesh, in global order, so that both ranks of a message list its parts alike.
        for block in mesh.block_list:
            nbr = block.neighbor(*offset)
            if nbr is None or (block.lid is None and nbr.lid is None):
                continue
            if block.lid is None:
                pairs.append((None, (nbr.lid,), (SEND, block.rank)))
            elif nbr.lid is None:
                pairs.append(((block.lid,), None, (RECV, nbr.rank)))
            else:
                pairs.append(((block.lid,), (nbr.lid,), None))
        return pairs

    def _ghost_spans(self, shape, d: int, lower: bool, source):
        """Per element ``e`` of the layout with ghosts on this side of direction ``d``: ``(e, the ghost spans, the
        spans they are filled from)``, ``source(axis)`` the latter's along ``d``."""
        for e, offsets in enumerate(self.layout.offsets):
            axes = self._axes(shape, offsets)
            ax = axes[d - 1]
            if ax.ng == 0 or (not lower and ax.nup == 0):
                continue
            dst_spans = self._spans(axes, d)
            src_spans = list(dst_spans)
            dst_spans[d - 1] = ax.lower() if lower else ax.upper()
            src_spans[d - 1] = source(ax)
            yield e, dst_spans, src_spans

    def _add_exchange(self, mesh, shape, d: int, lower: bool) -> None:
        for e, dst_spans, src_spans in self._ghost_spans(shape, d, lower, lambda ax: ax.exchange_source(lower)):
            slots = slice(e * self.layout.ncomp, (e + 1) * self.layout.ncomp)
            for dpre, spre, peer in self._prefixes(mesh, d, lower, physical=False):
                if peer is None:
                    self._add_copy(self._key(dpre, slots, dst_spans), self._key(spre, slots, src_spans), False)
                elif peer[0] == SEND:
                    self.steps.append((SEND, peer[1], self._key(spre, slots, src_spans)))
                else:
                    self.steps.append((RECV, peer[1], self._key(dpre, slots, dst_spans)))

    def _add_boundary(self, mesh, shape, d: int, lower: bool, side: IndexDomain, bc: SideBoundary) -> None:
        if bc.kind is BoundaryCondition.user:
            nbd = mesh.nblocks_per_dim[d - 1]
            edge = 0 if lower else nbd - 1
            lids = tuple(b.lid for b in mesh.blocks if b.location[d - 1] == edge)
            self.steps.append((USER, side, lids))
            return
        flipped = self.layout.flips[d - 1] if bc.kind is BoundaryCondition.reflecting else frozenset()
        for e, dst_spans, src_spans in self._ghost_spans(shape, d, lower,
                                                         lambda ax: ax.boundary_source(bc.kind, lower)):
            for slots, negate in self._slot_groups(e, flipped):
                for dpre, spre, _ in self._prefixes(mesh, d, lower, physical=True):
                    dst = self._key(dpre, slots, dst_spans)
                    self._add_copy(dst, self._key(spre, slots, src_spans), negate)

    # -- running --------------------------------------------------------------------------------
    def view_shape(self, data) -> tuple:
        """The shape the steps index: the storage's, with the block axis as the block lattice."""
        return (self.lattice_shape + tuple(data.shape[1:])) if self.lattice_shape else tuple(data.shape)

    def copy(self, step: tuple, data) -> Copy:
        """A COPY step as a box copy within one field's storage ``data`` (host or device)."""
        shape, base = self.view_shape(data), storage.address(data)
        return Copy(data.dtype, base, box(shape, step[1]), base, box(shape, step[2]), step[3])

    def box(self, index: tuple, data):
        """``(address, Box)`` of a SEND or RECV step's index in field storage ``data``."""
        return storage.address(data), box(self.view_shape(data), index)


class LocalExchange:
    """The ghost exchange of fixed fields (their current storage) on a mesh whose blocks are all local:
    per sweep one ``CopyProgram`` of every field's copies, then the user boundary functions."""

    def __init__(self, fields: list, plans: list[ExchangePlan], device):
        nsweeps = max((len(p.sweeps) for p in plans), default=0)
        self.sweeps = []
        for d in range(nsweeps):
            copies, users = [], []
            for fld, plan in zip(fields, plans):
                if fld.data is None or d >= len(plan.sweeps):
                    continue
                for step in plan.steps[plan.sweeps[d]]:
                    if step[0] == COPY:
                        copies.append(plan.copy(step, fld.data))
                    elif step[0] == USER:
                        users.append((fld, step[1], step[2], fld.data))
                    else:
                        raise AssertionError("a message step in a local exchange")
            self.sweeps.append((CopyProgram(copies, device), users))

    def run(self, call_user) -> None:
        """Fill the ghosts; ``call_user(field, side, lids, data)`` runs a user boundary function on the
        field's storage ``data``."""
        for program, users in self.sweeps:
            program.run()
            for fld, side, lids, data in users:
                call_user(fld, side, lids, data)


class TransposedExchange:
    """The adjoint of the ghost exchange of fixed fields on a mesh whose blocks are all local, on their
    gradients (``Field.grad``, on the fields' device): the sweeps in reverse order, each one
    ``transposed_copies.TransposedProgram`` (kernels: every ghost's gradient added into the cell it was
    copied from, negated where a reflecting wall flipped it, then cleared). Built for the gradients' current
    storage (``key``)."""

    def __init__(self, fields: list, plans: list[ExchangePlan], device):
        from .transposed_copies import TransposedProgram

        pairs = [(fld, plan) for fld, plan in zip(fields, plans) if fld.data is not None]
        self.sparse = [fld for fld, _ in pairs if fld.spec.is_sparse]
        self.key = tuple(storage.address(fld.grad) for fld, _ in pairs)
        self.sweeps = []
        for d in range(max((len(p.sweeps) for _, p in pairs), default=0)):
            copies = []
            for fld, plan in pairs:
                steps = plan.steps[plan.sweeps[d]] if d < len(plan.sweeps) else []
                if any(step[0] != COPY for step in steps):
                    raise AssertionError("a user boundary or message step in a transposed local exchange")
                copies += [plan.copy(step, fld.grad) for step in steps]
            self.sweeps.append(TransposedProgram(copies, device))

    def run(self) -> None:
        """Add every ghost's gradient into the cells it was copied from and clear it. Blocks without a sparse
        instance have their gradient cleared before and after: ``fill_ghosts`` zeroed their values after the
        exchange, and before it, so they were not inputs of it."""
        for fld in self.sparse:
            fld.zero_unallocated_grad()
        for program in reversed(self.sweeps):
            program.run()
        for fld in self.sparse:
            fld.zero_unallocated_grad()


def layout_of(field, shape) -> Layout:
    """The exchange ``Layout`` of a ``Field`` on blocks of ``IndexShape`` ``shape``."""
    spec = field.spec
    offsets = tuple(tuple(shape.offset(d, te) for d in (1, 2, 3)) for te in spec.elements)
    flips: list[frozenset[int]] = []
    for d in (1, 2, 3):
        if not spec.has("Vector"):
            flips.append(frozenset())
        elif len(spec.elements) == 1:  # Cell/Node vector: component d-1 is normal to x_d
            flips.append(frozenset({d - 1}) if d - 1 < spec.ncomp else frozenset())
        else:  # Face/Edge vector: element d-1 (F_d, E_d) is the normal one
            flips.append(frozenset(range((d - 1) * spec.ncomp, d * spec.ncomp)))
    return Layout(offsets, spec.ncomp, field.extents, tuple(flips), spec.dtype.itemsize)

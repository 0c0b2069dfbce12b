"""FSAI launches: the chunked row kernels, the factor's CSR assembly and transpose, and the refit plans that
``FSAI.update`` runs (on the supports chosen at construction, or chosen at the first update of a deferred
pattern).

Status arrays (int, on the matrix's device): the selection's ``[invalid diagonals, truncated rows, invalid
factor rows]``; an update's ``[topology mismatches, invalid diagonals, failed rows, regularized rows]``.
"""

from __future__ import annotations

import numpy as np

from ...runtime import device_sort
from ...runtime.launch import launch, launcher
from ...types.array_constructors import empty, full, zeros
from ...types.array_copy import clone, copy
from ...types.arrays import array
from ._common import LinearSolverValueError
from .fsai_factor import (
    check_factor,
    commit_transposed,
    commit_values,
    compare,
    count_columns,
    pack_rows,
    refit_rows,
    scatter_columns,
    sort_columns,
    sort_rows,
)
from .fsai_select import diagonal_scaling, select_rows

#: scalars of per-row work space allocated at once (rows are processed in chunks that fit)
WORK_BUDGET = 1 << 23


def _launch(kernel, dim, inputs, device):
    if dim > 0:
        launch(kernel, dim=dim, inputs=inputs, device=device, record_tape=False)


_NO_COUNTS: dict = {}


def no_counts(device) -> array:
    """The empty ``row_counts`` the kernels take for compact rows (one per device, never written)."""
    found = _NO_COUNTS.get(device)
    if found is None:
        found = _NO_COUNTS[device] = empty(0, dtype=int, device=device)
    return found


def counts_of(A) -> array:
    return A.row_counts if A.row_counts is not None else no_counts(A.device)


def chunk_rows(n: int, width: int, step: int) -> int:
    return max(1, min(n, WORK_BUDGET // (width * width + 4 * width + 2 * step)))


def scale_rows(A, scale: array, status: array, slot: int) -> None:
    _launch(diagonal_scaling, A.shape[0], [A.offsets, counts_of(A), A.columns, A.scalar_values, scale, status, slot],
            A.device)


def select(A, scale, tolerance, floor, width, step, cols_out, vals_out, status, ready) -> None:
    """Grow every row's support (fsai_select.py) into ``width`` slots per row of ``cols_out``/``vals_out``."""
    n, dtype, device = A.shape[0], A.scalar_type, A.device
    rows = chunk_rows(n, width, step)
    support = empty(rows * width, dtype=int, device=device)
    chol = empty(rows * width * width, dtype=dtype, device=device)
    z, v, w = (empty(rows * width, dtype=dtype, device=device) for _ in range(3))
    cand = empty(rows * step, dtype=int, device=device)
    score = empty(rows * step, dtype=dtype, device=device)
    for row0 in range(0, n, rows):
        _launch(select_rows, min(rows, n - row0),
                [row0, A.offsets, counts_of(A), A.columns, A.scalar_values, scale, dtype(tolerance), dtype(floor),
                 width, step, rows, support, chol, z, v, w, cand, score, cols_out, vals_out, status, ready], device)


def refit(A, scale, g_offsets, g_counts, g_columns, rank, floor, regularize, width, out, status) -> None:
    """Refit every row of ``G`` (fsai_factor.refit_rows) into ``out``."""
    n, dtype, device = A.shape[0], A.scalar_type, A.device
    rows = chunk_rows(n, width, 0)
    member = empty(rows * width, dtype=int, device=device)
    chol = empty(rows * width * width, dtype=dtype, device=device)
    z = empty(rows * width, dtype=dtype, device=device)
    for row0 in range(0, n, rows):
        _launch(refit_rows, min(rows, n - row0),
                [row0, A.offsets, counts_of(A), A.columns, A.scalar_values, scale, g_offsets, g_counts, g_columns,
                 rank, dtype(floor), int(regularize), width, rows, member, chol, z, out, status], device)


def sort_selection(n, width, columns, values, rank, counts, device) -> None:
    """Sort each row's slots by column, in place; ``counts[i + 1]`` gets row ``i``'s size."""
    _launch(sort_rows, n, [width, columns, values, rank, counts], device)


def scan(counts: array, offsets: array) -> None:
    """``offsets`` = the inclusive prefix sums of ``counts`` (n + 1 int32, ``counts[0]`` = 0), on their device:
    ``counts[1:]`` copied down one place, then scanned exclusively (no host round trip)."""
    n, device = counts.shape[0] - 1, counts.device
    if n > 0:
        copy(offsets, counts, dest_offset=0, src_offset=1, count=n)
    device_sort.exclusive_scan(offsets, n + 1, lambda name, shape: empty(shape, dtype=int, device=device),
                               launcher(device), device_sort.GPU.segment)


def pack(n, width, columns, values, rank, storage, device):
    """Compact CSR arrays ``(offsets, columns, values in storage, rank)`` of the sorted slots."""
    counts = zeros(n + 1, dtype=int, device=device)
    sort_selection(n, width, columns, values, rank, counts, device)
    offsets = empty(n + 1, dtype=int, device=device)
    scan(counts, offsets)
    nnz = int(offsets.numpy()[n])
    out = (empty(nnz, dtype=int, device=device), empty(nnz, dtype=storage, device=device),
           empty(nnz, dtype=int, device=device))
    _launch(pack_rows, n, [width, offsets, columns, values, rank, *out], device)
    return offsets, *out


def factor_is_valid(G, slot_status: array) -> bool:
    slot_status.zero_()
    _launch(check_factor, G.nrow, [G.offsets, counts_of(G), G.columns, G.values, slot_status, 0], G.device)
    return int(slot_status.numpy()[0]) == 0


def transpose_index(G, GT, capacity: int | None = None) -> array:
    """Set ``GT``'s topology to the transpose of ``G``'s and return ``gather`` (each ``GT`` entry's ``G``
    entry); ``GT.values`` are sized (at least ``capacity``) but not filled."""
    n, device = G.nrow, G.device
    col_counts = zeros(n + 1, dtype=int, device=device)
    _launch(count_columns, n, [G.offsets, counts_of(G), G.columns, col_counts], device)
    offsets = empty(n + 1, dtype=int, device=device)
    scan(col_counts, offsets)
    nnz = int(offsets.numpy()[n])
    size = max(nnz, capacity or 0)
    rows = zeros(size, dtype=int, device=device)
    gather = zeros(size, dtype=int, device=device)
    _launch(scatter_columns, n, [G.offsets, counts_of(G), G.columns, offsets, zeros(n, dtype=int, device=device),
                                 rows, gather], device)
    _launch(sort_columns, n, [offsets, rows, gather], device)
    GT.offsets, GT.columns, GT.row_counts = offsets, rows, None
    if GT.values.shape[0] < size:
        GT.values = zeros(size, dtype=G.values.dtype, device=device)
    GT.nnz = nnz
    return gather


class RefitPlan:
    """Refits ``G`` on fixed supports for new values of a matrix of the construction's topology.

    ``validate_topology`` compares the offsets and columns with copies taken at construction (on the device).
    A rejected update leaves ``G`` and ``GT`` as they were (the publication is guarded on the device).
    """

    def __init__(self, A, factor_dtype, width, floor, regularize, validate_topology):
        self.signature = (A.shape, A.dtype, A.device, A.row_counts is not None)
        self.n, self.nrow, self.nnz = A.shape[0], A.nrow, A.nnz_sync()
        self.width, self.floor, self.regularize = width, floor, bool(regularize)
        self.topology = None
        if validate_topology:
            self.topology = (clone(A.offsets[: self.nrow + 1]), clone(A.columns[: self.nnz]))
        self.raises = bool(validate_topology) or not regularize  # else nothing can be reported: no readback
        self.scale = empty(self.n, dtype=A.scalar_type, device=A.device)
        self.status = zeros(4, dtype=int, device=A.device)
        self.factor_dtype = factor_dtype

    def prepare(self, A) -> None:
        """Check ``A``'s metadata, reset the status, compare the topology and scale the rows."""
        if (A.shape, A.dtype, A.device, A.row_counts is not None) != self.signature:
            shape, dtype, device, _ = self.signature
            raise LinearSolverValueError(f"FSAI update requires the original shape, dtype, device and topology: "
                                         f"shape {shape}, dtype {dtype.__name__}, device {device} and "
                                         f"{'padded' if self.signature[3] else 'compact'} rows, got shape {A.shape}, "
                                         f"dtype {A.dtype.__name__}, device {A.device}")
        if (A.offsets.shape[0] < self.nrow + 1 or A.columns.shape[0] < self.nnz
                or A.values.shape[0] < self.nnz):
            raise LinearSolverValueError("FSAI update requires storage covering every block of the original matrix")
        self.status.zero_()
        if self.topology is not None:
            _launch(compare, self.nrow + 1, [A.offsets[: self.nrow + 1], self.topology[0], self.status], A.device)
            _launch(compare, self.nnz, [A.columns[: self.nnz], self.topology[1], self.status], A.device)
        scale_rows(A, self.scale, self.status, 1)

    def check(self) -> None:
        """Raise if the last update was rejected (reads the status back)."""
        topology, diagonal, failed, _ = (int(s) for s in self.status.numpy())
        if topology:
            raise LinearSolverValueError(f"FSAI update requires identical sparsity ({topology} offsets or columns "
                                         f"differ from the construction's); rebuild to change it")
        if (diagonal or failed) and not self.regularize:
            raise LinearSolverValueError(f"FSAI refit requires finite positive diagonals and SPD local supports "
                                         f"({diagonal} invalid diagonals, {failed} failed rows); the factor is "
                                         f"unchanged")

    def publish(self, owner, candidate, gather, count: int) -> None:
        flag = int(self.regularize)
        _launch(commit_values, candidate.shape[0], [candidate, self.status, flag, owner.G.values], owner.device)
        _launch(commit_transposed, count, [candidate, gather, self.status, flag, owner.GT.values], owner.device)


class FixedPlan(RefitPlan):
    """Refit on the supports selected at construction (compact ``G``)."""

    def __init__(self, owner, A, rank, gather, width, floor, regularize, validate_topology):
        super().__init__(A, owner.factor_dtype, width, floor, regularize, validate_topology)
        self.rank, self.gather = rank, gather
        self.candidate = empty(owner.G.nnz, dtype=owner.factor_dtype, device=A.device)

    def update(self, owner, A) -> None:
        self.prepare(A)
        G = owner.G
        refit(A, self.scale, G.offsets, no_counts(A.device), G.columns, self.rank, self.floor, self.regularize,
              self.width, self.candidate, self.status)
        self.publish(owner, self.candidate, self.gather, owner.GT.nnz)
        if self.raises:
            self.check()


class DeferredPlan(RefitPlan):
    """Select the supports at the first accepted update (the matrix had no values at construction).

    Until then ``G`` and ``GT`` are the identity: ``G`` has padded rows of ``width`` slots, ``GT`` room for
    ``n * width`` entries. A rejected first update leaves them so, and the next update selects again.
    """

    def __init__(self, owner, A, width, step, tolerance, floor, regularize, validate_topology):
        super().__init__(A, owner.factor_dtype, width, floor, regularize, validate_topology)
        n, device, storage = self.n, A.device, owner.factor_dtype
        self.step, self.tolerance = step, tolerance
        self.select = select_rows  # the kernel that chooses the supports (never launched once published)
        self.ready = zeros(1, dtype=int, device=device)
        self.pattern_status = zeros(3, dtype=int, device=device)
        self.published = False
        self.support_columns = full(n * width, -1, dtype=int, device=device)
        self.support_values = zeros(n * width, dtype=A.scalar_type, device=device)
        self.rank = zeros(n * width, dtype=int, device=device)
        self.support_counts = zeros(n + 1, dtype=int, device=device)
        self.candidate = zeros(n * width, dtype=storage, device=device)
        self.gather = None
        identity_columns = np.full(n * width, -1, dtype=np.int32)
        identity_columns[np.arange(n) * width] = np.arange(n)
        identity_values = np.zeros(n * width)
        identity_values[np.arange(n) * width] = 1.0
        G = owner.G
        G.offsets = array(np.arange(n + 1, dtype=np.int32) * width, dtype=int, device=device)
        G.columns = array(identity_columns, dtype=int, device=device)
        G.values = array(identity_values, dtype=storage, device=device)
        G.row_counts = full(n, 1, dtype=int, device=device)
        G.nnz = n * width
        GT = owner.GT
        GT.offsets = array(np.arange(n + 1, dtype=np.int32), dtype=int, device=device)
        GT.columns = array(np.concatenate([np.arange(n), np.zeros(n * width - n)]).astype(np.int32), dtype=int,
                           device=device)
        transposed_values = np.zeros(n * width)
        transposed_values[:n] = 1.0
        GT.values = array(transposed_values, dtype=storage, device=device)
        GT.row_counts = None
        GT.nnz = n

    def update(self, owner, A) -> None:
        self.prepare(A)
        if self.published:
            G = owner.G
            refit(A, self.scale, G.offsets, G.row_counts, G.columns, self.rank, self.floor, self.regularize,
                  self.width, self.candidate, self.status)
            self.publish(owner, self.candidate, self.gather, owner.GT.nnz)
            if self.raises:
                self.check()
            return
        n, width, device = self.n, self.width, A.device
        self.pattern_status.zero_()
        self.support_columns.fill_(-1)
        select(A, self.scale, self.tolerance, self.floor, width, self.step, self.support_columns,
               self.support_values, self.pattern_status, self.ready)
        self.support_counts.zero_()
        sort_selection(n, width, self.support_columns, self.support_values, self.rank, self.support_counts, device)
        offsets = owner.G.offsets
        counts = self.support_counts[1:]
        refit(A, self.scale, offsets, counts, self.support_columns, self.rank, self.floor, self.regularize, width,
              self.candidate, self.status)
        topology, diagonal, failed, _ = (int(s) for s in self.status.numpy())
        if topology or ((diagonal or failed) and not self.regularize):
            self.check()  # raises; G stays the identity and the next update selects again
        G = owner.G
        copy(G.columns, self.support_columns)
        copy(G.row_counts, counts)
        self.gather = transpose_index(G, owner.GT, capacity=n * width)
        self.publish(owner, self.candidate, self.gather, owner.GT.nnz)
        self.ready.fill_(1)
        self.published = True

"""Writing a computed compact result into a destination under a topology policy.

Operations compute their result as a fresh compact matrix; ``install`` then makes ``dest`` that matrix
(``"compact"``: its arrays), writes its values into the blocks ``dest`` already has (``"masked"``: the
topology of ``dest`` is kept, its other blocks become zero) or copies each row into the row capacity of a
padded ``dest`` (``"padded"``: ``offsets`` kept, ``row_counts`` set; a row longer than its capacity keeps its
first blocks and sets ``BSR_STATUS_ROW_CAPACITY_EXCEEDED``).
"""

from __future__ import annotations

from typing import Any

from ..runtime.warp_names import wp
from .indexing import block_row, bsr_block_index
from .matrix import BSR_STATUS_ROW_CAPACITY_EXCEEDED, BsrMatrix, scalar_view3d

TOPOLOGIES = ("compact", "masked", "padded")


def check_topology(topology, allowed=TOPOLOGIES) -> str:
    topology = "compact" if topology is None else topology
    if topology not in allowed:
        raise ValueError(f"Unsupported topology policy: {topology}")
    return topology


@wp.kernel
def _masked_values(nrow: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int,
                   columns: wp.array(dtype=int), values: wp.array3d(dtype=Any), src_offsets: wp.array(dtype=int),
                   src_columns: wp.array(dtype=int), src_values: wp.array3d(dtype=Any)):
    b, i, j = wp.tid()
    r = block_row(offsets, row_counts, padded, nrow, b)
    if r < 0:
        return
    s = bsr_block_index(r, columns[b], src_offsets, src_columns)
    if s >= 0:
        values[b, i, j] = src_values[s, i, j]
    else:
        values[b, i, j] = values.dtype(0.0)


@wp.kernel(enable_backward=False)
def _padded_topology(offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), columns: wp.array(dtype=int),
                     src_offsets: wp.array(dtype=int), src_columns: wp.array(dtype=int),
                     status: wp.array(dtype=int)):
    r = wp.tid()
    count = src_offsets[r + 1] - src_offsets[r]
    capacity = offsets[r + 1] - offsets[r]
    if count > capacity:
        status[0] = BSR_STATUS_ROW_CAPACITY_EXCEEDED
        count = capacity
    row_counts[r] = count
    for k in range(count):
        columns[offsets[r] + k] = src_columns[src_offsets[r] + k]


@wp.kernel
def _padded_values(nrow: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int),
                   values: wp.array3d(dtype=Any), src_offsets: wp.array(dtype=int), src_values: wp.array3d(dtype=Any)):
    b, i, j = wp.tid()
    r = block_row(offsets, row_counts, 1, nrow, b)
    if r >= 0:
        values[b, i, j] = src_values[src_offsets[r] + b - offsets[r], i, j]


@wp.kernel(enable_backward=False)
def _zero_counts(row_counts: wp.array(dtype=int)):
    row_counts[wp.tid()] = 0


def padded_ready(dest: BsrMatrix) -> None:
    """Give a matrix used as a padded destination its ``row_counts`` (a compact one: every row full)."""
    if dest.row_counts is None or dest.row_counts.shape[0] < dest.nrow:
        dest.row_counts = wp.empty(dest.nrow, dtype=int, device=dest.device)
        if dest.nrow:
            wp.launch(_full_counts, dest.nrow, inputs=[dest.offsets, dest.row_counts], device=dest.device,
                      record_tape=False)


@wp.kernel(enable_backward=False)
def _full_counts(offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int)):
    r = wp.tid()
    row_counts[r] = offsets[r + 1] - offsets[r]


def empty_padded_rows(dest: BsrMatrix) -> None:
    """Every row of a padded ``dest`` empty, its capacity kept."""
    padded_ready(dest)
    if dest.nrow:
        wp.launch(_zero_counts, dest.nrow, inputs=[dest.row_counts], device=dest.device, record_tape=False)


def install(dest: BsrMatrix, result: BsrMatrix, topology: str, values: bool = True) -> None:
    """Make ``dest`` hold ``result`` (compact, same block type and size in blocks) under ``topology``."""
    device = dest.device
    if topology == "compact":
        dest.nrow, dest.ncol = result.nrow, result.ncol
        dest.offsets, dest.columns, dest.row_counts, dest.nnz = result.offsets, result.columns, None, result.nnz
        if values or dest.values.shape[0] < result.nnz:
            dest.values = result.values
        return
    if topology == "masked":
        if (dest.nrow, dest.ncol) != (result.nrow, result.ncol):
            raise ValueError(f"Cannot change the size of a matrix with topology='masked' ({dest.nrow}x{dest.ncol} "
                             f"blocks, the result {result.nrow}x{result.ncol})")
        if values and dest.nnz:
            wp.launch(_masked_values, (dest.nnz, *dest.block_shape),
                      inputs=[dest.nrow, dest.offsets, dest.row_counts, int(dest.row_counts is not None),
                              dest.columns, scalar_view3d(dest.values), result.offsets, result.columns,
                              scalar_view3d(result.values)], device=device)
        return
    if (dest.nrow, dest.ncol) != (result.nrow, result.ncol):
        raise ValueError(f"Cannot change the size of a matrix with topology='padded' ({dest.nrow}x{dest.ncol} "
                         f"blocks, the result {result.nrow}x{result.ncol})")
    padded_ready(dest)
    status = dest._ensure_status()
    if dest.nrow:
        wp.launch(_padded_topology, dest.nrow, inputs=[dest.offsets, dest.row_counts, dest.columns, result.offsets,
                                                       result.columns, status], device=device, record_tape=False)
    if values and dest.nnz:
        wp.launch(_padded_values, (dest.nnz, *dest.block_shape),
                  inputs=[dest.nrow, dest.offsets, dest.row_counts, scalar_view3d(dest.values), result.offsets,
                          scalar_view3d(result.values)], device=device)


def take_gradient(dest: BsrMatrix, *sources) -> None:
    """Give ``dest``'s values a gradient when a source matrix's values have one: what an operation writes into
    ``dest`` then carries the sources' gradients under a tape (without it the tape's chain stopped at ``dest``)."""
    if not dest.values.requires_grad and any(getattr(s, "requires_grad", False) for s in sources):
        dest.values.requires_grad = True


def compact_like(dest: BsrMatrix, nrow: int, ncol: int, dtype=None) -> BsrMatrix:
    """An empty matrix to compute a result in, of ``dest``'s block type (or ``dtype``) and requires_grad."""
    from .matrix import bsr_zeros

    out = bsr_zeros(nrow, ncol, dtype or dest.values.dtype, device=dest.device)
    if dest.values.requires_grad:
        out.values = wp.empty(0, dtype=out.values.dtype, device=dest.device, requires_grad=True)
    return out



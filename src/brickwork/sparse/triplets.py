"""BSR matrices from coordinate (COO) triplets: ``bsr_set_from_triplets``, ``bsr_from_triplets``."""

from __future__ import annotations

from typing import Any

from ..runtime.warp_names import wp
from ..types.arrays import array, type_name
from ..types.composite import is_matrix_type
from . import topology as topo
from ._types import block_type, check_array, dim, scalar_of, shape_of
from .layouts import compact_like, install
from .matrix import BsrMatrix, bsr_set_zero, bsr_zeros

_TOPOLOGIES = ("compact", "masked", "padded")


@wp.kernel(enable_backward=False)
def _triplet_keys(rows: wp.array(dtype=int), cols: wp.array(dtype=int), values: wp.array(dtype=Any), prune: int,
                  count: wp.array(dtype=int), nrow: int, ncol: int, key_rows: wp.array(dtype=int),
                  key_cols: wp.array(dtype=int)):
    i = wp.tid()
    r = rows[i]
    c = cols[i]
    keep = r >= 0 and r < nrow and c >= 0 and c < ncol
    if count.shape[0] > 0:
        if i >= count[0]:
            keep = False
    if keep and prune != 0:
        if values[i] == values.dtype(0):
            keep = False
    if keep:
        key_rows[i] = r
        key_cols[i] = c
    else:  # sorted after every kept triplet, then ignored
        key_rows[i] = nrow
        key_cols[i] = 0


@wp.kernel
def sum_contributions(order: wp.array(dtype=int), starts: wp.array(dtype=int), src: wp.array(dtype=Any),
                      dest: wp.array(dtype=Any)):
    """``dest[b]`` = the sum of the sources of block ``b``'s contributions, in their input order."""
    b = wp.tid()
    begin = starts[b]
    end = starts[b + 1]
    total = dest.dtype(0)
    if end > begin:  # the first term itself: a lone -0.0 stays -0.0, as in Warp
        total = src[order[begin]]
    for k in range(begin + 1, end):
        total += src[order[k]]
    dest[b] = total


def block_values(values: array, dtype, func: str = "bsr_set_from_triplets") -> array:
    """``values`` as a 1-D array of ``dtype`` blocks: itself, or a view of a contiguous 3-D scalar array."""
    if not values.is_contiguous:
        raise ValueError(f"{func}: 'values' must be contiguous")
    if values.ndim == 1:
        if values.dtype is not dtype:
            raise ValueError(f"{func}: 'values' has type {type_name(values.dtype)}, the matrix's blocks "
                             f"{type_name(dtype)}")
        return values
    if values.ndim != 3:
        raise ValueError(f"{func}: 'values' must have 1 or 3 dimensions, got {values.ndim}")
    if tuple(values.shape[1:]) != shape_of(dtype):
        raise ValueError(f"{func}: the last two dimensions of 'values' ({tuple(values.shape[1:])}) must be the "
                         f"block shape {shape_of(dtype)}")
    if values.dtype is not scalar_of(dtype):
        raise ValueError(f"{func}: 'values' has scalar type {values.dtype.__name__}, the matrix "
                         f"{scalar_of(dtype).__name__}")
    if not is_matrix_type(dtype) or shape_of(dtype) == (1, 1):  # scalars, or 1x1 matrices of one scalar's size
        flat = values.reshape((values.shape[0],))
        return flat if flat.dtype is dtype else flat.view(dtype)
    return values.view(dtype)


def _check(dest, rows, columns, values, count, topology):
    func = "bsr_set_from_triplets"
    if not isinstance(dest, BsrMatrix):
        raise ValueError(f"{func}: 'dest' must be a BsrMatrix, got {type(dest).__name__}")
    if topology not in _TOPOLOGIES:
        raise ValueError(f"Unsupported topology policy: {topology}")
    check_array(rows, "rows", func)
    check_array(columns, "columns", func)
    if rows.device != dest.device or columns.device != dest.device:
        raise ValueError(f"{func}: 'rows' and 'columns' must be on the matrix's device ({dest.device}), got "
                         f"{rows.device} and {columns.device}")
    if rows.ndim != 1 or columns.ndim != 1 or rows.shape[0] != columns.shape[0]:
        raise ValueError(f"{func}: 'rows' and 'columns' must be 1-D arrays of one length, got shapes {rows.shape} "
                         f"and {columns.shape}")
    if rows.dtype is not wp.int32 or columns.dtype is not wp.int32:
        # Warp's text last: its tests match the message's end
        raise TypeError(f"{func}: 'rows' and 'columns' are {type_name(rows.dtype)} and {type_name(columns.dtype)} "
                        f"arrays; make them with dtype=wp.int32, or convert them: wp.array(rows.numpy(), "
                        f"dtype=wp.int32). Rows and columns arrays must be of type int32")
    if count is not None:
        check_array(count, "count", func, dest.device)
        if count.shape != (1,):
            raise ValueError(f"{func}: 'count' must be a single-element array, got shape {count.shape}")
        if count.dtype is not wp.int32:
            raise TypeError(f"{func}: 'count' must be an int32 array")
    if values is not None:
        check_array(values, "values", func, dest.device)
        if values.shape[0] != rows.shape[0]:
            raise ValueError(f"{func}: 'values' and 'rows' must have the same length, got {values.shape[0]} and "
                             f"{rows.shape[0]}")
        values = block_values(values, dest.values.dtype, func)
    return values


def bsr_set_from_triplets(dest: BsrMatrix, rows: array, columns: array, values: array | None = None,
                          count: array | None = None, prune_numerical_zeros: bool = True, topology=None,
                          build_mapping=None):
    """Fill ``dest`` with the blocks of COO triplets ``(rows[i], columns[i], values[i])``, replacing its blocks.

    Triplets of one block are summed; triplets outside the matrix (or past ``count[0]``) are dropped, as are
    zero-valued ones with ``prune_numerical_zeros``. ``values`` is a 1-D array of ``dest``'s block type or a
    contiguous 3-D array of its scalar type (``None``: the topology only). ``topology="masked"`` keeps
    ``dest``'s blocks and adds the triplets that fall on them; ``"padded"`` writes into ``dest``'s row capacity.
    ``build_mapping`` (``True`` or a ``BsrTripletMap``) records the triplets' blocks for
    ``bsr_set_from_mapped_values`` and returns the map.
    """
    topology = "compact" if topology is None else topology
    values = _check(dest, rows, columns, values, count, topology)
    mapping = None
    if build_mapping is not None and build_mapping is not False:
        from .mapped import prepare_mapping

        mapping = prepare_mapping(build_mapping, dest, topology, prune_numerical_zeros)
    if topology != "compact":  # computed compact, then written into dest's blocks or row capacity
        if topology == "masked":
            dest.values.zero_()
            if values is None:
                return None
        result = compact_like(dest, dest.nrow, dest.ncol)
        bsr_set_from_triplets(result, rows, columns, values, count, prune_numerical_zeros)
        install(dest, result, topology, values is not None)
        return None
    n = rows.shape[0]
    if n == 0:
        bsr_set_zero(dest)
        if mapping is not None:
            mapping.bind(dest, 0, None, None)
        return mapping
    work = topo.Work(dest.device)
    key_rows, key_cols = work.get("key_rows", (n,)), work.get("key_cols", (n,))
    prune = int(bool(prune_numerical_zeros) and values is not None)
    empty = wp.empty(0, dtype=dest.values.dtype, device=dest.device)
    wp.launch(_triplet_keys, n, inputs=[rows, columns, empty if values is None else values, prune, count, dest.nrow,
                                        dest.ncol, key_rows, key_cols], device=dest.device, record_tape=False)
    plan, offsets, cols = topo.build(key_rows, key_cols, n, dest.nrow, dest.ncol, work)
    set_compact(dest, plan, offsets, cols)
    if values is not None and plan.nnz:
        wp.launch(sum_contributions, plan.nnz, inputs=[plan.order, plan.starts, values, dest.values],
                  device=dest.device)
    if mapping is not None:
        mapping.bind(dest, n, plan, key_rows)
    return mapping


def set_compact(dest: BsrMatrix, plan, offsets: array, columns: array) -> None:
    """Install a built compact topology in ``dest`` (values: grown to ``nnz`` blocks, not written)."""
    dest.offsets, dest.columns, dest.row_counts, dest.nnz = offsets, columns, None, plan.nnz
    if dest.values.shape[0] < plan.nnz:
        dest.values = wp.empty(plan.nnz, dtype=dest.values.dtype, device=dest.device,
                               requires_grad=dest.values.requires_grad)


def bsr_from_triplets(rows_of_blocks: int, cols_of_blocks: int, rows: array, columns: array, values: array,
                      prune_numerical_zeros: bool = True) -> BsrMatrix:
    """A new ``rows_of_blocks`` x ``cols_of_blocks`` matrix from COO triplets (``bsr_set_from_triplets``); the
    block type is ``values``' dtype (a 3-D scalar array: blocks of its last two dimensions)."""
    nrow, ncol = dim(rows_of_blocks, "rows_of_blocks"), dim(cols_of_blocks, "cols_of_blocks")
    check_array(values, "values", "bsr_from_triplets")
    if values.ndim == 3:
        dtype = block_type(wp.matrix(shape=values.shape[1:], dtype=values.dtype), "values")
    else:
        dtype = block_type(values.dtype, "values")
    dest = bsr_zeros(nrow, ncol, dtype, device=values.device)
    if values.requires_grad:  # the matrix's values get gradients from the triplets' (Warp's)
        dest.values = wp.empty(0, dtype=dtype, device=dest.device, requires_grad=True)
    bsr_set_from_triplets(dest, rows, columns, values, prune_numerical_zeros=prune_numerical_zeros)
    return dest

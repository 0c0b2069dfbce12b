"""Copies and transposes: ``bsr_assign``, ``bsr_copy`` (other scalar type or block shape), ``bsr_set_transpose``,
``bsr_transposed``.

Each source block is one contribution to each destination block it overlaps (several when blocks are split,
one of several when they are merged), so the result's topology is built by ``topology.build`` and each value
gathers the scalars its contributions cover.
"""

from __future__ import annotations

from typing import Any

from ..runtime.warp_names import wp
from ..types.arrays import type_name
from ..types.scalars import is_scalar_type, python_annotation_type
from . import topology as topo
from . import transpose_cpu
from ._types import block_of, shape_of
from .indexing import block_row
from .layouts import check_topology, compact_like, install, take_gradient
from .matrix import BsrMatrix, bsr_zeros, scalar_view3d, unpack
from .triplets import set_compact


@wp.kernel(enable_backward=False)
def _split_keys(slot_rows: wp.array(dtype=int), columns: wp.array(dtype=int), src_sub: wp.vec2i, dest_sub: wp.vec2i,
                transpose: int, key_nrow: int, key_rows: wp.array(dtype=int), key_cols: wp.array(dtype=int)):
    s, k = wp.tid()
    at = s * src_sub[0] * src_sub[1] + k
    r = slot_rows[s]
    if r < 0:
        key_rows[at] = key_nrow
        key_cols[at] = 0
        return
    row = (r * src_sub[0] + k // src_sub[1]) // dest_sub[0]
    col = (columns[s] * src_sub[1] + k % src_sub[1]) // dest_sub[1]
    if transpose != 0:
        key_rows[at] = col
        key_cols[at] = row
    else:
        key_rows[at] = row
        key_cols[at] = col


@wp.kernel(enable_backward=False)
def _same_shape_keys(slot_rows: wp.array(dtype=int), columns: wp.array(dtype=int), transpose: int, key_nrow: int,
                     key_rows: wp.array(dtype=int), key_cols: wp.array(dtype=int)):
    # _split_keys when each source block is one destination block: no divisions
    s = wp.tid()
    r = slot_rows[s]
    if r < 0:
        key_rows[s] = key_nrow
        key_cols[s] = 0
    elif transpose != 0:
        key_rows[s] = columns[s]
        key_cols[s] = r
    else:
        key_rows[s] = r
        key_cols[s] = columns[s]


@wp.kernel
def _gather(nrow: int, offsets: wp.array(dtype=int), columns: wp.array(dtype=int), order: wp.array(dtype=int),
            starts: wp.array(dtype=int), per_block: int, src_nrow: int, src_offsets: wp.array(dtype=int),
            src_row_counts: wp.array(dtype=int), src_padded: int, src_columns: wp.array(dtype=int),
            src: wp.array3d(dtype=Any), scale: Any, transpose: int, dest: wp.array3d(dtype=Any)):
    b, i, j = wp.tid()
    r = block_row(offsets, src_row_counts, 0, nrow, b)
    # the scalar's position in the matrix (of the transposed source when transposing)
    gr = r * dest.shape[1] + i
    gc = columns[b] * dest.shape[2] + j
    if transpose != 0:
        t = gr
        gr = gc
        gc = t
    total = dest.dtype(0.0)
    found = 0
    for k in range(starts[b], starts[b + 1]):
        s = order[k] // per_block
        sr = block_row(src_offsets, src_row_counts, src_padded, src_nrow, s)
        li = gr - sr * src.shape[1]
        lj = gc - src_columns[s] * src.shape[2]
        if li >= 0 and li < src.shape[1] and lj >= 0 and lj < src.shape[2]:
            if found == 0:  # copied, not added to 0: a -0.0 stays -0.0 (bit-exact copies, as Warp's)
                total = dest.dtype(src[s, li, lj])
                found = 1
            else:
                total += dest.dtype(src[s, li, lj])
    if scale != dest.dtype(1.0):
        total = scale * total
    dest[b, i, j] = total


@wp.kernel
def _copy_blocks(order: wp.array(dtype=int), starts: wp.array(dtype=int), src: wp.array3d(dtype=Any), scale: Any,
                 transpose: int, dest: wp.array3d(dtype=Any)):
    # _gather when each source block is one destination block (same or transposed shape): no searches. A block's
    # contributions (one, unless the source repeats a block) are copied, then added, as _gather does
    b, i, j = wp.tid()
    total = dest.dtype(0.0)
    for k in range(starts[b], starts[b + 1]):
        s = order[k]
        v = src[s, i, j]
        if transpose != 0:
            v = src[s, j, i]
        if k == starts[b]:
            total = dest.dtype(v)
        else:
            total += dest.dtype(v)
    if scale != dest.dtype(1.0):
        total = scale * total
    dest[b, i, j] = total


def _subdivisions(src_shape, dest_shape):
    """How many destination blocks a source block holds, and source blocks a destination block, along each axis."""
    src_sub, dest_sub = [1, 1], [1, 1]
    for axis, what in ((0, "rows"), (1, "columns")):
        s, d = src_shape[axis], dest_shape[axis]
        if s >= d:
            src_sub[axis] = s // d
        else:
            dest_sub[axis] = d // s
        if src_sub[axis] * d != s * dest_sub[axis]:
            raise ValueError(f"Incompatible dest and src block shapes; block {what} must evenly divide one another "
                             f"(got {d} and {s})")
    return src_sub, dest_sub


def _rebuilt(src: BsrMatrix, scale, dest_like: BsrMatrix, transpose: bool, structure_only: bool) -> BsrMatrix:
    """``scale * src`` (transposed) as a compact matrix of ``dest_like``'s block type."""
    shape = shape_of(dest_like.values.dtype)
    src_shape = src.block_shape[::-1] if transpose else src.block_shape
    src_sub, dest_sub = _subdivisions(src_shape, shape)
    nrow_src, ncol_src = (src.ncol, src.nrow) if transpose else (src.nrow, src.ncol)
    nrow, ncol = nrow_src * src_sub[0] // dest_sub[0], ncol_src * src_sub[1] // dest_sub[1]
    if nrow * dest_sub[0] != nrow_src * src_sub[0] or ncol * dest_sub[1] != ncol_src * src_sub[1]:
        raise ValueError(f"The requested block shape {shape} does not evenly divide the source matrix of total size "
                         f"{src.shape}")
    out = compact_like(dest_like, 0, 0)  # its offsets are built below (not filled for nothing: a parallel launch)
    out.nrow, out.ncol = nrow, ncol
    work = topo.Work(src.device)
    # a transposed source's blocks split along its own axes: its sub-block counts in its own order
    own_sub = src_sub[::-1] if transpose else src_sub
    own_dest = dest_sub[::-1] if transpose else dest_sub
    per_block = own_sub[0] * own_sub[1]
    n = src.nnz * per_block
    same_shape = per_block == 1 and own_dest == [1, 1]
    offsets = None
    if transpose and same_shape and n and topo.native_cpu(src.device):  # a counting sort, when the rows allow it
        offsets = transpose_cpu.column_offsets(src, work)
    if offsets is None:
        plan, offsets, columns = _sorted_topology(src, transpose, same_shape, own_sub, own_dest, n, nrow, ncol, work)
    elif structure_only or src.requires_grad or out.requires_grad or src.values.dtype is not src.scalar_type:
        plan, columns = transpose_cpu.plan(src, offsets, work)  # for the copy kernel (which a tape records)
    else:  # scalars: blocks and values in one pass
        set_compact(out, topo.Plan(None, None, n), offsets, None)
        out.columns = transpose_cpu.scatter(src, out.scalar_type(float(scale)), offsets, out, work)
        return out
    set_compact(out, plan, offsets, columns)
    if not structure_only and plan.nnz:
        scalar = out.scalar_type
        if same_shape:
            wp.launch(_copy_blocks, (plan.nnz, *shape), inputs=[plan.order, plan.starts, src.scalar_values,
                                                                 scalar(float(scale)), int(transpose),
                                                                 scalar_view3d(out.values)], device=src.device)
            return out
        wp.launch(_gather, (plan.nnz, *shape),
                  inputs=[nrow, offsets, columns, plan.order, plan.starts, per_block, src.nrow, src.offsets,
                          src.row_counts, int(src.row_counts is not None), src.columns, src.scalar_values,
                          scalar(float(scale)), int(transpose), scalar_view3d(out.values)], device=src.device)
    return out


def _sorted_topology(src: BsrMatrix, transpose: bool, same_shape: bool, own_sub, own_dest, n: int, nrow: int,
                     ncol: int, work):
    """The keys of ``src``'s ``n`` (sub-)blocks in the result, sorted by ``topology.build``."""
    key_rows, key_cols = work.get("key_rows", (n,)), work.get("key_cols", (n,))
    per_block = own_sub[0] * own_sub[1]
    if n:
        slot_rows = src.uncompress_rows(work.get("slot_rows", (src.nnz,)))
        if same_shape:
            wp.launch(_same_shape_keys, n, inputs=[slot_rows, src.columns, int(transpose), nrow, key_rows, key_cols],
                      device=src.device, record_tape=False)
        else:
            wp.launch(_split_keys, (src.nnz, per_block),
                      inputs=[slot_rows, src.columns, wp.vec2i(*own_sub), wp.vec2i(*own_dest), int(transpose), nrow,
                              key_rows, key_cols], device=src.device, record_tape=False)
    return topo.build(key_rows, key_cols, n, nrow, ncol, work)


def _check_dest(dest, src, func: str):
    if not isinstance(dest, BsrMatrix):
        raise ValueError(f"{func}: 'dest' must be a BsrMatrix, got {type(dest).__name__}")
    if dest.device != src.device:
        raise ValueError(f"{func}: source and destination matrices must be on one device, got {src.device} and "
                         f"{dest.device}")


def bsr_assign(dest: BsrMatrix, src, structure_only: bool = False, topology=None) -> None:
    """Copy ``src`` (a matrix or scaled expression) into ``dest``, converting to ``dest``'s scalar type and block
    shape (block sizes must divide one another); ``dest`` takes ``src``'s size. ``structure_only``: the topology
    only, values unset. ``topology``: see ``bsr_set_from_triplets``."""
    src, scale = unpack(src, "bsr_assign", "src")
    _check_dest(dest, src, "bsr_assign")
    topology = check_topology(topology)
    take_gradient(dest, src)
    result = _rebuilt(src, scale, dest, False, structure_only)
    install(dest, result, topology, not structure_only)


def bsr_copy(A, scalar_type=None, block_shape=None, structure_only: bool = False, topology="compact") -> BsrMatrix:
    """A copy of ``A`` (a matrix or scaled expression), with another scalar type or block shape when given;
    ``topology="padded"`` keeps ``A``'s row capacity."""
    src, scale = unpack(A, "bsr_copy", "A")
    topology = check_topology(topology, ("compact", "padded"))
    scalar_type = src.scalar_type if scalar_type is None else python_annotation_type(scalar_type)
    if not is_scalar_type(scalar_type):
        raise ValueError(f"bsr_copy: 'scalar_type' must be a scalar type, got {scalar_type!r}")
    block_shape = src.block_shape if block_shape is None else tuple(block_shape)
    if len(block_shape) != 2 or not all(isinstance(n, int) and n > 0 for n in block_shape):
        raise ValueError(f"bsr_copy: 'block_shape' must be two positive ints, got {block_shape!r}")
    dtype = block_of(scalar_type, block_shape)
    if topology == "padded" and src.row_counts is not None and block_shape == src.block_shape:
        dest = bsr_zeros(src.nrow, src.ncol, dtype, device=src.device)
        dest.offsets = wp.empty_like(src.offsets)
        wp.copy(dest=dest.offsets, src=src.offsets)
        dest.nnz = src.nnz
        dest.columns = wp.empty(src.nnz, dtype=int, device=src.device)
        dest.values = wp.empty(src.nnz, dtype=dtype, device=src.device, requires_grad=src.requires_grad)
        dest.row_counts = wp.zeros(src.nrow, dtype=int, device=src.device)
        bsr_assign(dest, A, structure_only, "padded")
        return dest
    dest = bsr_zeros(0, 0, dtype, device=src.device)
    if src.requires_grad:
        dest.values = wp.empty(0, dtype=dtype, device=src.device, requires_grad=True)
    result = _rebuilt(src, scale, dest, False, structure_only)
    install(dest, result, "compact")
    return dest


def bsr_set_transpose(dest: BsrMatrix, src, topology=None) -> None:
    """``dest`` = the transpose of ``src`` (a matrix or scaled expression); ``dest``'s blocks must be ``src``'s
    transposed, of the same scalar type."""
    src, scale = unpack(src, "bsr_set_transpose", "src")
    _check_dest(dest, src, "bsr_set_transpose")
    topology = check_topology(topology)
    if dest.scalar_type is not src.scalar_type:
        raise ValueError(f"bsr_set_transpose: 'dest' has scalar type {type_name(dest.scalar_type)}, 'src' "
                         f"{type_name(src.scalar_type)}")
    if dest.block_shape != src.block_shape[::-1]:
        raise ValueError(f"bsr_set_transpose: 'dest': Destination block shape must be {src.block_shape[::-1]}, got "
                         f"{dest.block_shape}")
    take_gradient(dest, src)
    result = _rebuilt(src, scale, dest, True, False)
    install(dest, result, topology)


def bsr_transposed(A) -> BsrMatrix:
    """A new matrix, the transpose of ``A`` (a matrix or scaled expression)."""
    src, _ = unpack(A, "bsr_transposed", "A")
    dest = bsr_zeros(0, 0, block_of(src.scalar_type, src.block_shape[::-1]), device=src.device)  # takes the size
    if src.requires_grad:
        dest.values = wp.empty(0, dtype=dest.values.dtype, device=src.device, requires_grad=True)
    bsr_set_transpose(dest, A)
    return dest

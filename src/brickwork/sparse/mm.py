"""``bsr_mm``: ``z = alpha * x @ y + beta * z``, and ``bsr_mm_work_arrays``.

The products ``x[i, k] @ y[k, j]`` are listed as pairs of blocks (per block of ``x``, the blocks of ``y``'s row
``k``: counted, scanned, then written), with ``z``'s blocks when ``beta`` is not zero; ``topology.build`` sorts
them into the result's blocks, and each value sums its pairs.
"""

from __future__ import annotations

from typing import Any

from ..runtime import device_sort
from ..runtime.warp_names import wp
from . import mm_cpu
from . import topology as topo
from ._types import block_of
from .axpy import add_slot_keys, bsr_scale
from .indexing import block_row, row_end
from .layouts import check_topology, compact_like, install, take_gradient
from .matrix import BsrMatrix, bsr_zeros, scalar_view3d, unpack
from .triplets import set_compact


@wp.kernel(enable_backward=False)
def _count_pairs(x_nrow: int, x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int), x_padded: int,
                 x_columns: wp.array(dtype=int), y_offsets: wp.array(dtype=int), y_counts: wp.array(dtype=int),
                 y_padded: int, counts: wp.array(dtype=int)):
    s = wp.tid()
    n = 0
    if block_row(x_offsets, x_counts, x_padded, x_nrow, s) >= 0:
        k = x_columns[s]
        n = row_end(y_offsets, y_counts, y_padded, k) - y_offsets[k]
    counts[s] = n


@wp.kernel(enable_backward=False)
def _list_pairs(x_nrow: int, x_offsets: wp.array(dtype=int), x_counts: wp.array(dtype=int), x_padded: int,
                x_columns: wp.array(dtype=int), y_offsets: wp.array(dtype=int), y_columns: wp.array(dtype=int),
                firsts: wp.array(dtype=int), pair_x: wp.array(dtype=int), pair_y: wp.array(dtype=int),
                key_rows: wp.array(dtype=int), key_cols: wp.array(dtype=int)):
    s = wp.tid()
    r = block_row(x_offsets, x_counts, x_padded, x_nrow, s)
    if r < 0:
        return
    k = x_columns[s]
    at = firsts[s]
    for t in range(firsts[s + 1] - at):
        yb = y_offsets[k] + t
        pair_x[at + t] = s
        pair_y[at + t] = yb
        key_rows[at + t] = r
        key_cols[at + t] = y_columns[yb]


@wp.kernel
def _products(order: wp.array(dtype=int), starts: wp.array(dtype=int), npairs: int, pair_x: wp.array(dtype=int),
              pair_y: wp.array(dtype=int), x: wp.array3d(dtype=Any), y: wp.array3d(dtype=Any), alpha: Any,
              z: wp.array3d(dtype=Any), beta: Any, out: wp.array3d(dtype=Any)):
    b, i, j = wp.tid()
    total = out.dtype(0.0)
    for k in range(starts[b], starts[b + 1]):
        p = order[k]
        if p < npairs:
            product = out.dtype(0.0)
            for m in range(x.shape[2]):
                product += x[pair_x[p], i, m] * y[pair_y[p], m, j]
            total += alpha * product
        else:
            total += beta * z[p - npairs, i, j]
    out[b, i, j] = total


class bsr_mm_work_arrays(topo.WorkArrays):  # noqa: N801 - Warp's name
    """Work arrays that repeated ``bsr_mm`` calls reuse (``reuse_topology`` recomputes the topology here)."""


def _check(x: BsrMatrix, y: BsrMatrix, z: BsrMatrix) -> None:
    if not (x.device == y.device == z.device):
        raise ValueError(f"bsr_mm: all arguments must be on one device, got {x.device}, {y.device} and {z.device}")
    if not (x.scalar_type is y.scalar_type is z.scalar_type):
        raise ValueError(f"Matrices must have the same scalar type, got {x.scalar_type.__name__}, "
                         f"{y.scalar_type.__name__} and {z.scalar_type.__name__}")
    if x.block_shape[0] != z.block_shape[0] or y.block_shape[1] != z.block_shape[1] \
            or x.block_shape[1] != y.block_shape[0]:
        raise ValueError(f"Incompatible block sizes for matrix multiplication, got ({x.block_shape}, "
                         f"{y.block_shape}) and ({z.block_shape})")
    if x.nrow != z.nrow or z.ncol != y.ncol or x.ncol != y.nrow:
        raise ValueError(f"Incompatible number of rows/columns for matrix multiplication, got ({x.nrow}, {x.ncol}) "
                         f"and ({y.nrow}, {y.ncol})")


def bsr_mm(x, y, z: BsrMatrix | None = None, alpha=1.0, beta=0.0, work_arrays=None, reuse_topology: bool = False,
           tile_size: int = 0, max_new_nnz: int | None = None, topology=None) -> BsrMatrix:
    """``z = alpha * x @ y + beta * z`` and return ``z`` (a new matrix when none is given). Any of the three may
    be one matrix. ``topology="masked"`` keeps ``z``'s blocks, ``"padded"`` writes into its row capacity.
    ``tile_size``, ``reuse_topology`` and ``max_new_nnz`` are accepted for Warp's signature (the topology is
    always computed)."""
    x, x_scale = unpack(x, "bsr_mm", "x")
    y, y_scale = unpack(y, "bsr_mm", "y")
    topology = check_topology(topology)
    if reuse_topology and topology == "padded":
        raise ValueError("reuse_topology is only supported with topology='compact'")
    alpha = float(alpha) * float(x_scale) * float(y_scale)
    if z is None:
        if topology != "compact":
            raise ValueError("Left-hand-side 'z' matrix must be provided for this topology policy")
        z = bsr_zeros(x.nrow, y.ncol, block_of(x.scalar_type, (x.block_shape[0], y.block_shape[1])),
                      device=x.device)
        if x.requires_grad or y.requires_grad:
            z.values = wp.empty(0, dtype=z.values.dtype, device=z.device, requires_grad=True)
        beta = 0.0
    elif not isinstance(z, BsrMatrix):
        raise ValueError(f"bsr_mm: 'z' must be a BsrMatrix, got {type(z).__name__}")
    _check(x, y, z)
    take_gradient(z, x, y)
    beta = float(beta)
    if alpha == 0.0 or x.nnz == 0 or y.nnz == 0:
        return bsr_scale(z, beta)
    device = z.device
    work = (work_arrays or bsr_mm_work_arrays())._get(device)
    if max_new_nnz is None and mm_cpu.applies(x, y, z):  # the CPU's row-by-row product: the same sums
        result = compact_like(z, z.nrow, z.ncol)
        mm_cpu.product(x, y, z, alpha, beta, beta != 0.0 or topology != "compact", result, work)
        install(z, result, topology)
        return z
    run = topo.launcher(device)
    firsts = work.get("firsts", (x.nnz + 1,))
    run(_count_pairs, x.nnz, x.nrow, x.offsets, x.row_counts, int(x.row_counts is not None), x.columns,
        y.offsets, y.row_counts, int(y.row_counts is not None), firsts)
    run(_zero_last, 1, firsts, x.nnz)
    device_sort.exclusive_scan(firsts, x.nnz + 1, work.get, run, device_sort.GPU.segment)
    npairs = int(firsts[x.nnz:].numpy()[0])  # the product count: sizes the pair lists
    nz = z.nnz if (beta != 0.0 or topology != "compact") else 0
    n = npairs + nz
    pair_x, pair_y = work.get("pair_x", (max(npairs, 1),)), work.get("pair_y", (max(npairs, 1),))
    key_rows, key_cols = work.get("key_rows", (n,)), work.get("key_cols", (n,))
    run(_list_pairs, x.nnz, x.nrow, x.offsets, x.row_counts, int(x.row_counts is not None), x.columns, y.offsets,
        y.columns, firsts, pair_x, pair_y, key_rows, key_cols)
    if nz:
        add_slot_keys(z, npairs, z.nrow, key_rows, key_cols)
    result = compact_like(z, z.nrow, z.ncol)
    plan, offsets, columns = topo.build(key_rows, key_cols, n, z.nrow, z.ncol, work)
    set_compact(result, plan, offsets, columns)
    result.nnz_sync()  # the exact count, as Warp's product reads it
    if max_new_nnz is not None and result.nnz > max_new_nnz + nz:  # Warp's bound: the blocks past it dropped
        # (printed to stdout, as Warp's native message)
        print(f"Warp UserWarning: bsr_mm: the number of blocks ({result.nnz}) exceeded max_new_nnz "
              f"({max_new_nnz}) plus the blocks of z ({nz}); the product is truncated", flush=True)
        result.nnz = int(max_new_nnz) + nz
        run(_clamp, z.nrow + 1, result.offsets, result.nnz)
    if result.nnz:
        scalar = z.scalar_type
        wp.launch(_products, (result.nnz, *z.block_shape),
                  inputs=[plan.order, plan.starts, npairs, pair_x, pair_y, x.scalar_values, y.scalar_values,
                          scalar(alpha), z.scalar_values if nz else result.scalar_values, scalar(beta),
                          scalar_view3d(result.values)], device=device)
    install(z, result, topology)
    return z


@wp.kernel(enable_backward=False)
def _clamp(offsets: wp.array(dtype=int), limit: int):
    r = wp.tid()
    offsets[r] = wp.min(offsets[r], limit)


@wp.kernel(enable_backward=False)
def _zero_last(a: wp.array(dtype=int), n: int):
    a[n] = 0

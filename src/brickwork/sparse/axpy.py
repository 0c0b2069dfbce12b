"""Sums and scaling: ``bsr_axpy`` (``y = alpha * x + beta * y``), ``bsr_scale``, ``bsr_axpy_work_arrays``."""

from __future__ import annotations

from typing import Any

from ..runtime.warp_names import wp
from . import topology as topo
from .indexing import block_row
from .layouts import check_topology, compact_like, install, take_gradient
from .matrix import BsrMatrix, bsr_zeros, scalar_view3d, unpack
from .triplets import set_compact


@wp.kernel
def _scale(values: wp.array3d(dtype=Any), alpha: Any):
    b, i, j = wp.tid()
    values[b, i, j] = alpha * values[b, i, j]


@wp.kernel(enable_backward=False)
def slot_keys(nrow: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int,
              columns: wp.array(dtype=int), at: int, key_nrow: int, key_rows: wp.array(dtype=int),
              key_cols: wp.array(dtype=int)):
    """The key of each stored block slot (inactive ones discarded), written from ``at`` on."""
    s = wp.tid()
    r = block_row(offsets, row_counts, padded, nrow, s)
    if r < 0:
        key_rows[at + s] = key_nrow
        key_cols[at + s] = 0
    else:
        key_rows[at + s] = r
        key_cols[at + s] = columns[s]


@wp.kernel
def _sum(order: wp.array(dtype=int), starts: wp.array(dtype=int), nx: int, x: wp.array3d(dtype=Any), alpha: Any,
         y: wp.array3d(dtype=Any), beta: Any, out: wp.array3d(dtype=Any)):
    b, i, j = wp.tid()
    total = out.dtype(0.0)
    for k in range(starts[b], starts[b + 1]):
        s = order[k]
        if s < nx:
            total += alpha * x[s, i, j]
        else:
            total += beta * y[s - nx, i, j]
    out[b, i, j] = total


def add_slot_keys(m: BsrMatrix, at: int, key_nrow: int, key_rows, key_cols) -> None:
    if m.nnz:
        wp.launch(slot_keys, m.nnz, inputs=[m.nrow, m.offsets, m.row_counts, int(m.row_counts is not None),
                                            m.columns, at, key_nrow, key_rows, key_cols],
                  device=m.device, record_tape=False)


class bsr_axpy_work_arrays(topo.WorkArrays):  # noqa: N801 - Warp's name
    """Work arrays that repeated ``bsr_axpy`` calls of one size reuse."""


def bsr_scale(x, alpha) -> BsrMatrix:
    """``x = alpha * x`` (the blocks of ``x`` kept, zero or not); returns ``x``."""
    x, scale = unpack(x, "bsr_scale", "x")
    alpha = float(alpha) * float(scale)
    if alpha != 1.0 and x.nnz:
        wp.launch(_scale, (x.nnz, *x.block_shape), inputs=[x.scalar_values, x.scalar_type(alpha)], device=x.device)
    return x


def _check_pair(x: BsrMatrix, y: BsrMatrix) -> None:
    if x.device != y.device:
        raise ValueError(f"bsr_axpy: all arguments must be on one device, got {x.device} and {y.device}")
    if x.scalar_type is not y.scalar_type or x.block_shape != y.block_shape:
        raise ValueError(f"Matrices must have the same block type, got ({x.block_shape}, {x.scalar_type.__name__}) "
                         f"and ({y.block_shape}, {y.scalar_type.__name__})")
    if x.nrow != y.nrow or x.ncol != y.ncol:
        raise ValueError(f"Matrices must have the same number of rows and columns, got ({x.nrow}, {x.ncol}) and "
                         f"({y.nrow}, {y.ncol})")


def bsr_axpy(x, y: BsrMatrix | None = None, alpha=1.0, beta=1.0, work_arrays=None, topology=None) -> BsrMatrix:
    """``y = alpha * x + beta * y`` and return ``y`` (a new matrix when none is given); ``y``'s blocks become
    the union of both matrices' (``topology="masked"``: ``y``'s kept; ``"padded"``: in ``y``'s row capacity)."""
    x, scale = unpack(x, "bsr_axpy", "x")
    topology = check_topology(topology)
    alpha = float(alpha) * float(scale)
    if y is None:
        if topology != "compact":
            raise ValueError("Left-hand-side 'y' matrix must be provided for this topology policy")
        y = bsr_zeros(x.nrow, x.ncol, x.values.dtype, device=x.device)
        if x.requires_grad:
            y.values = wp.empty(0, dtype=x.values.dtype, device=x.device, requires_grad=True)
        beta = 0.0
    elif not isinstance(y, BsrMatrix):
        raise ValueError(f"bsr_axpy: 'y' must be a BsrMatrix, got {type(y).__name__}")
    _check_pair(x, y)
    take_gradient(y, x)
    beta = float(beta)
    if topology != "padded":
        if x is y:
            return bsr_scale(y, alpha + beta)
        if topology == "compact" and (alpha == 0.0 or x.nnz == 0):
            return bsr_scale(y, beta)
    work = (work_arrays or bsr_axpy_work_arrays())._get(y.device)
    nx = x.nnz
    ny = y.nnz if (beta != 0.0 or topology != "compact") else 0  # beta 0: the result has x's blocks only
    n = nx + ny
    key_rows, key_cols = work.get("key_rows", (n,)), work.get("key_cols", (n,))
    add_slot_keys(x, 0, y.nrow, key_rows, key_cols)
    if ny:
        add_slot_keys(y, nx, y.nrow, key_rows, key_cols)
    result = compact_like(y, y.nrow, y.ncol)
    plan, offsets, columns = topo.build(key_rows, key_cols, n, y.nrow, y.ncol, work)
    set_compact(result, plan, offsets, columns)
    if plan.nnz:
        scalar = y.scalar_type
        y_values = y.scalar_values if ny else x.scalar_values
        wp.launch(_sum, (plan.nnz, *y.block_shape),
                  inputs=[plan.order, plan.starts, nx, x.scalar_values, scalar(alpha), y_values, scalar(beta),
                          scalar_view3d(result.values)], device=y.device)
    install(y, result, topology)
    return y

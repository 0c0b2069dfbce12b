"""``bsr_mv``: ``y = alpha * A @ x + beta * y`` (or with ``A``'s transpose), on ``A``'s device.

The kernels read blocks as 3-D scalar arrays and the vectors as flat scalar arrays, so one kernel serves every
block shape (a 3x1 block meets a scalar of ``x``, a 1x3 block a vec3) and every scalar type.
"""

from __future__ import annotations

from typing import Any

from ..runtime.tape import recording
from ..runtime.warp_names import wp
from ..types.arrays import array
from ._types import check_array, scalar_of, type_size, vec_of
from .matrix import block_row, counts_arg, row_end, unpack
from .mv_transpose_cpu import mv_transpose


@wp.kernel
def _mv_scalar(offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int,
               columns: wp.array(dtype=int), values: wp.array(dtype=Any), x: wp.array(dtype=Any),
               y: wp.array(dtype=Any), alpha: Any, beta: Any, read_x: int, read_y: int):
    # CSR: one thread per row
    r = wp.tid()
    total = y.dtype(0)
    if read_x != 0:
        for b in range(offsets[r], row_end(offsets, row_counts, padded, r)):
            total += values[b] * x[columns[b]]
    if read_x != 1:  # alpha 1 (read_x 1) multiplies by nothing: the same bits
        total = alpha * total
    if read_y != 0:
        total += beta * y[r]
    y[r] = total


_BLOCK_KERNELS: dict = {}


def block_kernel(rows: int, cols: int):
    """The product kernel of ``rows`` x ``cols`` blocks: one thread per block row, the block shape a constant of
    the generated code (its loops unrolled). Each coefficient of the row adds its terms in the order of the
    scalar kernel (block by block, then column by column)."""
    found = _BLOCK_KERNELS.get((rows, cols))
    if found is not None:
        return found

    @wp.kernel
    def _mv_block(offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int,
                  columns: wp.array(dtype=int), values: wp.array3d(dtype=Any), x: wp.array(dtype=Any),
                  y: wp.array(dtype=Any), alpha: Any, beta: Any, read_x: int, read_y: int):
        r = wp.tid()
        total = wp.vector(length=rows, dtype=y.dtype)
        if read_x != 0:
            for b in range(offsets[r], row_end(offsets, row_counts, padded, r)):
                c = columns[b] * cols
                for j in range(cols):
                    xj = x[c + j]
                    for i in range(rows):
                        total[i] += values[b, i, j] * xj
        for i in range(rows):
            t = total[i]
            if read_x != 1:  # as _mv_scalar
                t = alpha * t
            if read_y != 0:
                t += beta * y[r * rows + i]
            y[r * rows + i] = t

    _BLOCK_KERNELS[(rows, cols)] = _mv_block
    return _mv_block


@wp.kernel
def _mv_transpose(nrow: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int,
                  columns: wp.array(dtype=int), values: wp.array3d(dtype=Any), x: wp.array(dtype=Any),
                  y: wp.array(dtype=Any), alpha: Any):
    b, j = wp.tid()
    r = block_row(offsets, row_counts, padded, nrow, b)
    if r < 0:
        return
    rows = values.shape[1]
    cols = values.shape[2]
    total = y.dtype(0)
    for i in range(rows):
        total += values[b, i, j] * x[r * rows + i]
    wp.atomic_add(y, columns[b] * cols + j, alpha * total)


@wp.kernel
def _scale(y: wp.array(dtype=Any), beta: Any):
    i = wp.tid()
    y[i] = beta * y[i]


def _reads_x(alpha: float) -> int:
    """The product kernels' ``read_x``: 0 for ``alpha`` 0 (``x`` not read), 1 for ``alpha`` 1 (the sums not
    multiplied: a multiplication on each row's dependency chain, 15% of a CSR float32 product), else 2."""
    return 0 if alpha == 0.0 else 1 if alpha == 1.0 else 2


def _gradient_flows(A, x: array, y: array) -> bool:
    """Whether a recorded product carries a gradient: the atomic kernel's launch is the one a tape differentiates."""
    return A.requires_grad or x.requires_grad or y.requires_grad


def scalar_view(a: array, scalar, count: int, name: str) -> array:
    """``a`` (1-D or 2-D, of ``scalar`` or vectors of it) as a flat array of ``count`` scalars sharing its memory
    (and its gradient's), else ``ValueError`` naming the argument."""
    if a.ndim == 1 and a.dtype is scalar and a.shape[0] == count:  # the common case, without the checks' cost
        return a
    n = a.size * type_size(a.dtype)
    if n != count:
        raise ValueError(f"Incompatible '{name}' vector for bsr_mv: {count} scalars expected, got {n}")
    if scalar_of(a.dtype) is not scalar:
        raise ValueError(f"Incompatible '{name}' vector for bsr_mv: scalar type "
                         f"{scalar_of(a.dtype).__name__}, the matrix's {scalar.__name__}")
    if a.ndim == 1 and a.dtype is scalar:
        return a
    if a.ndim > 2:
        raise ValueError(f"Incompatible '{name}' vector for bsr_mv: 1 or 2 dimensions expected, got {a.ndim}")
    if not a.is_contiguous:
        raise ValueError(f"Incompatible '{name}' vector for bsr_mv: the array must be contiguous")
    flat = a if a.dtype is scalar else a.view(scalar)
    return flat.flatten()


def bsr_mv(A, x: array, y: array | None = None, alpha=1.0, beta=0.0, transpose: bool = False,
           work_buffer: array | None = None, tile_size: int = 0) -> array:
    """``y = alpha * A @ x + beta * y`` (``A.T`` with ``transpose``) and return ``y``.

    ``x`` and ``y`` hold scalars or vectors of the block's column (row) count; without ``y`` a new one is made
    (vectors of the block rows, scalars for 1-row blocks). ``alpha == 0`` reads no ``x``, ``beta == 0`` no ``y``.
    ``x`` and ``y`` may be one array (``work_buffer``, or a temporary, keeps ``x``). On the CPU the transposed
    product adds in a fixed order (the same bits every run and thread count), except under a tape recording with
    gradients, where it adds with atomics as on CUDA devices (float sums in no fixed order). ``tile_size`` is
    accepted for Warp's signature.
    """
    A, scale = unpack(A, "bsr_mv", "A")
    check_array(x, "x", "bsr_mv")
    scalar = A.scalar_type
    br, bc = A.block_shape
    nrow, ncol = (A.ncol, A.nrow) if transpose else (A.nrow, A.ncol)
    rows_per_block, cols_per_block = (bc, br) if transpose else (br, bc)
    if y is None:
        # a gradient when either factor has one: a tape then carries y's gradient back to A's values too
        y = wp.empty(nrow, dtype=vec_of(scalar, rows_per_block), device=A.device,
                     requires_grad=x.requires_grad or A.requires_grad)
        beta = 0.0
    else:
        check_array(y, "y", "bsr_mv")
    if x.device != A.device or y.device != A.device:
        raise ValueError(f"bsr_mv: A, x and y must be on one device, got {A.device}, {x.device} and {y.device}")
    x_flat = scalar_view(x, scalar, ncol * cols_per_block, "x")
    y_flat = scalar_view(y, scalar, nrow * rows_per_block, "y")
    alpha = alpha * scale
    if x.ptr == y.ptr and x.size:  # aliased: the product reads the old y
        if work_buffer is None:
            work_buffer = wp.empty_like(y)
        elif work_buffer.size < y.size:
            raise ValueError(f"bsr_mv: 'work_buffer' holds {work_buffer.size} entries, y needs {y.size}")
        elif work_buffer.dtype is not y.dtype:
            raise ValueError("bsr_mv: 'work_buffer' must have the dtype of y")
        wp.copy(dest=work_buffer, src=y, count=y.size)
        x_flat = scalar_view(work_buffer[:y.shape[0]] if work_buffer.ndim == 1 else work_buffer, scalar,
                             ncol * cols_per_block, "work_buffer")
    a, b = scalar(float(alpha)), scalar(float(beta))
    padded = int(A.row_counts is not None)
    counts = counts_arg(A)
    if transpose:
        if float(alpha) != 0.0 and A.nnz and A.device.is_cpu and not (recording and _gradient_flows(A, x, y)):
            mv_transpose(A, counts, padded, x_flat, y_flat, a, b)  # sums in a fixed order
            return y
        if float(beta) == 0.0:
            y_flat.zero_()
        elif float(beta) != 1.0:
            wp.launch(_scale, y_flat.shape[0], inputs=[y_flat, b], device=A.device)
        if float(alpha) != 0.0 and A.nnz:
            wp.launch(_mv_transpose, (A.nnz, bc), inputs=[A.nrow, A.offsets, counts, padded, A.columns,
                                                          A.scalar_values, x_flat, y_flat, a], device=A.device)
        return y
    if nrow:
        if A.values.dtype is scalar:
            kernel, values = _mv_scalar, A.values
        else:
            kernel, values = block_kernel(br, bc), A.scalar_values
        wp.launch(kernel, nrow, inputs=[A.offsets, counts, padded, A.columns, values, x_flat, y_flat, a, b,
                                        _reads_x(float(alpha)), int(float(beta) != 0.0)], device=A.device)
    return y

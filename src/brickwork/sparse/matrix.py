"""``BsrMatrix`` (block sparse row storage), its typed classes, empty matrices and scaled expressions."""

from __future__ import annotations

import numbers
import warnings

from ..runtime.warp_names import wp
from ..types.arrays import array
from ._types import block_type, check_array, dim, scalar_of, shape_of
from .indexing import block_row, row_end  # noqa: F401 (row_end: the sibling modules' import)

BSR_STATUS_SUCCESS = 0
"""Status of a sparse operation that succeeded."""
BSR_STATUS_ROW_CAPACITY_EXCEEDED = 1
"""Status of a padded operation whose rows lacked capacity."""

_TOPOLOGIES = ("compact", "padded", "masked")


class _Operators:
    """The operators of a matrix and of a scaled matrix, as Warp's: a sum copies its left operand (``A + B`` is
    ``bsr_axpy(B, bsr_copy(A))``), ``@`` makes a new matrix (``bsr_mm``) or vector (``bsr_mv``)."""

    def __add__(self, y):
        return _ops().bsr_axpy(y, _ops().bsr_copy(self))

    def __radd__(self, x):
        return _ops().bsr_axpy(x, _ops().bsr_copy(self))

    def __sub__(self, y):
        return _ops().bsr_axpy(y, _ops().bsr_copy(self), alpha=-1.0)

    def __rsub__(self, x):
        return _ops().bsr_axpy(x, _ops().bsr_copy(self), beta=-1.0)

    def __matmul__(self, y):
        if isinstance(y, array):
            return _ops().bsr_mv(self, y)
        return _ops().bsr_mm(self, y)

    def __rmatmul__(self, x):
        if isinstance(x, array):
            return _ops().bsr_mv(self, x, transpose=True)
        return _ops().bsr_mm(x, self)


class BsrMatrix(_Operators):
    """A block sparse row matrix: ``nrow`` x ``ncol`` blocks, the blocks of row ``r`` at
    ``offsets[r]:offsets[r + 1]`` (or ``offsets[r] + row_counts[r]`` when ``row_counts`` is set: padded rows)
    of ``columns`` (their block columns, ascending) and ``values`` (the blocks). ``nnz`` is the host's upper
    bound on the stored blocks (:meth:`nnz_sync` reads the exact count). Made by ``bsr_zeros`` and friends."""

    def __init__(self, dtype=None, device=None):
        dtype = block_type(float if dtype is None else dtype)
        self.nrow = 0
        self.ncol = 0
        self.nnz = 0
        self.offsets = wp.zeros(1, dtype=int, device=device)
        self.row_counts = None
        self.columns = wp.empty(0, dtype=int, device=device)
        self.values = wp.empty(0, dtype=dtype, device=device)
        self._status = None

    @property
    def scalar_type(self):
        """Scalar type of the block coefficients (the block type of a CSR matrix)."""
        return scalar_of(self.values.dtype)

    @property
    def block_shape(self) -> tuple[int, int]:
        """Rows and columns of a block."""
        return shape_of(self.values.dtype)

    @property
    def block_size(self) -> int:
        """Coefficients per block."""
        r, c = self.block_shape
        return r * c

    @property
    def shape(self) -> tuple[int, int]:
        """The matrix's shape in coefficients."""
        r, c = self.block_shape
        return (self.nrow * r, self.ncol * c)

    @property
    def dtype(self):
        """The block type."""
        return self.values.dtype

    @property
    def device(self):
        """The device of the matrix's arrays."""
        return self.offsets.device

    @property
    def requires_grad(self) -> bool:
        """Whether the values take part in adjoint computations."""
        return self.values.requires_grad

    @property
    def scalar_values(self) -> array:
        """``values`` as a 3-D array of scalars (nnz, block rows, block cols), sharing memory."""
        return scalar_view3d(self.values)

    def uncompress_rows(self, out: array | None = None) -> array:
        """The row of each of the first ``nnz`` block slots (-1 outside the active rows)."""
        check_storage(self, "uncompress_rows", "A")
        if out is None:
            out = wp.empty(self.nnz, dtype=int, device=self.device)
        else:
            check_array(out, "out", "uncompress_rows", self.device)
            if out.shape[0] < self.nnz:
                raise ValueError(f"uncompress_rows: 'out' holds {out.shape[0]} entries, fewer than nnz={self.nnz}")
        if self.nnz:
            wp.launch(_block_rows, self.nrow + 1, inputs=[self.nrow, self.offsets, counts_arg(self),
                                                          int(self.row_counts is not None), self.nnz, out],
                      device=self.device, record_tape=False)
        return out

    def nnz_sync(self) -> int:
        """Read ``offsets[nrow]`` from the device into ``nnz`` and return it."""
        self.nnz = int(self.offsets[self.nrow:self.nrow + 1].numpy()[0])
        return self.nnz

    def notify_nnz_changed(self, nnz: int | None = None, nnz_capacity: int | None = None) -> None:
        """Tell the matrix that ``offsets`` (or ``nnz``) changed outside this module: re-read or set ``nnz`` and
        grow ``columns``/``values`` to ``nnz_capacity`` (default ``nnz``)."""
        if nnz is None:
            nnz = self.nnz_sync() if nnz_capacity is None else nnz_capacity
        ensure_fits(self, nnz, nnz_capacity)

    def copy_nnz_async(self) -> None:
        """Deprecated in Warp: ``nnz_sync`` reads the count when needed (this does nothing else)."""
        warnings.warn("The `copy_nnz_async` method is deprecated and will be removed in a future version; call "
                      "`nnz_sync` to update the host-side block count.", DeprecationWarning, stacklevel=2)

    def status_sync(self) -> int:
        """The sticky status of padded operations (``BSR_STATUS_SUCCESS`` when none failed)."""
        return BSR_STATUS_SUCCESS if self._status is None else int(self._status.numpy()[0])

    def status_message(self) -> str:
        return status_message(self.status_sync())

    def clear_status(self) -> None:
        if self._status is not None:
            self._status.zero_()

    def _ensure_status(self) -> array:
        if self._status is None or self._status.device != self.device:
            self._status = wp.zeros(1, dtype=int, device=self.device)
        return self._status

    # operators, as Warp's (sums and products: _Operators); in place, they change this matrix
    def __iadd__(self, y):
        return _ops().bsr_axpy(y, self)

    def __isub__(self, y):
        return _ops().bsr_axpy(y, self, alpha=-1.0)

    def __mul__(self, y):
        return BsrScaled(self, y)

    def __rmul__(self, x):
        return BsrScaled(self, x)

    def __imul__(self, y):
        return _ops().bsr_scale(self, y)

    def __truediv__(self, y):
        return BsrScaled(self, 1.0 / y)

    def __neg__(self):
        return BsrScaled(self, -1.0)


    def __imatmul__(self, y):
        return _ops().bsr_mm(self, y, self)

    def transpose(self):
        """A transposed copy."""
        return _ops().bsr_transposed(self)

    def __repr__(self):
        return (f"BsrMatrix({self.nrow}x{self.ncol} blocks of {getattr(self.dtype, '__name__', self.dtype)}, "
                f"nnz={self.nnz}, device={self.device})")


_NO_COUNTS: dict = {}


def counts_arg(A) -> array:
    """``A.row_counts`` for a launch, or an empty int array of ``A``'s device when its rows are compact: a ``None``
    argument would make every launch build that empty array again (the launch's slow path)."""
    if A.row_counts is not None:
        return A.row_counts
    device = A.device
    empty = _NO_COUNTS.get(device)
    if empty is None:
        empty = _NO_COUNTS[device] = wp.empty(0, dtype=int, device=device)
    return empty


def scalar_view3d(values: array) -> array:
    """A 1-D array of blocks as a 3-D array of their scalars (its gradient likewise), sharing memory."""
    r, c = shape_of(values.dtype)
    return values.view(scalar_of(values.dtype)).reshape((values.shape[0], r, c))


def _ops():
    from .. import sparse

    return sparse


class BsrScaled(_Operators):
    """``scale * mat``, evaluated when an operation reads it (``alpha * A`` in ``bsr_mv(alpha * A, x)``)."""

    def __init__(self, mat, scale):
        self.mat, self.scale = mat, scale

    def eval(self):
        return _ops().bsr_copy(self)

    def __getattr__(self, name):  # nrow, ncol, nnz, offsets, columns, shape, dtype, device...
        if name in ("mat", "scale"):
            raise AttributeError(name)
        return getattr(self.mat, name)


    def __mul__(self, y):
        return BsrScaled(self.mat, self.scale * y)

    def __rmul__(self, x):
        return BsrScaled(self.mat, x * self.scale)

    def __truediv__(self, y):
        return BsrScaled(self.mat, self.scale / y)

    def __neg__(self):
        return BsrScaled(self.mat, -self.scale)


    def transpose(self):
        return BsrScaled(_ops().bsr_transposed(self.mat), self.scale)


def unpack(m, func: str = "sparse", name: str = "A"):
    """``(matrix, scale)`` of a matrix or scaled expression, else ``ValueError`` naming the argument; a matrix
    whose arrays cannot hold what its sizes say is refused (``check_storage``)."""
    if isinstance(m, BsrMatrix):
        check_storage(m, func, name)
        return m, 1.0
    if isinstance(m, BsrScaled):
        check_storage(m.mat, func, name)
        return m.mat, m.scale
    hint = ""
    if type(m).__module__.split(".")[0] == "numpy":  # A @ x with a numpy x: a product with an array was meant
        hint = "; a numpy array must be a brickwork array (wp.array(...)) to multiply a matrix"
    raise ValueError(f"{func}: '{name}' cannot be interpreted as a BsrMatrix (got {type(m).__name__}){hint}")


def check_storage(m: BsrMatrix, func: str, name: str) -> None:
    """Refuse a matrix whose attributes, set by hand, disagree: ``nrow``, ``ncol`` and ``nnz`` non-negative ints,
    ``offsets`` (and ``row_counts``) int32 arrays of ``nrow + 1`` (``nrow``) entries at least, ``columns`` and
    ``values`` of ``nnz`` at least, all on one device. Every operation's kernels index them by these sizes: a
    shorter array was read past its end (garbage, or a crash). What the arrays hold (offsets in order, columns
    below ``ncol``) is not read here: debug mode (``BRICKWORK_MODE=debug``) checks each index as it is used."""
    nrow, nnz, offsets, columns, values = m.nrow, m.nnz, m.offsets, m.columns, m.values
    if (type(nrow) is int and type(m.ncol) is int and type(nnz) is int and min(nrow, m.ncol, nnz) >= 0
            and isinstance(offsets, array) and isinstance(columns, array) and isinstance(values, array)
            and offsets.dtype is wp.int32 and columns.dtype is wp.int32
            and offsets.ndim == columns.ndim == values.ndim == 1
            and offsets.shape[0] > nrow and columns.shape[0] >= nnz and values.shape[0] >= nnz
            and columns.device == offsets.device and values.device == offsets.device and m.row_counts is None):
        return  # the common case in one expression: a launch of the operation costs microseconds
    for size in ("nrow", "ncol", "nnz"):
        value = getattr(m, size)
        if type(value) is not int and (isinstance(value, bool) or not isinstance(value, numbers.Integral)) or value < 0:
            raise ValueError(f"{func}: '{name}.{size}' must be a non-negative int, got {value!r}")
    need = {"offsets": m.nrow + 1, "columns": m.nnz, "values": m.nnz}
    if m.row_counts is not None:
        need["row_counts"] = m.nrow
    device = getattr(m.offsets, "device", None)
    for field, length in need.items():
        a = getattr(m, field)
        if not isinstance(a, array) or a.ndim != 1 or field != "values" and a.dtype is not wp.int32:
            what = f"a {type(a).__name__}" if not isinstance(a, array) else f"an array of {a.ndim} dimension(s) " \
                f"of {getattr(a.dtype, '__name__', a.dtype)}"
            kind = "block values" if field == "values" else "int32 values"
            raise ValueError(f"{func}: '{name}.{field}' must be a 1-D array of {kind}, got {what}")
        if a.shape[0] < length:
            size = "nrow + 1" if field == "offsets" else "nrow" if field == "row_counts" else "nnz"
            fix = f"{name}.notify_nnz_changed() grows columns and values to nnz" if size == "nnz" else \
                f"set {name}.nrow with {name}.offsets"
            raise ValueError(f"{func}: '{name}.{field}' holds {a.shape[0]} entries, but {name} has {size} = {length} "
                             f"({fix})")
        if a.device != device:
            raise ValueError(f"{func}: '{name}.{field}' is on {a.device}, '{name}.offsets' on {device}")


def status_message(status: int) -> str:
    if status == BSR_STATUS_SUCCESS:
        return "success"
    if status == BSR_STATUS_ROW_CAPACITY_EXCEEDED:
        return "row capacity exceeded"
    return f"unknown sparse status {status}"


_typed: dict = {}


def bsr_matrix_t(dtype):
    """The ``BsrMatrix`` class of blocks of ``dtype`` (a scalar or matrix type): ``bsr_matrix_t(wp.mat33)()`` is
    an empty 0x0 matrix of 3x3 blocks."""
    dtype = block_type(dtype, "dtype")
    cls = _typed.get(dtype)
    if cls is None:
        name = getattr(dtype, "__name__", str(dtype))

        def __init__(self, device=None):
            BsrMatrix.__init__(self, dtype, device)

        cls = _typed[dtype] = type(f"BsrMatrix_{name}", (BsrMatrix,), {"__init__": __init__, "block_dtype": dtype})
    return cls


def ensure_fits(bsr: BsrMatrix, nnz: int, capacity: int | None = None) -> None:
    """Set ``nnz`` and grow ``columns`` and ``values`` to hold ``capacity`` (default ``nnz``) blocks."""
    bsr.nnz = int(nnz)
    capacity = bsr.nnz if capacity is None else int(capacity)
    if capacity < bsr.nnz:
        raise ValueError(f"capacity must be at least nnz, got {capacity} and {bsr.nnz}")
    if bsr.columns.shape[0] < capacity:
        bsr.columns = wp.empty(capacity, dtype=int, device=bsr.device)
    if bsr.values.shape[0] < capacity:
        bsr.values = wp.empty(capacity, dtype=bsr.values.dtype, device=bsr.device,
                              requires_grad=bsr.values.requires_grad)


def bsr_zeros(rows_of_blocks: int, cols_of_blocks: int, block_type, device=None, *, topology=None,
              row_capacity=None, nnz_capacity: int | None = None) -> BsrMatrix:
    """An empty ``rows_of_blocks`` x ``cols_of_blocks`` matrix of ``block_type`` blocks (a scalar type: CSR)."""
    nrow, ncol = dim(rows_of_blocks, "rows_of_blocks"), dim(cols_of_blocks, "cols_of_blocks")
    if topology is None:
        topology = "padded" if row_capacity is not None else "compact"
    if topology not in ("compact", "padded"):
        raise ValueError(f"Unsupported topology policy: {topology}")
    bsr = bsr_matrix_t(block_type)(device=wp.get_device(device))
    bsr.nrow, bsr.ncol = nrow, ncol
    bsr.offsets = wp.empty(nrow + 1, dtype=int, device=bsr.device)
    set_zero_topology(bsr, topology, row_capacity, nnz_capacity)
    return bsr


def bsr_set_zero(bsr: BsrMatrix, rows_of_blocks: int | None = None, cols_of_blocks: int | None = None, *,
                 topology="compact", row_capacity=None, nnz_capacity: int | None = None) -> None:
    """Make ``bsr`` empty, with a new size in blocks when given (``topology="masked"``: keep the blocks, zero
    their values)."""
    if not isinstance(bsr, BsrMatrix):
        raise ValueError(f"bsr_set_zero: 'bsr' must be a BsrMatrix, got {type(bsr).__name__}")
    if topology not in _TOPOLOGIES:
        raise ValueError(f"Unsupported topology policy: {topology}")
    if row_capacity is not None and topology != "padded":
        raise ValueError("row_capacity requires topology='padded'")
    nrow = bsr.nrow if rows_of_blocks is None else dim(rows_of_blocks, "rows_of_blocks")
    ncol = bsr.ncol if cols_of_blocks is None else dim(cols_of_blocks, "cols_of_blocks")
    if topology == "masked":
        if rows_of_blocks is not None or cols_of_blocks is not None:
            raise ValueError("Cannot resize a matrix with topology='masked'")
        bsr.values.zero_()
        return
    if topology == "padded" and row_capacity is None:  # the capacity of the rows kept (added rows: none)
        old = bsr.offsets
        bsr.offsets = wp.empty(max(nrow + 1, old.shape[0]), dtype=int, device=bsr.device)
        wp.launch(_kept_capacity, 1, inputs=[old, bsr.nrow, nrow, bsr.offsets], device=bsr.device,
                  record_tape=False)
        bsr.nrow, bsr.ncol = nrow, ncol
        bsr.row_counts = wp.zeros(nrow, dtype=int, device=bsr.device)
        ensure_fits(bsr, bsr.nnz_sync(), nnz_capacity)
        return
    if bsr.offsets.shape[0] < nrow + 1:
        bsr.offsets = wp.empty(nrow + 1, dtype=int, device=bsr.device)
    bsr.nrow, bsr.ncol = nrow, ncol
    set_zero_topology(bsr, topology, row_capacity, nnz_capacity)


def set_zero_topology(bsr: BsrMatrix, topology: str, row_capacity, nnz_capacity) -> None:
    """Empty rows: compact (all offsets 0) or padded with ``row_capacity`` slots per row (an int or an array)."""
    device = bsr.device
    if topology == "compact":
        bsr.row_counts = None
        if bsr.nrow + 1:
            wp.launch(_fill_int, bsr.nrow + 1, inputs=[bsr.offsets, 0], device=device, record_tape=False)
        ensure_fits(bsr, 0, nnz_capacity)
        return
    if row_capacity is None:
        row_capacity = 0
    if isinstance(row_capacity, array):
        check_array(row_capacity, "row_capacity", "bsr_zeros", device)
        if row_capacity.shape[0] != bsr.nrow:
            raise ValueError(f"row_capacity must have shape ({bsr.nrow},), got {row_capacity.shape}")
        wp.launch(_capacity_offsets, 1, inputs=[row_capacity, bsr.nrow, bsr.offsets], device=device,
                  record_tape=False)
        # the total capacity: nnz_capacity when given (no readback, as Warp), else read
        total = nnz_capacity if nnz_capacity is not None else int(bsr.offsets[bsr.nrow:bsr.nrow + 1].numpy()[0])
    else:
        cap = dim(row_capacity, "row_capacity")
        wp.launch(_uniform_offsets, bsr.nrow + 1, inputs=[cap, bsr.offsets], device=device, record_tape=False)
        total = cap * bsr.nrow
    bsr.row_counts = wp.zeros(bsr.nrow, dtype=int, device=device)
    ensure_fits(bsr, total, max(total, nnz_capacity or 0))


@wp.kernel(enable_backward=False)
def _fill_int(a: wp.array(dtype=int), value: int):
    a[wp.tid()] = value


@wp.kernel(enable_backward=False)
def _uniform_offsets(cap: int, offsets: wp.array(dtype=int)):
    r = wp.tid()
    offsets[r] = r * cap


@wp.kernel(enable_backward=False)
def _capacity_offsets(caps: wp.array(dtype=int), nrow: int, offsets: wp.array(dtype=int)):
    # one thread: a short serial scan (padded matrices are sized once, outside the hot paths)
    at = 0
    for r in range(nrow):
        offsets[r] = at
        at += caps[r]
    offsets[nrow] = at


@wp.kernel(enable_backward=False)
def _kept_capacity(old: wp.array(dtype=int), old_nrow: int, nrow: int, offsets: wp.array(dtype=int)):
    # one thread: row r keeps old[r + 1] - old[r] slots (r < old_nrow), added rows none
    at = 0
    for r in range(nrow):
        offsets[r] = at
        if r < old_nrow:
            at += old[r + 1] - old[r]
    offsets[nrow] = at


@wp.kernel(enable_backward=False)
def _block_rows(nrow: int, offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int, nnz: int,
                out: wp.array(dtype=int)):
    # one thread per row writes its slots (a pass over the slots, not a search per slot); thread nrow writes -1
    # to the slots of no row: past offsets[nrow], and before offsets[0]
    r = wp.tid()
    if r == nrow:
        for b in range(wp.max(offsets[nrow], 0), nnz):
            out[b] = -1
        for b in range(0, wp.min(offsets[0], nnz)):
            out[b] = -1
        return
    begin = wp.max(offsets[r], 0)
    end = wp.min(offsets[r + 1], nnz)
    active = wp.min(row_end(offsets, row_counts, padded, r), end)
    for b in range(begin, active):
        out[b] = r
    for b in range(wp.max(active, begin), end):
        out[b] = -1



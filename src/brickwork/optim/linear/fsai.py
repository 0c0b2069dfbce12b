"""``FSAI``: the adaptive factorized sparse approximate inverse preconditioner of Warp 1.19, for SPD BSR matrices.

``M = G^T G`` approximates ``A^-1`` with a sparse lower-triangular ``G`` whose rows are built independently on
the matrix's device: row ``i`` solves ``A[S, S] g = e_i`` on a support ``S`` grown greedily from ``{i}``
(fsai_select.py) and is scaled so that ``(G A G^T)[i, i] = 1``. With a support of every column ``<= i`` the
factor is the inverse Cholesky factor and ``G^T G = A^-1``. Applying it is two sparse products, one thread
per row; nothing is solved globally. ``reuse_pattern`` keeps a plan to refit the values on the same supports
when ``A``'s values change (fsai_plans.py); ``defer_pattern`` builds from the topology alone and chooses the
supports at the first update.
"""

from __future__ import annotations

import numbers

from ...runtime.launch import launch
from ...types.array_constructors import empty, zeros
from ...types.arrays import array
from ...types.scalars import float16, float32, float64
from ._common import LinearSolverTypeError, LinearSolverValueError
from .fsai_factor import factor_mv, gather_values
from .fsai_plans import DeferredPlan, FixedPlan, counts_of, factor_is_valid, pack, scale_rows, select, transpose_index
from .operator import LinearOperator, _bsr_types

#: default ``pivot_floor`` of each scalar type
PIVOT_FLOOR = {float16: 1.0e-3, float32: 1.0e-6, float64: 1.0e-12}
MAX_WIDTH = 64


def _count_option(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= MAX_WIDTH:
        raise LinearSolverValueError(f"FSAI: {name} must be an integer in [1, {MAX_WIDTH}], got {value!r}")
    return int(value)


def _check_options(A, max_row_size, kap_tolerance, pivot_floor, factor_dtype, reuse_pattern, max_step_size,
                   defer_pattern):
    """The validated ``(width, step, tolerance, floor, storage)``; raises before anything is allocated."""
    sparse = _bsr_types()
    if (sparse is None or not isinstance(A, sparse.BsrMatrix) or A.shape[0] != A.shape[1]
            or A.block_shape[0] != A.block_shape[1]):
        detail = type(A).__name__ if sparse is None or not isinstance(A, sparse.BsrMatrix) else \
            f"shape {A.shape} with blocks {A.block_shape}"
        raise LinearSolverValueError(f"FSAI requires a square BSR matrix with square blocks, got {detail}")
    scalar = A.scalar_type
    if scalar not in PIVOT_FLOOR:
        raise LinearSolverTypeError(f"FSAI supports float16, float32 and float64 matrices, got scalar type "
                                    f"{getattr(scalar, '__name__', scalar)}")
    width = _count_option("max_row_size", max_row_size)
    step = _count_option("max_step_size", max_step_size)
    if not isinstance(kap_tolerance, numbers.Real) or not 0.0 <= kap_tolerance < 1.0:
        raise LinearSolverValueError(f"FSAI: kap_tolerance must be in [0, 1), got {kap_tolerance!r}")
    floor = PIVOT_FLOOR[scalar] if pivot_floor is None else pivot_floor
    if not isinstance(floor, numbers.Real) or not 0.0 < floor < 1.0:
        raise LinearSolverValueError(f"FSAI: pivot_floor must be in (0, 1), got {pivot_floor!r}")
    storage = scalar if factor_dtype is None else factor_dtype
    if storage is not scalar and not (scalar is float64 and storage is float32):
        raise LinearSolverValueError(f"FSAI: factor_dtype must be the matrix scalar type ({scalar.__name__}) or "
                                     f"float32 for a float64 matrix, got {getattr(storage, '__name__', storage)}")
    if reuse_pattern and A.row_counts is not None:
        raise LinearSolverValueError("FSAI: reuse_pattern requires compact BSR storage (this matrix has padded "
                                     "rows); compact it with bsr_compress(A, prune_numerical_zeros=False)")
    if defer_pattern and not reuse_pattern:
        raise LinearSolverValueError("FSAI: defer_pattern requires reuse_pattern=True")
    return width, step, float(kap_tolerance), float(floor), storage


class FSAI(LinearOperator):
    """Adaptive factorized sparse approximate inverse of a symmetric positive definite BSR matrix, as
    ``warp.optim.linear.FSAI``: a ``LinearOperator`` applying ``G^T G``, for the ``M`` of ``cg`` or ``cr``.

    Args:

    - A: square BSR matrix with square blocks of float16, float32 or float64, both triangles stored (columns
      ascending in each row); blocks count as their scalar entries. Symmetry and definiteness are not
      checked globally.
    - max_row_size: most entries of a row of ``G`` (with its diagonal), 1 to 64; 1 is Jacobi.
    - kap_tolerance: growth stops when the relative improvement of the row's local Kaporin measure is at most
      this, in [0, 1); 0 never stops early.
    - pivot_floor: smallest pivot accepted in the local factorizations of the equilibrated matrix, in (0, 1);
      ``None``: 1e-3 (float16), 1e-6 (float32), 1e-12 (float64). Selection truncates a row before a
      rejected pivot (counted in ``truncated_rows``).
    - factor_dtype: storage of ``G``: the matrix's scalar type, or float32 for a float64 matrix (products still
      sum in the matrix's type).
    - reuse_pattern: keep a plan for :meth:`update` (needs compact storage).
    - max_step_size: candidates added per growth step, 1 to 64.
    - regularize_refit: an update refits every row it can: a low pivot is raised to ``pivot_floor`` (counted),
      a failed row becomes its scaled diagonal (counted); only a topology change rejects it.
    - validate_topology: an update compares ``A``'s offsets and columns with the construction's.
    - defer_pattern: build from ``A``'s topology alone; the supports are chosen at the first accepted
      :meth:`update`, the preconditioner being the identity until then (needs ``reuse_pattern``).

    Attributes: ``G`` and ``GT`` (BSR factors; read-only), ``truncated_rows``, ``update_status`` (device ints:
    topology mismatches, invalid diagonals, failed rows, regularized rows of the last update), ``pattern_ready``
    and ``pattern_status`` (with ``defer_pattern``), ``source`` (the matrix of the last construction or update).

    Raises ``LinearSolverValueError`` (a ``ValueError``) for a bad matrix or option, a diagonal that is not finite
    and positive, or a factor that ``factor_dtype`` cannot hold; ``LinearSolverTypeError`` for another scalar type.
    """

    def __init__(self, A, max_row_size: int = 8, kap_tolerance: float = 1.0e-3, pivot_floor: float | None = None,
                 factor_dtype: type | None = None, reuse_pattern: bool = False, max_step_size: int = 1,
                 regularize_refit: bool = False, validate_topology: bool = True, defer_pattern: bool = False):
        width, step, tolerance, floor, storage = _check_options(
            A, max_row_size, kap_tolerance, pivot_floor, factor_dtype, reuse_pattern, max_step_size, defer_pattern)
        sparse = _bsr_types()
        n, dtype, device = A.shape[0], A.scalar_type, A.device
        self.max_row_size, self.max_step_size, self.factor_dtype = width, step, storage
        self.source = A
        self.pattern_ready = self.pattern_status = self.update_status = None
        self._refit = None
        self.G = sparse.bsr_zeros(n, n, storage, device=device)
        self.GT = sparse.bsr_zeros(n, n, storage, device=device)
        if defer_pattern:
            self.truncated_rows = None
            self._refit = DeferredPlan(self, A, width, step, tolerance, floor, regularize_refit, validate_topology)
            self.update_status = self._refit.status
            self.pattern_ready, self.pattern_status = self._refit.ready, self._refit.pattern_status
        else:
            rank, gather = self._build(A, width, step, tolerance, floor, storage)
            if reuse_pattern:
                self._refit = FixedPlan(self, A, rank, gather, width, floor, regularize_refit, validate_topology)
                self.update_status = self._refit.status
        self._tmp = empty(n, dtype=dtype, device=device)  # G x, reused by every application
        super().__init__(A.shape, A.dtype, device, self._apply)

    def _build(self, A, width, step, tolerance, floor, storage):
        n, dtype, device = A.shape[0], A.scalar_type, A.device
        scale = empty(n, dtype=dtype, device=device)
        status = zeros(3, dtype=int, device=device)
        scale_rows(A, scale, status, 0)
        columns = empty(n * width, dtype=int, device=device)
        values = empty(n * width, dtype=dtype, device=device)
        select(A, scale, tolerance, floor, width, step, columns, values, status, zeros(1, dtype=int, device=device))
        invalid, truncated, broken = (int(s) for s in status.numpy())
        if invalid:
            raise LinearSolverValueError(f"FSAI requires finite positive diagonals ({invalid} invalid rows)")
        if broken:
            raise LinearSolverValueError(f"FSAI factor lost finite entries or a positive diagonal ({broken} rows)")
        self.truncated_rows = truncated
        rank = empty(n * width, dtype=int, device=device)
        offsets, g_columns, g_values, g_rank = pack(n, width, columns, values, rank, storage, device)
        G = self.G
        G.offsets, G.columns, G.values, G.row_counts, G.nnz = offsets, g_columns, g_values, None, g_columns.shape[0]
        if storage is not dtype and not factor_is_valid(G, status):
            raise LinearSolverValueError(f"FSAI: factor_dtype={storage.__name__} conversion lost finite entries or "
                                         f"a positive diagonal")
        gather = transpose_index(G, self.GT)
        if self.GT.nnz:
            launch(gather_values, dim=self.GT.nnz, inputs=[G.values, gather, self.GT.values], device=device,
                   record_tape=False)
        return g_rank, gather

    def update(self, A=None) -> FSAI:
        """Refit ``G`` on its supports for the new values of ``A`` (default: :attr:`source`), which must keep the
        construction's topology (with ``defer_pattern`` the first accepted update also chooses the supports).

        A rejected update raises ``LinearSolverValueError`` and leaves ``G``, ``GT`` and :attr:`source` as they
        were; with ``regularize_refit`` and ``validate_topology=False`` nothing can raise and the status is not
        read back (inspect :attr:`update_status`). Returns this preconditioner.
        """
        if self._refit is None:
            raise LinearSolverValueError("FSAI.update needs a preconditioner constructed with reuse_pattern=True")
        A = self.source if A is None else A
        sparse = _bsr_types()
        if not isinstance(A, sparse.BsrMatrix):
            raise LinearSolverValueError(f"FSAI.update requires a BSR matrix, got {type(A).__name__}")
        self._refit.update(self, A)
        self.source = A
        return self

    def _flat(self, v: array) -> array:
        scalar = self.scalar_type
        if v.dtype is scalar and v.ndim == 1:
            return v
        return v.view(scalar).flatten()

    def _apply(self, x, y, z, alpha, beta):
        x, y, z = (self._flat(v) for v in (x, y, z))
        dtype, n = self.scalar_type, self._tmp.shape[0]
        if n == 0:
            return
        G, GT, tmp = self.G, self.GT, self._tmp
        if alpha != 0.0:  # all of x is read into tmp before z is written (x, y and z may alias)
            launch(factor_mv, dim=n, inputs=[G.offsets, counts_of(G), G.columns, G.values, x, tmp, tmp, dtype(1.0),
                                             dtype(0.0)], device=self.device, record_tape=False)
        launch(factor_mv, dim=n, inputs=[GT.offsets, counts_of(GT), GT.columns, GT.values, tmp, y, z, dtype(alpha),
                                         dtype(beta)], device=self.device, record_tape=False)


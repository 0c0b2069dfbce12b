"""``LinearOperator`` and ``aslinearoperator``: the left-hand sides (and preconditioners) the solvers take.

An operator is a shape, a dtype, a device and ``matvec(x, y, z, alpha, beta)``, which stores
``alpha * (A @ x) + beta * y`` in ``z`` (``z`` may be ``y``). ``aslinearoperator`` wraps a dense 2-D
array (one thread per row), a 1-D array of diagonal values, or a ``brickwork.sparse`` BSR matrix
(``bsr_mv``).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...device import get_device
from ...lang.kernel import Kernel, kernel
from ...runtime.launch import launch
from ...types.array_copy import copy
from ...types.arrays import array, array2d
from ...types.composite import is_vector_type
from ...types.scalars import Float, int32
from ._common import SCALARS, LinearSolverTypeError, LinearSolverValueError, scalar_type

_tid, _cw_mul = _FUNCTIONS["tid"], _FUNCTIONS["cw_mul"]


class LinearOperator:
    """A linear operator for the iterative solvers, as ``warp.optim.linear.LinearOperator``.

    Args:

    - shape: ``(rows, columns)`` in scalar degrees of freedom (``(n,)`` for a diagonal from a 1-D array).
    - dtype: the type of the operator's elements (a scalar type, or a BSR matrix's block type).
    - device: where ``matvec`` runs, and where the solvers allocate their buffers.
    - matvec: ``matvec(x, y, z, alpha, beta)`` stores ``alpha * (A @ x) + beta * y`` in ``z``; the
      solvers pass ``alpha`` and ``beta`` by keyword.
    - batch_offsets: optional int32 array of ``B + 1`` offsets in scalar degrees of freedom splitting
      the vectors into ``B`` independent systems solved together; degrees of freedom from
      ``batch_offsets[-1]`` on are left alone.
    - max_batch_length: optional bound on a batch's length (needs ``batch_offsets``); sizes the
      partial sums of the inner products.
    - comm: an MPI communicator (``mesh.comm``, mpi4py's ``MPI.COMM_WORLD``) when the vectors are spread
      over its ranks, each rank holding its own part (a block mesh's local blocks) and ``shape`` counting
      that part: the solvers then add every inner product over the ranks, so that every rank takes the same
      steps. None (the default, as in Warp): each process solves its own system.
    """

    def __init__(self, shape: tuple[int, ...], dtype: type, device, matvec: Callable,
                 batch_offsets: array | None = None, max_batch_length: int | None = None, *, comm=None):
        if comm is not None and not all(callable(getattr(comm, name, None)) for name in ("allgather", "Get_size")):
            raise LinearSolverTypeError(f"LinearOperator comm must be an MPI communicator (mesh.comm, "
                                        f"MPI.COMM_WORLD) or None, got {type(comm).__name__}")
        if max_batch_length is not None:
            if batch_offsets is None:
                raise LinearSolverValueError("max_batch_length requires batch_offsets")
            if isinstance(max_batch_length, bool) or not isinstance(max_batch_length, numbers.Integral):
                raise LinearSolverTypeError(f"max_batch_length must be an integer or None, got "
                                            f"{type(max_batch_length).__name__}")
            if max_batch_length < 0:
                raise LinearSolverValueError("max_batch_length must be non-negative")
        if (not isinstance(shape, tuple) or len(shape) not in (1, 2)
                or not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 0 for s in shape)):
            raise LinearSolverValueError(f"LinearOperator shape must be a tuple of one or two sizes >= 0, got "
                                         f"{shape!r}")
        if not callable(matvec) or isinstance(matvec, Kernel):  # a kernel is launched, not called
            raise LinearSolverTypeError(f"LinearOperator matvec must be callable, got {type(matvec).__name__}")
        device = get_device(device)
        if batch_offsets is not None:
            if not isinstance(batch_offsets, array) or batch_offsets.ndim != 1 or batch_offsets.dtype is not int32:
                raise LinearSolverTypeError(f"LinearOperator batch_offsets must be a 1-D int32 array, got "
                                            f"{getattr(batch_offsets, 'dtype', type(batch_offsets)).__name__}")
            if batch_offsets.shape[0] < 2:
                raise LinearSolverValueError(f"LinearOperator batch_offsets must hold at least 2 offsets (one "
                                             f"batch), got {batch_offsets.shape[0]}")
            if batch_offsets.device != device:
                raise LinearSolverValueError(f"LinearOperator batch_offsets must be on the operator's device "
                                             f"{device}, got {batch_offsets.device}")
        self._shape = tuple(int(s) for s in shape)
        self._dtype = dtype
        self._device = device
        self._matvec = matvec
        self._batch_offsets = batch_offsets
        self._max_batch_length = None if max_batch_length is None else int(max_batch_length)
        self._comm = comm

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> type:
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def matvec(self) -> Callable:
        return self._matvec

    @property
    def scalar_type(self):
        """The scalar type of the elements (``dtype`` itself for scalars)."""
        return scalar_type(self._dtype)

    @property
    def batch_offsets(self) -> array | None:
        return self._batch_offsets

    @property
    def batch_count(self) -> int:
        return 1 if self._batch_offsets is None else self._batch_offsets.shape[0] - 1

    @property
    def max_batch_length(self) -> int | None:
        return self._max_batch_length

    @property
    def comm(self):
        """The communicator whose ranks hold the parts of the vectors, or None (one process's system)."""
        return self._comm

    def __repr__(self) -> str:
        return f"LinearOperator(shape={self._shape}, dtype={self._dtype.__name__}, device={self._device})"


@kernel(enable_backward=False)
def dense_mv(A: array2d(dtype=Float), x: array(dtype=Float), y: array(dtype=Float), z: array(dtype=Float),
             alpha: Float, beta: Float):
    """``z[row] = alpha * (A[row] . x) + beta * y[row]``, one thread per row (``y`` unread when beta is 0)."""
    row = _tid()
    zero = type(alpha)(0.0)
    s = zero
    if alpha != zero:
        for col in range(A.shape[1]):
            s += A[row, col] * x[col]
        s = s * alpha
    if beta != zero:
        s += beta * y[row]
    z[row] = s


@kernel(enable_backward=False)
def diag_mv(d: array(dtype=Any), x: array(dtype=Any), y: array(dtype=Any), z: array(dtype=Any), alpha: Float,
            beta: Float):
    """``z[i] = alpha * d[i] * x[i] + beta * y[i]`` (componentwise for vectors)."""
    i = _tid()
    zero = type(alpha)(0.0)
    s = z.dtype(zero)
    if alpha != zero:
        s += alpha * _cw_mul(d[i], x[i])
    if beta != zero:
        s += beta * y[i]
    z[i] = s


@kernel(enable_backward=False)
def diag_mv_scalar(d: array(dtype=Float), x: array(dtype=Float), y: array(dtype=Float), z: array(dtype=Float),
                   alpha: Float, beta: Float):
    i = _tid()
    zero = type(alpha)(0.0)
    s = zero
    if alpha != zero:
        s += alpha * (d[i] * x[i])
    if beta != zero:
        s += beta * y[i]
    z[i] = s


@kernel(enable_backward=False)
def diag_mv_components(d: array(dtype=Any), x: array(dtype=Float), y: array(dtype=Float), z: array(dtype=Float),
                       alpha: Float, beta: Float):
    """A diagonal of vectors applied to scalar arrays: degree of freedom ``i`` is component ``i % len`` of
    ``d[i // len]``."""
    i = _tid()
    length = d.dtype.length
    zero = type(alpha)(0.0)
    s = zero
    if alpha != zero:
        s += alpha * (d[i // length][i % length] * x[i])
    if beta != zero:
        s += beta * y[i]
    z[i] = s


def _bsr_types():
    """``brickwork.sparse`` when it is there (it is optional here: dense and custom operators need none)."""
    try:
        from ... import sparse
    except ImportError:
        return None
    return sparse


def aslinearoperator(A, batch_offsets: array | None = None, max_batch_length: int | None = None):
    """``A`` as a ``LinearOperator``: a 2-D array is a dense matrix, a 1-D array a diagonal, a BSR matrix
    of ``brickwork.sparse`` uses ``bsr_mv``; a ``LinearOperator`` (or ``None``) is returned as it is."""
    if A is None or isinstance(A, LinearOperator):
        return A
    if isinstance(A, array):
        if A.ndim == 2:
            if A.dtype not in SCALARS:
                raise LinearSolverTypeError(f"aslinearoperator: a dense matrix must hold float16, float32 or "
                                            f"float64 scalars, got {A.dtype.__name__}")
            op = LinearOperator(A.shape, A.dtype, A.device, _dense_matvec(A), batch_offsets, max_batch_length)
            op._dense_matrix = A  # the matrix whose gradient a taped solve adds to (adjoint.py)
            return op
        if A.ndim == 1:
            if scalar_type(A.dtype) not in SCALARS or not (A.dtype in SCALARS or is_vector_type(A.dtype)):
                raise LinearSolverTypeError(f"aslinearoperator: a diagonal must hold float16, float32 or float64 "
                                            f"scalars or vectors, got {A.dtype.__name__}")
            op = LinearOperator(A.shape, A.dtype, A.device, _diag_matvec(A), batch_offsets, max_batch_length)
            op._diagonal = A  # what a solver may apply in its own kernels (cg_fused.py)
            return op
    sparse = _bsr_types()
    if sparse is not None and isinstance(A, sparse.BsrMatrix):
        op = LinearOperator(A.shape, A.dtype, A.device, _bsr_matvec(A, sparse), batch_offsets, max_batch_length)
        op._bsr_matrix = A
        return op
    shape = getattr(A, "shape", None)
    what = f"a {type(A).__module__}.{type(A).__name__}" + (f" of shape {tuple(shape)}" if shape is not None else "")
    numpy_like = hasattr(A, "__array__") and not isinstance(A, array)
    hint = " (convert it: wp.array(A, dtype=wp.float64))" if numpy_like else ""
    raise LinearSolverValueError(f"Unable to create LinearOperator from {what}: aslinearoperator takes a 1-D (a "
                                 f"diagonal) or 2-D (a dense matrix) brickwork array, a BsrMatrix or a "
                                 f"LinearOperator{hint}")


def _dense_matvec(A: array):
    def matvec(x, y, z, alpha, beta):
        launch(dense_mv, dim=A.shape[0], inputs=[A, x, y, z, A.dtype(alpha), A.dtype(beta)], device=A.device,
               record_tape=False)

    return matvec


def _diag_matvec(d: array):
    scalar = scalar_type(d.dtype)
    step = diag_mv_scalar if scalar is d.dtype else diag_mv

    def matvec(x, y, z, alpha, beta):
        if step is diag_mv and x.dtype is scalar:  # vector entries, scalar vectors (as a BSR matrix takes)
            launch(diag_mv_components, dim=x.shape[0], inputs=[d, x, y, z, scalar(alpha), scalar(beta)],
                   device=d.device, record_tape=False)
            return
        launch(step, dim=d.shape[0], inputs=[d, x, y, z, scalar(alpha), scalar(beta)], device=d.device,
               record_tape=False)

    return matvec


def _bsr_matvec(A, sparse):
    def matvec(x, y, z, alpha, beta):
        if beta != 0.0 and z.ptr != y.ptr:
            copy(z, y)  # bsr_mv updates its output in place: start it from y
        sparse.bsr_mv(A, x, z, alpha=alpha, beta=beta)

    return matvec

"""``LinearSolverState``: the buffers of one solver for one shape of problem, reusable across solves,
and the loop that runs a solver's iterations and checks its convergence.

The loop (Warp's): with ``check_every > 0`` the host reads the residual norms (one small array, one
value per batch) after every ``check_every`` iterations, calls ``callback(iteration, residual,
tolerance)`` and stops when every batch has converged; with ``check_every == 0`` nothing is read: a
one-thread kernel counts the iterations and sets a condition on the device, and the solver returns
device arrays. Inside a ``wp.ScopedCapture`` on the CPU that loop is a ``capture_while`` node (it
stops when the condition falls at replay); otherwise it runs ``maxiter`` iterations, whose steps are
zero once a batch has converged, as Warp does where conditional graphs are not available.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ...lang.kernel import Kernel
from ...runtime.capture import capture_while, is_capturing
from ...runtime.launch import launch
from ...runtime.tape import recording
from ...types.array_constructors import empty
from ...types.arrays import array
from ...types.scalars import int32
from . import kernels
from ._common import (
    SCALARS,
    LinearSolverTypeError,
    LinearSolverValueError,
    check_count,
    check_maxiter,
    check_tolerance,
    check_vector,
    describe,
    dofs_per_entry,
    scalar_dof_count,
    scalar_type,
    tolerances,
)
from .adjoint import note_solve, plan_solve, record_solve
from .dots import Dots
from .operator import LinearOperator, aslinearoperator


def operator_rows(op: LinearOperator) -> int:
    """Scalar rows of an operator: a diagonal's 1-D shape counts entries, which may be vectors."""
    return op.shape[0] * (dofs_per_entry(op.dtype) if len(op.shape) == 1 else 1)


def check_operands(owner: str, A: LinearOperator, b: array, x: array, M: LinearOperator | None) -> None:
    """``A``, ``b``, ``x`` and ``M`` describe one system: shapes, scalar types and devices agree."""
    if not isinstance(A, LinearOperator):
        raise LinearSolverTypeError(f"{owner}: A must be an array, a BsrMatrix or a LinearOperator, got "
                                    f"{type(A).__name__}")
    check_vector(owner, "b", b)
    check_vector(owner, "x", x)
    if A.scalar_type not in SCALARS:
        raise LinearSolverTypeError(f"{owner}: A must hold float16, float32 or float64 values, got "
                                    f"{describe(A.dtype)}")
    if len(A.shape) == 2 and A.shape[0] != A.shape[1]:
        raise LinearSolverValueError(f"{owner}: A must be square, got shape {A.shape}")
    if x.dtype is not b.dtype:
        raise LinearSolverTypeError(f"{owner}: x must have b's dtype {describe(b.dtype)}, got {describe(x.dtype)}")
    if scalar_type(b.dtype) is not A.scalar_type:
        raise LinearSolverTypeError(f"{owner}: b's scalar type must be A's {describe(A.scalar_type)}, got "
                                    f"{describe(b.dtype)}")
    if x is b or (x.size and x.ptr == b.ptr):
        raise LinearSolverValueError(f"{owner}: x must not be b's memory (x is overwritten with the solution)")
    n = operator_rows(A)
    for name, v in (("b", b), ("x", x)):
        if scalar_dof_count(v) != n:
            raise LinearSolverValueError(f"{owner}: {name} must have A's {n} rows (scalar degrees of freedom), got "
                                         f"{scalar_dof_count(v)} (shape {v.shape}, dtype {describe(v.dtype)})")
        if v.device != A.device:
            raise LinearSolverValueError(f"{owner}: {name} must be on A's device {A.device}, got {v.device}")
    if M is not None:
        if not isinstance(M, LinearOperator):
            raise LinearSolverTypeError(f"{owner}: M must be None, an array, a BsrMatrix or a LinearOperator, got "
                                        f"{type(M).__name__}")
        if operator_rows(M) != n or (len(M.shape) == 2 and M.shape[1] != n):
            raise LinearSolverValueError(f"{owner}: M must have A's shape {A.shape}, got {M.shape}")
        if M.scalar_type is not A.scalar_type:
            raise LinearSolverTypeError(f"{owner}: M's scalar type must be A's {describe(A.scalar_type)}, got "
                                        f"{describe(M.dtype)}")
        if M.device != A.device:
            raise LinearSolverValueError(f"{owner}: M must be on A's device {A.device}, got {M.device}")


class LinearSolverState:
    """Buffers of a solver for ``A``, ``b``, ``x`` (and ``M``), allocated once; calling the state solves,
    with the construction's operands or with replacements of the same shape, dtype, device and batch
    layout (``state(A=..., b=..., x=..., M=...)``). Built by ``CG``, ``CR``, ``BiCGSTAB`` and ``GMRES``
    (or ``cg(..., run=False)`` and the others), which each define ``_allocate()`` (their buffers, once) and
    ``_run(A, b, x, M)`` (one solve); this base is not constructible.

    Args:

    - A: the system's matrix (dense 2-D array, BSR matrix or ``LinearOperator``).
    - b: the right-hand side; x: the initial guess, overwritten with the solution.
    - tol: tolerance relative to ``|b|``; atol: absolute tolerance. The solve stops when
      ``|r| <= max(atol, tol * |b|)`` (each defaults to the other, both to eps**0.75).
    - maxiter: the most iterations (0 or None: the system's size).
    - M: an optional preconditioner.
    - callback: ``callback(iteration, residual, tolerance)`` at each check (with ``check_every == 0``: a
      kernel launched with ``(iteration, residual_sq, tolerance_sq)`` arrays after each cycle).
    - check_every: iterations between two reads of the residual (0: none, see the module).
    - use_cuda_graph: accepted for Warp's code; brickwork launches every iteration (a captured graph of
      CUDA launches is replayed launch by launch, which would save nothing).
    """

    _NAME = "LinearSolverState"
    _SYMMETRIC = False  # CG, CR: A^T = A, so a tape's adjoint solve is the same solve (adjoint.plan_solve)

    def __init__(self, A, b: array, x: array, tol: float | None = None, atol: float | None = None,
                 maxiter: float | None = 0, M=None, callback: Callable | None = None, check_every: int = 10,
                 use_cuda_graph: bool = True):
        if type(self) is LinearSolverState:
            raise LinearSolverTypeError("LinearSolverState is not constructible: use CG, CR, BiCGSTAB or GMRES")
        owner = self._NAME
        check_tolerance(owner, "tol", tol)
        check_tolerance(owner, "atol", atol)
        check_every = check_count(owner, "check_every", check_every, 0)
        maxiter = check_maxiter(owner, maxiter)
        if callback is not None and not callable(callback) and not isinstance(callback, Kernel):
            raise LinearSolverTypeError(f"{owner}: callback must be callable, a kernel or None, got "
                                        f"{type(callback).__name__}")
        self._A_given = A  # what the caller passed: its arrays may carry gradients (adjoint.record_solve)
        A, M = aslinearoperator(A), aslinearoperator(M)
        check_operands(owner, A, b, x, M)
        self._A, self._M, self._b, self._x = A, M, b, x
        self._tol, self._atol = tol, atol
        self._callback, self._check_every, self._use_cuda_graph = callback, check_every, bool(use_cuda_graph)
        self._device = A.device
        self._scalar_type = A.scalar_type
        self._batch_count = A.batch_count
        self._dofs_per_entry = dofs_per_entry(b.dtype)
        self._comm = A.comm if A.comm is not None and A.comm.Get_size() > 1 else None
        if maxiter is None:  # the whole system's size: on several ranks, every rank's part
            dofs = scalar_dof_count(b) if self._comm is None else sum(self._comm.allgather(scalar_dof_count(b)))
            maxiter = dofs // self._batch_count
        self._maxiter = int(maxiter)
        self._offsets = self._entry_offsets(A, b)
        self._cur_iter_and_condition = empty(2, dtype=int32, device=self._device)
        self._allocate()

    # -- buffers ---------------------------------------------------------------------------------------------
    def _entry_offsets(self, A: LinearOperator, b: array) -> array:
        offsets = empty(A.batch_count + 1, dtype=int32, device=self._device)
        if A.batch_offsets is None:
            offsets.assign(array([0, b.shape[0]], dtype=int32))
        else:
            launch(kernels.entry_offsets, dim=offsets.shape[0],
                   inputs=[A.batch_offsets, self._dofs_per_entry, b.shape[0], offsets], device=self._device,
                   record_tape=False)
        return offsets

    def _max_entries(self) -> int:
        """The longest batch, in entries (a bound: the partial sums of the inner products are sized by it)."""
        if self._A.max_batch_length is not None:
            return -(-self._A.max_batch_length // self._dofs_per_entry)
        return self._b.shape[0]

    def _dots(self, columns: int, rows: int = 0) -> Dots:
        return Dots(self._device, self._scalar_type, self._offsets, self._batch_count, self._max_entries(), columns,
                    rows, self._comm)

    # -- a solve ---------------------------------------------------------------------------------------------
    def _check_compatible(self, A: LinearOperator, b: array, x: array, M: LinearOperator | None) -> None:
        """Replacement operands fit the buffers (Warp's messages), then describe one system."""
        if not isinstance(A, LinearOperator):
            raise LinearSolverTypeError(f"{self._NAME}: A must be an array, a BsrMatrix or a LinearOperator, got "
                                        f"{type(A).__name__}")
        check_vector(self._NAME, "b", b)
        check_vector(self._NAME, "x", x)
        if A is not self._A:
            for what, new, old in (("shape", A.shape, self._A.shape), ("dtype", A.dtype, self._A.dtype),
                                   ("device", A.device, self._A.device),
                                   ("batch_count", A.batch_count, self._A.batch_count)):
                if new != old:
                    raise LinearSolverValueError(f"Incompatible A.{what}: expected {old}, got {new}")
            if A.batch_offsets is not self._A.batch_offsets:
                raise LinearSolverValueError("A.batch_offsets must be the same array as at construction")
            if A.max_batch_length != self._A.max_batch_length:
                raise LinearSolverValueError("For batched systems, A.max_batch_length must match the value used at "
                                             "construction")
        for name, new, old in (("b", b, self._b), ("x", x, self._x)):
            if new is not old:
                if new.shape != old.shape:
                    raise LinearSolverValueError(f"Incompatible {name}.shape: expected {old.shape}, got {new.shape}")
                if new.dtype is not old.dtype:
                    raise LinearSolverValueError(f"Incompatible {name}.dtype: expected {describe(old.dtype)}, got "
                                                 f"{describe(new.dtype)}")
        if M is not None and self._M is not None and M is not self._M:
            if M.shape != self._M.shape:
                raise LinearSolverValueError(f"Incompatible M.shape: expected {self._M.shape}, got {M.shape}")
            if M.dtype != self._M.dtype:
                raise LinearSolverValueError(f"Incompatible M.dtype: expected {describe(self._M.dtype)}, got "
                                             f"{describe(M.dtype)}")
        check_operands(self._NAME, A, b, x, M)

    def __call__(self, A=None, b: array | None = None, x: array | None = None, M=None):
        """Solve, with the construction's operands or replacements of the same layout; returns
        ``(iterations, residual_norm, absolute_tolerance)`` (device arrays of the squares with
        ``check_every == 0``)."""
        A_op = aslinearoperator(A) if A is not None else self._A
        M_op = aslinearoperator(M) if M is not None else self._M
        b = b if b is not None else self._b
        x = x if x is not None else self._x
        self._check_compatible(A_op, b, x, M_op)
        A_given = A if A is not None else self._A_given
        plan = plan_solve(self, A_given, A_op, b, M_op) if recording else None
        result = self._run(A_op, b, x, M_op)
        if plan is not None:  # after the solve: the saved solution is x's new value
            record_solve(self, recording[-1], plan, b, x)
        elif recording:
            note_solve(self, recording[-1], A_given, b, x)
        return result

    def _init_tolerance(self, b: array, dots: Dots, atol_sq: array) -> None:
        """``atol_sq[batch] = max(atol, tol * |b[batch]|) ** 2``."""
        scalar = self._scalar_type
        b_norm_sq = dots.compute(b, b, 0)
        rtol, atol = tolerances(scalar, self._tol, self._atol)
        launch(kernels.init_tolerance, dim=self._batch_count, inputs=[scalar(rtol), scalar(atol), b_norm_sq, atol_sq],
               device=self._device, record_tape=False)

    def _loop(self, do_cycle: Callable[[], None], r_norm_sq: array, atol_sq: array, cycle_size: int = 1):
        if self._check_every > 0:
            return self._host_loop(do_cycle, r_norm_sq, atol_sq, cycle_size)
        return self._device_loop(do_cycle, r_norm_sq, atol_sq, cycle_size)

    def _host_loop(self, do_cycle, r_norm_sq: array, atol_sq: array, cycle_size: int):
        callback, maxiter = self._callback, self._maxiter
        check_every = max(self._check_every, cycle_size)
        atol_sq_host = atol_sq.numpy()
        atol = math.sqrt(float(atol_sq_host.max()))
        cur_iter = 0
        r_sq = r_norm_sq.numpy()
        err = math.sqrt(float(r_sq.max()))
        if callback is not None:
            callback(cur_iter, err, atol)
        self._converged = bool((r_sq <= atol_sq_host).all())  # per batch: the adjoint's check reads it
        if self._converged:
            return cur_iter, err, atol
        while True:
            do_cycle()
            cur_iter += cycle_size
            if cur_iter >= maxiter:
                break
            if cur_iter % check_every < cycle_size:
                r_sq = r_norm_sq.numpy()
                if (r_sq <= atol_sq_host).all():
                    break
                if callback is not None:
                    callback(cur_iter, math.sqrt(float(r_sq.max())), atol)
        r_sq = r_norm_sq.numpy()
        self._converged = bool((r_sq <= atol_sq_host).all())
        err = math.sqrt(float(r_sq.max()))
        if callback is not None:
            callback(cur_iter, err, atol)
        return cur_iter, err, atol

    def _device_loop(self, do_cycle, r_norm_sq: array, atol_sq: array, cycle_size: int):
        state = self._cur_iter_and_condition
        cur_iter, condition = state[0:1], state[1:2]
        state.fill_(-cycle_size)
        device = self._device
        inputs = [self._maxiter, cycle_size, cur_iter, r_norm_sq, atol_sq, condition]
        callback = self._callback if isinstance(self._callback, Kernel) else None

        def check():
            launch(kernels.update_condition, dim=1, inputs=inputs, device=device, record_tape=False)
            if callback is not None:
                launch(callback, dim=1, inputs=[cur_iter, r_norm_sq, atol_sq], device=device, record_tape=False)

        def cycle():
            do_cycle()
            check()

        self._converged = None  # known on the device only: (r_norm_sq <= atol_sq) per batch
        check()
        if is_capturing():
            capture_while(condition, cycle)
        else:
            for _ in range(0, self._maxiter, cycle_size):
                cycle()
        return cur_iter, r_norm_sq, atol_sq

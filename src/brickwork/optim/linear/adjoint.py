"""Gradients through a linear solve recorded by a ``wp.Tape``.

The solver's own iterations are not recorded (their gradient would be that of the iterations, not of the
solution). Instead a solve of ``A x = b`` made while a tape records, with ``A`` or ``b`` requiring gradients,
records one step for the backward pass, at the solve's place: given ``dL/dx`` it solves the adjoint system
``A^T l = dL/dx``, adds ``l`` to ``b.grad`` and ``-outer(l, x)`` to ``A``'s gradient (a dense array's, a
diagonal's, or a BSR matrix's values' at its stored blocks; also behind an operator made from them), then
clears ``x.grad`` (the solve overwrote ``x``: its first value, the guess, has no gradient). The adjoint system is
solved by the same state, with the same tolerances and batches: ``CG`` and ``CR`` solve symmetric systems, so it is
the same system with the same preconditioner; ``BiCGSTAB`` and ``GMRES`` solve it with ``A``'s transpose and the
preconditioner's (transpose.py), which must be known: an operator of the caller's own function is refused before
the solve runs. An adjoint solve that ends at ``maxiter`` above its tolerance warns
(``LinearSolverConvergenceWarning``): its gradients are inexact, and no one else reads its residual.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ... import config
from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.kernel import kernel
from ...runtime.capture import is_capturing
from ...runtime.launch import launch
from ...types.array_constructors import empty_like, zeros_like
from ...types.arrays import array, array2d
from ._common import LinearSolverConvergenceWarning, LinearSolverValueError
from .transpose import transposed

_tid, _cw_mul = _FUNCTIONS["tid"], _FUNCTIONS["cw_mul"]


@kernel(enable_backward=False)
def _copy(src: array(dtype=Any), dst: array(dtype=Any)):
    i = _tid()
    dst[i] = src[i]


@kernel(enable_backward=False)
def _add(src: array(dtype=Any), dst: array(dtype=Any)):
    i = _tid()
    dst[i] = dst[i] + src[i]


@kernel(enable_backward=False)
def _sub_product(lam: array(dtype=Any), x: array(dtype=Any), grad: array(dtype=Any)):
    i = _tid()
    grad[i] = grad[i] - _cw_mul(lam[i], x[i])


@kernel(enable_backward=False)
def _sub_outer(lam: array(dtype=Any), x: array(dtype=Any), grad: array2d(dtype=Any)):
    i, j = _tid()
    grad[i, j] = grad[i, j] - lam[i] * x[j]


def _gradient_of(a):
    return a.grad if isinstance(a, array) else None


def _source(A):
    """The array or BSR matrix behind ``A``: an operator that ``aslinearoperator`` made from one keeps it."""
    for name in ("_bsr_matrix", "_dense_matrix", "_diagonal"):
        found = getattr(A, name, None)
        if found is not None:
            return found
    return A


class SolvePlan:
    """What the backward step of one solve needs, found before the solve runs: ``A``'s source and gradient,
    and the operators of the adjoint system (``A^T`` and ``M^T``: the solve's own for cg and cr)."""

    def __init__(self, A, values, matrix_grad, A_adjoint, M_adjoint):
        self.A, self.values, self.matrix_grad = A, values, matrix_grad
        self.A_adjoint, self.M_adjoint = A_adjoint, M_adjoint


def plan_solve(state, A, A_op, b: array, M_op) -> SolvePlan | None:
    """The backward step's plan for ``state``'s solve of ``A_op x = b`` (``A`` as the caller gave it), or None
    when neither ``A`` nor ``b`` has a gradient. Raises ``LinearSolverValueError``, before anything runs, when a
    solver of non-symmetric systems is given an operator or a preconditioner whose transpose is not known."""
    A = _source(A)
    values = getattr(A, "values", None)  # a BSR matrix: its values carry the gradient
    matrix_grad = _gradient_of(values if values is not None else A)
    if matrix_grad is None and b.grad is None:
        return None
    if state._SYMMETRIC:
        return SolvePlan(A, values, matrix_grad, A_op, M_op)
    A_adjoint, M_adjoint = transposed(A_op), transposed(M_op)
    for name, op, found in (("A", A_op, A_adjoint), ("M", M_op, M_adjoint)):
        if op is not None and found is None:
            needs = " and ".join(n for n, g in (("A", matrix_grad), ("b", b.grad)) if g is not None)
            raise LinearSolverValueError(
                f"{state._NAME}: a solve under a wp.Tape with {needs} requiring gradients needs the transpose of "
                f"{name} (the adjoint system is A^T l = dL/dx), and {name} is a LinearOperator of your own function, "
                f"whose transpose is not known. Pass {name} as an array, a BsrMatrix or "
                f"{'aslinearoperator() of one' if name == 'A' else 'a preconditioner() or FSAI'}, solve outside the "
                f"tape, or record the adjoint solve yourself with tape.record_func (dL/db = l, dL/dA = -outer(l, x))")
    return SolvePlan(A, values, matrix_grad, A_adjoint, M_adjoint)


def record_solve(state, tape, plan: SolvePlan, b: array, x: array) -> None:
    """Record on ``tape`` the backward step of ``state``'s solve of ``A x = b`` planned by ``plan_solve``: it
    solves the adjoint system with ``state`` (same tolerances, batches and preconditioning side)."""
    A, values, matrix_grad = plan.A, plan.values, plan.matrix_grad
    solution = None
    if matrix_grad is not None:  # x may be overwritten before the backward pass: keep the solution
        solution = empty_like(x, requires_grad=False)
        launch(_copy, dim=x.shape[0], inputs=[x, solution], device=x.device, record_tape=False)

    def backward():
        if x.grad is None:
            return
        lam = zeros_like(x, requires_grad=False)
        callback, state._callback = state._callback, None  # the caller's callback watches its own solve
        try:
            result = state._run(plan.A_adjoint, x.grad, lam, plan.M_adjoint)  # A^T l = dL/dx
        finally:
            state._callback = callback
        check_adjoint_converged(state, result)
        if b.grad is not None:
            launch(_add, dim=b.shape[0], inputs=[lam, b.grad], device=b.device, record_tape=False)
        if matrix_grad is not None:
            _add_matrix_gradient(A, matrix_grad, lam, solution)
        if not x.retain_grad:
            x.grad.zero_()

    arrays = [a for a in (b, x, values if values is not None else A) if isinstance(a, array)]
    tape._record_step(_solve_step(state), *_solve_access(A, b, x), backward, arrays)


def _solve_step(state):
    """The solve as the gradient flow check names it (None: the check is off)."""
    from ...runtime.gradient_flow import caller_step

    return caller_step(f"the {state._NAME} solve") if config.verify_gradient_flow else None


def _solve_access(A, b: array, x: array) -> tuple[list, list]:
    """The arrays a solve reads (``b``, ``A``'s values) and writes (``x``), as the gradient flow check takes them."""
    A = _source(A)
    values = getattr(A, "values", A)
    reads = [("b", b)] + ([("A", values)] if isinstance(values, array) else [])
    return reads, [("x", x)]


def note_solve(state, tape, A, b: array, x: array) -> None:
    """For the gradient flow check, a solve under ``tape`` that records no backward step (nothing it reads has a
    gradient): where ``x`` needs one, ``b`` or ``A`` written from values that had one cut the flow."""
    if config.verify_gradient_flow:
        tape._record_step(_solve_step(state), *_solve_access(A, b, x))


def check_adjoint_converged(state, result) -> None:
    """Warn (``LinearSolverConvergenceWarning``) when the adjoint solve that gave ``result`` stopped at ``maxiter``
    above its tolerance in some batch. The forward's own result tells its caller; this one has no caller to tell.
    Inside a capture nothing can be read back: not checked."""
    converged = state._converged
    iterations, residual, tolerance = result
    if converged is None:  # check_every == 0: the per-batch squares on the device
        if is_capturing():
            return
        r_sq, tol_sq = residual.numpy(), tolerance.numpy()
        converged = bool((r_sq <= tol_sq).all())
        iterations = int(iterations.numpy()[0])
        residual, tolerance = math.sqrt(float(r_sq.max())), math.sqrt(float(tol_sq.max()))
    if converged:
        return
    warnings.warn(f"{state._NAME}: the adjoint solve of Tape.backward (A^T l = dL/dx, for the gradients of a solve "
                  f"recorded on the tape) did not converge: residual {residual:.3g} above the tolerance "
                  f"{tolerance:.3g} after {iterations} iterations (maxiter={state._maxiter}). The gradients of b and "
                  f"A it gave are inexact: raise maxiter, loosen tol/atol or precondition the solve",
                  LinearSolverConvergenceWarning, stacklevel=4)  # at the tape.backward call


def _add_matrix_gradient(A, grad: array, lam: array, x: array) -> None:
    """``grad -= outer(lam, x)``: over a dense matrix's entries, a diagonal's (``lam * x`` per component), or a
    BSR matrix's stored blocks (the gradient of ``bsr_mv``'s values for an output gradient ``-lam``)."""
    if isinstance(A, array):
        kernel_ = _sub_outer if A.ndim == 2 else _sub_product
        launch(kernel_, dim=A.shape, inputs=[lam, x, grad], device=A.device, record_tape=False)
        return
    from ...runtime.tape import Tape
    from ...sparse.mv import bsr_mv

    product = zeros_like(lam, requires_grad=True)  # a gradient from the start: bsr_mv views it as scalars
    with Tape() as tape:
        bsr_mv(A, x, product, alpha=-1.0)
    tape.backward(grads={product: lam})  # values.grad += -outer(lam, x) at the stored blocks

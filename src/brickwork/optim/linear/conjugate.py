"""``CG`` and ``CR``: conjugate gradient (symmetric positive definite systems) and conjugate residual
(symmetric, possibly indefinite, systems), with an optional restart every ``restart`` iterations.

Each iteration is a few launches: the operator's products, inner products into per-batch columns, and
one kernel that updates the vectors with the step lengths computed from those columns (a batch whose
residual is below its tolerance takes zero steps, so converged batches stay put while others iterate).
"""

from __future__ import annotations

import operator as _operator
from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.kernel import kernel
from ...runtime.launch import launch
from ...types.array_constructors import empty, zeros_like
from ...types.arrays import array
from ...types.scalars import int32
from . import cg_fused
from ._common import LinearSolverTypeError, LinearSolverValueError, tolerances
from .kernels import entry_batch, guarded_step
from .state import LinearSolverState

_tid, _where = _FUNCTIONS["tid"], _FUNCTIONS["where"]


@kernel(enable_backward=False)
def cg_direction(tol: array(dtype=Any), resid: array(dtype=Any), rz_old: array(dtype=Any), rz_new: array(dtype=Any),
                 z: array(dtype=Any), p: array(dtype=Any), offsets: array(dtype=int32)):
    """``p = z + beta p`` with ``beta = rz_new / rz_old``."""
    i = _tid()
    bid = entry_batch(i, offsets)
    if bid >= 0:
        beta = _where(resid[bid] > tol[bid], rz_new[bid] / rz_old[bid], rz_old.dtype(0.0))
        p[i] = z[i] + beta * p[i]


@kernel(enable_backward=False)
def cr_step(tol: array(dtype=Any), resid: array(dtype=Any), zaz: array(dtype=Any), y_ap: array(dtype=Any),
            x: array(dtype=Any), r: array(dtype=Any), z: array(dtype=Any), p: array(dtype=Any), ap: array(dtype=Any),
            y: array(dtype=Any), offsets: array(dtype=int32)):
    """Preconditioned CR: ``x += alpha p``, ``r -= alpha Ap``, ``z -= alpha M Ap`` with
    ``alpha = (z . Az) / (Ap . M Ap)``."""
    i = _tid()
    bid = entry_batch(i, offsets)
    if bid >= 0:
        alpha = _where(resid[bid] > tol[bid] and y_ap[bid] > y_ap.dtype(0.0), zaz[bid] / y_ap[bid], zaz.dtype(0.0))
        x[i] = x[i] + alpha * p[i]
        r[i] = r[i] - alpha * ap[i]
        z[i] = z[i] - alpha * y[i]


@kernel(enable_backward=False)
def cr_direction(tol: array(dtype=Any), resid: array(dtype=Any), zaz_old: array(dtype=Any),
                 zaz_new: array(dtype=Any), z: array(dtype=Any), p: array(dtype=Any), az: array(dtype=Any),
                 ap: array(dtype=Any), offsets: array(dtype=int32)):
    """``p = z + beta p``, ``Ap = Az + beta Ap`` with ``beta = zAz_new / zAz_old``."""
    i = _tid()
    bid = entry_batch(i, offsets)
    if bid >= 0:
        beta = _where(resid[bid] > tol[bid] and zaz_old[bid] > zaz_old.dtype(0.0), zaz_new[bid] / zaz_old[bid],
                      zaz_old.dtype(0.0))
        p[i] = z[i] + beta * p[i]
        ap[i] = az[i] + beta * ap[i]


def check_restart(owner: str, restart) -> int | None:
    if restart is None:
        return None
    if isinstance(restart, bool):
        raise LinearSolverTypeError(f"{owner}: restart must be an integer or None, got bool")
    try:
        restart = _operator.index(restart)
    except TypeError as error:
        raise LinearSolverTypeError(f"{owner}: restart must be an integer or None, got "
                                    f"{type(restart).__name__}") from error
    if restart < 1:
        raise LinearSolverValueError(f"{owner}: restart must be positive, got {restart}")
    return restart


class _Restartable(LinearSolverState):
    """CG and CR: an optional restart (``restart`` iterations, then the true residual ``b - A x`` and a new
    search direction); convergence is then checked at restart boundaries only."""

    def __init__(self, A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10,
                 use_cuda_graph=True, *, restart: int | None = None):
        self._restart = check_restart(self._NAME, restart)
        super().__init__(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback,
                         check_every=check_every, use_cuda_graph=use_cuda_graph)

    def _configure_restart(self) -> None:
        if self._restart is not None:
            self._restart = max(1, min(self._restart, self._maxiter))
            if self._check_every > 0:
                self._check_every = max(self._check_every, self._restart)

    def _fused_cg(self, A, M):
        """The fused iteration (cg_fused.py) and its matrix and diagonal, when it applies to ``A`` and ``M``."""
        return cg_fused.prepare(self, A, M, cg_fused.FusedCG, 3)

    def _launch(self, step, *inputs) -> None:
        launch(step, dim=self._b.shape[0], inputs=[*inputs, self._offsets], device=self._device, record_tape=False)

    def _cycle(self, do_iteration, restart_tail):
        """One loop cycle: an iteration, or ``restart`` iterations ending with ``restart_tail()``."""
        restart = self._restart
        if restart is None:
            return do_iteration, 1

        def cycle():
            for _ in range(restart - 1):
                do_iteration()
            do_iteration(update_direction=False)
            restart_tail()

        return cycle, restart


class CG(_Restartable):
    """Conjugate gradient, as ``warp.optim.linear.CG``: the buffers of ``cg`` for ``A``, ``b``, ``x``, run by
    calling the object (see ``LinearSolverState``). ``restart``: iterations between restarts (None: none).
    ``M`` may change, or come and go, between calls."""

    _NAME = "CG"
    _SYMMETRIC = True

    def _allocate(self) -> None:
        self._configure_restart()
        b, device = self._b, self._device
        # zeros, as Warp allocates them: a matvec gets them as y with beta = 0 before they are written, and one
        # that computes alpha * A x + beta * y read NaN from uninitialized memory as 0 * NaN
        self._r, self._z, self._p, self._Ap = (zeros_like(b) for _ in range(4))
        self._residuals = empty((2, self._batch_count), dtype=self._scalar_type, device=device)
        self._dot = self._dots(3)  # r.r, r.z, p.Ap

    def _run(self, A, b, x, M):
        dot, r, p, Ap = self._dot, self._r, self._p, self._Ap
        z = r if M is None else self._z
        r_norm_sq, rz_new, p_Ap = dot.col(0), (dot.col(0) if M is None else dot.col(1)), dot.col(2)
        rz_old, atol_sq = self._residuals[0], self._residuals[1]
        fused = self._fused_cg(A, M)
        Ap.zero_()
        self._z.zero_()

        def update_rr_rz():
            if M is not None:
                M.matvec(r, z, z, alpha=1.0, beta=0.0)
                dot.compute(r, z, 1)
            dot.compute(r, r, 0)

        if fused is None:
            self._init_tolerance(b, dot, atol_sq)
            A.matvec(x, b, r, alpha=-1.0, beta=1.0)
            update_rr_rz()
            p.assign(z)
        else:  # the same values in two launches
            fused[0].start(fused[1], self._scalar_type, *tolerances(self._scalar_type, self._tol, self._atol),
                           atol_sq, r_norm_sq, rz_new, b, x, r, fused[2], z, p)

        def fused_iteration(update_direction=True):
            run, matrix, d = fused
            run.product_dot(matrix, p, Ap)
            run.step_dots(atol_sq, r_norm_sq, rz_new, x, r, p, Ap, d, z)
            if update_direction:  # else the restart computes r, z and their products again
                run.fold_direction(atol_sq, r_norm_sq, rz_new, rz_old, d is not None, z, p)

        def do_iteration(update_direction=True):
            rz_old.assign(rz_new)
            A.matvec(p, Ap, Ap, alpha=1.0, beta=0.0)
            dot.compute(p, Ap, 2)
            self._launch(guarded_step, atol_sq, r_norm_sq, rz_old, p_Ap, x, r, p, Ap)
            if update_direction:
                update_rr_rz()
                self._launch(cg_direction, atol_sq, r_norm_sq, rz_old, rz_new, z, p)

        def restart_tail():
            A.matvec(x, b, r, alpha=-1.0, beta=1.0)
            update_rr_rz()
            p.assign(z)

        cycle, size = self._cycle(do_iteration if fused is None else fused_iteration, restart_tail)
        return self._loop(cycle, r_norm_sq, atol_sq, size)


class CR(_Restartable):
    """Conjugate residual, as ``warp.optim.linear.CR``: the buffers of ``cr`` for ``A``, ``b``, ``x``, run by
    calling the object (see ``LinearSolverState``). ``restart``: iterations between restarts (None: none).
    ``M`` may change, or come and go, between calls."""

    _NAME = "CR"
    _SYMMETRIC = True

    def _allocate(self) -> None:
        self._configure_restart()
        b = self._b
        self._r, self._z, self._Az, self._y, self._Ap, self._p = (zeros_like(b) for _ in range(6))  # as CG's
        self._residuals = empty((2, self._batch_count), dtype=self._scalar_type, device=self._device)
        self._dot = self._dots(3)  # r.r, z.Az, Ap.y

    def _run(self, A, b, x, M):
        dot, r, Az, Ap, p = self._dot, self._r, self._Az, self._Ap, self._p
        z = r if M is None else self._z
        y = Ap if M is None else self._y
        r_norm_sq, zAz_new, y_Ap = dot.col(0), dot.col(1), dot.col(2)
        zAz_old, atol_sq = self._residuals[0], self._residuals[1]
        fused = self._fused_cg(A, M)
        self._init_tolerance(b, dot, atol_sq)
        A.matvec(x, b, r, alpha=-1.0, beta=1.0)
        Ap.zero_()
        self._y.zero_()

        def update_z():
            if M is not None:
                M.matvec(r, z, z, alpha=1.0, beta=0.0)

        def update_rr_zAz():
            A.matvec(z, Az, Az, alpha=1.0, beta=0.0)
            dot.compute(r, r, 0)
            dot.compute(z, Az, 1)

        if M is not None:
            z.zero_()
        update_z()
        update_rr_zAz()
        p.assign(z)
        Ap.assign(Az)

        def fused_iteration(update_direction=True):
            run, matrix, d = fused
            run.precondition_dot(Ap, d, y)
            run.cr_step_dots(atol_sq, r_norm_sq, zAz_new, x, r, z, p, Ap, y, d is not None)
            if update_direction:  # else the restart computes r, z and their products again
                run.product_dot(matrix, z, Az, 1)
                run.fold_direction(atol_sq, r_norm_sq, zAz_new, zAz_old, True, z, p, Az, Ap)

        def do_iteration(update_direction=True):
            zAz_old.assign(zAz_new)
            if M is not None:
                M.matvec(Ap, y, y, alpha=1.0, beta=0.0)
            dot.compute(Ap, y, 2)
            if M is None:
                self._launch(guarded_step, atol_sq, r_norm_sq, zAz_old, y_Ap, x, r, p, Ap)
            else:
                self._launch(cr_step, atol_sq, r_norm_sq, zAz_old, y_Ap, x, r, z, p, Ap, y)
            if update_direction:
                update_rr_zAz()
                self._launch(cr_direction, atol_sq, r_norm_sq, zAz_old, zAz_new, z, p, Az, Ap)

        def restart_tail():
            A.matvec(x, b, r, alpha=-1.0, beta=1.0)
            update_z()
            update_rr_zAz()
            p.assign(z)
            Ap.assign(Az)

        cycle, size = self._cycle(do_iteration if fused is None else fused_iteration, restart_tail)
        return self._loop(cycle, r_norm_sq, atol_sq, size)


def cg(A, b: array, x: array, tol: float | None = None, atol: float | None = None, maxiter: float | None = 0, M=None,
       callback=None, check_every=10, use_cuda_graph=True, run: bool = True, *, restart: int | None = None):
    """Solve the symmetric positive definite system ``A x = b`` by conjugate gradient, from ``x``'s values, as
    ``warp.optim.linear.cg``.

    Returns ``(iterations, residual_norm, absolute_tolerance)`` (the residual is the recursively updated
    one; with ``restart``, the true residual of the last restart), with ``check_every == 0`` device arrays
    ``(iterations, residual_norm**2, tolerance**2)``, with ``run=False`` the ``CG`` object, unrun. The
    other arguments are ``LinearSolverState``'s; ``M`` is a left preconditioner.
    """
    state = CG(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback, check_every=check_every,
               use_cuda_graph=use_cuda_graph, restart=restart)
    return state() if run else state


def cr(A, b: array, x: array, tol: float | None = None, atol: float | None = None, maxiter: float | None = 0, M=None,
       callback=None, check_every=10, use_cuda_graph=True, run: bool = True, *, restart: int | None = None):
    """Solve the symmetric (possibly indefinite) system ``A x = b`` by conjugate residual, as
    ``warp.optim.linear.cr``; arguments and results as ``cg``'s."""
    state = CR(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback, check_every=check_every,
               use_cuda_graph=use_cuda_graph, restart=restart)
    return state() if run else state

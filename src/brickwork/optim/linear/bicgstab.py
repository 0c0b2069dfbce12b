"""``BiCGSTAB``: biconjugate gradient stabilized, for general (nonsymmetric) systems, with a left or right
preconditioner."""

from __future__ import annotations

from typing import Any

from ...builtins.functions import FUNCTIONS as _FUNCTIONS
from ...lang.kernel import kernel
from ...runtime.launch import launch
from ...types.array_constructors import empty, zeros_like
from ...types.arrays import array
from ...types.scalars import int32
from . import bicgstab_fused, cg_fused
from ._common import LinearSolverValueError, tolerances
from .kernels import entry_batch, guarded_step
from .state import LinearSolverState

_tid, _where = _FUNCTIONS["tid"], _FUNCTIONS["where"]


@kernel(enable_backward=False)
def bicgstab_stabilize(tol: array(dtype=Any), resid: array(dtype=Any), st: array(dtype=Any), tt: array(dtype=Any),
                       z: array(dtype=Any), t: array(dtype=Any), x: array(dtype=Any), r: array(dtype=Any),
                       offsets: array(dtype=int32)):
    """``x += omega z``, ``r -= omega t`` with ``omega = (s . t) / (t . t)``."""
    i = _tid()
    bid = entry_batch(i, offsets)
    if bid >= 0:
        omega = _where(resid[bid] > tol[bid], st[bid] / tt[bid], st.dtype(0.0))
        zi = z[i]  # z may be r itself (no preconditioner): read it before r changes
        x[i] = x[i] + omega * zi
        r[i] = r[i] - omega * t[i]


@kernel(enable_backward=False)
def bicgstab_direction(tol: array(dtype=Any), resid: array(dtype=Any), rho_new: array(dtype=Any),
                       r0v: array(dtype=Any), st: array(dtype=Any), tt: array(dtype=Any), p: array(dtype=Any),
                       r: array(dtype=Any), v: array(dtype=Any), offsets: array(dtype=int32)):
    """``p = r + beta (p - omega v)`` with ``beta = (rho_new / rho) (alpha / omega)``."""
    i = _tid()
    bid = entry_batch(i, offsets)
    if bid >= 0:
        going = resid[bid] > tol[bid]
        beta = _where(going, rho_new[bid] * tt[bid] / (r0v[bid] * st[bid]), st.dtype(0.0))
        beta_omega = _where(going, rho_new[bid] / r0v[bid], st.dtype(0.0))
        p[i] = r[i] + beta * p[i] - beta_omega * v[i]


class BiCGSTAB(LinearSolverState):
    """BiCGSTAB, as ``warp.optim.linear.BiCGSTAB``: the buffers of ``bicgstab`` for ``A``, ``b``, ``x``, run by
    calling the object (see ``LinearSolverState``). ``is_left_preconditioner``: apply ``M`` on the left
    (``M A x = M b``) rather than the right. Whether there is an ``M`` is fixed at construction."""

    _NAME = "BiCGSTAB"

    def __init__(self, A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10,
                 use_cuda_graph=True, is_left_preconditioner=False):
        self._is_left_preconditioner = bool(is_left_preconditioner)
        super().__init__(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback,
                         check_every=check_every, use_cuda_graph=use_cuda_graph)

    def _allocate(self) -> None:
        b = self._b
        # zeros: a matvec gets v and t as y with beta = 0 before they are written (see CG._allocate)
        self._r, self._r0, self._p, self._v, self._t = (zeros_like(b) for _ in range(5))
        if self._M is not None:
            self._y, self._z = zeros_like(b), zeros_like(b)
            self._Mt = zeros_like(b) if self._is_left_preconditioner else self._t
        else:
            self._y, self._z, self._Mt = self._p, self._r, self._t
        self._atol_sq = empty(self._batch_count, dtype=self._scalar_type, device=self._device)
        self._dot = self._dots(5)  # r.r, rho = r0.r, r0.v, s.t, t.t

    def _check_compatible(self, A, b, x, M) -> None:
        super()._check_compatible(A, b, x, M)
        if (M is None) != (self._M is None):
            raise LinearSolverValueError("BiCGSTAB requires M to be consistently provided between construction and "
                                         "call (both None or both non-None)")

    def _launch(self, step, *inputs) -> None:
        launch(step, dim=self._b.shape[0], inputs=[*inputs, self._offsets], device=self._device, record_tape=False)

    def _run(self, A, b, x, M):
        dot, r, r0, p, v, t = self._dot, self._r, self._r0, self._p, self._v, self._t
        y, z, Mt = self._y, self._z, self._Mt
        left = M is not None and self._is_left_preconditioner
        r_norm_sq, rho, r0v, st, tt = (dot.col(k) for k in range(5))
        atol_sq = self._atol_sq
        fused = None if left else cg_fused.prepare(self, A, M, bicgstab_fused.FusedBiCGSTAB, 6)
        if fused is None:
            self._init_tolerance(b, dot, atol_sq)
            A.matvec(x, b, r, alpha=-1.0, beta=1.0)
            dot.compute(r, r, 0)
            p.assign(r)
            r0.assign(r)
            rho.assign(r_norm_sq)
            v.zero_()
            t.zero_()
        else:  # the same values in two launches, and the first y = M p (the fused direction computes the later ones)
            run, matrix, d = fused
            run.start(matrix, self._scalar_type, *tolerances(self._scalar_type, self._tol, self._atol), atol_sq,
                      r_norm_sq, rho, b, x, r, d, y, p, r0)

        def general_iteration():
            if M is not None:
                M.matvec(p, y, y, alpha=1.0, beta=0.0)
            A.matvec(y, v, v, alpha=1.0, beta=0.0)
            dot.compute(r0, v, 2)
            self._launch(guarded_step, atol_sq, r_norm_sq, rho, r0v, x, r, y, v)
            dot.compute(r, r, 0)
            if M is not None:
                M.matvec(r, z, z, alpha=1.0, beta=0.0)
            A.matvec(z, t, t, alpha=1.0, beta=0.0)
            if left:
                M.matvec(t, Mt, Mt, alpha=1.0, beta=0.0)
                dot.compute(z, Mt, 3)
                dot.compute(Mt, Mt, 4)
            else:
                dot.compute(r, t, 3)
                dot.compute(t, t, 4)
            self._launch(bicgstab_stabilize, atol_sq, r_norm_sq, st, tt, z, t, x, r)
            dot.compute(r, r, 0)
            dot.compute(r0, r, 1)
            self._launch(bicgstab_direction, atol_sq, r_norm_sq, rho, r0v, st, tt, p, r, v)

        def fused_iteration():
            run.iteration(matrix, d, atol_sq, dot.values, x, r, r0, p, v, y, z, t)

        return self._loop(general_iteration if fused is None else fused_iteration, r_norm_sq, atol_sq)


def bicgstab(A, b: array, x: array, tol: float | None = None, atol: float | None = None, maxiter: float | None = 0,
             M=None, callback=None, check_every=10, use_cuda_graph=True, is_left_preconditioner=False,
             run: bool = True):
    """Solve ``A x = b`` (any nonsingular ``A``) by BiCGSTAB, as ``warp.optim.linear.bicgstab``.

    Returns ``(iterations, residual_norm, absolute_tolerance)``, device arrays of the squares with
    ``check_every == 0``, or with ``run=False`` the ``BiCGSTAB`` object, unrun. ``M`` is a right
    preconditioner, a left one with ``is_left_preconditioner=True``.
    """
    state = BiCGSTAB(A, b, x, tol=tol, atol=atol, maxiter=maxiter, M=M, callback=callback, check_every=check_every,
                     use_cuda_graph=use_cuda_graph, is_left_preconditioner=is_left_preconditioner)
    return state() if run else state

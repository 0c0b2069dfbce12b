"""Iterative linear solvers, as Warp's ``warp.optim.linear``: conjugate gradient (``cg``), conjugate residual
(``cr``), BiCGSTAB (``bicgstab``) and restarted GMRES (``gmres``), their reusable states (``CG``, ``CR``,
``BiCGSTAB``, ``GMRES``), ``LinearOperator``/``aslinearoperator``, Jacobi ``preconditioner``s and the ``FSAI``
preconditioner.

Every vector operation runs on the operator's device with brickwork kernels; inner products add in a
fixed order (the same bits every run). Batched systems (``LinearOperator(batch_offsets=...)``) solve
independent subsystems together. See docs/linear_solvers.md.
"""

from ._common import (
    LinearSolverConvergenceWarning,
    LinearSolverError,
    LinearSolverTypeError,
    LinearSolverValueError,
)
from .bicgstab import BiCGSTAB, bicgstab
from .conjugate import CG, CR, cg, cr
from .fsai import FSAI
from .gmres import GMRES, gmres
from .operator import LinearOperator, aslinearoperator
from .preconditioner import preconditioner
from .state import LinearSolverState

__all__ = ["CG", "CR", "FSAI", "GMRES", "BiCGSTAB", "LinearOperator", "LinearSolverConvergenceWarning",
           "LinearSolverError", "LinearSolverState",
           "LinearSolverTypeError", "LinearSolverValueError", "aslinearoperator", "bicgstab", "cg", "cr", "gmres",
           "preconditioner"]

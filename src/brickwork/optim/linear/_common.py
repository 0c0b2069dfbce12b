"""What the linear solvers share: their errors, the checks of their arguments, and the tolerances.

Every check runs before anything is allocated or launched, so a call that raises leaves ``x`` (and every
other array) as it was.
"""

from __future__ import annotations

import math
import numbers

from ...types.arrays import array, type_name
from ...types.composite import is_matrix_type, is_vector_type
from ...types.scalars import float16, float32, float64
from .._common import OptimizerError

#: The scalar types the solvers compute in (dots, step lengths and tolerances are of this type).
SCALARS = (float16, float32, float64)


class LinearSolverError(OptimizerError):
    """Base class of the errors of ``brickwork.optim.linear``."""


class LinearSolverTypeError(LinearSolverError, TypeError):
    """An argument of the wrong kind or dtype: ``b`` that is not an array, ``x`` of another dtype than ``b``,
    a matrix whose scalar type is not ``b``'s, a ``restart`` that is not an integer."""


class LinearSolverValueError(LinearSolverError, ValueError):
    """A value that does not fit: shapes of ``A``, ``b``, ``x`` and ``M`` that do not agree, another device,
    a negative ``maxiter``, an unknown preconditioner type, a replacement operand of a solver state that
    is not the construction's."""


class LinearSolverConvergenceWarning(LinearSolverError, UserWarning):
    """The adjoint solve of a tape's backward pass (``A^T l = dL/dx``, see adjoint.py) did not reach its tolerance
    in ``maxiter`` iterations: the gradients it gave are inexact. (A forward solve returns its residual instead.)
    A warning; made an error by a warnings filter, it is a ``LinearSolverError`` too."""


def scalar_type(dtype):
    """The scalar type of ``dtype`` (itself for a scalar, the component type of a vector or matrix)."""
    return dtype._dtype if (is_vector_type(dtype) or is_matrix_type(dtype)) else dtype


def dofs_per_entry(dtype) -> int:
    """Scalar degrees of freedom in one element of a vector of ``dtype`` (1 for scalars)."""
    return dtype._length if is_vector_type(dtype) else 1


def scalar_dof_count(x: array) -> int:
    return x.shape[0] * dofs_per_entry(x.dtype)


def dtype_epsilon(scalar) -> float:
    """The precision the default tolerances derive from (Warp's values, not the machine epsilons)."""
    return {float64: 1.0e-16, float16: 1.0e-4}.get(scalar, 1.0e-8)


def tolerances(scalar, tol, atol) -> tuple[float, float]:
    """``(rtol, atol)`` as Warp resolves them: both default to eps**0.75, one given stands for the other,
    and ``atol`` is at least eps**2.25 (so a zero right-hand side still converges)."""
    eps = dtype_epsilon(scalar)
    if tol is None and atol is None:
        tol = atol = eps ** 0.75
    elif tol is None:
        tol = atol
    elif atol is None:
        atol = tol
    return float(tol), max(float(atol), eps ** 2.25)


def check_tolerance(owner: str, name: str, value) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
        raise LinearSolverValueError(f"{owner}: {name} must be None or a finite number >= 0, got {value!r}")


def check_count(owner: str, name: str, value, low: int, allow_none: bool = False) -> int | None:
    """``value`` as an int >= ``low`` (a float with an integral value is taken, as Warp's ``int(maxiter)``)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise LinearSolverTypeError(f"{owner}: {name} must be an integer, got {type(value).__name__}")
    if not math.isfinite(value) or value != int(value):
        raise LinearSolverValueError(f"{owner}: {name} must be an integer, got {value!r}")
    if int(value) < low:
        raise LinearSolverValueError(f"{owner}: {name} must be >= {low}, got {value!r}")
    return int(value)


def check_maxiter(owner: str, maxiter) -> int | None:
    """Warp's reading of ``maxiter``: None or 0 is the default (returned as None), another number is truncated
    by ``int()`` (0.5 gives 0: one cycle runs, as in Warp). Negative or non-finite values are refused."""
    if maxiter is None:
        return None
    if isinstance(maxiter, bool) or not isinstance(maxiter, numbers.Real):
        raise LinearSolverTypeError(f"{owner}: maxiter must be a number or None, got {type(maxiter).__name__}")
    if not math.isfinite(maxiter) or maxiter < 0:
        raise LinearSolverValueError(f"{owner}: maxiter must be >= 0 (0 or None: the system's size), got {maxiter!r}")
    return None if maxiter == 0 else int(maxiter)


def check_vector(owner: str, name: str, v) -> None:
    """``v`` is a 1-D array of float16/32/64 scalars or vectors of them."""
    if not isinstance(v, array):
        raise LinearSolverTypeError(f"{owner}: {name} must be a 1-D wp.array, got {type(v).__name__}")
    if v.ndim != 1:
        raise LinearSolverValueError(f"{owner}: {name} must be a 1-D array, got shape {v.shape}")
    if scalar_type(v.dtype) not in SCALARS or is_matrix_type(v.dtype):
        raise LinearSolverTypeError(f"{owner}: {name} must hold float16, float32 or float64 scalars or vectors, got "
                                    f"{type_name(v.dtype)}")


def describe(dtype) -> str:
    return type_name(dtype)

"""What Adam and SGD share: their errors, the dtypes they take, the checks of their arguments, and the
bookkeeping of parameter arrays and per-parameter state buffers (``set_params``, ``reset_internal_state``).

Every check runs before anything is written, so an optimizer that raises leaves its parameters, state
buffers and step count as they were.
"""

from __future__ import annotations

import abc
import math

from ..errors import BrickworkError
from ..types.array_constructors import zeros
from ..types.arrays import array, type_name
from ..types.composite import (
    is_matrix_type,
    is_quat_type,
    is_transform_type,
    is_vector_type,
    matrix,
    quaternion,
    transformation,
    vector,
)
from ..types.scalars import float16, float32, float64

#: The scalar type a step computes in, by the parameters' scalar type: float16 parameters keep float32
#: state and arithmetic (as Warp's Adam), float32 and float64 their own.
COMPUTE_SCALAR = {float16: float32, float32: float32, float64: float64}


class OptimizerError(BrickworkError):
    """Base class of the errors of ``brickwork.optim``."""


class OptimizerStateError(OptimizerError, RuntimeError):
    """``step()`` before any parameters were set (a ``RuntimeError``, as Warp raises)."""


class OptimizerTypeError(OptimizerError, TypeError):
    """An argument of the wrong kind: parameters or gradients that are not arrays, a gradient whose dtype
    is not its parameter's, a hyperparameter that is not a number."""


class OptimizerDtypeError(OptimizerTypeError, RuntimeError):
    """A parameter dtype the optimizer does not update (a ``TypeError``, and a ``RuntimeError`` as Warp
    raises)."""


class OptimizerValueError(OptimizerError, ValueError):
    """A value out of range: gradients that do not match the parameters in number, shape or device, a
    hyperparameter outside its domain, a state buffer that no longer fits its parameter."""


def _scalar_of(dtype):
    return dtype if dtype in COMPUTE_SCALAR else getattr(dtype, "_dtype", None)


def state_dtype(dtype, composites: str):
    """The dtype of the state buffers (and of the arithmetic) for parameters of ``dtype``, or None when
    ``dtype`` is not supported. ``composites``: ``"vector"`` (Adam) or ``"all"`` (SGD: vectors, matrices,
    quaternions and transforms)."""
    if dtype in COMPUTE_SCALAR:
        return COMPUTE_SCALAR[dtype]
    scalar = COMPUTE_SCALAR.get(_scalar_of(dtype))
    if scalar is None:
        return None
    if is_vector_type(dtype):
        return vector(dtype._length, scalar)
    if composites != "all":
        return None
    if is_matrix_type(dtype):
        return matrix(dtype._shape, scalar)
    if is_quat_type(dtype):
        return quaternion(scalar)
    if is_transform_type(dtype) and dtype._dtype is scalar:  # transforms do not convert between scalar types
        return transformation(scalar)
    return None


def check_number(owner: str, name: str, value, low: float | None = None, high: float | None = None,
                 high_open: bool = False) -> None:
    """``value`` is a finite real number in ``[low, high]`` (``[low, high)`` with ``high_open``)."""
    if isinstance(value, (bool, str, bytes)) or not hasattr(value, "__float__"):
        raise OptimizerTypeError(f"{owner} {name} must be a number, got {type(value).__name__}")
    x = float(value)
    bad = not math.isfinite(x) or (low is not None and x < low) or \
        (high is not None and (x >= high if high_open else x > high))
    if bad:
        domain = "a finite number"
        if low is not None and high is not None:
            domain = f"in [{low:g}, {high:g}{')' if high_open else ']'}"
        elif low is not None:
            domain = f"a finite number >= {low:g}"
        raise OptimizerValueError(f"{owner} {name} must be {domain}, got {value!r}")


def kernel_view(a: array) -> array:
    """``a`` as the 1-D array the step kernels take (a view of a contiguous array of several dimensions)."""
    return a if a.ndim == 1 else a.flatten()


def _check_launchable(owner: str, what: str, a: array) -> None:
    if a.ndim > 1 and not a.is_contiguous:
        raise OptimizerValueError(f"{owner} {what} of {a.ndim} dimensions must be contiguous (a strided "
                                  f"view of shape {a.shape}); pass a contiguous copy")


class Optimizer(abc.ABC):
    """Parameter arrays, one state buffer per parameter for each name in ``_STATE``, and a step count."""

    _NAME = "Optimizer"
    _STATE: tuple[str, ...] = ()
    _COMPOSITES = "vector"
    _SUPPORTED = "float16, float32, float64 and vectors of them"

    def __init__(self, params=None):
        for name in self._STATE:
            setattr(self, name, [])
        self.params = None
        self.t = 0
        self.set_params(params)

    # -- parameters and state --------------------------------------------------------------------------------
    def _state_dtype(self, dtype):
        return state_dtype(dtype, self._COMPOSITES)

    def _check_params(self, params) -> list | None:
        if params is None:
            return None
        if not isinstance(params, (list, tuple)):
            raise OptimizerTypeError(f"{self._NAME} params must be a list of arrays or None, got "
                                     f"{type(params).__name__}")
        for i, p in enumerate(params):
            if not isinstance(p, array):
                raise OptimizerTypeError(f"{self._NAME} params[{i}] must be an array, got {type(p).__name__}")
            if self._state_dtype(p.dtype) is None:
                raise OptimizerDtypeError(f"Unsupported dtype for {self._NAME} optimizer: {type_name(p.dtype)} "
                                          f"(params[{i}]); supported: {self._SUPPORTED}")
            _check_launchable(self._NAME, f"params[{i}]", p)
        return list(params)

    def set_params(self, params) -> None:
        """Set the arrays to optimize (a list, or ``None`` to set them later) and fit the state buffers to
        them: a buffer of the right shape and dtype is kept (its values too; moved to the parameter's
        device when that changed), any other is replaced by zeros. The step count is kept."""
        checked = self._check_params(params)
        self.params = checked
        if not checked:
            return
        for name in self._STATE:
            buffers = getattr(self, name)
            if len(buffers) != len(checked):
                buffers = [None] * len(checked)
            for i, p in enumerate(checked):
                dtype, buf = self._state_dtype(p.dtype), buffers[i]
                if buf is None or buf.shape != p.shape or buf.dtype != dtype:
                    buffers[i] = zeros(p.shape, dtype=dtype, device=p.device)
                elif buf.device != p.device:
                    buffers[i] = buf.to(p.device)
            setattr(self, name, buffers)

    def reset_internal_state(self) -> None:
        """Zero the state buffers and the step count."""
        for name in self._STATE:
            for buf in getattr(self, name):
                buf.zero_()
        self.t = 0

    # -- checks of a step ------------------------------------------------------------------------------------
    @abc.abstractmethod
    def _check_hyperparameters(self) -> None:
        """Refuse hyperparameters out of their domain (each optimizer has its own)."""

    @classmethod
    def _check_gradient(cls, g, p, where: str = "") -> None:
        """Gradient ``g`` fits parameter array ``p`` (Warp's messages, then which one)."""
        if not isinstance(g, array):
            # a parameter made without requires_grad=True has no .grad: the usual way to pass None
            hint = (": an array made without requires_grad=True has no .grad, and a tape gives it no gradient; "
                    "create the parameter with requires_grad=True") if g is None else ""
            raise OptimizerTypeError(f"{cls._NAME} gradient must be an array, got {type(g).__name__}{where}{hint}")
        if g.dtype != p.dtype:
            raise OptimizerTypeError(f"{cls._NAME} gradient dtype must match parameter dtype {type_name(p.dtype)}, "
                                     f"got {type_name(g.dtype)}{where}")
        if g.shape != p.shape:
            raise OptimizerValueError(f"{cls._NAME} gradient shape must match parameter shape {p.shape}, "
                                      f"got {g.shape}{where}")
        if g.device != p.device:
            raise OptimizerValueError(f"{cls._NAME} gradient device must match parameter device {p.device}, "
                                      f"got {g.device}{where}")
        _check_launchable(cls._NAME, "gradient" + where, g)

    @classmethod
    def _check_buffer(cls, name: str, buf, p, where: str = "") -> None:
        """State buffer ``buf`` fits parameter array ``p`` (it does unless someone replaced it)."""
        dtype = state_dtype(p.dtype, cls._COMPOSITES)
        if dtype is None:
            raise OptimizerDtypeError(f"Unsupported dtype for {cls._NAME} optimizer: {type_name(p.dtype)}; "
                                      f"supported: {cls._SUPPORTED}")
        _check_launchable(cls._NAME, "parameter" + where, p)
        if not isinstance(buf, array) or buf.dtype != dtype or buf.shape != p.shape or buf.device != p.device:
            got = (f"{type(buf).__name__}" if not isinstance(buf, array) else
                   f"{type_name(buf.dtype)} {buf.shape} on {buf.device}")
            raise OptimizerValueError(f"{cls._NAME} state buffer {name}{where} must be {type_name(dtype)} "
                                      f"{p.shape} on {p.device}, got {got} (set_params() refits the buffers)")

    def _checked_step(self, grad) -> list:
        """Everything a step needs, checked before any launch: ``[(gradient, parameter, buffers), ...]``."""
        if self.params is None:
            raise OptimizerStateError(f"{self._NAME} parameters must be set before calling step(), got None")
        self._check_hyperparameters()
        if not isinstance(grad, (list, tuple)):
            raise OptimizerTypeError(f"{self._NAME} step() takes a list of gradient arrays, got "
                                     f"{type(grad).__name__}")
        if len(grad) != len(self.params):
            raise OptimizerValueError(f"{self._NAME} step() got {len(grad)} gradient array(s) for "
                                      f"{len(self.params)} parameter array(s)")
        work = []
        for i, (g, p) in enumerate(zip(grad, self.params)):
            where = f" (grad[{i}])" if len(self.params) > 1 else ""
            self._check_gradient(g, p, where)
            buffers = []
            for name in self._STATE:
                held = getattr(self, name)
                buf = held[i] if i < len(held) else None
                self._check_buffer(f"{name}[{i}]", buf, p)
                buffers.append(buf)
            work.append((g, p, buffers))
        return work

"""``SGD``: stochastic gradient descent with momentum, dampening, weight decay and Nesterov momentum, with
Warp's ``warp.optim.SGD`` interface and arithmetic.

One step of parameter ``p`` with gradient ``g``, momentum buffer ``b`` and step count ``t`` (from 0)::

    g = g + weight_decay * p                        # when weight_decay != 0
    if momentum != 0:
        b = g if t == 0 else momentum * b + (1 - dampening) * g
        g = g + momentum * b if nesterov else b
    p = p - lr * g

in the computing scalar type (float32 for float16 and float32 parameters, float64 for float64 ones), so
float32 results equal Warp's bit for bit. The momentum buffers of float16 parameters are float32.
"""

from __future__ import annotations

from typing import Any

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.kernel import kernel
from ..runtime.launch import launch
from ..types.arrays import array
from ..types.scalars import Float, int32
from ._common import Optimizer, OptimizerTypeError, OptimizerValueError, check_number, kernel_view, state_dtype

_tid = _FUNCTIONS["tid"]


@kernel(enable_backward=False)
def sgd_step(g: array(dtype=Any), b: array(dtype=Any), lr: Float, momentum: Float, dampening: Float,
             weight_decay: Float, nesterov: int, t: int, params: array(dtype=Any)):
    i = _tid()
    zero, one = type(lr)(0.0), type(lr)(1.0)
    gt = b.dtype(g[i])
    if weight_decay != zero:
        gt += weight_decay * b.dtype(params[i])
    if momentum != zero:
        bt = b[i]
        if t > 0:
            bt = momentum * bt + (one - dampening) * gt
        else:
            bt = gt
        if nesterov == 1:
            gt += momentum * bt
        else:
            gt = bt
        b[i] = bt
    params[i] = params[i] - params.dtype(lr * gt)


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, as ``warp.optim.SGD``.

    Args:
        params: list of arrays to optimize, or ``None`` (set them later with ``set_params``). Dtypes:
            float16, float32, float64 and vectors, matrices and quaternions of them, transforms of float32
            and float64 (Warp: float32 and its vectors, matrices, quaternions and transforms).
        lr: learning rate (>= 0).
        momentum: momentum factor (>= 0; 0: no momentum).
        dampening: dampening of the momentum (a finite number).
        weight_decay: L2 penalty added to the gradient (>= 0).
        nesterov: Nesterov momentum; needs ``momentum > 0`` and ``dampening == 0``.

    Attributes: ``params``, ``lr``, ``momentum``, ``dampening``, ``weight_decay``, ``nesterov`` (changeable
    between steps), ``t`` (steps taken), ``b`` (the momentum arrays, one per parameter array).
    """

    _NAME = "SGD"
    _STATE = ("b",)
    _COMPOSITES = "all"
    _SUPPORTED = ("float16, float32, float64 and vectors, matrices and quaternions of them, transforms of float32 "
                  "and float64")

    def __init__(self, params=None, lr=0.001, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        self.lr, self.momentum, self.dampening, self.weight_decay = lr, momentum, dampening, weight_decay
        self.nesterov = nesterov
        self._check_hyperparameters()
        super().__init__(params)

    def _check_hyperparameters(self) -> None:
        _check_hyperparameters(self.lr, self.momentum, self.dampening, self.weight_decay, self.nesterov)

    def step(self, grad) -> None:
        """Update every parameter array with its gradient (``grad``: a list in the order of ``params``), one
        launch per array on the array's device, and count the step. Raises before updating anything when a
        gradient does not fit its parameter or a hyperparameter is out of range."""
        work = self._checked_step(grad)
        for g, p, (b,) in work:
            _launch(g, b, self.lr, self.momentum, self.dampening, self.weight_decay, self.nesterov, self.t, p)
        self.t += 1

    @staticmethod
    def step_detail(g, b, lr, momentum, dampening, weight_decay, nesterov, t, params) -> None:
        """One SGD update of one parameter array ``params`` (in place) with gradient ``g``, momentum buffer
        ``b`` (updated in place) and step count ``t``; everything is checked first."""
        SGD._check_gradient(g, params)
        SGD._check_buffer("b", b, params)
        _check_hyperparameters(lr, momentum, dampening, weight_decay, nesterov)
        check_number("SGD", "t", t, low=0.0)
        _launch(g, b, lr, momentum, dampening, weight_decay, nesterov, t, params)


def _check_hyperparameters(lr, momentum, dampening, weight_decay, nesterov) -> None:
    check_number("SGD", "lr", lr, low=0.0)
    check_number("SGD", "momentum", momentum, low=0.0)
    check_number("SGD", "dampening", dampening)
    check_number("SGD", "weight_decay", weight_decay, low=0.0)
    if nesterov not in (True, False) or isinstance(nesterov, float):  # True, False, 1 or 0
        raise OptimizerTypeError(f"SGD nesterov must be a bool, got {nesterov!r}")
    if nesterov and (momentum <= 0 or dampening != 0):
        raise OptimizerValueError(f"SGD nesterov momentum requires momentum > 0 and dampening == 0, got "
                                  f"momentum={momentum!r}, dampening={dampening!r}")


def _launch(g, b, lr, momentum, dampening, weight_decay, nesterov, t, params) -> None:
    dtype = state_dtype(params.dtype, "all")
    scalar = getattr(dtype, "_dtype", dtype)
    hyper = [scalar(x) for x in (lr, momentum, dampening, weight_decay)]
    launch(sgd_step, dim=params.size, inputs=[kernel_view(g), kernel_view(b), *hyper, int32(int(nesterov)),
                                              int32(int(t)), kernel_view(params)],
           device=params.device, record_tape=False)

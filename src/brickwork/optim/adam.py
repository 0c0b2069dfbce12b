"""``Adam``: adaptive moment estimation, with Warp's ``warp.optim.Adam`` interface and arithmetic.

One step of parameter ``p`` with gradient ``g`` (step count ``t`` from 0, hyperparameters in the
computing scalar type: float32 for float16 and float32 parameters, float64 for float64 ones)::

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g             # vectors: (1 - beta2) * cw_mul(g, g)
    mhat = m / (1 - beta1 ** (t + 1))
    vhat = v / (1 - beta2 ** (t + 1))
    p = p - lr * mhat / (sqrt(vhat) + eps)          # vectors: p - lr * cw_div(mhat, sqrt(vhat) + eps)

evaluated left to right as written, so float32 results equal Warp's bit for bit. The moments of float16
parameters are float32 (the update is rounded to float16 and then subtracted, as in Warp).
"""

from __future__ import annotations

from typing import Any

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.kernel import kernel
from ..runtime.launch import launch
from ..types.arrays import array
from ..types.scalars import Float
from ._common import Optimizer, OptimizerTypeError, check_number, kernel_view, state_dtype

_tid, _pow, _sqrt = _FUNCTIONS["tid"], _FUNCTIONS["pow"], _FUNCTIONS["sqrt"]
_cw_mul, _cw_div = _FUNCTIONS["cw_mul"], _FUNCTIONS["cw_div"]


# Two kernels, as Warp's scalar and vec3 kernels associate differently: g * g after (1 - beta2) * g, and
# (lr * mhat) / (...) for scalars; cw_mul(g, g) first, and lr * (mhat / (...)) for vectors.
@kernel(enable_backward=False)
def adam_step_scalar(g: array(dtype=Float), m: array(dtype=Float), v: array(dtype=Float), lr: Float, beta1: Float,
                     beta2: Float, t: Float, eps: Float, params: array(dtype=Float)):
    i = _tid()
    one = type(beta1)(1.0)
    gi = m.dtype(g[i])
    m[i] = beta1 * m[i] + (one - beta1) * gi
    v[i] = beta2 * v[i] + (one - beta2) * gi * gi
    mhat = m[i] / (one - _pow(beta1, t + one))
    vhat = v[i] / (one - _pow(beta2, t + one))
    params[i] = params[i] - params.dtype(lr * mhat / (_sqrt(vhat) + eps))


@kernel(enable_backward=False)
def adam_step_vector(g: array(dtype=Any), m: array(dtype=Any), v: array(dtype=Any), lr: Float, beta1: Float,
                     beta2: Float, t: Float, eps: Float, params: array(dtype=Any)):
    i = _tid()
    one = type(beta1)(1.0)
    gi = m.dtype(g[i])
    m[i] = beta1 * m[i] + (one - beta1) * gi
    v[i] = beta2 * v[i] + (one - beta2) * _cw_mul(gi, gi)
    mhat = m[i] / (one - _pow(beta1, t + one))
    vhat = v[i] / (one - _pow(beta2, t + one))
    denominator = vhat
    for k in range(len(vhat)):
        denominator[k] = _sqrt(vhat[k]) + eps
    params[i] = params[i] - params.dtype(lr * _cw_div(mhat, denominator))


class Adam(Optimizer):
    """Adam (adaptive moment estimation), as ``warp.optim.Adam``.

    Args:
        params: list of arrays to optimize, or ``None`` (set them later with ``set_params``). Dtypes:
            float16, float32, float64 and vectors of them (Warp: float16, float32 and vec3).
        lr: learning rate (>= 0).
        betas: ``(beta1, beta2)``, the decay rates of the first and second moments (each in [0, 1)).
        eps: added to the denominator (>= 0).

    Attributes: ``params``, ``lr``, ``beta1``, ``beta2``, ``eps`` (changeable between steps), ``t`` (steps
    taken), ``m`` and ``v`` (the moment arrays, one per parameter array).
    """

    _NAME = "Adam"
    _STATE = ("m", "v")
    _COMPOSITES = "vector"

    def __init__(self, params=None, lr=0.001, betas=(0.9, 0.999), eps=1e-08):
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise OptimizerTypeError(f"Adam betas must be a pair (beta1, beta2), got {betas!r}")
        self.lr, self.beta1, self.beta2, self.eps = lr, betas[0], betas[1], eps
        self._check_hyperparameters()
        super().__init__(params)

    def _check_hyperparameters(self) -> None:
        check_number("Adam", "lr", self.lr, low=0.0)
        check_number("Adam", "beta1", self.beta1, low=0.0, high=1.0, high_open=True)
        check_number("Adam", "beta2", self.beta2, low=0.0, high=1.0, high_open=True)
        check_number("Adam", "eps", self.eps, low=0.0)

    def step(self, grad) -> None:
        """Update every parameter array with its gradient (``grad``: a list in the order of ``params``), one
        launch per array on the array's device, and count the step. Raises before updating anything when a
        gradient does not fit its parameter or a hyperparameter is out of range."""
        work = self._checked_step(grad)
        for g, p, (m, v) in work:
            _launch(g, m, v, self.lr, self.beta1, self.beta2, self.t, self.eps, p)
        self.t += 1

    @staticmethod
    def step_detail(g, m, v, lr, beta1, beta2, t, eps, params) -> None:
        """One Adam update of one parameter array ``params`` (in place) with gradient ``g``, moments ``m`` and
        ``v`` (updated in place) and step count ``t``; everything is checked first."""
        Adam._check_gradient(g, params)
        Adam._check_buffer("m", m, params)
        Adam._check_buffer("v", v, params)
        for name, value, high in (("lr", lr, None), ("beta1", beta1, 1.0), ("beta2", beta2, 1.0), ("eps", eps, None)):
            check_number("Adam", name, value, low=0.0, high=high, high_open=True)
        check_number("Adam", "t", t, low=0.0)
        _launch(g, m, v, lr, beta1, beta2, t, eps, params)


def _launch(g, m, v, lr, beta1, beta2, t, eps, params) -> None:
    dtype = state_dtype(params.dtype, "vector")
    scalar = getattr(dtype, "_dtype", dtype)
    step_kernel = adam_step_scalar if dtype is scalar else adam_step_vector
    hyper = [scalar(x) for x in (lr, beta1, beta2, t, eps)]
    launch(step_kernel, dim=params.size, inputs=[kernel_view(g), kernel_view(m), kernel_view(v), *hyper,
                                                 kernel_view(params)], device=params.device, record_tape=False)

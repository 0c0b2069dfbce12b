"""Gradient-based optimizers, as Warp's ``warp.optim``: ``Adam`` and ``SGD``.

Each updates a list of parameter arrays in place from a list of gradient arrays (``opt.step(grads)``),
one kernel launch per array on the array's device, with Warp's update formulas: float32 results equal
Warp's bit for bit. ``brickwork.optim.linear`` holds the iterative linear solvers (Warp's
``warp.optim.linear``).
"""

from . import linear
from ._common import (
    OptimizerDtypeError,
    OptimizerError,
    OptimizerStateError,
    OptimizerTypeError,
    OptimizerValueError,
)
from .adam import Adam
from .sgd import SGD

__all__ = ["SGD", "Adam", "OptimizerDtypeError", "OptimizerError", "OptimizerStateError", "OptimizerTypeError",
           "OptimizerValueError", "linear"]

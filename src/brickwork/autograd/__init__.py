"""Gradient checking, as Warp's ``warp.autograd``: Jacobians of kernels by autodiff and by finite differences.

``jacobian`` runs the backward pass once per output scalar, ``jacobian_fd`` perturbs each input scalar by
``eps`` both ways (central differences); ``gradcheck`` compares the two and prints a summary table;
``gradcheck_tape`` checks every launch a ``Tape`` recorded; ``jacobian_plot`` draws Jacobians with
matplotlib. The subject is a kernel with its launch arguments, or a Python function of arrays that
launches kernels and returns its output arrays. Inputs and outputs taking part are the arrays of
floating-point components that have a gradient (``requires_grad``).
"""

from __future__ import annotations

from .api import gradcheck, gradcheck_tape, jacobian, jacobian_fd
from .metadata import FunctionMetadata
from .plot import jacobian_plot

__all__ = ["FunctionMetadata", "gradcheck", "gradcheck_tape", "jacobian", "jacobian_fd", "jacobian_plot"]

"""``wp.grad(f)``: in a kernel or ``@func``, the gradient of ``f`` at given arguments, computed in forward code.

``wp.grad(f)(a, b)`` is the adjoint of each argument for a result adjoint of one (``f`` must return one
floating-point scalar): one value for one argument, a tuple for several. ``f`` is a builtin with an adjoint
rule, or a ``@func`` whose body is straight-line code (assignments, then ``return expr``; other ``@func``
calls are expanded the same way). The gradient is differentiated symbolically at typing time, through the
same adjoint rules backward kernels use, so it is exact and costs no tape.
"""

from __future__ import annotations

from ..builtins import BuiltinFunction
from ..frontend.intrinsics import INTRINSICS
from .function import Function


class GradFunction:
    """``wp.grad(f)``: call it in a kernel or ``@func`` for the gradient of ``f`` at its arguments."""

    def __init__(self, func):
        self.func = func

    def __repr__(self):
        return f"wp.grad({getattr(self.func, '__name__', self.func)!r})"

    def __call__(self, *args):
        raise RuntimeError(f"{self!r} can be called in kernels and @wp.func functions only")

    @staticmethod
    def rebind_message(name: str) -> str:
        return (f"Cannot reassign local '{name}', which holds a gradient function made by wp.grad(...) "
                f"(a local bound to it keeps it; use another name)")


def grad(func) -> GradFunction:
    """The gradient function of ``func`` (a builtin or a ``@wp.func``), for calls in kernels."""
    if not isinstance(func, (BuiltinFunction, Function)):
        raise TypeError(f"wp.grad() takes a builtin or a @wp.func function, got {type(func).__name__}")
    return GradFunction(func)


def _make_grad(typer, obj, node):
    from .grad_rules import make_grad  # the typing rules load with the compiler, not with brickwork

    return make_grad(typer, obj, node)


def _call_grad(typer, g, node):
    from .grad_rules import call_grad

    return call_grad(typer, g, node)


INTRINSICS.register(grad, call=_make_grad, fingerprint=lambda obj, seen: "wp.grad")


def _fingerprint(g: GradFunction, seen: set) -> str:
    inner = INTRINSICS.rule(g.func, "fingerprint")
    return f"wp.grad({inner(g.func, seen) if inner is not None else g.func.__name__})"


INTRINSICS.register(GradFunction, call=_call_grad, fingerprint=_fingerprint)

"""``wp.static``'s host side: on the host it returns its argument. Inside kernels the expression is
evaluated at compile time (``frontend/static_expr.py`` registers that rule on this object); it lives
here, apart from the compiler, so that ``import brickwork`` does not load the compiler."""

from __future__ import annotations


def static(expr):
    """Evaluate ``expr`` at compile time inside kernels; on the host it is ``expr`` itself."""
    return expr

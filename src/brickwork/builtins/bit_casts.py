"""``wp.cast``'s host side: a bit reinterpretation exists only inside kernels and functions
(``frontend/bit_casts.py`` registers its typing rule on this object); it lives here, apart from the
compiler, so that ``import brickwork`` does not load the compiler."""

from __future__ import annotations


def cast(a, dtype):
    """``a``'s bits reinterpreted as a value of type ``dtype`` (of the same size in bytes), in a kernel or
    ``@func``: ``wp.cast(wp.int32(0x3FA00000), wp.float32)`` is ``1.25``; no conversion, unlike ``dtype(a)``."""
    raise RuntimeError("wp.cast() can only be called inside a @wp.kernel or @wp.func body")

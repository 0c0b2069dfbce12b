"""``wp.address_of``'s host side: it exists only inside kernels and functions (``frontend/addresses.py``
registers its typing rule on this object); it lives here, apart from the compiler, so that
``import brickwork`` does not load the compiler."""

from __future__ import annotations


def address_of(place):
    """The address (a ``uint64``) of a place inside a kernel or ``@func``: a local, an array element, a struct
    field or a component of one of these, for a ``wp.func_native`` snippet to read or write through."""
    raise RuntimeError("wp.address_of() can only be called inside a @wp.kernel or @wp.func body")

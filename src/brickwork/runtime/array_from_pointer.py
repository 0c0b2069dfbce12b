"""``wp.from_ptr``: Warp's deprecated array over memory whose address is stored at a pointer.

Warp kept it for OmniGraph, which hands out the address of a pointer to an attribute's data (so
``ptr`` is read once, as a ``size_t``, for the data's address). Warp 1.19 still exports it, but its
body passes a keyword its own ``wp.array`` no longer takes, so every call there raises ``TypeError``
after the deprecation warning; brickwork makes the array the docstring promises.
"""

from __future__ import annotations

import ctypes
import numbers

from ..types.arrays import array
from ..types.type_sizes import type_size_in_bytes
from .warp_warnings import warn

_DEPRECATED = ("This version of wp.from_ptr() is deprecated: it reads the data's address from the pointer "
               "ptr points to (OmniGraph's convention). Pass that address itself to the array "
               "constructor instead: wp.array(ptr=address, shape=..., dtype=...).")


def from_ptr(ptr, length, dtype=None, shape=None, device=None):
    """Deprecated (a ``DeprecationWarning``): an array of ``length`` elements of ``dtype`` (``shape``
    if given, within those elements) over the memory whose address is stored at ``ptr``; the memory stays
    the caller's, and the array has no gradient. ``ptr`` 0 is a null address (``length`` 0 only). Use
    ``wp.array(ptr=address, shape=..., dtype=...)``."""
    warn(_DEPRECATED, DeprecationWarning, stacklevel=2)

    if dtype is None:
        raise TypeError("from_ptr: dtype is required (the type of the elements at the address)")
    if not isinstance(length, numbers.Integral) or isinstance(length, bool) or length < 0:
        raise ValueError(f"from_ptr: length must be a number of elements (an int >= 0), got {length!r}")
    if isinstance(ptr, numbers.Integral) and not isinstance(ptr, bool):
        if not 0 <= ptr < 2**64:
            raise ValueError(f"from_ptr: ptr must be an address from 0 to 2**64 - 1, got {ptr!r}")
        address = 0 if ptr == 0 else ctypes.c_size_t.from_address(int(ptr)).value
    elif isinstance(ptr, (ctypes._Pointer, ctypes.c_void_p)):
        address = ctypes.cast(ptr, ctypes.POINTER(ctypes.c_size_t)).contents.value if ptr else 0
    else:
        raise TypeError(f"from_ptr: ptr must be the address of a pointer (an int or a ctypes pointer), got "
                        f"{type(ptr).__name__}")
    capacity = int(length) * type_size_in_bytes(dtype)
    return array(ptr=address, shape=(int(length),) if shape is None else shape, dtype=dtype, device=device,
                 capacity=capacity, requires_grad=False)

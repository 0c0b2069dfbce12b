"""Numpy data converted into an array's scalars (``wp.array(data, dtype=...)``, ``from_numpy``, ``assign``,
``a[i:j] = data``): numpy's cast wraps an integer beyond the target's range (``2**40`` as ``int32`` is 0, -1 as
``uint32`` is 4294967295), makes an arbitrary integer of NaN, inf or a float beyond the range (with a
``RuntimeWarning`` at most), and drops a complex value's imaginary part (a ``ComplexWarning``). Warp 1.19 does the
same; brickwork refuses these values, as ``fill_`` and ``wp.launch`` refuse an integer out of range, before anything
is made or changed. A finite float in range is truncated toward zero as numpy does (``1.7`` is ``1``), and a float
beyond a narrower float type's range is ``inf`` (with numpy's warning), as ``fill_`` stores it.

Data of the target's own type are not looked at (no cost for same-dtype arrays); other data are read once or
twice (their least and greatest values) where the target cannot hold every value of their type."""

from __future__ import annotations

import math

import numpy as np

from .array_values import ElementRangeError, ElementValueError


def check_conversion(data: np.ndarray, comp: np.dtype, what: str, target: str, nothing: str) -> None:
    """Refuse ``data`` whose cast to the scalars ``comp`` would wrap, invent or drop a value. ``what`` names the
    operation, ``target`` the element type (``int32``, ``the uint8 components of vec3ub``), ``nothing`` what did
    not happen (``no array was made``), for the message's last words."""
    src = data.dtype
    if src == comp or data.size == 0 or comp.kind not in "iuf" or src.kind not in "iufc":
        return
    if src.kind == "c":
        raise ElementValueError(f"{what}: the data are complex ({src}), and {target} would keep only their real "
                                f"parts; {nothing} (pass data.real to convert the real parts)")
    if comp.kind == "f":
        return  # a float beyond the type's range is inf, as fill_ stores it
    info = np.iinfo(comp)
    if src.kind == "f":
        lo, hi = float(data.min()), float(data.max())  # NaN when any is NaN: two passes find every bad value
        if not (math.isfinite(lo) and math.isfinite(hi)):
            bad = _first(~np.isfinite(data))
            raise ElementValueError(f"{what}: the data hold {data[bad].item()!r} at index {bad}, which has no value in "
                                    f"{target}; {nothing} (Warp would store an arbitrary integer)")
        lo, hi = math.trunc(lo), math.trunc(hi)  # exact integers
    elif np.can_cast(src, comp, "safe"):
        return
    else:
        lo, hi = int(data.min()), int(data.max())
    if info.min <= lo and hi <= info.max:
        return
    bad = _first(data == (data.min() if lo < info.min else data.max()))
    value = data[bad].item()
    raise ElementRangeError(f"{what}: the data hold {value!r} at index {bad}, which does not fit in {target} "
                            f"({info.min} to {info.max}); {nothing} (Warp would "
                            f"{'wrap it silently' if src.kind in 'iu' else 'store an arbitrary integer'})")


def _first(mask: np.ndarray) -> tuple:
    """The index of ``mask``'s first true element, as a tuple of ints."""
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape))


def checked_data(data, comp: np.dtype, dtype, what: str, made: bool):
    """``data`` (numpy data or nested sequences of numbers) as a numpy array, checked by ``check_conversion`` for
    the scalars ``comp`` of the element type ``dtype``; data numpy cannot read as numbers is returned as it is, for
    the conversion to refuse in its own words."""
    if not isinstance(data, np.ndarray):
        try:
            data = np.asarray(data)
        except (TypeError, ValueError, OverflowError):
            return data
    check_conversion(data, comp, what, element_target(dtype), "no array was made" if made else "nothing was changed")
    return data


def element_target(dtype) -> str:
    """``int32``, or ``the uint8 components of vec3ub``, for messages."""
    name = getattr(dtype, "__name__", repr(dtype))
    scalar = getattr(dtype, "_dtype", None)
    return name if scalar is None else f"the {getattr(scalar, '__name__', scalar)} components of {name}"


def converted_for(a, data, what: str):
    """``checked_data`` for storing ``data`` into array ``a`` (``assign``, ``a[i:j] = data``)."""
    return checked_data(data, a._np.dtype, a.dtype, what, made=False)

"""Zero-copy views of an array with other axes or another dtype: ``a.transpose(axes)``, ``a.view(dtype)``, and the
byte span an array covers (``a.capacity``), with Warp's rules and errors."""

from __future__ import annotations

import numpy as np

from ..errors import BrickworkError
from .arrays import array, element_layout, type_name
from .composite import is_composite_type
from .scalars import is_scalar_type, python_annotation_type


class _Interface:
    """Memory described by ``__array_interface__``; numpy keeps this object (and so ``owner``) alive."""

    def __init__(self, owner: np.ndarray, shape, strides, np_dtype):
        self.owner = owner
        self.__array_interface__ = {"data": (owner.__array_interface__["data"][0], not owner.flags.writeable),
                                    "shape": tuple(shape), "strides": tuple(strides), "typestr": np_dtype.str,
                                    "version": 3}


def _element_bytes(dtype) -> int:
    np_dtype, trailing = element_layout(dtype)
    return np_dtype.itemsize * int(np.prod(trailing, dtype=np.int64))


def _contiguous(trailing, itemsize) -> tuple:
    strides, step = [], itemsize
    for n in reversed(trailing):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def view(a: array, dtype) -> array:
    """``a``'s memory seen as ``dtype``: the same shape for a dtype of the same size, a vector or matrix split into
    its components (shape ``(*a.shape, *dtype shape)``) or scalars gathered into vectors or matrices."""
    dtype = python_annotation_type(dtype)
    src, size = a.dtype, _element_bytes(dtype)
    np_dtype, trailing = element_layout(dtype)
    if size == _element_bytes(src):
        shape, strides = a.shape, a.strides
    elif is_scalar_type(dtype) and is_composite_type(src):
        if size != src._dtype._size:
            raise TypeError(f"cannot create an array view with dtype {type_name(dtype)} from source dtype "
                            f"{type_name(src)}: source scalar dtype {type_name(src._dtype)} has size "
                            f"{src._dtype._size} bytes, but target dtype has size {size} bytes")
        shape = (*a.shape, *src._shape)
        strides = (*a.strides, *_contiguous(src._shape, size))
    elif is_scalar_type(src) and is_composite_type(dtype):
        if src._size != dtype._dtype._size:
            raise TypeError(f"cannot create an array view with dtype {type_name(dtype)} from source dtype "
                            f"{type_name(src)}: source dtype has size {src._size} bytes, but target scalar dtype "
                            f"{type_name(dtype._dtype)} has size {dtype._dtype._size} bytes")
        k = len(dtype._shape)
        if a.ndim < k or tuple(a.shape[-k:]) != tuple(dtype._shape):
            raise RuntimeError(f"The shape of the source array {a.shape} is not compatible with the requested data "
                               f"type {type_name(dtype)}")
        if tuple(a.strides[-k:]) != _contiguous(dtype._shape, src._size):
            raise RuntimeError(f"The inner strides of the source array {a.strides} are not compatible with the "
                               f"requested data type {type_name(dtype)}")
        shape, strides = tuple(a.shape[:-k]) or (1,), tuple(a.strides[:-k]) or (size,)
    else:
        raise TypeError(f"cannot create an array view with dtype {type_name(dtype)} from source dtype "
                        f"{type_name(src)}: source dtype has size {_element_bytes(src)} bytes, but target dtype has "
                        f"size {size} bytes")
    full_shape = (*shape, *trailing)
    if a.size:
        data = np.asarray(_Interface(a._np, full_shape, (*strides, *_contiguous(trailing, np_dtype.itemsize)),
                                     np_dtype))
    else:
        data = np.zeros(full_shape, np_dtype)
    out = array._wrap(data, dtype, a.device, owner=a)
    if a._grad is not None:  # the gradient is seen the same way, as Warp's
        out._grad = view(a._grad, dtype)
        out._requires_grad = a._requires_grad
    return out


def transpose(a: array, axes=None) -> array:
    """A view with the axes permuted (reversed when ``axes`` is None); a 1-D array is itself."""
    if a.ndim == 1:
        return a
    axes = tuple(range(a.ndim))[::-1] if axes is None else tuple(axes)
    if len(axes) != a.ndim:
        raise RuntimeError("Length of parameter axes must be equal in length to array shape")
    for ax in axes:
        if not isinstance(ax, (int, np.integer)):
            raise RuntimeError(f"axis index {ax} is not of type int")
        if ax >= a.ndim:
            raise RuntimeError(f"axis index {ax} must be smaller than the number of axes in array")
    full = (*axes, *range(a.ndim, a._np.ndim))  # vector and matrix components stay last
    return a._view(a._np.transpose(full), lambda g: transpose(g, axes))


def capacity(a: array) -> int:
    """Bytes from the first to the end of the last element the array reaches (0 when it has none); an array
    made with ``array(ptr=..., capacity=...)`` has the capacity it was given, as in Warp."""
    if a.size == 0:
        return 0
    held = borrowed(a)
    if held is not None and held.capacity is not None:
        return held.capacity
    return _element_bytes(a.dtype) + sum((n - 1) * abs(s) for n, s in zip(a.shape, a.strides))


def borrowed(a: array):
    """The memory at an address (``_Borrowed``, array_memory.py) that ``a`` was made over by ``array(ptr=...)``:
    ``a`` itself, not a view of it that starts there; None for any other array."""
    base = getattr(a._np, "base", None)
    if type(base).__name__ == "_Borrowed" and base.__array_interface__["data"][0] == a.ptr and \
            a._np.shape == base.__array_interface__["shape"]:
        return base
    return None


class ReshapeError(BrickworkError, ValueError, RuntimeError):
    """A reshape to another number of elements: a ``RuntimeError`` as Warp raises, and a ``ValueError`` as
    numpy's (and brickwork's CUDA arrays' before)."""


def resolved_shape(a, shape) -> tuple:
    """``shape`` (an int or a tuple; one -1 is the rest) for ``a``'s elements, or Warp's error when the sizes
    differ."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
    try:  # zero strides reshape to any shape of the same size as a view, without touching memory
        return np.broadcast_to(np.empty((), np.uint8), a.shape).reshape(shape).shape
    except ValueError:
        size = int(np.prod(shape, dtype=np.int64))
        raise ReshapeError(f"cannot reshape array of shape {a.shape} (size {a.size}) into shape {shape} "
                           f"(size {size})") from None


def reshape(a: array, shape, flattening: bool = False) -> array:
    """A view of ``a``'s elements with ``shape``. Warp refuses every non-contiguous array; brickwork makes the
    view whenever the strides allow one (``a[::2].reshape((2, 3))``) and refuses the rest, since the copy
    numpy would make instead does not write through to ``a``."""
    shape = resolved_shape(a, shape)
    view = _reshaped_view(a._np, shape + a._np.shape[a.ndim:])
    if view is None:
        what, fix = ("Flattening", "flatten()") if flattening else ("Reshaping", f"reshape({shape})")
        raise RuntimeError(f"{what} non-contiguous arrays is unsupported: this one (shape {a.shape}, strides "
                           f"{a.strides}) has no such view, and a copy would not write through to it; use "
                           f"a.contiguous().{fix} for a copy")
    return a._view(view, (lambda g: g.flatten()) if flattening else (lambda g: reshape(g, shape)))


def _reshaped_view(data: np.ndarray, shape: tuple):
    """``data`` with ``shape`` without a copy, or None when only a copy has it."""
    try:
        return data.reshape(shape, copy=False)
    except ValueError:
        return None
    except TypeError:  # numpy < 2.1 has no copy=: setting the shape of a view never copies
        view = data.view()
        try:
            view.shape = shape
        except AttributeError:
            return None
        return view

"""Block types of BSR matrices: checks and conversions between block, scalar and vector types."""

from __future__ import annotations

import numbers

from ..types.arrays import array
from ..types.composite import is_matrix_type, matrix, vector
from ..types.scalars import is_scalar_type, python_annotation_type


def block_type(dtype, name: str = "block_type"):
    """``dtype`` as a kernel type (``float`` is float32): a scalar or a matrix type, else ``ValueError``."""
    dtype = python_annotation_type(dtype) if dtype in (int, float, bool) else dtype
    if is_matrix_type(dtype) or is_scalar_type(dtype):
        return dtype
    raise ValueError(f"BsrMatrix block type must be either warp matrix or scalar ('{name}'); got "
                     f"{getattr(dtype, '__name__', dtype)}")


def scalar_of(dtype):
    """The scalar type of a block (or vector) type."""
    return getattr(dtype, "_wp_scalar_type_", dtype)


def shape_of(dtype) -> tuple[int, int]:
    """The ``(rows, cols)`` of a block type; ``(1, 1)`` for a scalar."""
    return tuple(getattr(dtype, "_shape_", (1, 1)))


def block_of(scalar, shape) -> type:
    """The block type with ``scalar`` coefficients and ``shape``: the scalar itself for 1x1 blocks."""
    shape = tuple(int(s) for s in shape)
    return scalar if shape == (1, 1) else matrix(shape=shape, dtype=scalar)


def vec_of(scalar, length: int) -> type:
    """The vector type of ``length`` ``scalar`` entries: the scalar itself for length 1."""
    return scalar if length == 1 else vector(length=length, dtype=scalar)


def dim(value, name: str) -> int:
    """A matrix extent in blocks: a non-negative int, else ``ValueError``/``TypeError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"'{name}' must be an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"'{name}' must be non-negative, got {value}")
    return int(value)


def check_array(value, name: str, func: str, device=None) -> array:
    """``value`` must be a 1-D brickwork array (on ``device`` when given)."""
    if not isinstance(value, array):
        hint = ""
        if type(value).__module__.split(".")[0] == "numpy" or isinstance(value, (list, tuple)):
            hint = f" (convert it with wp.array({name}, dtype=...), on the matrix's device)"
        raise TypeError(f"{func}: '{name}' must be an array, got {type(value).__name__}{hint}")
    if device is not None and value.device != device:
        raise ValueError(f"{func}: '{name}' is on {value.device}, the matrix on {device}")
    return value


def type_size(dtype) -> int:
    """Scalars in one element of ``dtype``."""
    size = 1
    for extent in getattr(dtype, "_shape_", ()):
        size *= extent
    return size

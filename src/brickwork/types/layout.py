"""C memory layout of kernel-language types: size, alignment and ``struct`` packing formats.

The C++ runtime header lays out the same types with the same natural-alignment rules, so a
kernel's argument block packed here is read field by field there.
"""

from __future__ import annotations

from .arrays import ArrayType
from .composite import is_composite_type
from .indexed_arrays import packed_size
from .scalars import is_scalar_type


def size_align(t) -> tuple[int, int]:
    """Bytes and alignment of one value of type ``t`` in C."""
    if is_scalar_type(t):
        return t._size, t._size
    if is_composite_type(t):
        n = 1
        for d in t._shape:
            n *= d
        return n * t._dtype._size, t._dtype._size
    if isinstance(t, ArrayType):
        return packed_size(t), 8
    if getattr(t, "_bw_struct", False):
        return t._size, t._align
    raise TypeError(f"{t!r} has no memory layout")


def pack_format(t) -> str:
    """``struct`` module format of one value of type ``t``, padding included (no leading '<')."""
    if is_scalar_type(t):
        return t._fmt
    if is_composite_type(t):
        n = 1
        for d in t._shape:
            n *= d
        return t._dtype._fmt * n
    if isinstance(t, ArrayType):
        return f"{packed_size(t)}s"
    if getattr(t, "_bw_struct", False):
        return f"{t._size}s"
    raise TypeError(f"{t!r} has no memory layout")


def struct_offsets(field_types: list) -> tuple[list[int], int, int]:
    """Offsets of fields laid out in order, the total (padded) size and the alignment."""
    offsets, offset, align = [], 0, 1
    for t in field_types:
        size, a = size_align(t)
        offset = (offset + a - 1) // a * a
        offsets.append(offset)
        offset += size
        align = max(align, a)
    size = (offset + align - 1) // align * align
    return offsets, max(size, 1), align

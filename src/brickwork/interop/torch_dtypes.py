"""The scalar types of brickwork and PyTorch, both ways (``wp.dtype_from_torch``, ``wp.dtype_to_torch``), and which
brickwork element types may view a tensor's memory. The tables are built at the first call: torch is imported
then, not with brickwork.
"""

from __future__ import annotations

from ..types import scalars
from ..types.arrays import type_name
from ..types.scalars import python_annotation_type
from .optional import import_library
from .scalar_tables import library_type, no_scalar

_FROM: dict = {}  # torch.dtype -> brickwork scalar type
_TO: dict = {}  # brickwork scalar type -> torch.dtype
_VIEWS: dict = {}  # torch.dtype -> the brickwork scalar types that may view its memory


def _tables() -> None:
    torch = import_library("torch", "the torch dtype conversion")

    pairs = [(torch.float16, scalars.float16), (torch.bfloat16, scalars.bfloat16), (torch.float32, scalars.float32),
             (torch.float64, scalars.float64), (torch.int8, scalars.int8), (torch.int16, scalars.int16),
             (torch.int32, scalars.int32), (torch.int64, scalars.int64), (torch.uint8, scalars.uint8),
             (torch.bool, scalars.bool_)]
    # torch's wider unsigned types (torch 2.3 and later) map to brickwork's; the other way, uint16/32/64 give
    # the signed torch type of the same size, as Warp's table (most torch operations lack the unsigned ones)
    wide = [(getattr(torch, f"uint{bits}", None), getattr(scalars, f"uint{bits}"), getattr(torch, f"int{bits}"))
            for bits in (16, 32, 64)]
    _FROM.update(pairs)
    _FROM.update((t, ours) for t, ours, _ in wide if t is not None)
    _TO.update((ours, t) for t, ours in pairs)
    _TO.update((ours, signed) for _, ours, signed in wide)
    # Same-size integers of either sign, and bool with 8-bit integers, view each other's memory (as Warp)
    same = {1: (scalars.int8, scalars.uint8), 2: (scalars.int16, scalars.uint16), 4: (scalars.int32, scalars.uint32),
            8: (scalars.int64, scalars.uint64)}
    for t, ours in _FROM.items():
        _VIEWS[t] = set(same.get(ours._size, ())) if ours in _INTEGERS else {ours}
    _VIEWS[torch.bool] = {scalars.bool_, scalars.int8, scalars.uint8}
    _VIEWS[torch.uint8] = {scalars.uint8, scalars.int8}


_INTEGERS = {scalars.int8, scalars.int16, scalars.int32, scalars.int64, scalars.uint8, scalars.uint16,
             scalars.uint32, scalars.uint64}


def dtype_from_torch(torch_dtype):
    """The brickwork scalar type of a ``torch.dtype`` (``torch.float32`` -> ``wp.float32``). ``TypeError`` for
    types brickwork has no scalar for (complex, float8, quantized types)."""
    if not _FROM:
        _tables()
    try:
        found = _FROM.get(torch_dtype)
    except TypeError:  # an unhashable value
        found = None
    if found is None:
        raise no_scalar(torch_dtype)
    return found


def dtype_to_torch(warp_dtype):
    """The ``torch.dtype`` of a brickwork scalar type (Python's ``float``, ``int`` and ``bool`` stand for float32,
    int32 and bool). ``uint16``, ``uint32`` and ``uint64`` give the signed torch type of the same size, as in
    Warp. ``TypeError`` for vector, matrix and struct types: their arrays become tensors of the scalar type with
    trailing dimensions (``wp.to_torch``)."""
    if not _TO:
        _tables()
    return library_type(_TO, warp_dtype, "Torch", "a tensor")


def view_dtype(torch_dtype, dtype):
    """``dtype`` (a scalar, vector or matrix type, or None: the tensor's own type) when its scalar may view a
    tensor of ``torch_dtype``; ``RuntimeError`` naming both otherwise (Warp's type and words)."""
    if dtype is None:
        return dtype_from_torch(torch_dtype)
    if not _VIEWS:
        _tables()
    dtype = python_annotation_type(dtype)
    scalar = dtype if scalars.is_scalar_type(dtype) else getattr(dtype, "_dtype", None)
    if scalar is None or scalar not in _VIEWS.get(torch_dtype, ()):
        raise RuntimeError(f"Cannot convert Torch type {torch_dtype} to Warp type {type_name(dtype)}")
    return dtype

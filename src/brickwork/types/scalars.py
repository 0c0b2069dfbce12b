"""Scalar types of the kernel language and their host-side values.

Each scalar type is a class (``float32``); calling it makes a typed host value
(``float32(3)``) that ``launch`` passes with exactly that type. ``Scalar``, ``Float`` and
``Int`` are generic placeholders for annotations, like ``typing.Any`` but narrower.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..errors import BrickworkError
from .bfloat16_numpy import is_ml_bfloat16
from .scalar_arithmetic import install as _install_arithmetic


class NotAnIntegerError(BrickworkError, TypeError, ValueError):
    """A value that is not an integer given for an integer type (a float is not truncated, as in Warp): a
    ``TypeError`` as Warp's constructors raise, and a ``ValueError`` as its ``fill_``/``full`` do."""


def check_integer(x, where: str) -> None:
    """Refuse ``x`` where an integer type takes it (``where`` names the place: ``int32()``) unless it is an
    integer (Python's, numpy's, a brickwork integer value, or a bool): Warp refuses floats, even whole
    ones, rather than truncate them."""
    try:
        operator.index(x)
    except TypeError:
        got = type(x).__name__
        hint = " (int(x) truncates toward zero, if that is meant)" if isinstance(x, (float, np.floating)) or \
            isinstance(x, ScalarBase) and x.is_float else ""
        raise NotAnIntegerError(f"{where} takes an integer, got {got} {x!r}{hint}") from None


class ScalarBase:
    """Base class of the scalar types; an instance is a typed host value."""

    __slots__ = ("value",)
    _np: type = np.float32
    _size: int = 4
    _fmt: str = "f"
    is_float = False
    is_int = False
    is_signed = True

    def __init__(self, x=0):
        if self.is_int:
            check_integer(x, f"{type(self).__name__}()")
        if isinstance(x, ScalarBase):
            x = x.value
        elif self.is_float:  # Warp shows a float made from an integer as that integer: float32(-1) prints -1
            self._from_int = isinstance(x, (int, np.integer)) and not isinstance(x, bool)
        self.value = self._convert(x)

    @classmethod
    def _convert(cls, x):
        """Round a Python number to this type's precision (numpy's casting rules); an integer out of
        range wraps around (two's complement), as in Warp and C: ``uint8(-1) == 255``."""
        if cls.is_float:
            return float(cls._np(x))
        if cls is bool_:
            return bool(x)
        if isinstance(x, float):
            x = int(x)  # a computed value: truncated toward zero, as in C (values users give: check_integer)
        x = int(x)
        lo, hi = cls._range
        if not lo <= x <= hi:
            x = (x - lo) % (hi - lo + 1) + lo
        return x

    def __repr__(self):
        return f"{type(self).__name__}({self})"

    def __str__(self):  # print(wp.float32(2.5)) shows 2.5, as Warp and numpy's scalars print
        v = self.value
        if not self.is_float:
            return str(v)
        if getattr(self, "_from_int", False) and math.isfinite(v) and v == int(v):
            return str(int(v))
        # the shortest digits that give the value back at this type's precision (float32(0.1) shows 0.1), in
        # Python's notation (numpy's str turns float32 values past 1e8 to exponents)
        return repr(float(str(self._np(v)))) if self._np in (np.float16, np.float32) else repr(v)

    def __float__(self):
        return float(self.value)

    def __int__(self):
        return int(self.value)

    def __index__(self):
        if not self.is_int and type(self) is not bool_:
            raise TypeError(f"{type(self).__name__} cannot be used as an index")
        return int(self.value)

    def __bool__(self):
        return bool(self.value)

    def _operand(self, other):
        """``other`` as a plain number for a comparison: a float type compares an integer as a float
        (so a value past float's range raises OverflowError, as in Warp); an integer type compares a
        float without truncating it (``int8(1) != 1.5``)."""
        if isinstance(other, ScalarBase):
            return other.value
        if self.is_float and isinstance(other, int) and not isinstance(other, bool):
            return float(other)
        return other

    def __eq__(self, other):
        return self.value == self._operand(other)

    def __lt__(self, other):
        return self.value < self._operand(other)

    def __le__(self, other):
        return self.value <= self._operand(other)

    def __gt__(self, other):
        return self.value > self._operand(other)

    def __ge__(self, other):
        return self.value >= self._operand(other)

    def __hash__(self):  # equal values hash alike, as their plain numbers do (int8(1) == 1.0)
        return hash(self.value)


#: numpy 2.4 asks a type for its dtype through ``__numpy_dtype__``; older numpy reads a ``dtype`` attribute
_DTYPE_PROTOCOL = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 4)


def _make(name: str, np_type, fmt: str, kind: str):
    attrs = {
        "__slots__": ("_from_int",) if kind == "float" else (),
        "_np": np_type,
        # np.dtype(wp.float32) is float32, as with Warp's types (the type's, not its values': np.asarray of a
        # value is an object array, as in Warp)
        ("__numpy_dtype__" if _DTYPE_PROTOCOL else "dtype"): np.dtype(np_type),
        "_size": np.dtype(np_type).itemsize,
        "_length_": 1,  # one component (Warp's attribute, which code describing a type reads)
        "_fmt": fmt,
        "is_float": kind == "float",
        "is_int": kind in ("int", "uint"),
        "is_signed": kind != "uint",
        "_range": (int(np.iinfo(np_type).min), int(np.iinfo(np_type).max)) if kind in ("int", "uint") else None,
        "__doc__": f"The {name} scalar type of the kernel language.",
        "__qualname__": "bool_" if name == "bool" else name,  # its name in this module, for pickle
    }
    return type(name, (ScalarBase,), attrs)


bool_ = _make("bool", np.bool_, "?", "bool")
int8 = _make("int8", np.int8, "b", "int")
int16 = _make("int16", np.int16, "h", "int")
int32 = _make("int32", np.int32, "i", "int")
int64 = _make("int64", np.int64, "q", "int")
uint8 = _make("uint8", np.uint8, "B", "uint")
uint16 = _make("uint16", np.uint16, "H", "uint")
uint32 = _make("uint32", np.uint32, "I", "uint")
uint64 = _make("uint64", np.uint64, "Q", "uint")
float16 = _make("float16", np.float16, "e", "float")
float32 = _make("float32", np.float32, "f", "float")
float64 = _make("float64", np.float64, "d", "float")


class handle(uint64):  # noqa: N801 - Warp's spelling
    """An opaque 64-bit handle (a mesh, BVH or volume id): a uint64 on the host, and ``uint64`` wherever
    it annotates a struct field, a parameter or an array's dtype."""

    __slots__ = ()


def bfloat16_bits(x) -> np.ndarray:
    """The bfloat16 bit patterns (uint16) of numbers: float32 rounded to nearest even in its upper 16 bits,
    NaN kept a (quiet) NaN."""
    f = np.asarray(x, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), ((u >> 16) | 0x40).astype(np.uint16), rounded)


def bfloat16_values(bits) -> np.ndarray:
    """float32 values of bfloat16 bit patterns (exact: bfloat16 is the upper half of a float32); also of
    ``ml_dtypes.bfloat16`` data (what ``numpy()`` of a bfloat16 array gives where ml_dtypes is installed)."""
    data = np.asarray(bits)
    data = data.view(np.uint16) if is_ml_bfloat16(data.dtype) else data.astype(np.uint16, copy=False)
    return (data.astype(np.uint32) << 16).view(np.float32)


class bfloat16(ScalarBase):  # noqa: N801 - Warp's spelling
    """The bfloat16 scalar type: float32's exponent range with 8 significant bits. numpy has no bfloat16,
    so arrays store the bit patterns as uint16 (``a.numpy()`` gives those; ``bfloat16_values`` decodes)."""

    __slots__ = ("_from_int",)
    _np = np.uint16  # no numpy dtype: np.dtype(wp.bfloat16) is object, as in Warp
    _size = 2
    _fmt = "H"
    is_float = True
    _range = None

    @classmethod
    def _convert(cls, x):
        return float(bfloat16_values(bfloat16_bits(float(x)))[()])


SCALAR_TYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64)
INT_TYPES = tuple(t for t in SCALAR_TYPES if t.is_int)
FLOAT_TYPES = (float16, bfloat16, float32, float64)

# Warp-compatible short aliases.
half, float_, double = float16, float32, float64

_install_arithmetic(ScalarBase, float32=float32, int32=int32, bool_=bool_)

_BY_NUMPY = {np.dtype(t._np): t for t in SCALAR_TYPES if t is not bfloat16}  # uint16 data is uint16
#: numpy dtype -> the scalar type of its elements (a dict lookup: ``scalar_from_numpy`` without the conversion)
NUMPY_SCALARS = _BY_NUMPY


def dtype_from_numpy(dtype) -> type[ScalarBase]:
    """The brickwork scalar type of a numpy dtype (``wp.dtype_from_numpy(np.float64) is wp.float64``)."""
    t = scalar_from_numpy(dtype)
    if t is None:
        raise TypeError(f"no brickwork scalar type for the numpy dtype {dtype!r}")
    return t


def dtype_to_numpy(t) -> type:
    """The numpy scalar type of a brickwork scalar type (``wp.dtype_to_numpy(wp.float16) is np.float16``)."""
    t = python_annotation_type(t)
    if not is_scalar_type(t):
        raise TypeError(f"{getattr(t, '__name__', t)!r} is not a scalar type")
    return t._np


def scalar_from_numpy(dtype) -> type[ScalarBase] | None:
    """The scalar type matching a numpy dtype (``ml_dtypes.bfloat16``'s is bfloat16), or None."""
    try:
        found = _BY_NUMPY.get(np.dtype(dtype))
    except TypeError:
        return None
    return bfloat16 if found is None and is_ml_bfloat16(np.dtype(dtype)) else found


def is_scalar_type(t) -> bool:
    return isinstance(t, type) and issubclass(t, ScalarBase) and t is not ScalarBase


class GenericPlaceholder:
    """A generic annotation narrower than ``typing.Any`` (``Scalar``, ``Float``, ``Int``)."""

    def __init__(self, name: str, accepts):
        self.__name__ = name
        self._accepts = accepts

    def accepts(self, t) -> bool:
        return self._accepts(t)

    def __repr__(self):
        return self.__name__


Scalar = GenericPlaceholder("Scalar", is_scalar_type)
Float = GenericPlaceholder("Float", lambda t: is_scalar_type(t) and t.is_float)
Int = GenericPlaceholder("Int", lambda t: is_scalar_type(t) and t.is_int)


def python_annotation_type(t):
    """Map Python's ``int``/``float``/``bool`` in annotations to int32/float32/bool, and ``handle`` to uint64."""
    if t is int:
        return int32
    if t is float:
        return float32
    if t is bool:
        return bool_
    if t is handle:
        return uint64
    return t

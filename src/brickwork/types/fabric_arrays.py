"""Fabric arrays: one logical array over many buckets of memory (Warp's ``fabricarray``).

Omniverse Fabric keeps an attribute of many prims in buckets: separate blocks of memory, each holding
the values of some prims. ``fabricarray(data, attrib)`` sees attribute ``attrib`` of a Fabric interface
(a dict, or an object with ``__fabric_arrays_interface__``: version 1, the device, and per attribute
its type, the buckets' ``pointers`` and element ``counts``) as one 1-D array: element ``i`` is in the
bucket whose index range holds ``i``. An attribute whose values are arrays (array depth 1: each element
a pointer to its own array, with a table of ``array_lengths`` per bucket) is a fabric array of arrays
(``ndim=2``, ``fabricarrayarray``): in a kernel ``a[i]`` is that element's array and ``a[i, j]`` one of
its values. ``fa[indices]`` (``indexedfabricarray``) sees the elements an ``int32`` index array picks.

No data is copied and brickwork does not own the buckets: keep Fabric's storage alive while an array
(or a struct holding one) is in use. The bucket table is brickwork's own (uploaded once to a device).
On the host, ``numpy()`` gathers the elements into a new array and ``fill_``/``zero_``/``assign`` (and
``wp.copy`` to or from a plain array) write them, bucket by bucket. As in Warp, fabric arrays have no
gradients.

In kernels a fabric array is a ``bw::fabricarray_t<T, D>`` (include/brickwork.h): the bucket table,
the number of buckets and the size; an indexed one a ``bw::indexedfabricarray_t<T, D>``.
"""

from __future__ import annotations

import ctypes
import math
import struct
import typing

import numpy as np

from .array_kinds import GatheredView, signed_class
from .arrays import ArrayType, array, subscript_dtype_ndim, type_name
from .composite import matrix, quaternion, vector
from .scalars import (
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    python_annotation_type,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .scalars import uint8 as _uint8

#: Fabric's base type codes (the second entry of an attribute's type) and the dtypes they are
_BASE_TYPES = {"b": bool_, "i1": int8, "i2": int16, "i4": int32, "i8": int64, "u1": uint8, "u2": uint16,
               "u4": uint32, "u8": uint64, "f2": float16, "f4": float32, "f8": float64}
#: a bucket in the kernel's table: first index, index past the last, data address, lengths address
_BUCKET = np.dtype([("start", "<i8"), ("end", "<i8"), ("data", "<u8"), ("lengths", "<u8")])


class _FabricType(ArrayType):
    """What the two fabric array types share: their repr and pickling (each has its own cache)."""

    __slots__ = ()
    _name = ""

    def __repr__(self):
        return f"{self._name}(dtype={type_name(self.dtype)}, ndim={self.ndim})"

    def __reduce__(self):
        return (type(self), (self.dtype, self.ndim))


class FabricArrayType(_FabricType):
    """The type of a fabric array: element dtype, ``ndim`` 1 (values) or 2 (arrays of values)."""

    __slots__ = ()
    _cache: dict = {}
    _name = "fabricarray"


class IndexedFabricArrayType(_FabricType):
    """The type of an indexed fabric array: element dtype, ``ndim`` 1 or 2."""

    __slots__ = ()
    _cache: dict = {}
    _name = "indexedfabricarray"


FABRIC_TYPES = (FabricArrayType, IndexedFabricArrayType)


def fabric_packed_size(t: ArrayType) -> int | None:
    """Bytes of a kernel argument of a fabric array type (None for other types): buckets, count, shape
    (and the index pointer and shape of an indexed one)."""
    if isinstance(t, FabricArrayType):
        return 8 * (2 + t.ndim)
    if isinstance(t, IndexedFabricArrayType):
        return 8 * (3 + 2 * t.ndim)
    return None


def _type(cls, dtype, ndim, what: str):
    if ndim not in (1, 2):
        raise ValueError(f"{what}: ndim must be 1 (values) or 2 (arrays of values), got {ndim!r}")
    return cls(python_annotation_type(dtype), ndim)


class _Subscript(type):
    def __getitem__(cls, params):
        dtype, ndim = subscript_dtype_ndim(params, cls.__name__)
        return _type(cls._annotation, dtype, ndim, cls.__name__)


def fabric_dtype(type_info, attrib: str):
    """The dtype of a Fabric attribute's type entry (Warp's rules: a vector by default, a quaternion,
    a square matrix for the matrix, transform and frame roles)."""
    if not isinstance(type_info, (list, tuple)) or len(type_info) != 5:
        raise ValueError(f"Fabric attribute '{attrib}' type metadata must contain five elements, got "
                         f"{len(type_info) if hasattr(type_info, '__len__') else type_info!r}: {type_info!r}")
    usable, base, count, _, role = type_info
    if not usable:
        raise RuntimeError(f"Attribute '{attrib}' cannot be used in Warp")
    scalar = _BASE_TYPES.get(base)
    if scalar is None:
        raise RuntimeError(f"Attribute '{attrib}' base data type '{base}' is not supported in Warp")
    if role in ("text", "path"):
        raise RuntimeError(f"Attribute '{attrib}' role '{role}' is not supported in Warp")
    if count <= 1:
        return scalar
    if role == "quat" and count == 4:
        return quaternion(dtype=scalar)
    if role in ("matrix", "transform", "frame"):
        n = math.isqrt(count)
        if n * n != count:
            raise ValueError(f"Fabric attribute '{attrib}' matrix metadata must have a square element count, "
                             f"got {count}")
        return matrix(shape=(n, n), dtype=scalar)
    return vector(length=count, dtype=scalar)


class _Buckets:
    """A fabric array's buckets on the host (``table``, a structured numpy array) and where the kernels read
    them (the same memory on the CPU; a device copy elsewhere)."""

    def __init__(self, table: np.ndarray, device):
        from ..device import get_device

        self.table, self.device = table, get_device(device)
        self.kernel_table = None
        if len(table) and not self.device.is_cpu:
            from .arrays import array as make_array

            self.kernel_table = make_array(table.view(np.uint8), dtype=_uint8, device=self.device)

    @property
    def address(self) -> int:
        if not len(self.table):
            return 0
        return int(self.kernel_table.ptr) if self.kernel_table is not None else int(self.table.ctypes.data)


@signed_class
class fabricarray(GatheredView, metaclass=_Subscript):  # noqa: N801 - Warp's spelling
    """Attribute ``attrib`` of a Fabric interface as one array (see the module docstring).

    ``fabricarray(data, attrib, dtype=Any, ndim=None)``: ``data`` is the interface dict or an object with
    ``__fabric_arrays_interface__``. Without data it is an empty array of the given dtype and ndim (Warp's
    spelling of an annotation: ``fabricarray(dtype=T)``, like ``fabricarray[T]``, is the type itself).
    """

    _annotation = FabricArrayType

    def __new__(cls, data=None, attrib=None, dtype=typing.Any, ndim=None):
        if data is None and attrib is None and cls is fabricarray:
            return _type(FabricArrayType, dtype, ndim or 1, "fabricarray")
        return object.__new__(cls)

    def __init__(self, data=None, attrib=None, dtype=typing.Any, ndim=None):
        self.device = None
        if data is None:  # an empty array (a subclass constructed without data)
            self.dtype, self.ndim, self.access = python_annotation_type(dtype), ndim or 1, None
            self._set_buckets(np.zeros(0, _BUCKET), "cpu")
            return
        if not isinstance(attrib, str):
            raise ValueError(f"Invalid attribute name: {attrib}")
        iface = data if isinstance(data, dict) else getattr(data, "__fabric_arrays_interface__", None)
        if not isinstance(iface, dict):
            raise ValueError("Invalid data argument for fabricarray: expected dict or object with "
                             "__fabric_arrays_interface__")
        if iface.get("version") != 1:
            raise ValueError(f"Unsupported Fabric interface version: {iface.get('version')}")
        device = iface.get("device")
        if not isinstance(device, str):
            raise ValueError(f"Invalid Fabric interface device: {device}")
        attribs = iface.get("attribs")
        if not isinstance(attribs, dict):
            raise ValueError("Failed to get Fabric interface attributes")
        info = attribs.get(attrib)
        if not isinstance(info, dict):
            raise ValueError(f"Failed to get attribute '{attrib}'")
        found = fabric_dtype(info.get("type"), attrib)
        dtype = python_annotation_type(dtype)
        if dtype is not typing.Any and dtype is not None and dtype is not found:
            raise TypeError(f"fabricarray: dtype {type_name(dtype)} does not match attribute '{attrib}' of type "
                            f"{type_name(found)}")
        depth = info["type"][3]
        if depth not in (0, 1):
            raise ValueError(f"Invalid attribute array depth: {depth}")
        if ndim is not None and ndim != depth + 1:
            raise ValueError(f"fabricarray: ndim {ndim} does not match attribute '{attrib}' (array depth {depth}: "
                             f"ndim {depth + 1})")
        pointers, counts = info.get("pointers"), info.get("counts")
        if not (hasattr(pointers, "__len__") and hasattr(counts, "__len__") and len(pointers) == len(counts)):
            raise RuntimeError("Attribute pointers and counts must be lists of the same size")
        lengths = [0] * len(pointers)
        if depth == 1:
            lengths = info.get("array_lengths")
            if not hasattr(lengths, "__len__") or len(lengths) != len(pointers):
                raise RuntimeError("Attribute `array_lengths` must be a list of the same size as `pointers` and "
                                   "`counts`")
        table = np.zeros(len(pointers), _BUCKET)
        if len(pointers):
            sizes = np.asarray([int(c) for c in counts], np.int64)
            if (sizes < 0).any():
                raise ValueError(f"Attribute '{attrib}': a bucket count is negative ({int(sizes.min())})")
            table["end"] = np.cumsum(sizes)
            table["start"] = table["end"] - sizes
            table["data"] = [int(p or 0) for p in pointers]
            table["lengths"] = [int(p or 0) for p in lengths]
        self.dtype, self.ndim, self.access = found, depth + 1, info.get("access")
        self._interface = iface  # what keeps an interface's own references (its arrays) alive
        self._set_buckets(table, device)
        self.device = self._buckets.device

    def _set_buckets(self, table: np.ndarray, device) -> None:
        self._buckets = _Buckets(table, device)
        self.size = int(table["end"][-1]) if len(table) else 0
        self.shape = (self.size,)
        self._key = self._sig = _type(FabricArrayType, self.dtype, self.ndim, "fabricarray")
        self._packed = struct.pack(f"<Qq{self.ndim}q", self._buckets.address, len(table), self.size,
                                   *([0] * (self.ndim - 1)))
        self._unit_inner = True  # the accessors walk the buckets: any instance serves

    @property
    def buckets(self) -> np.ndarray:
        """The bucket table: each bucket's first index, the index past its last, and its addresses."""
        return self._buckets.table

    @property
    def readonly(self) -> bool:
        return False

    @property
    def vars(self) -> dict:
        """The members a kernel may read (Warp's ``size``)."""
        return {"size": uint64}

    def __len__(self):
        return self.size

    def __ctype__(self):
        from .ctype_mirror import mirror

        return mirror(self._packed, self)

    def __getitem__(self, key):
        if isinstance(key, array):
            return indexedfabricarray(fa=self, indices=key)
        raise ValueError(f"Fabric arrays only support indexing using index arrays, got key of type {type(key)}")

    # -- host access ----------------------------------------------------------------------------
    def _element_np(self) -> tuple:
        """The numpy dtype and component shape of one element."""
        from .array_constructors import empty

        probe = empty((0,), self.dtype, "cpu").numpy()
        return probe.dtype, probe.shape[1:]

    def _positions(self):
        """(bucket, first element, count) of each non-empty bucket, in index order."""
        for b in self._buckets.table:
            if b["end"] > b["start"]:
                yield b, int(b["start"]), int(b["end"] - b["start"])

    def _flat(self) -> np.ndarray:
        """The elements, gathered into a new host array of shape (size, *components)."""
        self._values_only("numpy")
        dt, comps = self._element_np()
        out = np.zeros((self.size, *comps), dt)
        flat = out.view(np.uint8).reshape(self.size, dt.itemsize * math.prod(comps))
        for b, first, count in self._positions():
            _read(self.device, int(b["data"]), flat[first:first + count])
        return out

    def _write_flat(self, values: np.ndarray) -> None:
        dt, comps = self._element_np()
        values = np.ascontiguousarray(values, dt)
        raw = values.view(np.uint8).reshape(self.size, dt.itemsize * math.prod(comps))
        for b, first, count in self._positions():
            _write(self.device, int(b["data"]), raw[first:first + count])

    def _values_only(self, what: str) -> None:
        if self.ndim > 1:
            raise RuntimeError(f"{what} of a Fabric array of arrays is not supported: its elements are arrays of "
                               f"different lengths")

    def numpy(self) -> np.ndarray:
        """A new numpy array of the elements (vectors and matrices add trailing dimensions)."""
        return self._flat()

    def __array__(self, dtype=None, copy=None):
        out = self.numpy()
        return out if dtype is None else out.astype(dtype)

    def list(self) -> list:
        from .arrays import array as make_array

        return make_array(self.numpy(), dtype=self.dtype, device="cpu").list()

    def fill_(self, value):
        """Set every element to ``value`` (a number, vector or matrix of the dtype)."""
        if self.ndim > 1:
            raise RuntimeError("Filling Fabric arrays of arrays is not supported")
        self._write_flat(_filled(self.dtype, self.size, value))
        return self

    def zero_(self):
        self._values_only("zero_")
        dt, comps = self._element_np()
        self._write_flat(np.zeros((self.size, *comps), dt))
        return self

    def assign(self, src):
        """Copy ``src`` (an array, fabric array, numpy array or nested list of ``size`` elements) into the
        elements."""
        self._values_only("assign")
        self._write_flat(_values_of(self, src))
        return self

    def contiguous(self):
        """A new plain array holding a copy of the elements, on the same device."""
        from .arrays import array as make_array

        return make_array(self.numpy(), dtype=self.dtype, device=self.device or "cpu")

    def _assign_now(self, src, stream=None) -> None:  # wp.copy's whole copy
        self.assign(src)

    def __str__(self):
        return str(self.numpy()) if self.ndim == 1 else repr(self)

    def __repr__(self):
        return f"fabricarray(shape={self.shape}, dtype={type_name(self.dtype)}, ndim={self.ndim}, device={self.device})"


@signed_class
class indexedfabricarray(GatheredView, metaclass=_Subscript):  # noqa: N801 - Warp's spelling
    """The elements of a fabric array an ``int32`` index array picks: ``indexedfabricarray(fa, indices)``,
    the same as ``fa[indices]``. Without ``fa`` it is the type ``indexedfabricarray(dtype=T, ndim=N)``."""

    _annotation = IndexedFabricArrayType

    def __new__(cls, fa=None, indices=None, dtype=typing.Any, ndim=None):
        if fa is None and cls is indexedfabricarray:
            return _type(IndexedFabricArrayType, dtype, ndim or 1, "indexedfabricarray")
        return object.__new__(cls)

    def __init__(self, fa=None, indices=None, dtype=typing.Any, ndim=None):
        if fa is None:  # an empty one (a subclass constructed without data)
            fa = empty_fabric(FabricArrayType(python_annotation_type(dtype), ndim or 1))
            indices = array(np.zeros(0, np.int32), dtype=int32, device="cpu")
        if not isinstance(fa, fabricarray):
            raise TypeError(f"indexedfabricarray: fa must be a fabricarray, got {type(fa).__name__}")
        if not isinstance(indices, array):
            raise TypeError(f"indexedfabricarray: indices must be a 1-D int32 array, got {type(indices).__name__}")
        from .indexed_arrays import check_index_array  # indexed_arrays imports this module

        bad = check_index_array(indices, fa.device, fa.size)
        if bad is not None:
            raise IndexError(f"indexedfabricarray: index {bad} is outside the fabric array of {fa.size} elements")
        self.fa, self.indices = fa, indices if indices.is_contiguous else indices.contiguous()
        self.dtype, self.ndim, self.device = fa.dtype, fa.ndim, fa.device
        self.size = indices.shape[0]
        self.shape = (self.size,)
        self._key = self._sig = _type(IndexedFabricArrayType, self.dtype, self.ndim, "indexedfabricarray")
        self._packed = fa._packed + struct.pack(f"<Q{self.ndim}q", self.indices.ptr or 0, self.size,
                                                *([0] * (self.ndim - 1)))
        self._unit_inner = True

    readonly = fabricarray.readonly
    vars = fabricarray.vars
    __len__ = fabricarray.__len__
    __ctype__ = fabricarray.__ctype__
    __array__ = fabricarray.__array__
    list = fabricarray.list
    __str__ = fabricarray.__str__
    _assign_now = fabricarray._assign_now
    contiguous = fabricarray.contiguous

    def _picks(self) -> np.ndarray:
        return np.asarray(self.indices.numpy()).astype(np.intp)

    def numpy(self) -> np.ndarray:
        """A new numpy array of the picked elements."""
        return self.fa.numpy()[self._picks()]

    def _scatter(self, values: np.ndarray) -> None:
        whole = self.fa.numpy()
        whole[self._picks()] = values
        self.fa._write_flat(whole)

    def fill_(self, value):
        if self.ndim > 1:
            raise RuntimeError("Filling indexed Fabric arrays of arrays is not supported")
        self._scatter(_filled(self.dtype, self.size, value))
        return self

    def zero_(self):
        self.fa._values_only("zero_")
        self._scatter(np.zeros_like(self.numpy()))
        return self

    def assign(self, src):
        self.fa._values_only("assign")
        self._scatter(_values_of(self, src))
        return self

    def __repr__(self):
        return (f"indexedfabricarray(shape={self.shape}, dtype={type_name(self.dtype)}, ndim={self.ndim}, "
                f"device={self.device})")


def empty_fabric(t: ArrayType):
    """A fabric array (or indexed one) of type ``t`` with no elements: a descriptor of zeros (the null
    adjoint a backward kernel skips)."""
    fa = object.__new__(fabricarray)
    fabricarray.__init__(fa, dtype=t.dtype, ndim=t.ndim)
    if isinstance(t, FabricArrayType):
        return fa
    out = object.__new__(indexedfabricarray)
    indexedfabricarray.__init__(out, fa, array(np.zeros(0, np.int32), dtype=int32, device="cpu"))
    return out


def fabricarrayarray(**kwargs):
    """A fabric array of arrays: ``fabricarray(..., ndim=2)``."""
    return fabricarray(**dict(kwargs, ndim=2))


def indexedfabricarrayarray(**kwargs):
    """An indexed fabric array of arrays: ``indexedfabricarray(..., ndim=2)``."""
    return indexedfabricarray(**dict(kwargs, ndim=2))


FABRIC_ARRAYS = (fabricarray, indexedfabricarray)


def is_fabric_array(value) -> bool:
    return isinstance(value, FABRIC_ARRAYS)


def _values_of(dst, src) -> np.ndarray:
    """``src`` as the host values of ``dst``'s ``size`` elements (checked: dtype and count)."""
    from .arrays import array as make_array
    from .arrays import check_same_dtype
    from .indexed_arrays import indexedarray

    if isinstance(src, (array, indexedarray, *FABRIC_ARRAYS)):
        check_same_dtype(dst, src, "assign")
        data = np.asarray(src.numpy())
    else:
        data = np.asarray(make_array(src, dtype=dst.dtype, device="cpu").numpy())
    dt, comps = (dst.fa if isinstance(dst, indexedfabricarray) else dst)._element_np()
    want = (dst.size, *comps)
    if data.shape != want and data.size == math.prod(want):
        data = data.reshape(want)
    if data.shape != want:
        raise ValueError(f"cannot assign data of shape {data.shape} to a fabric array of shape {want}")
    return data


def _filled(dtype, n: int, value) -> np.ndarray:
    """``n`` host values of ``dtype``, each ``value`` converted as ``array.fill_`` converts it."""
    from .array_constructors import empty
    from .array_values import element_value

    filled = empty((n,), dtype, "cpu")
    filled._fill_now(element_value(dtype, value, "fill_"), value)
    return filled.numpy()


def _read(device, address: int, out: np.ndarray) -> None:
    """Copy ``out.nbytes`` bytes at ``address`` (on ``device``) into ``out`` (contiguous)."""
    if not out.nbytes:
        return
    if device.is_cpu:
        out.reshape(-1)[:] = np.frombuffer((ctypes.c_uint8 * out.nbytes).from_address(address), np.uint8)
        return
    from .. import pending_checks
    from ..cuda_driver import driver

    host = np.ascontiguousarray(out)
    driver().copy_to_host(device.ordinal, host.ctypes.data, address, host.nbytes)
    pending_checks.copied_to_host(device.ordinal)
    out[...] = host


def _write(device, address: int, values: np.ndarray) -> None:
    """Copy the bytes of ``values`` to ``address`` (on ``device``)."""
    if not values.nbytes:
        return
    values = np.ascontiguousarray(values)
    if device.is_cpu:
        ctypes.memmove(address, values.ctypes.data, values.nbytes)
        return
    from ..cuda_driver import driver

    driver().copy_to_device(device.ordinal, address, values.ctypes.data, values.nbytes)

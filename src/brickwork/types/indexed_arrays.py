"""Indexed arrays: an array seen through optional per-dimension index arrays (Warp's ``indexedarray``).

``indexedarray(base, [idx0, None, idx2])`` is the view ``base[idx0[i], j, idx2[k]]`` of shape
``(len(idx0), base.shape[1], len(idx2))``: dimensions with an index array (1-D ``int32``, on the
base's device) go through it, the others are taken as they are. No data is copied; kernels read and
write the base's elements. Without data, ``indexedarray(dtype=T, ndim=N)`` and ``indexedarray[T]`` are
annotation types (``IndexedArrayType``). On the host, ``numpy()`` gathers the selected elements into a
new numpy array and ``fill_``/``zero_``/``assign`` scatter into the base. As in Warp, indexed arrays
have no gradients.

In kernels an indexed array is a ``bw::indexedarray_t<T, D>`` (include/brickwork.h): the base's
pointer and strides, the indexed shape, and one index pointer per dimension (null: not indexed).
"""

from __future__ import annotations

import struct
import typing

import numpy as np

from ..device import get_device
from . import recording
from .array_arithmetic import install_arithmetic
from .array_constructors import empty
from .array_kinds import GatheredView, signed_class
from .array_numpy_hints import install_numpy_hints
from .array_types import ReadOnly
from .arrays import ArrayType, array, check_same_dtype, subscript_dtype_ndim, type_name
from .fabric_arrays import fabric_packed_size, fabricarray, indexedfabricarray
from .recording import run_or_record
from .scalars import int32, python_annotation_type


class IndexedArrayType(ArrayType):
    """The type of an indexed array: element dtype and number of dimensions (1 to 4)."""

    __slots__ = ()
    _cache: dict = {}  # its own: an indexed array type is never the array type of the same dtype and ndim

    def __repr__(self):
        return f"indexedarray(dtype={type_name(self.dtype)}, ndim={self.ndim})"

    def __reduce__(self):
        return (IndexedArrayType, (self.dtype, self.ndim))


def is_indexed_array_type(t) -> bool:
    return isinstance(t, IndexedArrayType)


def packed_size(t: ArrayType) -> int:
    """Bytes of a kernel argument of array type ``t``: pointer, shape, strides (and the index pointers of
    an indexed array; a fabric array's own layout: fabric_arrays.py)."""
    fabric = fabric_packed_size(t)
    if fabric is not None:
        return fabric
    return 8 * (1 + (3 if isinstance(t, IndexedArrayType) else 2) * t.ndim)


def _annotation(dtype, ndim):
    """``indexedarray[T]``, ``indexedarray[T, Literal[N]]``: the dtype and ndim of a subscript."""
    if isinstance(dtype, tuple):
        dtype, ndim = subscript_dtype_ndim(dtype, "indexedarray")
    return IndexedArrayType(python_annotation_type(dtype), ndim)


class _IndexedArrayMeta(type):
    def __getitem__(cls, params):
        return _annotation(params, 1)


@signed_class
class indexedarray(GatheredView, metaclass=_IndexedArrayMeta):  # noqa: N801 - Warp's spelling
    """An array viewed through optional per-dimension ``int32`` index arrays.

    ``indexedarray(data, indices, dtype=Any, ndim=None)``: ``indices`` is a list of up to ``data.ndim``
    entries, each a 1-D ``int32`` array on ``data``'s device or None (that dimension not indexed); one
    array stands for ``[array]``. Without data it is the annotation type ``indexedarray(dtype=T, ndim=N)``.
    """

    # no __slots__: an application's class may derive from array too (refused as an argument, not as a class)

    def __new__(cls, data=None, indices=None, dtype=typing.Any, ndim=None):
        if data is None:
            return IndexedArrayType(python_annotation_type(dtype), 1 if ndim is None else ndim)
        return object.__new__(cls)

    def __init__(self, data=None, indices=None, dtype=typing.Any, ndim=None):
        if not isinstance(data, array):
            raise TypeError(f"indexedarray: data must be a brickwork array, got {type(data).__name__}")
        dtype = python_annotation_type(dtype)
        if dtype is not typing.Any and dtype is not None and dtype is not data.dtype:
            raise TypeError(f"indexedarray: dtype {type_name(dtype)} does not match the data array's dtype "
                            f"{type_name(data.dtype)}")
        if ndim is not None and ndim != data.ndim:
            raise ValueError(f"Requested dimensionality ({ndim}) does not match dimensionality of data array "
                             f"({data.ndim})")  # Warp's text
        self.data = data
        self.indices = _check_indices(data, indices)
        self.dtype = data.dtype
        self.ndim = data.ndim
        self.device = data.device
        self.shape = tuple(data.shape[d] if ix is None else ix.shape[0]
                           for d, ix in enumerate(self.indices[:data.ndim]))
        self._key = IndexedArrayType(data.dtype, data.ndim)
        # a base that writers are refused (read-only memory, elements sharing memory) is told apart in launch
        # signatures as the base itself is: the launch table would otherwise skip the check once a writable one ran
        refused = isinstance(getattr(data, "_sig", None), ReadOnly) or data.readonly  # a CUDA array's sig is OnDevice
        self._sig = ReadOnly(self._key) if refused else self._key
        words = struct.unpack(f"<Q{2 * data.ndim}q", data._packed)  # the base: pointer, shape, strides
        pointers = [0 if ix is None or ix.ptr is None else ix.ptr for ix in self.indices[:data.ndim]]
        self._packed = struct.pack(f"<Q{3 * data.ndim}q", words[0], *self.shape, *words[1 + data.ndim:],
                                   *pointers)
        self._unit_inner = True  # the C++ accessors of indexed arrays always use the strides: any instance serves

    # -- properties ---------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def readonly(self) -> bool:
        return self.data.readonly

    def __len__(self):
        return self.shape[0]

    def __ctype__(self):
        """The kernel-argument descriptor as a ``ctypes.Structure``."""
        from .ctype_mirror import mirror

        return mirror(self._packed, self)

    # -- host access --------------------------------------------------------------------------
    def _selection(self) -> tuple:
        """numpy's open-mesh index of the selected elements of the base."""
        picks = [np.arange(n) if ix is None else ix.numpy().astype(np.intp)
                 for n, ix in zip(self.data.shape, self.indices)]
        return np.ix_(*picks)

    def numpy(self) -> np.ndarray:
        """A new numpy array of the selected elements (vectors add trailing dimensions)."""
        return np.asarray(self.data.numpy())[self._selection()]

    def __array__(self, dtype=None, copy=None):
        out = self.numpy()
        return out if dtype is None else out.astype(dtype)

    def _scatter(self, values: np.ndarray) -> None:
        """Write ``values`` (the shape of ``numpy()``) to the selected elements of the base (at each replay
        instead while a graph is captured: recording.py)."""
        run_or_record(self._scatter_now, values)

    def _scatter_now(self, values: np.ndarray) -> None:
        if self.size == 0:
            return
        if self.data.device.is_cpu:
            self.data.numpy()[self._selection()] = values
            return
        whole = np.array(self.data.numpy())  # a device base: update a host copy and write it back
        whole[self._selection()] = values
        self.data.assign(whole)

    def list(self) -> list:
        """The selected elements in row-major order as one flat list (as ``array.list()``)."""
        from .held_arrays import hold_from

        elements = array._wrap(self.numpy(), self.dtype, self.device)
        hold_from(elements, self.data)  # an array of structs: its field arrays, as the base reads them
        return elements.list()

    def fill_(self, value) -> "indexedarray":
        """Set every selected element to ``value`` (a scalar, vector, matrix or struct of the dtype)."""
        from .array_values import element_value
        from .held_arrays import hold_from

        filled = empty(self.shape, self.dtype, "cpu")
        filled._fill_now(element_value(self.dtype, value, "fill_"), value)
        self._scatter(filled.numpy())
        hold_from(self.data, filled)  # an array of structs keeps what its elements point to
        return self

    def zero_(self) -> "indexedarray":
        """Set every selected element to zero."""
        self._scatter(np.zeros_like(self.numpy()))
        return self

    def assign(self, src) -> "indexedarray":
        """Copy ``src`` (an array, indexed array, numpy array or nested list of the same shape) into the
        selected elements."""
        data = self._assigned(src)  # checked now; while a graph is captured an array source is read at replay
        replayed = recording.recorder is not None and isinstance(src, (array, indexedarray))
        run_or_record(self._assign_now, src, None if replayed else data)
        return self

    def _assign_now(self, src, data=None) -> None:
        """``assign`` itself, of ``data`` (``src`` converted) or of ``src`` as it is now (``wp.copy`` of a whole
        array runs it, at replay while a graph is captured)."""
        from .held_arrays import hold_from

        self._scatter_now(self._assigned(src) if data is None else data)
        hold_from(self.data, src.data if isinstance(src, indexedarray) else src)

    def _assigned(self, src) -> np.ndarray:
        """``src`` checked for ``assign`` and converted to the shape of ``numpy()``."""
        if isinstance(src, (array, indexedarray)):
            check_same_dtype(self, src, "assign")
            data = np.asarray(src.numpy())
        else:
            data = np.asarray(array(src, dtype=self.dtype, device="cpu").numpy())
        want = self.numpy().shape
        if data.shape != want and data.size == int(np.prod(want, dtype=np.int64)):
            data = data.reshape(want)
        if data.shape != want:
            raise ValueError(f"cannot assign data of shape {data.shape} to an indexed array of shape {want}")
        return data

    def contiguous(self) -> array:
        """A contiguous array holding a copy of the selected elements, on the same device."""
        return array(self.numpy(), dtype=self.dtype, device=self.device)

    def __str__(self):
        return str(self.numpy())

    def __repr__(self):
        return f"indexedarray(shape={self.shape}, dtype={type_name(self.dtype)}, device={self.device})"


def check_index_array(ix: array, device, extent: int):
    """Warp's checks of an index array (int32, 1-D, on ``device``; ValueError with Warp's texts); the first
    index outside ``[0, extent)``, or None when every one is inside."""
    if ix.dtype is not int32:
        raise ValueError(f"Index array must use int32, got dtype {type_name(ix.dtype)}")  # Warp's text
    if ix.ndim != 1:
        raise ValueError(f"Index array must be one-dimensional, got {ix.ndim}")  # Warp's text
    if device is not None and ix.device != device:
        raise ValueError(f"Index array device ({ix.device}) does not match data array device ({device})")
    values = np.asarray(ix.numpy())
    if values.size and (values.min() < 0 or values.max() >= extent):
        return values[(values < 0) | (values >= extent)][0]
    return None


def _check_indices(data: array, indices) -> list:
    """The index arrays (contiguous, padded with None to four entries), after checking each one."""
    if indices is None:
        indices = []
    elif isinstance(indices, (array, indexedarray)):
        indices = [indices]
    elif not isinstance(indices, (list, tuple)):
        raise TypeError(f"indexedarray: indices must be a list of int32 arrays or None, got "
                        f"{type(indices).__name__}")
    if len(indices) > data.ndim:
        raise ValueError(f"Number of indices provided ({len(indices)}) exceeds number of dimensions "
                         f"({data.ndim})")  # Warp's text
    out = []
    for d, ix in enumerate(indices):
        if ix is None:
            out.append(None)
            continue
        if not isinstance(ix, array):
            raise TypeError(f"indexedarray: index {d} must be a 1-D int32 array or None, got {type(ix).__name__}")
        bad = check_index_array(ix, data.device, data.shape[d])
        if bad is not None:
            raise IndexError(f"indexedarray: index array {d} holds {bad}, outside dimension {d} of the data "
                             f"array (extent {data.shape[d]})")
        out.append(ix if ix.is_contiguous else ix.contiguous())
    return out + [None] * (4 - len(out))


install_arithmetic(indexedarray)
install_numpy_hints(indexedarray)

#: Every kind of array value a kernel parameter takes (and their subclasses)
ARRAY_KINDS = (array, indexedarray, fabricarray, indexedfabricarray)


def can_access(device, resource) -> bool:
    """Whether kernels on ``device`` (a device or its name) may use ``resource``, an array (plain, indexed or
    fabric), as Warp's ``wp.can_access``: in brickwork only an array of that device (launches refuse arrays of
    another device, pinned host memory included). Anything but an array is a ``TypeError``."""
    device = get_device(device)
    if not isinstance(resource, ARRAY_KINDS) or getattr(resource, "device", None) is None:
        raise TypeError(f"wp.can_access() takes an array, not {type(resource).__name__} (Warp 1.19 answers for "
                        "concrete Warp arrays only)")
    return get_device(resource.device) == device


class _IndexedArrayNd:
    """``indexedarray2d(data, indices)``, and the annotations ``indexedarray2d(dtype=T)`` and
    ``indexedarray2d[T]``: a fixed number of dimensions."""

    def __init__(self, ndim: int):
        self.ndim = ndim
        self.__name__ = f"indexedarray{ndim}d"

    def __getitem__(self, dtype):
        return IndexedArrayType(python_annotation_type(dtype), self.ndim)

    def __call__(self, data=None, indices=None, dtype=typing.Any):
        return indexedarray(data, indices, dtype=dtype, ndim=self.ndim)


indexedarray1d, indexedarray2d, indexedarray3d, indexedarray4d = (_IndexedArrayNd(n) for n in (1, 2, 3, 4))


def index_array_view(base: array, key) -> indexedarray | None:
    """``base[key]`` when ``key`` holds int32 index arrays (the others full slices ``:``): the indexed array
    of Warp's ``array.__getitem__``; None when ``key`` holds no index array."""
    key = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, array) for k in key):
        return None
    indices = []
    for d, k in enumerate(key):
        if isinstance(k, array):
            indices.append(k)
        elif isinstance(k, slice) and k == slice(None):
            indices.append(None)
        elif isinstance(k, slice):  # a partial slice: the view first, then the index arrays
            view = base[tuple(k if isinstance(k, slice) else slice(None) for k in key)]
            return indexedarray(view, [k if isinstance(k, array) else None for k in key])
        else:
            raise IndexError(f"index {d}: an array indexed with index arrays takes index arrays and slices, "
                             f"got {type(k).__name__}")
    return indexedarray(base, indices)

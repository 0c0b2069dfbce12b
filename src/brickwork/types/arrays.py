"""Arrays: n-dimensional, strided, on a device; also their annotation types.

``array(dtype=float32, ndim=2)`` (no data, no shape) and ``array2d[float32]`` are *types* for
annotations (``ArrayType``, defined in ``array_types.py``). With data or a shape, ``array(...)``
allocates or wraps memory (``array_storage.py``). On the CPU an array wraps a numpy array, so
``.numpy()`` and numpy inputs are zero-copy.
"""

from __future__ import annotations

import math
import numbers
import struct
import typing

import numpy as np

from .. import memory_tracking
from .. import timing_state as _timing
from ..device import get_device
from . import array_display, recording
from .array_address import data_address
from .array_arithmetic import install_arithmetic
from .array_kinds import signed_class
from .array_numpy_hints import install_numpy_hints
from .array_shapes import check_array_shape, check_element_bytes, overlapping, set_unshared, unshared
from .array_storage import _scalar_of, _to_plain, converted_for, host_storage, refuse_unsequenced
from .array_types import ArrayType, ReadOnly, dense_strides, element_layout, subscript_dtype_ndim, type_name
from .bfloat16_numpy import as_values
from .composite import CompositeBase, is_composite_type
from .dtype_inference import infer_dtype
from .recording import run_or_record
from .scalars import (
    ScalarBase,
    bfloat16,
    bfloat16_values,
    float32,
    is_scalar_type,
    python_annotation_type,
    scalar_from_numpy,
)


def is_foreign_cuda_array(data) -> bool:
    """Whether ``data`` is another library's CUDA array (``__cuda_array_interface__``: CuPy, PyTorch, Numba), which
    a device array views (``device_import``). A PyTorch tensor on the CPU raises AttributeError for the
    interface, so has none; the type is asked first, so that other values cost one lookup."""
    if isinstance(data, (array, np.ndarray)) or not hasattr(type(data), "__cuda_array_interface__"):
        return False
    try:
        return getattr(data, "__cuda_array_interface__", None) is not None
    except Exception:  # noqa: BLE001 - a producer whose property fails exports nothing usable
        return False


@signed_class
class array:  # noqa: N801 - Warp's spelling
    """An n-dimensional array of scalars, vectors, matrices or structs.

    ``array(data, dtype=None, shape=None, device=None, copy=True)`` wraps or copies data;
    without data and shape it is the annotation type ``array(dtype=T, ndim=N)``.
    """

    # _held: the arrays an array of structs points to (held_arrays.py)
    __slots__ = ("_np", "dtype", "shape", "ndim", "device", "_key", "_sig", "_packed", "_unit_inner", "_owner",
                 "_grad", "_requires_grad", "_retain_grad", "_held", "__weakref__")

    def __new__(cls, data=None, dtype=typing.Any, shape=None, ndim=None, device=None, copy=True, **kwargs):
        if data is None and shape is None:
            return ArrayType(dtype, 1 if ndim is None else ndim)
        if cls is array and (get_device(device).is_cuda or is_foreign_cuda_array(data)):
            from .device_array import DeviceArray  # CUDA memory

            return object.__new__(DeviceArray)
        return object.__new__(cls)

    def __init__(self, data=None, dtype=typing.Any, shape=None, ndim=None, device=None, copy=True, **kwargs):
        self.device = get_device(device)
        dtype = python_annotation_type(dtype)
        if not copy and type(data) is np.ndarray and shape is None and not kwargs and data.ndim:
            # a view of a numpy array of scalars, as is (Warp's array(a, copy=False)): none of the conversions
            # below applies, and their tests cost as much as the view (a launch with a numpy argument pays it)
            found = scalar_from_numpy(data.dtype) if dtype is typing.Any or dtype is None else dtype
            if is_scalar_type(found) and found is not bfloat16 and data.dtype == found._np:
                self._init_from_numpy(data, found, owner=None)
                return
        given = dtype  # Warp's memory tracker names an array made from data by the dtype asked for
        refuse_unsequenced(data)
        if dtype is typing.Any or dtype is None:
            if data is None:
                dtype = float32
            elif isinstance(data, array):
                dtype = data.dtype
            else:
                dtype = infer_dtype(data)
        arr, source = host_storage(data, dtype, shape, copy, kwargs)
        self._init_from_numpy(arr, dtype, owner=None)
        if memory_tracking._State.pending is not None:  # its new memory, tracked: named by its type
            memory_tracking.name_host_array(self, None if data is None else given)
        if data is not None and getattr(dtype, "_bw_struct", False):  # the arrays its elements point to
            from .held_arrays import hold_from, hold_records, hold_values

            if isinstance(source, array):
                hold_from(self, source)
            elif isinstance(source, np.ndarray):
                hold_records(self, source)
            elif isinstance(source, (list, tuple)):
                hold_values(self, source)
        _grad_option(self, kwargs)

    def _init_from_numpy(self, arr: np.ndarray, dtype, owner):
        ntrail = arr.ndim if is_scalar_type(dtype) else arr.ndim - len(element_layout(dtype)[1])
        if arr.size == 0 and not any(arr.strides):  # numpy's zero strides of empty arrays; Warp has dense ones
            arr = np.lib.stride_tricks.as_strided(arr, strides=dense_strides(arr.shape, arr.itemsize))
        self._grad = None
        self._requires_grad = False
        self._np = arr
        self._owner = owner
        self.dtype = dtype
        self.shape = tuple(arr.shape[:ntrail])
        check_array_shape(self.shape)
        self.ndim = ntrail
        if not 1 <= self.ndim <= 4:
            raise ValueError(f"arrays have 1 to 4 dimensions, got shape {self.shape}")
        itemsize = arr.itemsize * math.prod(arr.shape[ntrail:])  # math.prod: np.prod costs microseconds
        strides = arr.strides[:ntrail]
        if not itemsize:  # the name only for the message (type_name costs as much as the rest of this check)
            check_element_bytes(itemsize, type_name(dtype))
        if any(s % itemsize for s in strides):
            raise ValueError("array strides must be multiples of the element size")
        elem_strides = tuple(s // itemsize for s in strides)
        # An array without elements passes a null pointer, as Warp's: a kernel that writes one anyway
        # faults at once instead of overwriting the few bytes numpy allocates for it.
        ptr = data_address(arr) if arr.size else 0
        self._key = ArrayType._cache.get((dtype, self.ndim)) or ArrayType(dtype, self.ndim)
        # Launch signatures tell read-only arrays (read-only memory, or elements sharing memory) apart, so that
        # a kernel that writes one is refused on the slow path while the fast path stays one attribute read.
        self._sig = self._key if arr.flags.writeable and not overlapping(arr, elem_strides) else ReadOnly(self._key)
        self._packed = struct.pack(f"<Q{2 * self.ndim}q", ptr, *self.shape, *elem_strides)
        self._unit_inner = elem_strides[-1] == 1 or self.shape[-1] <= 1

    # -- read flags (wp.config.verify_autograd_array_access: array_reads.py) -----------------------
    @property
    def _is_read(self) -> bool:
        """Whether a launch recorded by a Tape read this array (or a view of it) since the last backward."""
        from .array_reads import is_read

        return is_read(self)

    def mark_read(self) -> None:
        """Flag this array, and the arrays it views, as read by a recorded launch."""
        from .array_reads import mark_read

        mark_read(self)

    def mark_write(self, **kwargs) -> None:
        """Warn if this array is flagged as read (``arg_name``, ``kernel_name``, ``filename``, ``lineno``
        name the writer in the message)."""
        from .array_reads import mark_write

        mark_write(self, **kwargs)

    def mark_init(self) -> None:
        """Clear this array's read flag."""
        from .array_reads import mark_init

        mark_init(self)

    # -- gradients (reverse-mode autodiff: wp.Tape) ----------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether the array has a gradient array (``grad``) that backward launches accumulate into."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        value = bool(value)
        if value and self._grad is None:  # laid out as the array (strides=), as Warp
            from .array_constructors import zeros  # it imports this module

            strides = None if self.is_contiguous or min(self.strides) < 0 else self.strides
            self._grad = zeros(self.shape, self.dtype, self.device, strides=strides)
        self._requires_grad = value
        if not value:
            self._retain_grad = False  # retaining needs a gradient (as Warp)
            self._grad = None  # let go of it, as Warp: a.grad is None again

    @property
    def grad(self):
        """The gradient array (same shape and dtype), or None when the array does not require one."""
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, array) or value.shape != self.shape or value.dtype is not self.dtype:
                got = f"{type_name(value._key)} of shape {value.shape}" if isinstance(value, array) else \
                    type(value).__name__
                raise ValueError(f"grad must be an array of shape {self.shape} and dtype {type_name(self.dtype)}, "
                                 f"got {got}")
            if isinstance(value._sig, ReadOnly) or value.readonly:  # backward launches add into it
                raise ValueError("grad must be a writable array: backward launches add into it, but this one views "
                                 "read-only memory (or its elements share memory); pass a copy (wp.clone(g))")
        self._grad = value
        self._requires_grad = value is not None
        if value is None:
            self._retain_grad = False

    @property
    def retain_grad(self) -> bool:
        """Whether a recorded copy into this array keeps its gradient in the backward pass (as Warp's
        ``retain_grad``): by default the copy moves the overwritten elements' gradient to the source."""
        return getattr(self, "_retain_grad", False)

    @retain_grad.setter
    def retain_grad(self, value: bool) -> None:
        if value and not self._requires_grad:
            raise ValueError("retain_grad=True requires requires_grad=True")
        self._retain_grad = bool(value)

    @property
    def readonly(self) -> bool:
        """True when the array views read-only memory (a read-only numpy array, ``bytes``, a memmap
        opened with mode "r"): kernels that write it are refused at launch."""
        return not self._np.flags.writeable

    @classmethod
    def _wrap(cls, arr: np.ndarray, dtype, device, owner=None) -> "array":
        self = object.__new__(cls)
        self.device = device
        self._init_from_numpy(arr, dtype, owner)
        return self

    # -- numpy interop ------------------------------------------------------------------------
    def __ctype__(self):
        """The array's kernel-argument descriptor (pointer, shape, strides) as a ``ctypes.Structure``."""
        from .ctype_mirror import mirror

        return mirror(self._packed, self)

    def cptr(self):
        """A ctypes pointer to the first element (contiguous CPU arrays; ``None`` without memory), as Warp's."""
        from .ctype_mirror import element_pointer

        return element_pointer(self)

    def numpy(self) -> np.ndarray:
        """The data as a numpy array (zero-copy on the CPU); vectors add trailing dimensions. bfloat16 data is
        ``ml_dtypes.bfloat16`` where ml_dtypes is installed, else its uint16 bits (numpy has no bfloat16)."""
        dtype = self.dtype
        if dtype is bfloat16 or getattr(dtype, "_dtype", None) is bfloat16:
            return as_values(self._np)
        return self._np

    @property
    def __array_interface__(self):
        interface = dict(self._np.__array_interface__)
        interface["strides"] = self._np.strides  # always given, as Warp (numpy leaves out dense ones)
        return interface

    def __array__(self, dtype=None, copy=None):
        return self._np if dtype is None else self._np.astype(dtype)

    def __dlpack__(self, stream=None, **kwargs):
        bfloat = _scalar_of(self.dtype) is bfloat16
        if bfloat or not (self._np.flags.writeable or self._np.dtype.fields):  # brickwork's capsule: numpy has none for
            from . import dlpack_export  # bfloat16, and refuses read-only memory (an array over a JAX array's)

            comp = self._np.dtype
            return dlpack_export.capsule(self, self._np.ctypes.data, self._np.shape, comp, bfloat, 0, device_type=1,
                                         strides=tuple(s // comp.itemsize for s in self._np.strides),
                                         read_only=not self._np.flags.writeable)
        return self._np.__dlpack__(**kwargs) if kwargs else self._np.__dlpack__()

    def __dlpack_device__(self):
        return self._np.__dlpack_device__()

    def __str__(self):
        return str(self.numpy())

    def __repr__(self):
        return array_display.array_repr(self, self._np)

    def list(self) -> list:
        """The elements in row-major order as one flat list, each as its kernel type: Python numbers
        for scalars (``wp.bfloat16`` values for bfloat16, as Warp's: Python has no such float), vector/matrix
        values, struct values (as Warp's ``array.list()``)."""
        flat = self._np.reshape((-1,) + self._np.shape[self.ndim:])
        if is_scalar_type(self.dtype):
            return [bfloat16(v) for v in bfloat16_values(flat).tolist()] if self.dtype is bfloat16 else flat.tolist()
        return [self._element(x) for x in flat]

    # -- properties -------------------------------------------------------------------------
    @property
    def strides(self) -> tuple:
        """Strides in bytes, one per dimension (not counting vector components)."""
        return tuple(self._np.strides[: self.ndim])

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # np.prod costs microseconds (a mesh's build reads sizes often)

    @property
    def ptr(self) -> int | None:
        """The address of the first element; None for an array with no elements (as Warp)."""
        return self._np.__array_interface__["data"][0] if self._np.size else None

    @property
    def is_contiguous(self) -> bool:
        """Whether the elements are packed in row-major order: every stride equals the dense stride (as
        Warp, a view with a step is not contiguous even when it holds one element, nor an empty array
        allocated with other strides)."""
        dense = self._np.itemsize * math.prod(self._np.shape[self.ndim:])
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if stride != dense:
                return False
            dense *= extent
        return True

    def __len__(self):
        return self.shape[0]

    # -- mutation -------------------------------------------------------------------------------
    def fill_(self, value) -> "array":
        """Set every element to ``value``: a number, a vector or matrix (or a sequence of its components, a
        matrix's also flat), or a struct value, converted as Warp converts it (array_values.py)."""
        from .array_values import element_value

        run_or_record(self._timed("_fill_now"), element_value(self.dtype, value, "fill_"), value)
        return self

    def _timed(self, method: str):
        """The bound ``method`` (a fill), timed as a memset on the host while ``wp.timing_begin`` is open (a CUDA
        array's memsets are timed by the driver's)."""
        if _timing.ranges and self.device.is_cpu:
            from ..timing_state import TIMING_MEMSET, host_activity

            return host_activity("memset", TIMING_MEMSET, getattr(self, method))
        return getattr(self, method)

    def _fill_now(self, converted, value) -> None:
        self._np[...] = converted
        if getattr(type(value), "_bw_struct", False):
            from .held_arrays import hold_values

            hold_values(self, [value])

    def zero_(self) -> "array":
        """Set every element to zero."""
        run_or_record(self._timed("_zero_now"))
        return self

    def _zero_now(self) -> None:
        self._np[...] = 0

    def assign(self, src) -> "array":
        """Copy ``src`` (an array of this dtype, or a numpy array or nested list, converted, of the same shape)
        into this array."""
        run_or_record(self._assign_now, self._assigned_data(src))
        if isinstance(src, array):
            _copied(self, src)
        return self

    def _assigned_data(self, src):
        """``src`` checked for ``assign``: an array as it is (read when the copy runs), other data as a numpy
        array of this array's shape (a copy of it while a graph is captured)."""
        if isinstance(src, array):
            check_same_dtype(self, src, "assign")
            data = src._np
        else:
            data = np.asarray(converted_for(self, _to_plain(src), "assign"))
        if data.shape != self._np.shape and data.size == self._np.size:
            data = data.reshape(self._np.shape)
        if data.shape != self._np.shape:
            raise ValueError(f"cannot assign data of shape {data.shape} to an array of shape {self._np.shape}")
        if isinstance(src, array):
            return src
        return np.array(data) if recording.recorder is not None else data

    def _assign_now(self, src) -> None:
        if not isinstance(src, array):
            self._np[...] = unshared(self._np, src)
            if getattr(self.dtype, "_bw_struct", False):  # struct records as numpy data
                from .held_arrays import hold_records

                hold_records(self, src)
            return
        self._np[...] = unshared(self._np, src._np.reshape(self._np.shape))
        from .held_arrays import hold_from

        hold_from(self, src)

    def __getitem__(self, key):
        if isinstance(key, array) or isinstance(key, tuple) and any(isinstance(k, array) for k in key):
            from .indexed_arrays import index_array_view  # a[idx]: an indexed array, as Warp

            return index_array_view(self, key)
        keys = key if isinstance(key, tuple) else (key,)
        view = self._np[keys]
        if not isinstance(view, np.ndarray) or view.ndim == len(element_layout(self.dtype)[1]):
            return self._element(view)
        if any(_copies(k) for k in keys):
            raise IndexError(f"array index {key!r} selects a copy (numpy's advanced indexing), not a view: writes "
                             f"to it would be lost. Index a copy, a.numpy()[...], or view the elements through an "
                             f"index array: a[wp.array(indices, dtype=wp.int32)] (an indexed array, as in Warp)")
        return self._view(view, lambda g: g[key])

    def _view(self, view: np.ndarray, same_view_of) -> "array":
        """An array over ``view`` of this array's data; with a gradient, its gradient is
        ``same_view_of(self.grad)`` (as Warp: gradients flow through views)."""
        out = array._wrap(view, self.dtype, self.device, owner=self)
        if self._grad is not None:
            out._grad = same_view_of(self._grad)
            out._requires_grad = self._requires_grad
        return out

    def __setitem__(self, key, value):
        run_or_record(set_unshared, self._np, key, self._item_value(key, value))

    def _item_value(self, key, value):
        """``value`` converted for ``self[key] = value`` (checked against the selection's shape, and copied
        unless it is an array's data, while a graph is captured)."""
        from .array_values import element_value, index_text

        source = isinstance(value, array)
        if getattr(self.dtype, "_bw_struct", False):
            from .held_arrays import struct_items

            value = struct_items(self, value, f"{index_text(key)} = ...")
        elif source:
            value = value._np
        elif isinstance(value, (numbers.Number, np.generic, ScalarBase, CompositeBase)):
            value = element_value(self.dtype, value, f"{index_text(key)} = ...")  # one value, converted as fill_ does
        value = converted_for(self, value if source else _to_plain(value), f"{index_text(key)} = ...")
        if recording.recorder is not None:
            selected = self._np[key if isinstance(key, tuple) else (key,)]
            try:  # a bad shape is refused now, not at replay
                np.broadcast_to(value, np.shape(selected))
            except ValueError:
                raise ValueError(f"could not broadcast input array from shape {np.shape(value)} into shape "
                                 f"{np.shape(selected)}") from None
            if not source:
                value = np.array(value, dtype=self._np.dtype)
        return value

    def _element(self, value):
        if is_scalar_type(self.dtype):
            return value.item() if hasattr(value, "item") else value
        if is_composite_type(self.dtype):
            return self.dtype(value)
        if getattr(self.dtype, "_bw_struct", False):
            from .held_arrays import held

            return self.dtype._from_record(value, self.device, held(self))
        return value

    def to(self, device) -> "array":
        """This array on ``device``: itself when it is there already, else a copy there."""
        dev = get_device(device)
        if dev == self.device:
            return self
        return array(self, dtype=self.dtype, device=dev)  # (an array of structs keeps what it points to)

    def view(self, dtype) -> "array":
        """This array's memory seen as ``dtype`` (zero-copy; see ``array_views.view``)."""
        from .array_views import view

        return view(self, dtype)

    def transpose(self, axes=None) -> "array":
        """A zero-copy view with the axes permuted (reversed by default), as Warp's."""
        from .array_views import transpose

        return transpose(self, axes)

    def contiguous(self) -> "array":
        """This array if it is contiguous, else a contiguous copy (as Warp's)."""
        from .array_copy import clone

        return self if self.is_contiguous else clone(self)

    @property
    def memory_kind(self):
        """The kind of memory behind the array (a ``wp.MemoryKind``): ``HOST`` for every CPU array."""
        from ..allocators import MemoryKind

        return MemoryKind.HOST

    @property
    def capacity(self) -> int:
        """Bytes of memory the array spans (Warp's ``capacity``; 0 when empty)."""
        from .array_views import capacity

        return capacity(self)

    @property
    def deleter(self):
        """The ``deleter`` given to ``wp.array(ptr=..., deleter=...)``, called with the pointer and capacity when
        the last view of that memory goes; None for its views and for arrays whose memory brickwork manages
        (Warp's own arrays name their allocator's function here)."""
        from .array_views import borrowed

        held = borrowed(self)
        return None if held is None else held.deleter

    def flatten(self) -> "array":
        """A 1-D view of the elements (RuntimeError when the strides allow none: ``array_views.reshape``)."""
        from .array_views import reshape

        return reshape(self, -1, flattening=True)

    def reshape(self, shape) -> "array":
        """A view of the elements with ``shape`` (one -1: the rest; RuntimeError when the strides allow none)."""
        from .array_views import reshape

        return reshape(self, shape)

    # -- copies: copy.copy and copy.deepcopy copy the data (wp.clone), as numpy's; pickling is refused ---------
    def __copy__(self) -> "array":
        from .array_copy import clone

        return clone(self)

    def __deepcopy__(self, memo) -> "array":
        from .array_copy import clone

        out = memo[id(self)] = clone(self)  # an array of structs: the arrays its elements point to are shared
        return out

    def __reduce_ex__(self, protocol):
        raise TypeError(f"cannot pickle a brickwork array ({type_name(self._key)} of shape {self.shape} on "
                        f"{self.device}): its memory may be on a device or pointed to by structs; pickle a.numpy() "
                        f"and make it again with wp.array(data, dtype={type_name(self.dtype)})")

    def __class_getitem__(cls, params):
        return ArrayType(*subscript_dtype_ndim(params, "array"))


install_arithmetic(array)
install_numpy_hints(array)


def _copies(k) -> bool:
    """Whether numpy's indexing by ``k`` gives a copy: a bool (a new axis, selected or not), a list, an array of
    indices or a mask (a 0-d integer array is an integer)."""
    return isinstance(k, (bool, np.bool_, list)) or isinstance(k, np.ndarray) and (k.ndim > 0 or k.dtype == bool)


class _ArrayNd:
    """``array2d[float32]`` / ``array2d(dtype=float32)``: annotation types with a fixed ndim."""

    def __init__(self, ndim: int):
        self.ndim = ndim
        self.__name__ = f"array{ndim}d"

    def __getitem__(self, dtype):
        return ArrayType(dtype, self.ndim)

    def __call__(self, data=None, dtype=typing.Any, shape=None, **kwargs):
        if data is None and shape is None:
            return ArrayType(dtype, self.ndim)
        return array(data, dtype=dtype, shape=shape, **kwargs)


array1d, array2d, array3d, array4d = (_ArrayNd(n) for n in (1, 2, 3, 4))


def _grad_option(a: array, kwargs: dict, like: array | None = None) -> array:
    """``requires_grad=True`` gives ``a`` a zero gradient array (``None``: as ``like``, when given)."""
    flag = kwargs.get("requires_grad")
    if flag is None and like is not None:
        flag = like.requires_grad
    if flag:
        a.requires_grad = True
    if kwargs.get("retain_grad"):
        a.retain_grad = True
    return a


#: Called as ``observe(dest, src)`` after an array is copied into another (``assign``, ``clone``,
#: ``copy``): a recording ``wp.Tape`` records the copy's adjoint this way (the types layer cannot
#: import the runtime).
copy_observers: list = []


def _copied(dest: array, src: array, region: tuple | None = None) -> None:
    for observe in copy_observers:
        observe(dest, src, region)


def check_same_dtype(dest: array, src: array, what: str) -> None:
    """Refuse copying between arrays of different dtypes, as Warp (which copies the bytes when the sizes match:
    an int32 1 becomes the float32 1.4e-45); ``what`` names the operation."""
    if dest.dtype is not src.dtype:
        from ..errors import CopyTypeError

        raise CopyTypeError(f"{what}: Incompatible array data types: destination dtype={type_name(dest.dtype)}, "
                            f"source dtype={type_name(src.dtype)} (to convert: wp.utils.array_cast(src, dest), or "
                            f"assign src.numpy())")

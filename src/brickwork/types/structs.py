"""``@struct`` classes: named records of kernel-language types, usable in kernels and on the host."""

from __future__ import annotations

import numbers
import re
import struct as _struct

import numpy as np

from ..errors import StructDefinitionError
from .array_values import check_integers
from .arrays import ArrayType, array, element_layout, type_name
from .composite import CompositeBase, held_by, is_composite_type
from .fabric_arrays import FabricArrayType, IndexedFabricArrayType
from .fixed_arrays import FixedArrayType
from .indexed_arrays import IndexedArrayType, packed_size
from .layout import pack_format, struct_offsets
from .scalars import (
    ScalarBase,
    bfloat16,
    bfloat16_bits,
    bool_,
    check_integer,
    is_scalar_type,
    python_annotation_type,
)


class StructBase:
    """Base class of ``@struct`` types; instances hold one value per field."""

    _bw_struct = True
    _fields: tuple = ()
    _size = 0
    _nested = False  # a field is a struct (whose own changes the cached bytes would miss)
    _align = 1
    _devices: frozenset = frozenset()  # where its arrays and textures (nested structs' too) live, as last packed

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._fields):
            raise TypeError(f"{type(self).__name__} has {len(self._fields)} fields, got {len(args)} values")
        for (name, _), value in zip(self._fields, args):
            kwargs.setdefault(name, value)
        for name, t in self._fields:
            if name in kwargs:
                setattr(self, name, kwargs.pop(name))
            else:
                self._store(name, _default(t))
        if kwargs:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(kwargs))!r}")

    def __setattr__(self, name, value):
        t = self._field_types.get(name)
        if t is None:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        self._store(name, _coerce(value, t, f"{type(self).__name__}.{name}"))
        object.__setattr__(self, "_bytes", None)

    def _store(self, name: str, value) -> None:
        """Set field ``name`` to ``value`` (converted, and this struct's own), which a vector or matrix then
        reports its changes in place to (``s.v[0] = 1.0`` is seen by the next launch)."""
        object.__setattr__(self, name, held_by(value, self) if isinstance(value, CompositeBase) else value)

    def _copy(self) -> "StructBase":
        """A copy with vectors, matrices and nested structs of its own (arrays shared, as references): what
        assigning this value to a struct field stores, since Warp's struct fields hold values."""
        out = object.__new__(type(self))
        for name, t in self._fields:
            value = getattr(self, name)
            if isinstance(value, CompositeBase):
                value = t(value)
            elif isinstance(value, StructBase):
                value = value._copy()
            out._store(name, value)
        return out

    def to(self, device) -> "StructBase":
        """A copy whose arrays are on ``device``: an array already there is shared, others are copied (an
        indexed array's selection becomes a plain array there); a fabric array cannot move, since brickwork
        does not own its storage, and must already be there (ValueError)."""
        from ..device import get_device
        from .fabric_arrays import FABRIC_TYPES, FabricArrayType
        from .indexed_arrays import indexedarray

        device = get_device(device)
        out = type(self)()
        for name, t in self._fields:
            value = getattr(self, name)
            if isinstance(value, StructBase):
                value = value.to(device)
            elif value is not None and isinstance(t, FABRIC_TYPES):
                if value.device is not None and value.device != device:
                    kind = "Fabric array" if isinstance(t, FabricArrayType) else "indexed Fabric array"
                    raise ValueError(f"Cannot move struct field '{name}' containing a Warp {kind} from device "
                                     f"{value.device} to {device}")
            elif isinstance(value, indexedarray):
                if value.device != device:
                    value = indexedarray(value.contiguous().to(device))
            elif value is not None and isinstance(t, ArrayType):
                value = value.to(device)
            setattr(out, name, value)
        return out

    def __repr__(self):
        inner = ", ".join(f"{n}={_plain_field(getattr(self, n))!r}" for n, _ in self._fields)
        return f"{type(self).__name__}({inner})"

    def _to_bytes(self) -> bytes:
        """The C layout of this value, for kernel arguments (cached until a field is assigned; a
        nested struct's own changes are seen because it is packed afresh)."""
        cached = self.__dict__.get("_bytes")
        if cached is not None and not self._nested:
            return cached
        buf = bytearray(self._size)
        devices = set()
        for (name, t), offset in zip(self._fields, self._offsets):
            value = getattr(self, name)
            _struct.pack_into("<" + pack_format(t), buf, offset, *_flat(value, t))
            if isinstance(t, ArrayType) and value is not None:
                devices.add(value.device)
            elif isinstance(value, StructBase):
                devices |= value._devices  # packed just now, by _flat
        data = bytes(buf)
        object.__setattr__(self, "_bytes", data)
        object.__setattr__(self, "_devices", struct_devices(devices))
        return data

    def __ctype__(self):
        """This value's C layout as a ``ctypes.Structure`` (a snapshot, as Warp's)."""
        from .ctype_mirror import mirror, struct_snapshot

        return mirror(self._to_bytes(), struct_snapshot(self))

    @classmethod
    def _from_record(cls, record, device=None, held=None) -> "StructBase":
        """A struct value from one element of a numpy array of this struct's layout. An array field is the
        array stored there when the array of structs recorded it (``held``: held_arrays.py); otherwise, in
        CPU memory (``device``), an array viewing the memory it points to, as in Warp (which does not keep
        that alive), else left at its default."""
        value = cls()
        for name, t in cls._fields:
            if is_scalar_type(t):
                setattr(value, name, t(record[name]))
            elif is_composite_type(t):
                setattr(value, name, t(record[name]))
            elif getattr(t, "_bw_struct", False):
                setattr(value, name, t._from_record(record[name], device, held))
            elif isinstance(t, ArrayType):
                packed = bytes(record[name])
                stored = held.get((t, packed)) if held else None
                if stored is None and device is not None and device.is_cpu and type(t) is ArrayType:
                    stored = _array_field(t, packed, device)
                if stored is not None:
                    setattr(value, name, stored)
        return value

    def numpy_value(self):
        """This value as one record of ``numpy_dtype()`` (for ``np.full``/``ndarray.fill`` of struct data)."""
        return np.frombuffer(self._to_bytes(), dtype=self._numpy_dtype())[0].copy()

    @classmethod
    def numpy_dtype(cls) -> dict:
        """This struct's C layout as numpy's dict form of a structured dtype (``names``, ``formats``,
        ``offsets``, ``itemsize``; a nested struct's format is its own dict), as Warp's: ``np.dtype(d)`` is the
        dtype of ``a.numpy()`` of an array of it, and ``np.zeros(n, dtype=d)`` takes it as it is. An array
        field is its descriptor's bytes."""
        formats = []
        for _, t in cls._fields:
            if is_scalar_type(t):
                formats.append(np.dtype(t._np))
            elif is_composite_type(t):
                formats.append(np.dtype((t._dtype._np, t._shape)))
            elif getattr(t, "_bw_struct", False):
                formats.append(t.numpy_dtype())
            else:
                formats.append(np.dtype((np.uint8, packed_size(t))))
        return {"names": [name for name, _ in cls._fields], "formats": formats, "offsets": list(cls._offsets),
                "itemsize": cls._size}

    @classmethod
    def _numpy_dtype(cls) -> np.dtype:
        return np.dtype(cls.numpy_dtype())


def _array_field(t: ArrayType, packed: bytes, device):
    """The array a packed array field (pointer, shape, element strides) describes; None when null."""
    ptr, *rest = _struct.unpack(f"<Q{2 * t.ndim}q", packed)
    shape, elem_strides = tuple(rest[:t.ndim]), rest[t.ndim:]
    if ptr == 0:
        return None
    comp, trailing = element_layout(t.dtype)
    element_bytes = comp.itemsize * int(np.prod(trailing, dtype=np.int64))
    return array(ptr=ptr, shape=shape, strides=tuple(s * element_bytes for s in elem_strides), dtype=t.dtype,
                 device=device)


def _plain_field(value):
    return value.value if isinstance(value, ScalarBase) else value


def _default(t):
    if is_scalar_type(t):
        return t(0)  # a value of the field's type, as Warp's
    if is_composite_type(t):
        return t()
    if getattr(t, "_bw_struct", False):
        return t()
    return None


def _coerce(value, t, where):
    if is_scalar_type(t):
        if not (isinstance(value, (numbers.Real, np.bool_, ScalarBase))):
            got = f"a {type(value).__name__}" + (f" {value!r}" if isinstance(value, (CompositeBase, str)) else "")
            raise TypeError(f"struct field {where} expects {type_name(t)} (a number), got {got}")
        if t.is_int:
            check_integer(value, f"struct field {where} ({type_name(t)})")
            check_integers(t, value, f"struct field {where}", t)  # 2**40 for an int32 field: refused, not wrapped
        if isinstance(value, ScalarBase):  # a typed value keeps the field's type; a Python number stays one
            return t(value.value)
        try:
            return t._convert(value)
        except OverflowError:  # 10**400 for a float field: no float holds it (Python's message names nothing)
            shown = f"an integer of {value.bit_length()} bits" if isinstance(value, int) else f"{value!r:.60}"
            raise OverflowError(f"struct field {where} ({type_name(t)}): {shown} is too large for any float") from None
    if is_composite_type(t):
        if value is None:
            return t()
        if type(value) is not bool and isinstance(value, (int, float)) or \
                isinstance(value, ScalarBase) and type(value) is not bool_:  # Warp refuses promoting one number
            raise TypeError(f"Struct field '{where.rsplit('.', 1)[-1]}' expects {type_name(t)} but got a single value")
        if getattr(t._dtype, "is_int", False) and type(value) is not t:  # (300, 0, 0) for a vec3ub field
            check_integers(t._dtype, value, f"struct field {where}", t)
        try:
            return t(value)  # a copy, always: later changes to ``value`` do not reach the field (nor back)
        except (TypeError, ValueError) as e:
            raise type(e)(f"struct field {where}: {e}") from None
    if isinstance(t, ArrayType):
        if value is not None and getattr(value, "_key", None) is not t:  # an array or indexed array of type t
            raise TypeError(f"{where} needs {t!r}: {_array_field_mismatch(where, t, value)}")
        return value
    if value is not None and type(value) is not t:
        raise TypeError(f"{where} needs {type_name(t)}, got {type(value).__name__}")
    return None if value is None else value._copy()  # a nested struct is a value too


def _array_field_mismatch(where: str, t, value) -> str:
    """What is wrong with ``value`` for the array field ``where`` of type ``t``, in Warp's words."""
    field = where.rsplit(".", 1)[-1]
    kinds = {IndexedArrayType: "indexed array", FabricArrayType: "Fabric array",
             IndexedFabricArrayType: "indexed Fabric array"}
    kind = kinds.get(type(t), "array")
    got = getattr(value, "_key", None)
    if not isinstance(got, ArrayType):
        return f"Struct field '{field}' expects a Warp {kind}, got {type(value).__name__}"
    if type(got) is not type(t):
        return f"Struct field '{field}' expects a Warp {kind}, got {type(value).__name__}"
    if got.dtype is not t.dtype:
        return f"Struct field '{field}' expects dtype {type_name(t.dtype)}, got {type_name(got.dtype)}"
    return f"Struct field '{field}' expects an array with {t.ndim} dimension(s), got {got.ndim} dimension(s)"


def _flat(value, t) -> list:
    if is_scalar_type(t):
        value = value.value if isinstance(value, ScalarBase) else value
        return [int(bfloat16_bits(float(value)))] if t is bfloat16 else [value]  # bfloat16: stored as its bits
    if isinstance(value, CompositeBase):
        return value.flat_values()
    if isinstance(t, ArrayType):
        return [value._packed if value is not None else bytes(packed_size(t))]
    return [value._to_bytes()]


def _evaluate_annotation(cls, name: str, text: str):
    import sys

    namespace = dict(vars(sys.modules[cls.__module__])) if cls.__module__ in sys.modules else {}
    try:
        return eval(text, namespace, dict(vars(cls)))  # noqa: S307 - the user's own annotation text
    except NameError as e:
        if e.name != cls.__name__:
            raise TypeError(f"struct {cls.__name__}: cannot evaluate the annotation {text!r} of field {name!r}: "
                            f"{e}") from None
        # the class is not bound to its name until the decorator returns; a struct holding itself (or an array of
        # itself) has no finite layout in C either
        raise StructDefinitionError(f"struct {cls.__name__}: field {name!r} refers to {cls.__name__} itself "
                                    f"({text!r}); a struct cannot contain itself or an array of itself: keep the "
                                    f"nodes in an array of {cls.__name__} and store an int index") from None
    except Exception as e:  # noqa: BLE001 - any failure is the annotation's
        raise TypeError(f"struct {cls.__name__}: cannot evaluate the annotation {text!r} of field {name!r}: "
                        f"{e}") from None


def struct(cls):
    """Decorator making a class with annotated fields a kernel-language struct."""
    if cls.__bases__ != (object,):  # the fields would hide the base's: Warp refuses it too (and in these words)
        raise StructDefinitionError(f"struct {cls.__name__} derives from "
                                     f"{', '.join(b.__name__ for b in cls.__bases__)}: Warp structs must be "
                                     f"defined as base classes")
    annotations = cls.__dict__.get("__annotations__", {})
    fields = []
    for name, ann in annotations.items():
        if isinstance(ann, str):  # ``from __future__ import annotations``: evaluate in the class's module
            ann = _evaluate_annotation(cls, name, ann)
        t = python_annotation_type(ann)
        if not (is_scalar_type(t) or is_composite_type(t) or isinstance(t, ArrayType)
                or getattr(t, "_bw_struct", False)):
            raise TypeError(f"struct {cls.__name__}: field {name!r} has unsupported type {type_name(t)}")
        if isinstance(t, ArrayType) and not (is_scalar_type(t.dtype) or is_composite_type(t.dtype)
                                             or getattr(t.dtype, "_bw_struct", False)):
            raise TypeError(f"struct {cls.__name__}: field {name!r} is an array of {type_name(t.dtype)}, which "
                            f"arrays cannot hold (a scalar, vector, matrix or struct type)")
        if isinstance(t, FixedArrayType):  # its elements live in a kernel's frame: no host layout to mirror
            raise TypeError(f"struct {cls.__name__}: field {name!r} is a fixed-size local array "
                            f"({type_name(t)}); use a vector, a matrix or an array field")
        fields.append((name, t))
    offsets, size, align = struct_offsets([t for _, t in fields])
    attrs = {
        "_fields": tuple(fields), "_field_types": dict(fields), "_offsets": tuple(offsets),
        "_nested": any(getattr(t, "_bw_struct", False) for _, t in fields),
        "_size": size, "_align": align, "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
    }
    made = type(cls.__name__, (StructBase,), attrs)
    if "cls" not in made._field_types:
        made.cls = made  # Warp's name for the class of a struct's instances (here the struct itself)
    if "key" not in made._field_types:  # Warp's name for a struct: its qualified name as one identifier
        made.key = re.sub("[^0-9a-zA-Z_]+", "", cls.__qualname__.replace(".", "__"))
    if "vars" not in made._field_types:  # Warp's fields of a struct: name -> an object with .label and .type
        made.vars = {name: StructField(name, t) for name, t in fields}
    return made


class StructField:
    """One field of a struct as Warp's ``Struct.vars`` gives it: its ``label`` (name) and ``type``."""

    __slots__ = ("label", "type")

    def __init__(self, label: str, type):
        self.label = label
        self.type = type

    def __repr__(self):
        return f"StructField({self.label!r}, {type_name(self.type)})"


def is_struct_type(t) -> bool:
    return isinstance(t, type) and issubclass(t, StructBase) and t is not StructBase


_DEVICE_SETS: dict = {}


def struct_devices(devices) -> frozenset:
    """The one frozenset object of these devices (a launch compares a struct's with ``is``)."""
    key = frozenset(devices)
    return _DEVICE_SETS.setdefault(key, key)


def has_array_fields(t) -> bool:
    """Whether struct type ``t`` holds arrays, itself or in nested structs: its adjoint in a backward
    kernel is then a struct of the same type that holds their gradients."""
    return is_struct_type(t) and any(isinstance(ft, ArrayType) or has_array_fields(ft) for _, ft in t._fields)


def has_device_fields(t) -> bool:
    """Whether a value of struct type ``t`` points into one device's memory: it is a texture, or holds arrays or
    textures, itself or in nested structs (a launch checks that they live on its device)."""
    return is_struct_type(t) and (getattr(t, "_bw_texture", 0) > 0 or any(
        isinstance(ft, ArrayType) or has_device_fields(ft) for _, ft in t._fields))


def gradient_struct(value):
    """A struct of ``value``'s type whose array fields are the gradients of ``value``'s arrays (None
    where an array has none), nested structs alike; its other fields keep their defaults."""
    out = type(value)()
    for name, t in value._fields:
        field = getattr(value, name)
        if isinstance(t, ArrayType) and field is not None:
            object.__setattr__(out, name, field.grad)
        elif has_array_fields(t) and field is not None:
            object.__setattr__(out, name, gradient_struct(field))
    return out

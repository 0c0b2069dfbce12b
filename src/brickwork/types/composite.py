"""Vector, matrix and quaternion types, and their host-side values.

``vector(3, float32)`` returns one class per (length, dtype), cached, so types compare with ``is``. Host values hold
their components in a small numpy array and behave like short sequences (indexing, iteration, repr, numpy conversion,
+, -, scalar *).
"""

from __future__ import annotations

import typing
import weakref

import numpy as np

from ..errors import BrickworkError
from .composite_access import check_assigned, check_constructor, check_key, col_index, from_ptr, row_index
from .composite_arithmetic import matmul, product, remainder, scalar_minus, scalar_operand, scalar_plus
from .scalars import (
    SCALAR_TYPES,
    GenericPlaceholder,
    NotAnIntegerError,
    ScalarBase,
    bfloat16,
    bfloat16_bits,
    bfloat16_values,
    bool_,
    check_integer,
    float16,
    float32,
    float64,
    int32,
    is_scalar_type,
)

_SUFFIX = {
    "b": "int8", "ub": "uint8", "s": "int16", "us": "uint16", "i": "int32", "ui": "uint32",
    "l": "int64", "ul": "uint64", "h": "float16", "f": "float32", "d": "float64",
}
_SCALAR_BY_NAME = {t.__name__: t for t in SCALAR_TYPES}
_SUFFIX_OF = {v: k for k, v in _SUFFIX.items()}


class _TypedItem:
    """An element shown as ``float64(1.0)`` in a composite value's repr."""

    def __init__(self, type_name: str, value):
        self.text = f"{type_name}({value!r})"

    def __repr__(self):
        return self.text


def _typed_items(items, type_name: str):
    if isinstance(items, list):
        return [_typed_items(x, type_name) for x in items]
    return _TypedItem(type_name, items)


class CompositeBase:
    """Common host behaviour of vectors, matrices and quaternions."""

    # __dict__: attributes set by users, as on Warp's values; _in_struct: the struct holding this value as a field
    __slots__ = ("_data", "_in_struct", "__dict__")
    _shape: tuple = ()
    _dtype: type = float32
    _kind = "vector"

    def __init__(self, *args):
        # bfloat16 components are held as float32 values, rounded to bfloat16 (numpy has no bfloat16)
        np_type = np.float32 if self._dtype is bfloat16 else \
            self._dtype._np if is_scalar_type(self._dtype) else np.float64
        size = int(np.prod(self._shape))
        if getattr(self._dtype, "is_int", False):
            args = tuple(_integer_components(a, self._dtype, f"{type(self).__name__}()") for a in args)
        if len(args) > 1:
            check_constructor(type(self), args, size)
        if len(args) == 0:
            data = np.zeros(self._shape, dtype=np_type)
        elif len(args) == 1 and np.ndim(_plain(args[0])) == 0:
            data = np.full(self._shape, _component(args[0], type(self)), dtype=np_type)
        elif len(args) == 1:  # a copy: vec3(v) is a new vector, as in Warp, never a view of v
            data = np.array(_plain(args[0]), dtype=np_type)
        elif len(args) == size:
            data = np.asarray([_component(a, type(self)) for a in args], dtype=np_type)
        else:
            data = _from_parts(type(self), args, np_type)
        if data.size != size:
            raise ValueError(
                f"{type(self).__name__} needs {size} components, got {data.size} from {args!r}")
        if self._dtype is bfloat16:
            data = bfloat16_values(bfloat16_bits(data))
        self._data = data.reshape(self._shape)

    def __len__(self):
        return self._shape[0]

    def __getitem__(self, index):
        check_key(self, index)
        value = self._data[index]
        if isinstance(value, np.ndarray):  # a row, or a slice (v[0:2], m[1:]): a vector or matrix, as in Warp
            if value.ndim == 1:
                return vector(value.shape[0], self._dtype)(value)
            if value.ndim == 2:  # an empty one (m[5:] of a mat44) is the (0, 0) matrix, as in kernels
                return matrix(value.shape if value.size else (0, 0), self._dtype)(value.reshape(-1))
            return value.copy()
        return value.item()

    def __setitem__(self, index, value):
        check_key(self, index)
        check_assigned(self, index, value)
        if getattr(self._dtype, "is_int", False):
            value = _integer_components(value, self._dtype, f"{type(self).__name__} component")
        self._data[index] = _plain(value)
        _changed(self)

    def __reduce__(self):
        """Pickled as its type's constructor and components: types made on the fly (``vector(5, float16)``) are
        made again, the same class as ``vector``'s cache gives."""
        state = self.__dict__ or None
        return _rebuild, (self._kind, self._shape, self._dtype, self._data.tolist()), state

    @classmethod
    def from_ptr(cls, ptr: int):
        """A value copied from the components at memory address ``ptr``."""
        return from_ptr(cls, ptr)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __array__(self, dtype=None, copy=None):
        return self._data.astype(dtype) if dtype is not None else self._data.copy()

    def __repr__(self):  # as Warp: elements of types a Python number does not denote show their type
        items = self._data.tolist()
        if self._dtype not in (float32, int32, bool_):
            items = _typed_items(items, self._dtype.__name__)
        return f"{type(self).__name__}({items!r})"

    def __str__(self):  # as Warp prints them: a list, a matrix one row per line
        if self._kind == "matrix":
            return "[" + ",\n ".join(str(row) for row in self._data.tolist()) + "]"
        return str(self._data.tolist())

    def __eq__(self, other):
        try:
            return bool(np.array_equal(self._data, np.asarray(other)))
        except Exception:
            return NotImplemented

    __hash__ = None  # mutable

    def _new(self, data):
        if data.dtype != self._data.dtype and getattr(self._dtype, "is_int", False):
            data = data.astype(self._data.dtype)  # a computed result (int / int truncates, as in kernels)
        return type(self)(data)

    def _refuse_mixed(self, other, op: str, reflected: bool = False) -> None:
        """Refuse what Warp's host operators refuse and numpy would convert without a word: values of two
        component types (``vec3i + vec3f``), or an integer value with a float (``vec3i * 2.5`` gave
        ``[2, 5, 7]``)."""
        if isinstance(other, CompositeBase):
            mixed = other._dtype is not self._dtype
        elif getattr(self._dtype, "is_int", False):
            kind = scalar_operand(other)
            mixed = (kind is not None and not (kind.is_int or kind is bool_)) if kind is not None else \
                isinstance(other, (list, tuple, np.ndarray)) and np.asarray(other).dtype.kind == "f"
        else:
            mixed = False
        if mixed:
            names = [type(self).__name__, type(other).__name__][::-1 if reflected else 1]
            raise NoOverloadError(f"Couldn't find a function '{op}' compatible with the arguments '{names[0]}, "
                                  f"{names[1]}' (nothing is converted, as in kernels: convert one side, e.g. "
                                  f"wp.vec3f(v))")

    def __add__(self, other):
        self._refuse_mixed(other, "add")
        return self._new(self._data + np.asarray(other))

    def __sub__(self, other):
        self._refuse_mixed(other, "sub")
        return self._new(self._data - np.asarray(other))

    def __neg__(self):
        return self._new(-self._data)

    def __pos__(self):
        return self._new(self._data.copy())

    def __mul__(self, other):
        if np.ndim(_plain(other)) == 0:
            self._refuse_mixed(other, "mul")
            return self._new(self._data * _plain(other))
        if isinstance(other, CompositeBase):
            return product(self, other)
        return NotImplemented

    def __rmul__(self, other):
        if np.ndim(_plain(other)) == 0:
            self._refuse_mixed(other, "mul", reflected=True)
            return self._new(_plain(other) * self._data)
        return NotImplemented

    __matmul__ = __rmatmul__ = matmul  # m @ 2.0 and 2.0 @ m scale, as on Warp's host
    __radd__, __rsub__ = scalar_plus, scalar_minus  # 2.0 + v and 1.0 - v, as on Warp's host

    def __truediv__(self, other):
        self._refuse_mixed(other, "div")
        return self._new(self._data / _plain(other))

    def __rtruediv__(self, other):
        if np.ndim(_plain(other)) == 0:
            self._refuse_mixed(other, "div", reflected=True)
            return self._new(_plain(other) / self._data)
        return NotImplemented

    def __bytes__(self) -> bytes:
        """The components' bytes, row-major, as an array of this type stores them (and as in a kernel)."""
        if self._dtype is bfloat16:
            return bfloat16_bits(self._data).tobytes()
        return np.ascontiguousarray(self._data).tobytes()

    def flat_values(self) -> list:
        """Components in row-major order (for packing kernel arguments; bfloat16 ones as their bit patterns)."""
        if self._dtype is bfloat16:
            return bfloat16_bits(self._data).ravel().tolist()
        return self._data.ravel().tolist()


class NoOverloadError(BrickworkError, TypeError, RuntimeError):
    """A host operator on composite values of types it does not combine (a TypeError, and a RuntimeError as
    Warp raises)."""


def _integer_components(x, dtype, where: str):
    """``x`` (a number, a value, an array or nested sequences of them) given for integer components: Python ints
    out of range wrap into ``dtype``'s, as scalars' (``uint8(-1)`` is 255); anything not an integer is refused,
    as Warp refuses it, rather than truncated."""
    if isinstance(x, (list, tuple)):
        return [_integer_components(v, dtype, where) for v in x]
    if isinstance(x, (CompositeBase, np.ndarray)):
        kind = x._dtype if isinstance(x, CompositeBase) else x.dtype
        if isinstance(x, CompositeBase) and not (getattr(kind, "is_int", False) or kind is bool_) or \
                isinstance(x, np.ndarray) and kind.kind not in "iub":
            got = repr(x) if isinstance(x, CompositeBase) else f"a {kind} array"
            raise NotAnIntegerError(f"{where} takes integers, got {got}")
        return x
    check_integer(x, where)
    return dtype._convert(x) if isinstance(x, int) and not isinstance(x, bool) else x


def _changed(value: CompositeBase) -> None:
    """Tell the struct holding ``value`` as a field (if any) that its packed bytes are stale."""
    holder = getattr(value, "_in_struct", None)
    struct = holder() if holder is not None else None
    if struct is not None:
        struct.__dict__["_bytes"] = None


def held_by(value: CompositeBase, struct) -> CompositeBase:
    """Mark ``value`` as a field of ``struct``, whose packed bytes then follow changes made in place."""
    value._in_struct = weakref.ref(struct)
    return value


def _rebuild(kind: str, shape: tuple, dtype, data) -> CompositeBase:
    """A value from ``CompositeBase.__reduce__``'s parts (unpickling)."""
    made = {"vector": lambda: vector(shape[0], dtype), "matrix": lambda: matrix(shape, dtype),
            "quat": lambda: quaternion(dtype), "transform": lambda: transformation(dtype)}[kind]
    return made()(data)


def _component(a, cls):
    """A scalar argument of a constructor as a number: None, a string or another object that is no number is
    refused, as Warp refuses it (numpy read None as NaN and '1' as 1.0); vectors pass (rows of a matrix)."""
    v = _plain(a)
    if hasattr(type(v), "__float__") or hasattr(type(v), "__index__") or np.ndim(v) > 0:  # numbers, 0-d arrays
        return v
    raise TypeError(f"{cls.__name__}(): a component must be a real number, not {type(a).__name__}")


def _from_parts(cls, args, np_type):
    """A value built from parts: spatial_vector(w, v) of equal parts, quat(xyz, w) as the kernel builtin; parts of
    other sizes are refused in the kernels' words (numpy's message spoke of an inhomogeneous shape)."""
    parts = [np.asarray(_plain(a)) for a in args]
    if cls._kind == "quat" and len(parts) == 2 and parts[0].shape == (3,) and parts[1].ndim == 0:
        return np.append(parts[0], _component(args[1], cls)).astype(np_type)
    if len({p.shape for p in parts}) != 1:
        raise ValueError(f"cannot build {cls.__name__} from ({', '.join(type(a).__name__ for a in args)})")
    return np.asarray(parts, dtype=np_type)


def _plain(x):
    if isinstance(x, ScalarBase):
        return x.value
    if isinstance(x, CompositeBase):
        return x._data
    return x


class VectorBase(CompositeBase):
    """Base class of ``vector(length, dtype)`` types."""

    __slots__ = ()
    _length = 3

    def _component(name: str, index: int):  # noqa: N805 - helper used at class creation
        def get(self):
            if index >= self._length:
                raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
            return self[index]

        def put(self, v):
            if index >= self._length:
                raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
            self.__setitem__(index, v)

        return property(get, put)

    def __mod__(self, other):
        """Componentwise ``%`` by a vector of this type or a scalar of its component type, as in kernels (integers:
        the dividend's sign, and 0 for a remainder by 0; floats: fmod)."""
        return self._mod(other, reflected=False)

    def __rmod__(self, other):
        """``scalar % vector``, componentwise: the scalar by each component."""
        return self._mod(other, reflected=True)

    def _mod(self, other, reflected: bool):
        if self._kind != "vector":
            return NotImplemented
        if isinstance(other, CompositeBase) or scalar_operand(other) is not None:
            if type(other) is not type(self) and scalar_operand(other) is not self._dtype:
                names = [type(self).__name__, type(other).__name__][::-1 if reflected else 1]
                raise NoOverloadError(f"Couldn't find a function 'mod' compatible with the arguments '{names[0]}, "
                                      f"{names[1]}': the other operand must be of type {type(self).__name__} or "
                                      f"{self._dtype.__name__}")
            b = np.full(self._shape, _plain(other), dtype=self._data.dtype)
            return self._new(remainder(b, self._data) if reflected else remainder(self._data, b))
        return NotImplemented

    def __setattr__(self, name, value):
        if len(name) > 1 and set(name) <= set("xyzw"):  # swizzles read nothing and store nothing, as in Warp
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        object.__setattr__(self, name, value)

    x = _component("x", 0)
    y = _component("y", 1)
    z = _component("z", 2)
    w = _component("w", 3)
    del _component


class MatrixBase(CompositeBase):
    """Base class of ``matrix(shape, dtype)`` types (row-major)."""

    __slots__ = ()
    _kind = "matrix"

    def get_row(self, i: int):
        return self[row_index(self, i)]

    def set_row(self, i: int, value):
        self[row_index(self, i)] = value

    def get_col(self, j: int):
        return vector(self._shape[0], self._dtype)(self._data[:, col_index(self, j)])

    def set_col(self, j: int, value):
        self[:, col_index(self, j)] = value


class QuaternionBase(VectorBase):
    """Base class of quaternions ``quat(x, y, z, w)``; w is the real part."""

    __slots__ = ()
    _kind = "quat"
    _length = 4


class TransformBase(VectorBase):
    """Base class of rigid transforms ``transform(p, q)``: translation ``p`` (3-vector) then rotation
    ``q`` (quaternion), seven components as in Warp; ``transform()`` is the identity."""

    __slots__ = ()
    _kind = "transform"
    _length = 7

    def __init__(self, *args, **kwargs):
        unknown = [k for k in kwargs if k not in ("p", "q")]
        if unknown:  # Warp's words, for each misuse
            raise TypeError(f"got an unexpected keyword argument '{unknown[0]}'")
        if len(args) > 2 and kwargs:
            raise TypeError(f"multiple values for argument '{next(iter(kwargs))}'")
        if len(args) == 1 and not kwargs:
            a = _plain(args[0])
            if np.ndim(a) == 0 and not isinstance(a, (int, float, bool, np.number, np.bool_)):
                raise TypeError(f"Invalid argument in transformation constructor: expected a scalar value, got "
                                f"{type(args[0]).__name__}")
            if np.size(a) != 3:
                super().__init__(*args)  # one value for every component, or the seven components
                return
        if len(args) <= 2:
            p = args[0] if args else kwargs.get("p")
            q = args[1] if len(args) == 2 else kwargs.get("q")
            for name, part in (("p", p), ("q", q)):
                if part is not None and np.ndim(_plain(part)) == 0:
                    raise TypeError(f"Invalid argument '{name}' in transformation constructor: expected a sequence, "
                                    f"got {type(part).__name__}")
            p = np.zeros(3) if p is None else np.asarray(_plain(p), dtype=np.float64)
            q = np.array([0.0, 0.0, 0.0, 1.0]) if q is None else np.asarray(_plain(q), dtype=np.float64)
            args = (np.concatenate([p.ravel(), q.ravel()]),)
        super().__init__(*args)

    @property
    def p(self):
        return vector(3, self._dtype)(self._data[:3])

    @p.setter
    def p(self, value):
        self._data[:3] = np.asarray(_plain(value))
        _changed(self)

    @property
    def q(self):
        return quaternion(self._dtype)(self._data[3:])

    @q.setter
    def q(self, value):
        self._data[3:] = np.asarray(_plain(value))
        _changed(self)


def transformation(dtype=float32):
    """The transform type with ``dtype`` components (cached); Warp's ``wp.types.transformation``."""
    if dtype is float:
        dtype = float32
    return _fixed_length_type("transform", TransformBase, 7, dtype, "transform_t")


def _warp_names(shape, dtype, generic: str) -> dict:
    """The class attributes Warp code reads from composite types: _shape_, _length_, _wp_scalar_type_,
    _wp_generic_type_str_ (the C++ template: vec_t, mat_t, quat_t, transform_t)."""
    if shape is typing.Any or any(d is typing.Any for d in shape):
        return {"_wp_generic_type_str_": generic}
    length = 1
    for d in shape:
        length *= d
    return {"_shape_": tuple(shape), "_length_": length, "_wp_scalar_type_": dtype, "_wp_generic_type_str_": generic}


def _type_label(dtype) -> str:
    return getattr(dtype, "__name__", repr(dtype))


_VECTOR_CACHE: dict = {}


def _kernel_dtype(dtype):
    """``float``, ``int`` and ``bool`` as the kernel types they stand for (float32, int32, bool_); others as given."""
    if dtype is float:
        return float32
    if dtype is int:
        return int32
    return bool_ if dtype is bool else dtype


def vector(length, dtype=float32):
    """The vector type of ``length`` components of ``dtype`` (cached: same arguments, same class)."""
    dtype = _kernel_dtype(dtype)
    if length is not typing.Any and (not isinstance(length, int) or isinstance(length, bool)):
        # before the cache: True and 2.0 are equal to 1 and 2 as keys (True made a type 'vecTruef')
        raise TypeError(f"vector length must be a non-negative int, got {length!r}")
    key = ("vector", length, dtype)
    cls = _VECTOR_CACHE.get(key)
    if cls is None:
        if dtype is not typing.Any and not is_scalar_type(dtype) and not isinstance(dtype, GenericPlaceholder):
            raise TypeError(f"vector dtype must be a scalar type, got {_type_label(dtype)}")
        if length is not typing.Any and length < 0:
            raise TypeError(f"vector length must be a non-negative int, got {length!r}")
        name = _family_name("vec", length, dtype) or f"vector(length={length}, dtype={_type_label(dtype)})"
        cls = type(name, (VectorBase,), {"__slots__": (), "_length": length, "_shape": (length,),
                                         "_dtype": dtype, "dtype": dtype, "length": length,
                                         **_warp_names((length,), dtype, "vec_t")})
        _VECTOR_CACHE[key] = cls
    return cls


def matrix(shape, dtype=float32):
    """The matrix type of ``shape=(rows, cols)`` with ``dtype`` components (cached)."""
    dtype = _kernel_dtype(dtype)
    try:
        shape = tuple(shape) if shape is not typing.Any else shape
    except TypeError:
        shape = (shape,)  # not a sequence: refused below, naming it
    if shape is not typing.Any and all(d is typing.Any for d in shape):
        shape = typing.Any  # (Any, Any): any number of rows and columns, as Warp writes it
    if shape is not typing.Any and all(isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_))
                                       for d in shape):
        shape = tuple(int(d) for d in shape)  # numpy's sizes (a shape's entries) as Python ints
    if shape is not typing.Any and (len(shape) != 2 or any(type(d) is not int for d in shape)
                                    or (min(shape) < 1 and shape != (0, 0))):
        # before the cache: (True, True) and (2.0, 2) are equal to (1, 1) and (2, 2) as keys
        raise TypeError(f"matrix shape must be (rows, cols) with positive int sizes (or (0, 0), the empty "
                        f"matrix), got {shape!r}")
    key = ("matrix", shape, dtype)
    cls = _VECTOR_CACHE.get(key)
    if cls is None:
        if dtype is not typing.Any and not is_scalar_type(dtype) and not isinstance(dtype, GenericPlaceholder):
            raise TypeError(f"matrix dtype must be a scalar type, got {_type_label(dtype)}")
        name = None
        if shape is not typing.Any and shape[0] == shape[1]:
            name = _family_name("mat", shape[0], dtype)
        name = name or f"matrix(shape={shape}, dtype={_type_label(dtype)})"
        cls = type(name, (MatrixBase,), {"__slots__": (), "_shape": shape, "_dtype": dtype,
                                         "dtype": dtype, "shape": shape, **_warp_names(shape, dtype, "mat_t")})
        _VECTOR_CACHE[key] = cls
    return cls


def quaternion(dtype=float32):
    """The quaternion type with ``dtype`` components (cached)."""
    return _fixed_length_type("quat", QuaternionBase, 4, dtype, "quat_t")


def _fixed_length_type(kind: str, base: type, length: int, dtype, generic: str) -> type:
    """The ``kind`` type (``quat``, ``transform``: ``length`` components of ``dtype``), made once and cached."""
    key = (kind, dtype)
    cls = _VECTOR_CACHE.get(key)
    if cls is None:
        suffix = _SUFFIX_OF.get(getattr(dtype, "__name__", ""), "")
        cls = type(f"{kind}{suffix}", (base,), {"__slots__": (), "_length": length, "_shape": (length,),
                                                "_dtype": dtype, "dtype": dtype, "length": length,
                                                **_warp_names((length,), dtype, generic)})
        _VECTOR_CACHE[key] = cls
    return cls


def _family_name(prefix: str, length, dtype) -> str | None:
    if not isinstance(length, int) or not is_scalar_type(dtype):
        return None
    suffix = _SUFFIX_OF.get(dtype.__name__)
    if suffix is None:
        return None
    return f"vec{length}{suffix}" if prefix == "vec" else f"mat{length}{length}{suffix}"


def is_vector_type(t) -> bool:
    return isinstance(t, type) and issubclass(t, VectorBase) and t._kind == "vector" and t is not VectorBase


def is_matrix_type(t) -> bool:
    return isinstance(t, type) and issubclass(t, MatrixBase) and t is not MatrixBase


def is_quat_type(t) -> bool:
    return isinstance(t, type) and issubclass(t, QuaternionBase) and t is not QuaternionBase


def is_transform_type(t) -> bool:
    return isinstance(t, type) and issubclass(t, TransformBase) and t is not TransformBase


def is_composite_type(t) -> bool:
    return is_vector_type(t) or is_matrix_type(t) or is_quat_type(t) or is_transform_type(t)


def family_namespace() -> dict:
    """The named families: vec2..vec4 and mat22..mat44 with suffixes, quat, spatial_vector and
    spatial_matrix, and their suffixes."""
    names: dict = {}
    for n in (2, 3, 4):
        names[f"vec{n}"] = vector(n, float32)
        names[f"mat{n}{n}"] = matrix((n, n), float32)
        for suffix, tname in _SUFFIX.items():
            names[f"vec{n}{suffix}"] = vector(n, _SCALAR_BY_NAME[tname])
            if tname.startswith("float"):
                names[f"mat{n}{n}{suffix}"] = matrix((n, n), _SCALAR_BY_NAME[tname])
    names["quat"] = quaternion(float32)
    names["transform"] = transformation(float32)
    names["spatial_vector"] = vector(6, float32)  # Warp's spatial algebra types: 6-vectors, 6x6 matrices
    names["spatial_matrix"] = matrix((6, 6), float32)
    for suffix, t in (("h", float16), ("f", float32), ("d", float64)):
        names[f"quat{suffix}"] = quaternion(t)
        names[f"transform{suffix}"] = transformation(t)
        names[f"spatial_vector{suffix}"] = vector(6, t)
        names[f"spatial_matrix{suffix}"] = matrix((6, 6), t)
    return names


def __getattr__(name: str):
    """Composite types by class name (``vec3f``), made on the fly: how pickle finds them."""
    if name.startswith("__"):  # the import system's questions (__path__, __spec__, ...)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .composite_names import type_named

    found = type_named(name)
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return found

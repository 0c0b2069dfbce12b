"""Values the host stores into array elements (``fill_``, ``full``, ``a[i] = v``), converted as Warp converts
them, but for integers out of range: a float out of range is inf, a float for an integer type is refused rather
than truncated, and an array of structs takes values of its struct only. An integer out of the element type's range
(``2**40`` for ``int32``, -1 for ``uint8``, a component of a tuple for ``vec3ub``) is refused, as ``wp.launch``
refuses such an argument, where Warp's ``fill_`` wraps it silently (``wp.full(3, 2**40, dtype=wp.int32)`` is
zeros there); a vector already made (``wp.vec3ub(300, 0, 0)``) keeps what its constructor stored."""

from __future__ import annotations

import numbers
import operator

import numpy as np

from ..errors import BrickworkError
from .composite import CompositeBase
from .redefined_structs import redefined_struct_hint
from .scalars import ScalarBase, bfloat16, bfloat16_bits, check_integer, is_scalar_type


class ElementValueError(BrickworkError, TypeError, ValueError):
    """A value an array's elements cannot hold: a ``TypeError``, and a ``ValueError`` as Warp's ``fill_`` raises."""


class ElementRangeError(ElementValueError, OverflowError):
    """An integer beyond the range of an array's integer elements (also an ``OverflowError``)."""


def _name(t) -> str:
    return getattr(t, "__name__", repr(t))


def _described(value) -> str:
    name, text = type(value).__name__, repr(value)
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}" + (f" ({text})" if len(text) <= 60 else "")


def index_text(key) -> str:
    """``a[key]`` as the user wrote it (``a[1:3, 0]``), for messages."""
    def one(k):
        if isinstance(k, slice):
            text = f"{'' if k.start is None else k.start}:{'' if k.stop is None else k.stop}"
            return text + (f":{k.step}" if k.step is not None else "")
        return "..." if k is Ellipsis else repr(k)

    return "a[" + ", ".join(one(k) for k in (key if isinstance(key, tuple) else (key,))) + "]"


def element_value(dtype, value, what: str):
    """``value`` as numpy stores it in one element of ``dtype`` (``what`` names the operation in messages)."""
    if getattr(dtype, "_bw_struct", False):
        if type(value) is dtype:
            return np.frombuffer(value._to_bytes(), dtype=dtype._numpy_dtype())[0]
        if isinstance(value, np.void) and value.dtype == dtype._numpy_dtype():  # a record of a.numpy()
            return value
        raise ElementValueError(f"{what}: an array of {_name(dtype)} takes {_name(dtype)} values, got "
                                f"{_described(value)}{redefined_struct_hint(dtype, type(value))}")
    if is_scalar_type(dtype):
        return _scalar(dtype, value, what)
    if getattr(dtype._dtype, "is_int", False) and type(value) is not dtype:
        for x in _components(value):
            _check_range(dtype._dtype, x, what, dtype)
    try:
        data = dtype(value)._data  # wraps integers, refuses floats for integer components
    except (TypeError, ValueError) as e:
        raise ElementValueError(f"{what}: {e}") from None
    return bfloat16_bits(data) if dtype._dtype is bfloat16 else data


def _scalar(dtype, value, what: str):
    if not isinstance(value, (numbers.Real, np.bool_, ScalarBase)):
        raise ElementValueError(f"{what}: an array of {_name(dtype)} takes one number, got {_described(value)}")
    if dtype.is_int:
        check_integer(value, f"{what} of an array of {_name(dtype)}")
    plain = value.value if isinstance(value, ScalarBase) else value
    if dtype.is_int:
        _check_range(dtype, plain, what, dtype)
    if dtype is bfloat16:
        return bfloat16_bits(float(plain))
    with np.errstate(over="ignore"):  # a float beyond the type's range is inf, as Warp stores it
        return dtype._np(dtype._convert(plain))


def _components(value) -> list:
    """The numbers of ``value`` given for a vector or matrix element (a number, a sequence, numpy data, another
    vector's components); [] where it is none of these (the constructor names what is wrong)."""
    if isinstance(value, CompositeBase):
        value = value._data
    try:
        return list(np.ravel(np.asarray(value, dtype=object)))
    except (TypeError, ValueError):
        return []


def check_integers(scalar_type, value, what: str, dtype) -> None:
    """Refuse an integer of ``value`` beyond ``scalar_type``'s range: ``value`` itself for a scalar ``dtype``, the
    components given (a sequence, numpy data, another vector) for a vector or matrix ``dtype`` of those scalars."""
    for x in ([value] if dtype is scalar_type else _components(value)):
        _check_range(scalar_type, x, what, dtype)


def _check_range(scalar_type, x, what: str, dtype) -> None:
    """Refuse an integer ``x`` beyond ``scalar_type``'s range; anything else is left to the conversion."""
    x = x.value if isinstance(x, ScalarBase) else x
    if isinstance(x, (bool, np.bool_)):
        return
    try:
        n = operator.index(x)
    except TypeError:
        return
    info = np.iinfo(scalar_type._np)
    if not info.min <= n <= info.max:
        target = _name(dtype) if dtype is scalar_type else f"the {_name(scalar_type)} components of {_name(dtype)}"
        raise ElementRangeError(f"{what}: {n} does not fit in {target} ({info.min} to {info.max}); nothing was "
                                f"changed (Warp would wrap it silently)")


class StructDataError(BrickworkError, TypeError, RuntimeError):
    """Data ``wp.array(data, dtype=S)`` cannot take as records of struct ``S``: a ``TypeError``, and the
    ``RuntimeError`` Warp raises for it."""


def struct_records(data, dtype, comp: np.dtype, copy: bool) -> np.ndarray:
    """The records of ``wp.array(data, dtype=dtype)`` for a struct type: a list or tuple of its values, or numpy
    records with its fields in its order (``a.numpy()``, ``S.numpy_dtype()``; fields of other types are converted).
    Numbers, tuples and other numpy data are refused: numpy would copy each number into every field, and take a
    tuple's numbers as more elements."""
    if isinstance(data, (list, tuple)):
        for i, x in enumerate(data):
            if type(x) is not dtype:
                raise StructDataError(f"wp.array(dtype={_name(dtype)}): element {i} is {_described(x)}, not a "
                                      f"value of struct {_name(dtype)} (an array of structs takes a list of them, "
                                      f"or numpy records of {_name(dtype)}.numpy_dtype())")
        return np.frombuffer(b"".join(x._to_bytes() for x in data), dtype=comp).copy()
    records = data if isinstance(data, np.ndarray) else np.asarray(data)
    if records.dtype.names != comp.names:  # numpy converts records field by field in order: the same names only
        found = "no fields" if records.dtype.names is None else f"fields {records.dtype.names}"
        raise StructDataError(f"wp.array(dtype={_name(dtype)}): numpy data of dtype {records.dtype} ({found}) are "
                              f"not records of {_name(dtype)} (fields {comp.names}): pass a list of "
                              f"{_name(dtype)} values or records of {_name(dtype)}.numpy_dtype()")
    if records.dtype != comp:  # numpy converts field by field, wrapping integers (2**40 in an int32 field is 0)
        from .array_conversions import check_conversion

        for field in comp.names:
            check_conversion(records[field], comp.fields[field][0].base, f"wp.array(dtype={_name(dtype)})",
                             f"the {comp.fields[field][0].base} field '{field}'", "no array was made")
    if copy or records.dtype != comp:
        from .array_memory import host_copy

        return host_copy(records, comp)
    return records

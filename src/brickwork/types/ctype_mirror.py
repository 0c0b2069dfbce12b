"""``__ctype__()`` of arrays and struct values: their C argument bytes as a ``ctypes.Structure``; and
``a.cptr()``, a ctypes pointer to a CPU array's elements.

Warp code records launches and later sets parameters from these (``Launch.set_param_at_index_from_ctype``).
Each mirror carries the value it was taken from (``_bw_value``; a struct's is a snapshot, as Warp's copy of
the fields is), so a launch can use it again without decoding bytes.
"""

from __future__ import annotations

import copy
import ctypes

_MIRRORS: dict[int, type] = {}


def _mirror_type(size: int) -> type:
    """A ``ctypes.Structure`` type of ``size`` bytes (one per size)."""
    found = _MIRRORS.get(size)
    if found is None:
        fields = [("data", ctypes.c_ubyte * size)]
        found = _MIRRORS[size] = type(f"bw_ctype_{size}", (ctypes.Structure,), {"_fields_": fields})
    return found


def mirror(data: bytes, value) -> ctypes.Structure:
    """A ctypes structure holding ``data`` (the C layout of ``value``) that remembers ``value``."""
    out = _mirror_type(max(len(data), 1)).from_buffer_copy(data.ljust(max(len(data), 1), b"\0"))
    out._bw_value = value
    return out


def struct_snapshot(value):
    """A copy of struct ``value`` whose fields no later assignment to ``value`` changes (arrays are shared)."""
    out = type(value)()
    for name, t in value._fields:
        field = getattr(value, name)
        if getattr(t, "_bw_struct", False) and field is not None:
            field = struct_snapshot(field)
        elif not hasattr(field, "_key"):  # not an array
            field = copy.copy(field)
        object.__setattr__(out, name, field)
    return out


_STRUCT_CTYPES: dict[type, type] = {}


def element_ctype(t) -> type:
    """The ctypes type of one element of type ``t``: Warp's ``type_ctype`` for scalars (float16 as its uint16
    bits), vectors and matrices; for a struct, a ``ctypes.Structure`` with its fields by name at their offsets
    (an array field: its descriptor's bytes)."""
    from .type_sizes import type_ctype

    if not getattr(t, "_bw_struct", False):
        return type_ctype(t)
    found = _STRUCT_CTYPES.get(t)
    if found is None:
        dtype = t._numpy_dtype()
        fields, end = [], 0
        for (name, ft), offset in zip(t._fields, t._offsets):
            if offset > end:
                fields.append((f"_pad_{name}", ctypes.c_ubyte * (offset - end)))
            try:
                ct = element_ctype(ft)
            except TypeError:  # an array field
                ct = ctypes.c_ubyte * dtype.fields[name][0].itemsize
            fields.append((name, ct))
            end = offset + ctypes.sizeof(ct)
        if t._size > end:
            fields.append(("_pad_end", ctypes.c_ubyte * (t._size - end)))
        found = _STRUCT_CTYPES[t] = type(t.__name__, (ctypes.Structure,), {"_pack_": 1, "_fields_": fields})
    return found


def element_pointer(a):
    """Warp's ``a.cptr()``: a ctypes pointer to the first element of a contiguous CPU array (None when the array
    has no memory), unchecked; it keeps the array alive."""
    if not a.ptr:
        return None
    if not a.device.is_cpu or not a.is_contiguous:
        raise RuntimeError("Accessing array memory through a ctypes ptr is only supported for contiguous CPU arrays.")
    p = ctypes.cast(a.ptr, ctypes.POINTER(element_ctype(a.dtype)))
    p._bw_array = a
    return p

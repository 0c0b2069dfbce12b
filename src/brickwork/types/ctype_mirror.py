"""``__ctype__()`` of arrays and struct values: their C argument bytes as a ``ctypes.Structure``.

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

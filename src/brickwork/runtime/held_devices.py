"""A launch's check of its arrays of structs and of textures: their elements may point only into the launch
device's memory.

An element of an array of structs stores the addresses of the arrays and textures it holds; one of another device
is an address the kernel cannot read (the CPU crashed on a CUDA address). The writes into such an array record
the devices of what they stored (``types/held_arrays.held_devices``), so the packer compares one set per launch.
When it holds another device, the elements may have been overwritten since: ``refuse_elsewhere`` looks at what
they hold now and refuses the launch only if one still points elsewhere.
"""

from __future__ import annotations

import sys

import numpy as np

from ..errors import LaunchError
from ..types.arrays import ArrayType, type_name
from ..types.held_arrays import _prune, _root, held
from ..types.structs import struct_devices


def refuse_elsewhere(a, device, key: str, name: str) -> None:
    """The packer's check of argument ``name`` (an array, or indexed array, of structs or textures) whose
    recorded devices include one other than ``device``: a ``LaunchError`` naming them, unless its elements no
    longer hold any (the record is then brought up to date)."""
    root = _root(getattr(a, "data", a))
    now = _devices_held_now(root)
    root._held.devices = now  # the table exists: it recorded another device
    others = sorted(str(d) for d in now if d != device)
    if not others:
        return
    where = ", ".join(others)
    if getattr(root.dtype, "_bw_texture", 0):
        raise LaunchError(f"launch of '{key}' on {device}: argument '{name}' is an array of {type_name(root.dtype)} "
                          f"whose elements are textures on {where}; the textures of an array must be on the launch "
                          f"device (make them with device='{device}')")
    raise LaunchError(f"launch of '{key}' on {device}: argument '{name}' is an array of {type_name(root.dtype)} whose "
                      f"elements hold arrays or textures on {where}; what the elements of an array hold must be on the "
                      f"launch device (arrays: copy them with a.to('{device}'); textures: make them with "
                      f"device='{device}')")


def _devices_held_now(root) -> frozenset:
    """The devices of the arrays and textures ``root``'s elements hold now: the recorded arrays whose descriptors
    an element still stores, and the live textures whose descriptor addresses one stores (a texture that no
    longer exists counts as another device: its address points nowhere)."""
    table = held(root)
    if table:
        _prune(root, table)
    devices = {field.device for field in table.values()}
    paths = list(_texture_fields(root.dtype))
    if paths:
        data = np.asarray(root._np)
        texture = sys.modules.get("brickwork.runtime.texture")  # loaded once a texture exists
        live = texture._LIVE if texture is not None else {}
        for path in paths:
            column = data
            for step in path:
                column = column[step]
            for address in np.unique(np.asarray(column["tex"]).reshape(-1)):
                if address:
                    found = live.get(int(address))
                    devices.add(found.device if found is not None else "a freed texture")
    return struct_devices(devices)


def _texture_fields(t, path=()):
    """The field paths of ``t``'s texture fields, nested structs' included (``()``: ``t`` is a texture)."""
    if getattr(t, "_bw_texture", 0):
        yield path
        return
    for name, ft in getattr(t, "_fields", ()):
        if not isinstance(ft, ArrayType) and getattr(ft, "_bw_struct", False):
            yield from _texture_fields(ft, (*path, name))

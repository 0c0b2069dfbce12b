"""The ids of the live ``wp.Mesh``, ``wp.Bvh``, ``wp.HashGrid`` and ``wp.Volume`` objects, by kind.

A kernel receives such an object as its ``uint64`` id: an address the query builtins follow without a check,
so an id of an object already freed, of another kind, from another device or made up crashes the kernel or
reads freed memory. Each object registers its id here when it is made, and the registration ends when the
object is collected; a launch whose ``uint64`` parameter is passed straight to a query builtin looks the
value up here (one dict lookup, ``runtime/packing``) and refuses an id that no live object of the kind on the
launch's device holds. 0, the null id, passes (a kernel may query an optional object only in a branch it
does not take when the id is 0; a query that does run on 0 fails as in Warp). Ids in a struct argument's
``uint64`` fields are looked up the same way (``ir/id_params``); ids inside arrays are not checked.
"""

from __future__ import annotations

import weakref

#: kind -> {id: (device, weak reference to the object)}: a tuple per registration, so that a finalizer removes
#: only its own entry
LIVE: dict = {"mesh": {}, "bvh": {}, "hash_grid": {}, "volume": {}}

#: kind -> the class a user makes, for messages
CLASS_NAMES = {"mesh": "wp.Mesh", "bvh": "wp.Bvh", "hash_grid": "wp.HashGrid", "volume": "wp.Volume"}


def register(kind: str, obj) -> None:
    """Record ``obj.id`` as the id of a live ``kind`` on ``obj.device`` until ``obj`` is collected."""
    table, entry = LIVE[kind], (obj.device, weakref.ref(obj))
    table[obj.id] = entry
    weakref.finalize(obj, _forget, table, obj.id, entry)


def holder(kind: str, value):
    """The live ``kind`` whose id is ``value``, or None (a graph keeps the objects its launches query alive)."""
    entry = LIVE[kind].get(value)
    return entry[1]() if entry is not None else None


def _forget(table: dict, key: int, entry: tuple) -> None:
    if table.get(key) is entry:  # not an object made since at the same address
        del table[key]


def describe(kind: str, value, device) -> str:
    """Why ``value`` is not the id of a live ``kind`` on ``device`` (for the launch's error)."""
    for other, table in LIVE.items():
        entry = table.get(value)
        if entry is None:
            continue
        if other == kind:
            return f"it is the id of a {CLASS_NAMES[kind]} on {entry[0]}, but the launch runs on {device}"
        return f"it is the id of a {CLASS_NAMES[other]}, not of a {CLASS_NAMES[kind]}"
    return (f"no live {CLASS_NAMES[kind]} has it (was the object freed? an id is valid only while its object is "
            f"referenced)")

"""The ids of the live ``wp.Mesh``, ``wp.Bvh``, ``wp.HashGrid`` and ``wp.Volume`` objects, by kind.

A kernel receives such an object as its ``uint64`` id: an address the query builtins follow without a check,
so an id of an object already freed, of another kind, from another device or made up crashes the kernel or
reads freed memory. Each object registers its id here when it is made, and the registration ends when the
object is collected; a launch whose ``uint64`` parameter is passed straight to a query builtin looks the
value up here (one dict lookup, ``runtime/packing``) and refuses an id that no live object of the kind on the
launch's device holds. 0, the null id, passes (a kernel may query an optional object only in a branch it
does not take when the id is 0; a query that does run on 0 fails as in Warp). Ids in a struct argument's
``uint64`` fields are looked up the same way (``ir/id_params``), and so is every id held by a ``uint64`` array
argument whose elements go to a query (``bad_element``: a scan of the array at each launch, cost proportional
to its size).
"""

from __future__ import annotations

import weakref

import numpy as np

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


def ids_in(array) -> np.ndarray:
    """The distinct ids a ``uint64`` array argument holds (none for None), read back to the host when needed."""
    if array is None:
        return np.empty(0, np.uint64)
    return np.unique(np.asarray(array.numpy()).reshape(-1))


def bad_element(kind: str, array, device):
    """``(flat index, id)`` of the first element of ``array`` holding a nonzero id of no live ``kind`` on
    ``device``, or None: the launch refuses such an array before the kernel follows the id."""
    if array is None:
        return None
    flat = np.asarray(array.numpy()).reshape(-1)
    table = LIVE[kind]
    if flat.size <= 256:  # a dict lookup per distinct id
        values = flat.tolist()
        wrong = {v for v in set(values) if v and table.get(v, (None,))[0] is not device}
        return next(((n, v) for n, v in enumerate(values) if v in wrong), None)
    live = [key for key, (where, _) in table.items() if where is device]
    if len(live) <= 16:  # a vectorized comparison per live object
        ok = flat == 0
        for key in live:
            ok |= flat == key
    else:
        ok = np.isin(flat, np.array([0, *live], dtype=np.uint64))
    if ok.all():
        return None
    first = int(np.argmin(ok))
    return first, int(flat[first])

"""The arrays an array of structs points to, kept alive by it.

An array field of a struct element is stored as the field array's address, shape and strides; nothing else keeps
that memory alive once the struct values that held the arrays are gone (in Warp a later read through the element
sees freed memory, or crashes). So an array of structs records the arrays whose descriptors it stores, on the
array that owns its memory (views lead to it through ``_owner``): ``wp.array([s, ...], dtype=S)``, ``fill_``,
item assignment, ``assign``, ``wp.copy``, ``clone`` and ``to`` record them, and ``a[i].field`` gives the
recorded array itself. Entries whose descriptor no element holds any more are dropped now and then, so that
reassigning elements over and over does not keep every array ever stored alive.

The same writes record the devices of the arrays and textures the stored elements point to (``held_devices``): a
launch refuses an array of structs whose elements may point into another device's memory (``runtime/
held_devices`` looks again, element by element, before it refuses). Raw records written through ``a.numpy()`` are
not seen.
"""

from __future__ import annotations

import weakref

import numpy as np

from .array_types import ReadOnly
from .arrays import ArrayType, array, check_same_dtype
from .structs import struct_devices


class _Held(dict):
    """``{(field type, packed descriptor): array}``, how many entries the last pruning kept, and the devices of
    the arrays and textures stored (``held_devices``)."""

    __slots__ = ("kept", "devices")

    def __init__(self):
        super().__init__()
        self.kept = 0
        self.devices = frozenset()


#: ``{(field type, packed descriptor): array}`` of every live array ever recorded: struct records copied as raw
#: numpy data (``wp.array(a.numpy(), dtype=S)``, ``assign``) find the arrays their descriptors point to here
_recorded: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _root(a: array) -> array:
    while isinstance(a._owner, array):
        a = a._owner
    return a


def held(a) -> dict:
    """``{(field type, packed descriptor): array}`` recorded for ``a``'s memory (empty when none)."""
    if not isinstance(a, array):
        return {}
    return getattr(_root(a), "_held", None) or {}


def arrays_in(value) -> list:
    """``[(field type, array)]`` for the arrays a struct value holds, in nested structs too."""
    found = []
    for name, t in value._fields:
        field = getattr(value, name)
        if isinstance(t, ArrayType) and field is not None:
            found.append((t, field))
        elif getattr(t, "_bw_struct", False) and field is not None:
            found += arrays_in(field)
    return found


def held_devices(a) -> frozenset:
    """The devices of the arrays and textures that elements of ``a`` (an array of structs or textures) were
    given, as recorded by the writes (a superset where elements were overwritten since); an indexed array's are
    those of the array it indexes."""
    if not isinstance(a, array):
        a = getattr(a, "data", None)
    table = getattr(_root(a), "_held", None) if isinstance(a, array) else None
    return table.devices if table is not None else frozenset()


def hold_values(a: array, values) -> None:
    """Record what the struct (or texture) values just written into ``a``'s memory hold: their arrays, and the
    devices of their arrays and textures (``_devices``, set when they were packed for the write)."""
    structs = [v for v in values if getattr(type(v), "_bw_struct", False)]
    hold(a, [pair for v in structs for pair in arrays_in(v)], frozenset().union(*(v._devices for v in structs)))


def hold(a: array, pairs, devices: frozenset = frozenset()) -> None:
    """Record ``[(field type, array)]`` (``arrays_in``) as stored in ``a``'s memory, and ``devices`` (those of
    textures stored there too); a no-op for an array whose elements are not structs or hold nothing."""
    pairs = list(pairs)
    devices = frozenset(devices).union(field.device for _, field in pairs)
    if not pairs and not devices:
        return
    root = _root(a)
    table = getattr(root, "_held", None)
    if table is None:
        table = root._held = _Held()
    if not devices <= table.devices:
        table.devices = struct_devices(table.devices | devices)
    for t, field in pairs:
        table[(t, field._packed)] = field
        _recorded[(t, field._packed)] = field
    if len(table) > 2 * table.kept + 64:  # amortized: one scan of the elements per doubling
        _prune(root, table)


def hold_from(dest: array, src) -> None:
    """``dest`` now stores copies of ``src``'s elements: record what ``src``'s memory records."""
    if isinstance(src, array) and src is not dest:
        hold(dest, [(t, field) for (t, _), field in held(src).items()], held_devices(src))


def hold_records(a: array, data) -> None:
    """``a`` now stores the struct records ``data`` (numpy data, e.g. another array's ``numpy()``): record the
    live arrays their descriptors point to (those recorded before: held by some array of structs)."""
    if not _recorded or not isinstance(data, np.ndarray) or data.dtype.names is None or not data.size:
        return
    pairs = []
    for path, t in _array_fields(a.dtype):
        try:
            rows = _stored(data, path)
        except (KeyError, ValueError, IndexError):  # other records: nothing of ours to find
            return
        pairs += [(t, f) for f in (_recorded.get((t, row)) for row in rows) if f is not None]
    hold(a, pairs)


def _stored(data: np.ndarray, path) -> set:
    """The packed descriptors of the array field at ``path`` in the struct records ``data``."""
    column = data
    for name in path:
        column = column[name]
    rows = np.ascontiguousarray(column).reshape(-1, column.shape[-1]) if column.size else ()
    return {bytes(row) for row in rows}


def _prune(root: array, table: _Held) -> None:
    """Drop the entries whose descriptor no element of ``root`` holds any more."""
    stored = set()
    data = np.asarray(root._np)
    for path, t in _array_fields(root.dtype):
        stored.update((t, row) for row in _stored(data, path))
    for key in [k for k in table if k not in stored]:
        del table[key]
    table.kept = len(table)


def read_only_at(value, path: tuple):
    """A read-only array that field ``path`` (``analysis.written_fields``: names, ``"[]"`` for the elements
    of an array of structs) reaches from ``value`` (a struct value or an array of structs), or None."""
    if not path:
        refused = getattr(value, "readonly", False) is True or isinstance(getattr(value, "_sig", None), ReadOnly)
        return value if refused else None  # read-only memory, or elements that share memory
    if path[0] != "[]":
        return read_only_at(getattr(value, path[0], None), path[1:])
    if not isinstance(value, array):  # an indexed array of structs: the elements of the array it indexes
        value = getattr(value, "data", None)
        if not isinstance(value, array):
            return None
    table = held(value)
    if not table:
        return None
    fields = path[1:path.index("[]", 1)] if "[]" in path[1:] else path[1:]
    stored = None
    for (_, packed), field in table.items():
        found = read_only_at(field, path[1 + len(fields):])
        if found is not None:
            stored = _stored(np.asarray(value._np), fields) if stored is None else stored
            if not fields or packed in stored:  # still held by an element (entries are pruned only now and then)
                return found
    return None


def _array_fields(struct_type, path=()):
    """``(field path, array type)`` of every array field of a struct type, nested structs' included."""
    for name, t in struct_type._fields:
        if isinstance(t, ArrayType):
            yield (*path, name), t
        elif getattr(t, "_bw_struct", False):
            yield from _array_fields(t, (*path, name))


def struct_items(a: array, value, what: str):
    """``value`` for item assignment into the array of structs ``a`` (a struct value, a list of them, or an
    array of the struct) as numpy stores it; the arrays it points to are recorded."""
    from .array_values import element_value

    if isinstance(value, array):
        check_same_dtype(a, value, what)
        hold_from(a, value)
        return value._np
    if isinstance(value, np.ndarray) and value.dtype == a._np.dtype:  # struct records as numpy data
        hold_records(a, value)
        return value
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    records = [element_value(a.dtype, v, what) for v in items]  # checks every item before anything is recorded
    hold_values(a, items)
    return records if isinstance(value, (list, tuple)) else records[0]


def point_at_gradients(a: array, into: array) -> None:
    """Point the array fields of the struct records of ``into`` (an adjoint array of ``a``'s shape) at the
    gradients of the arrays ``a``'s records hold, element by element: a null array where one has none. A
    backward kernel finds there where the adjoint of a store through ``a[i].field`` goes (Warp's arrays carry
    their gradient's address themselves). Numeric fields are left as they are."""
    data, out = a.numpy(), into.numpy()  # a view for host memory, a copy for device memory
    table, pairs = held(a), []
    for path, t in _array_fields(a.dtype):
        source, dest = data, out
        for name in path:
            source, dest = source[name], dest[name]
        rows = np.ascontiguousarray(source).reshape(-1, source.shape[-1])
        keys, inverse = np.unique(rows.view(np.dtype((np.void, rows.shape[1]))).ravel(), return_inverse=True)
        grads = np.zeros((len(keys), rows.shape[1]), np.uint8)
        for j, key in enumerate(keys):
            found = table.get((t, key.tobytes()))
            found = _recorded.get((t, key.tobytes())) if found is None else found
            grad = None if found is None else found.grad
            if grad is not None:
                grads[j] = np.frombuffer(grad._packed, np.uint8)
                pairs.append((t, grad))
        dest[...] = grads[inverse.ravel()].reshape(source.shape)
    if not into.device.is_cpu:
        into.assign(out)
    hold(into, pairs)

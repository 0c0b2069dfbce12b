"""A ``SparsePack`` as a kernel argument: tables of storage addresses and strides.

``kernel_value(pack)`` builds (once per pack) a struct whose type carries the pack's variable
names, component counts, storage extents (cells or nodes) and dtype (``_bw_pack``, which the kernel
frontend recognises) and whose fields are:

* ``ptrs[b, idx, element, :]`` = (address, k stride, j stride, address to read) of the (nk, nj, ni) storage of
  flat index ``idx`` on pack block ``b`` (element = ``int(te) % 3``; strides in elements, i stride 1; the
  address to read differs only in null rows);
* ``fluxes[b, idx, dir - 1, :]`` the same for flux storage;
* ``bounds[b, var, :]`` = (lower, upper) flat index bounds of each descriptor variable;
* ``nblocks``;
* ``ptr_shapes[b, idx, element, :]`` and ``flux_shapes[b, idx, dir - 1, :]`` = (nk, nj, ni) of that
  storage (zero where there is none), read only by bounds checks in debug mode.

Where there is no storage (an element a cell field lacks, a fluxless variable's flux rows, a sparse block's
absent variable, unused flat indices) ``ptrs`` and ``fluxes`` hold (address of a zeroed slab, 0, 0, address of
another): an access that reaches such a row in a release build (a flat variable index computed at run time) writes
the first slab and reads the second, which stays zero, never address 0 (the process crashed); debug mode refuses it
(its extents are zero).

The tables live where the storage does (the mesh's device): on a GPU the addresses are device
addresses and the tables are device arrays, uploaded once per pack.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..types.arrays import array, array3d, array4d
from ..types.scalars import int32, int64, scalar_from_numpy
from ..types.structs import struct
from . import fields as _fields
from . import kernel_rules  # noqa: F401 - registers how kernel code types pack accesses
from . import storage as _storage

_TYPES: dict = {}


def kernel_pack_type(dtype, names: tuple, sizes: tuple, layouts: tuple | None = None, elements: tuple | None = None,
                     fluxes: tuple | None = None):
    """The struct type of packs of ``dtype`` values over the variables ``names`` with ``sizes``
    components each (cached). ``layouts`` gives each variable's storage extents, ``"cells"`` or
    ``"nodes"`` (default: all cells): loop-abstraction views that address storage by the index
    space's flat memory offsets need them to match the space's memory box (la/kernel_rules.py).
    ``elements`` gives each variable's topological elements as ints (``(0,)`` for a cell field, ``(3, 4, 5)``
    for a face field; None where its fields differ; default: all cells): an access names one it stores.
    ``fluxes`` gives each variable's flux directions (``(1, 2)`` on a 2-D mesh, ``()`` without ``WithFluxes``, None
    unknown; default: not known): a flux access names one of them."""
    layouts = tuple(layouts) if layouts is not None else ("cells",) * len(names)
    elements = tuple(elements) if elements is not None else ((0,),) * len(names)
    fluxes = tuple(fluxes) if fluxes is not None else None
    key = (dtype, names, sizes, layouts, elements, fluxes)
    found = _TYPES.get(key)
    if found is None:
        # an all-cells pack keeps the digest (and so the generated names) it had before layouts and elements existed
        spelled = (dtype.__name__, names, sizes) + ((layouts,) if set(layouts) != {"cells"} else ())
        spelled += (elements,) if set(elements) != {(0,)} else ()
        spelled += (fluxes,) if fluxes is not None else ()
        digest = hashlib.sha1(repr(spelled).encode()).hexdigest()[:10]
        cls = type(f"PackView_{digest}", (), {
            "__annotations__": {"ptrs": array4d(dtype=int64), "fluxes": array4d(dtype=int64),
                                "bounds": array3d(dtype=int32), "nblocks": int32,
                                "ptr_shapes": array4d(dtype=int64), "flux_shapes": array4d(dtype=int64)},
            "__module__": __name__, "__qualname__": f"PackView_{digest}"})
        found = struct(cls)
        found._bw_pack = {"vars": list(names), "sizes": list(sizes), "dtype": dtype, "layouts": list(layouts),
                          "elements": list(elements), "fluxes": None if fluxes is None else list(fluxes)}
        found._bw_contiguous_arrays = True  # kernel_value's tables are contiguous (ir/inner_stride.py)
        _TYPES[key] = found
    return found


def _layout(specs) -> str:
    """The storage extents of a pack variable's fields: "cells", "nodes", or "mixed" (a tag matching both)."""
    kinds = {"cells" if _fields.cell_like(spec) else "nodes" for spec in specs}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _elements(specs) -> tuple | None:
    """The topological elements (as ints) of a pack variable's fields, None when they differ."""
    kinds = {tuple(int(te) for te in spec.elements) for spec in specs}
    return kinds.pop() if len(kinds) == 1 else None


def _flux_directions(pack, position: int) -> tuple | None:
    """The directions (1 to 3) in which descriptor variable ``position`` has flux rows on every block of ``pack``
    (``()`` for a pack without fluxes or a variable without ``WithFluxes``), None when its blocks differ."""
    table = pack.flux_table  # (block, flat index, ...): a used row holds a storage id >= 0
    lower, upper = pack.bounds[:, position, 0:1], pack.bounds[:, position, 1:2]
    present = (upper >= lower)[:, 0]  # blocks without the variable (a sparse one) say nothing
    if not present.any():
        return None
    flat = np.arange(table.shape[1])
    mine = (flat >= lower) & (flat <= upper)
    used = table[..., 0] >= 0
    if ((used | ~mine).all(axis=1) & present)[present].all():  # every row of the variable has fluxes
        return tuple(range(1, pack.md.mesh.ndim + 1))
    return () if not (used & mine).any() else None


# columns of _storage_facts' rows
_ADDRESS, _LID_STRIDE, _SLOT_STRIDE, _K_STRIDE, _J_STRIDE, _NSLOTS, _EXTENTS = 0, 1, 2, 3, 4, 5, (6, 7, 8)


def _storage_facts(storages) -> np.ndarray:
    """int64 rows (address, lid and slot byte strides, k and j element strides, nslots, nk, nj, ni),
    one per storage array (host or device)."""
    facts = np.zeros((len(storages), 9), dtype=np.int64)
    for a, data in enumerate(storages):
        strides, item = data.strides, data.dtype.itemsize
        facts[a] = (_storage.address(data), strides[0], strides[1], strides[2] // item, strides[3] // item,
                    *data.shape[1:5])
    return facts


def _slab_tables(table: np.ndarray, storages) -> tuple[np.ndarray, np.ndarray]:
    """(rows, shapes), int64 ``(nb, max(nidx, 1), 3, 4)`` and ``(..., 3, 3)``: for each row ``(id, lid, slot,
    stride)`` of an index or flux table and each e in 0..2, the (address, k stride, j stride, unset) and the
    (nk, nj, ni) of the
    slab ``storages[id][lid, slot + e * stride]``; zero where the row is unused, e > 0 has stride 0, or
    the slot is past the storage's (a cell field's components have no elements 1 and 2)."""
    nb, nidx = table.shape[:2]
    rows, shapes = (np.zeros((nb, max(nidx, 1), 3, n), dtype=np.int64) for n in (4, 3))
    used = np.flatnonzero(table[..., 0].ravel() >= 0)  # flat (block, index) positions of used rows
    if not used.size:  # e.g. the flux table of a pack without fluxes
        return rows, shapes
    ids, lid, slot, stride = table.reshape(-1, 4)[used].astype(np.int64).T
    facts = _storage_facts(storages)
    base = facts[:, _ADDRESS][ids] + lid * facts[:, _LID_STRIDE][ids]  # of the block's slot 0
    nslots, slot_stride = facts[:, _NSLOTS][ids], facts[:, _SLOT_STRIDE][ids]
    flat_rows, flat_shapes = rows.reshape(-1, 3, 4), shapes.reshape(-1, 3, 3)  # views: the tables are fresh
    for e in range(3):
        s = slot + e * stride
        ok = (s < nslots) & (stride > 0) if e else s < nslots
        if not ok.any():  # elements 1 and 2 exist only for face and edge fields
            continue
        sel = slice(None) if ok.all() else np.flatnonzero(ok)  # element 0 is nearly always all there
        at, of = used[sel], ids[sel]
        flat_rows[at, e, 0] = base[sel] + s[sel] * slot_stride[sel]
        # column by column: 1-D gathers and scatters are several times faster than 2-D ones here
        for c, col in enumerate((_K_STRIDE, _J_STRIDE), 1):
            flat_rows[at, e, c] = facts[:, col][of]
        for c, col in enumerate(_EXTENTS):
            flat_shapes[at, e, c] = facts[:, col][of]
    return rows, shapes


def _null_slab_size(*storages: list) -> int:
    """Elements of the slab the tables' null rows point at: the largest storage's (nk + 1) (nj + 1) (ni + 1),
    so that any cell or flat memory offset of a variable of the pack, or of one element beyond, stays in it."""
    return max([1] + [(nk + 1) * (nj + 1) * (ni + 1) for group in storages for data in group if data is not None
                      for nk, nj, ni in [data.shape[-3:]]])


def kernel_value(pack, adjoint: bool = False):
    """The kernel argument of ``pack`` (cached on the pack, which holds its storage alive); with
    ``adjoint``, the same tables over the fields' gradients (``Field.grad``, ``Field.flux_grad``), the
    argument a backward kernel adds the pack's adjoints into."""
    attr = "_adjoint_kernel_value" if adjoint else "_kernel_value"
    cached = getattr(pack, attr, None)
    if cached is not None:
        return cached
    arrays, flux_arrays = pack.arrays, pack.flux_arrays
    if adjoint:
        arrays = [f.grad for f in pack._fields]
        flux_arrays = [f.flux_grad for f in pack._flux_fields]
    dtypes = {a.dtype for a in arrays} | {a.dtype for a in flux_arrays if a is not None}
    if len(dtypes) != 1:
        raise TypeError(f"a pack used in a kernel needs one value dtype; this one mixes "
                        f"{', '.join(sorted(str(d) for d in dtypes))}")
    value_dtype = dtypes.pop()
    dtype = scalar_from_numpy(value_dtype)
    if dtype is None:
        raise TypeError(f"a pack used in a kernel needs values of a kernel scalar type (bool, an integer, float16, "
                        f"float32 or float64); this one holds {value_dtype}")
    # numpy over blocks x flat indices: Python work here is per storage array, never per block
    ptrs, ptr_shapes = _slab_tables(pack.index_table, arrays)
    fluxes, flux_shapes = _slab_tables(pack.flux_table, flux_arrays)
    names = tuple(v.name for v in pack.descriptor.vars)
    sizes = tuple(int(specs[0].ncomp) for specs in pack.descriptor._specs)
    layouts = tuple(_layout(specs) for specs in pack.descriptor._specs)
    elements = tuple(_elements(specs) for specs in pack.descriptor._specs)
    directions = tuple(_flux_directions(pack, p) for p in range(len(names)))
    device = pack.md.mesh.device

    def table(values: np.ndarray, dtype):  # on the CPU the table shares the numpy memory
        return array(np.ascontiguousarray(values), dtype=dtype, device=device, copy=device.is_cuda)

    # null rows (storage that is not there) point at zeroed slabs with strides 0: a release build's access
    # through a run-time flat index that names a variable without that row writes to the first (a sink), not
    # address 0, and reads from the second, which nothing writes, through column 3 (passes/lower_pack_access)
    size = _null_slab_size(arrays, flux_arrays)
    null, zero = (table(np.zeros(size, dtype=value_dtype), dtype) for _ in range(2))
    for rows in (ptrs, fluxes):  # a null row's strides are 0 already
        addresses = rows[..., 0]
        empty = addresses == 0
        rows[..., 3] = np.where(empty, zero.ptr, addresses)
        addresses[empty] = null.ptr
    value = kernel_pack_type(dtype, names, sizes, layouts, elements, directions)()
    object.__setattr__(value, "_bw_null_slab", null)  # alive as long as the tables that point at them
    object.__setattr__(value, "_bw_zero_slab", zero)
    value.ptrs = table(ptrs, int64)
    value.fluxes = table(fluxes, int64)
    value.bounds = table(pack.bounds, int32)
    value.nblocks = pack.index_table.shape[0]
    value.ptr_shapes = table(ptr_shapes, int64)
    value.flux_shapes = table(flux_shapes, int64)
    setattr(pack, attr, value)
    if not adjoint:  # a backward pass finds the pack's gradients from its kernel argument (runtime/tape.py)
        object.__setattr__(value, "_bw_pack_source", pack)
    return value

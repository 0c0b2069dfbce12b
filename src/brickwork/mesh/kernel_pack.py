"""A ``SparsePack`` as a kernel argument: tables of storage addresses and strides.

``kernel_value(pack)`` builds (once per pack) a struct whose type carries the pack's variable
names, component counts, storage extents (cells or nodes) and dtype (``_bw_pack``, which the kernel
frontend recognises) and whose fields are:

* ``ptrs[b, idx, element, :]`` = (address, k stride, j stride) of the (nk, nj, ni) storage of flat
  index ``idx`` on pack block ``b`` (element = ``int(te) % 3``; strides in elements, i stride 1);
* ``fluxes[b, idx, dir - 1, :]`` the same for flux storage (zero rows where there are none);
* ``bounds[b, var, :]`` = (lower, upper) flat index bounds of each descriptor variable;
* ``nblocks``;
* ``ptr_shapes[b, idx, element, :]`` and ``flux_shapes[b, idx, dir - 1, :]`` = (nk, nj, ni) of that
  storage (zero where there is none), read only by bounds checks in debug mode.

The tables live where the storage does (the mesh's device): on a GPU the addresses are device
addresses and the tables are device arrays, uploaded once per pack.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..errors import KernelNotDifferentiableError
from ..types.arrays import array, array3d, array4d
from ..types.scalars import int32, int64, scalar_from_numpy
from ..types.structs import struct
from . import fields as _fields
from . import kernel_rules  # noqa: F401 - registers how kernel code types pack accesses
from . import storage as _storage

_TYPES: dict = {}


def kernel_pack_type(dtype, names: tuple, sizes: tuple, layouts: tuple | None = None):
    """The struct type of packs of ``dtype`` values over the variables ``names`` with ``sizes``
    components each (cached). ``layouts`` gives each variable's storage extents, ``"cells"`` or
    ``"nodes"`` (default: all cells): loop-abstraction views that address storage by the index
    space's flat memory offsets need them to match the space's memory box (la/kernel_rules.py)."""
    layouts = tuple(layouts) if layouts is not None else ("cells",) * len(names)
    key = (dtype, names, sizes, layouts)
    found = _TYPES.get(key)
    if found is None:
        # an all-cells pack keeps the digest (and so the generated names) it had before layouts existed
        spelled = (dtype.__name__, names, sizes) + ((layouts,) if set(layouts) != {"cells"} else ())
        digest = hashlib.sha1(repr(spelled).encode()).hexdigest()[:10]
        cls = type(f"PackView_{digest}", (), {
            "__annotations__": {"ptrs": array4d(dtype=int64), "fluxes": array4d(dtype=int64),
                                "bounds": array3d(dtype=int32), "nblocks": int32,
                                "ptr_shapes": array4d(dtype=int64), "flux_shapes": array4d(dtype=int64)},
            "__module__": __name__, "__qualname__": f"PackView_{digest}"})
        found = struct(cls)
        found._bw_pack = {"vars": list(names), "sizes": list(sizes), "dtype": dtype, "layouts": list(layouts)}
        found._bw_contiguous_arrays = True  # kernel_value's tables are contiguous (ir/inner_stride.py)
        _TYPES[key] = found
    return found


def _layout(specs) -> str:
    """The storage extents of a pack variable's fields: "cells", "nodes", or "mixed" (a tag matching both)."""
    kinds = {"cells" if _fields.cell_like(spec) else "nodes" for spec in specs}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _slab_row(data, lid: int, slot: int) -> tuple[int, int, int]:
    """(address, k stride, j stride) of the (nk, nj, ni) slab ``data[lid, slot]`` (host or device storage)."""
    strides, item = data.strides, data.dtype.itemsize
    return _storage.address(data) + lid * strides[0] + slot * strides[1], strides[2] // item, strides[3] // item


def kernel_value(pack, adjoint: bool = False):
    """The kernel argument of ``pack`` (cached on the pack, which holds its storage alive); with
    ``adjoint``, the same tables over the fields' gradients (``Field.grad``, ``Field.flux_grad``), the
    argument a backward kernel adds the pack's adjoints into."""
    attr = "_adjoint_kernel_value" if adjoint else "_kernel_value"
    cached = getattr(pack, attr, None)
    if cached is not None:
        return cached
    arrays, flux_arrays = pack.arrays, pack.flux_arrays
    if adjoint and pack.md.mesh.device.ordinal is not None:
        raise KernelNotDifferentiableError(f"a backward launch over a pack of a mesh on {pack.md.mesh.device}: a mesh "
                                           f"on a CUDA device has no gradients yet (the fields' gradients and the "
                                           f"adjoint pack tables are host-only); differentiate a mesh on the CPU "
                                           f"(device='cpu'), or check the GPU mapping with "
                                           f"BRICKWORK_TARGET=cuda-emulation")
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
    nb, nidx = pack.index_table.shape[:2]
    ptrs = np.zeros((nb, max(nidx, 1), 3, 3), dtype=np.int64)
    fluxes = np.zeros((nb, max(nidx, 1), 3, 3), dtype=np.int64)
    ptr_shapes = np.zeros((nb, max(nidx, 1), 3, 3), dtype=np.int64)
    flux_shapes = np.zeros((nb, max(nidx, 1), 3, 3), dtype=np.int64)
    for b in range(nb):
        for idx in range(nidx):
            array_id, lid, slot, stride = (int(x) for x in pack.index_table[b, idx])
            if array_id >= 0:
                storage = arrays[array_id]
                for e in range(3):
                    s = slot + e * stride
                    if (e == 0 or stride > 0) and s < storage.shape[1]:
                        ptrs[b, idx, e] = _slab_row(storage, lid, s)
                        ptr_shapes[b, idx, e] = storage.shape[2:5]
            flux_id, flid, fslot, dstride = (int(x) for x in pack.flux_table[b, idx])
            if flux_id >= 0:
                storage = flux_arrays[flux_id]
                for d in range(3):
                    s = fslot + d * dstride
                    if (d == 0 or dstride > 0) and s < storage.shape[1]:
                        fluxes[b, idx, d] = _slab_row(storage, flid, s)
                        flux_shapes[b, idx, d] = storage.shape[2:5]
    names = tuple(v.name for v in pack.descriptor.vars)
    sizes = tuple(int(specs[0].ncomp) for specs in pack.descriptor._specs)
    layouts = tuple(_layout(specs) for specs in pack.descriptor._specs)
    device = pack.md.mesh.device

    def table(values: np.ndarray, dtype):  # on the CPU the table shares the numpy memory
        return array(np.ascontiguousarray(values), dtype=dtype, device=device, copy=device.ordinal is not None)

    value = kernel_pack_type(dtype, names, sizes, layouts)()
    value.ptrs = table(ptrs, int64)
    value.fluxes = table(fluxes, int64)
    value.bounds = table(pack.bounds, int32)
    value.nblocks = nb
    value.ptr_shapes = table(ptr_shapes, int64)
    value.flux_shapes = table(flux_shapes, int64)
    setattr(pack, attr, value)
    if not adjoint:  # a backward pass finds the pack's gradients from its kernel argument (runtime/tape.py)
        object.__setattr__(value, "_bw_pack_source", pack)
    return value

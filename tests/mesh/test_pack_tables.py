"""SparsePack tables over many blocks: every flat index read through ``index_table``/``flux_table``
against the fields' own arrays, with bounds recomputed from the allocation with numpy; the kernel
tables (``kernel_value``) read through their raw addresses, and on a (fake) CUDA device compared
with the CPU's."""

from __future__ import annotations

import ctypes
import os
import sys

import numpy as np
import pytest

from brickwork.mesh import Mesh, Metadata, Package, PackDescriptor, storage

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from runtime.cuda_fake import FakeDriver, installed  # noqa: E402

VARS = ["rho", "tr", "mom", "B", "sp"]  # dense, sparse vector pool, vector, face, sparse scalar pool


def fill_distinct(mesh):
    """Every value and flux of every field distinct."""
    offset = 0.0
    for fld in mesh.fields.values():
        for arr in (fld.data, fld.flux):
            if arr is not None:
                arr[...] = offset + np.arange(arr.size).reshape(arr.shape)
                offset += arr.size


def allocate_randomly(mesh, pools, seed):
    """Each instance of the ``pools`` (base name -> sparse ids) on about half the blocks."""
    rng = np.random.default_rng(seed)
    for base, ids in pools.items():
        for sid in ids:
            for lid in np.flatnonzero(rng.random(mesh.nblocks) < 0.5):
                mesh.allocate_sparse(int(lid), base, sid)


@pytest.fixture(scope="module")
def mesh():
    """A 2-D mesh of 512 blocks; every value and flux distinct, sparse instances on random blocks."""
    pkg = Package("p")
    pkg.add_field("rho", Metadata("Cell", "WithFluxes"))
    pkg.add_field("tr", Metadata("Cell", "Sparse", "WithFluxes"), shape=(2,), sparse_ids=[1, 4, 9])
    pkg.add_field("mom", Metadata("Cell", "WithFluxes", "Vector"), shape=(3,))
    pkg.add_field("B", Metadata("Face"))
    pkg.add_field("sp", Metadata("Cell", "Sparse"), sparse_ids=[0, 3])
    mesh = Mesh((128, 64), (4, 4), nghost=1, packages=[pkg])
    assert mesh.nblocks == 512
    allocate_randomly(mesh, {"tr": (1, 4, 9), "sp": (0, 3)}, seed=7)
    fill_distinct(mesh)
    return mesh


VARS_3D = ["ten", "E", "phi", "rho", "Bv", "tr"]  # tensor, edge vector, node vector, dense, face vector, pool


def package_3d():
    pkg = Package("p")
    pkg.add_field("ten", Metadata("Cell", "WithFluxes"), shape=(2, 3))
    pkg.add_field("E", Metadata("Edge"), shape=(2,))
    pkg.add_field("phi", Metadata("Node"), shape=(2,))
    pkg.add_field("rho", Metadata("Cell", "WithFluxes"))
    pkg.add_field("Bv", Metadata("Face"), shape=(2,))
    pkg.add_field("tr", Metadata("Cell", "Sparse", "WithFluxes"), shape=(2,), sparse_ids=[2, 5])
    return pkg


@pytest.fixture(scope="module")
def mesh3d():
    """A 3-D mesh of 64 blocks with every topology, distinct values and a partly allocated pool."""
    mesh = Mesh((8, 8, 8), (2, 2, 2), nghost=1, packages=[package_3d()])
    allocate_randomly(mesh, {"tr": (2, 5)}, seed=3)
    fill_distinct(mesh)
    return mesh


def instances(mesh, name):
    """The fields of variable ``name`` in pack order (a pool's instances by sparse id)."""
    pool = mesh.packages[0].sparse_pools.get(name)
    return [mesh.field(name)] if pool is None else [mesh.field(s.name) for s in pool.instances]


def expected_bounds(mesh, lids, names=VARS):
    """(nblocks, nvars, 2) bounds from the allocation: cumulative component counts per block."""
    sizes = np.stack(
        [sum(f.allocated[lids] * f.spec.ncomp for f in instances(mesh, v)) for v in names], axis=1
    )
    upper = np.cumsum(sizes, axis=1) - 1
    lower = upper - sizes + 1
    return np.stack([np.where(sizes > 0, lower, -1), np.where(sizes > 0, upper, -2)], axis=-1)


def read(storage, rows, offset):
    """The (nk, nj, ni) slabs ``storage[id][lid, slot + offset * stride]`` of table rows."""
    return np.stack([storage[a][lid, slot + offset * stride] for a, lid, slot, stride in rows])


@pytest.mark.parametrize("reverse", [False, True])
def test_many_block_pack_reads_every_value_of_its_fields(mesh, reverse):
    lids = np.arange(mesh.nblocks)[::-1] if reverse else np.arange(mesh.nblocks)
    md = mesh.mesh_data(lids.tolist())
    pack = PackDescriptor(mesh, VARS, with_fluxes=True).get_pack(md)
    bounds = expected_bounds(mesh, lids)
    np.testing.assert_array_equal(pack.bounds, bounds)
    assert pack.block_lids.tolist() == lids.tolist()
    assert pack.get_max_number_of_vars() == bounds[:, -1, 1].max() + 1
    for b, lid in enumerate(lids):
        n = bounds[b, :, 1].max() + 1
        assert (pack.index_table[b, n:] == -1).all() and (pack.flux_table[b, n:] == -1).all()
        for v, name in enumerate(VARS):
            lo, hi = bounds[b, v]
            present = [f for f in instances(mesh, name) if f.allocated[lid]]
            rows, frows = pack.index_table[b, lo : hi + 1], pack.flux_table[b, lo : hi + 1]
            for e, te in enumerate(present[0].spec.elements if present else ()):
                want = np.concatenate([f.element(te)[lid] for f in present])
                np.testing.assert_array_equal(read(pack.arrays, rows, e), want)
            if present and present[0].has_fluxes:
                for d in (1, 2):
                    want = np.concatenate([f.flux_array(d)[lid] for f in present])
                    np.testing.assert_array_equal(read(pack.flux_arrays, frows, d - 1), want)
            elif present:
                assert (frows == -1).all()


def test_storage_ids_follow_first_use_and_are_shared():
    """Array ids count fields as a block-major scan first meets them allocated; a field named twice
    (through its pool and by its own name) has one id."""
    pkg = Package("p")
    pkg.add_field("rho", Metadata("Cell", "WithFluxes"))
    pkg.add_field("tr", Metadata("Cell", "Sparse", "WithFluxes"), sparse_ids=[1, 9])
    mesh = Mesh((16,), (4,), nghost=1, packages=[pkg])
    mesh.allocate_sparse(0, "tr", 9)
    mesh.allocate_sparse(2, "tr", 1)
    mesh.allocate_sparse(2, "tr", 9)
    pack = PackDescriptor(mesh, ["rho", "tr", "tr_9"], with_fluxes=True).get_pack(mesh.mesh_data([0, 2, 1]))
    assert [f.name for f in pack._fields] == ["rho", "tr_9", "tr_1"]  # tr_9 is on block 0, tr_1 from block 2
    assert [f.name for f in pack._flux_fields] == ["rho", "tr_9", "tr_1"]
    assert pack.arrays[1] is mesh.data("tr_9") and pack.flux_arrays[2] is mesh.field("tr_1").flux
    rows = {0: [(0, 0, 0, 1), (1, 0, 0, 1), (1, 0, 0, 1)],
            2: [(0, 2, 0, 1), (2, 2, 0, 1), (1, 2, 0, 1), (1, 2, 0, 1)], 1: [(0, 1, 0, 1)]}
    for b, lid in enumerate((0, 2, 1)):
        table = pack.index_table[b].tolist()
        assert table == [list(r) for r in rows[lid]] + [[-1] * 4] * (4 - len(rows[lid]))
        np.testing.assert_array_equal(pack.flux_table[b], pack.index_table[b])
    assert pack.bounds.tolist() == [[[0, 0], [1, 1], [2, 2]], [[0, 0], [1, 2], [3, 3]],
                                    [[0, 0], [-1, -2], [-1, -2]]]


# -- the kernel tables ---------------------------------------------------------------------------------
def tables(value) -> dict:
    """The kernel argument's address and shape tables as host numpy arrays."""
    return {n: getattr(value, n).numpy() for n in ("ptrs", "ptr_shapes", "fluxes", "flux_shapes")}


def slab_at(row, shape, arrays) -> np.ndarray:
    """The (nk, nj, ni) values a kernel reaches from a table row (address, k stride, j stride, address read
    through a run-time flat index: the same), read through the raw address once the slab is seen to lie inside
    one of the host ``arrays``."""
    (address, ks, js, read), item = row, arrays[0].dtype.itemsize
    assert read == address
    nk, nj, ni = shape
    end = address + ((nk - 1) * ks + (nj - 1) * js + ni) * item
    assert any(a.ctypes.data <= address and end <= a.ctypes.data + a.nbytes for a in arrays)
    buffer = (ctypes.c_char * (end - address)).from_address(int(address))
    return np.ndarray(tuple(shape), arrays[0].dtype, buffer=buffer, strides=(ks * item, js * item, item))


def check_kernel_tables(mesh, names, lids):
    """Every (block, variable, element or direction, k, j, i) of a pack's kernel tables reads the
    field's own value; rows and elements the pack lacks have zero extents and point at one zeroed slab (their
    reads through a run-time flat index at another, which no access writes)."""
    pack = PackDescriptor(mesh, names, with_fluxes=True).get_pack(mesh.mesh_data(lids.tolist()))
    t = tables(pack.kernel_value())
    null = [pack.kernel_value()._bw_null_slab.ptr, 0, 0, pack.kernel_value()._bw_zero_slab.ptr]
    bounds = expected_bounds(mesh, lids, names)
    assert t["ptrs"].shape == (len(lids), pack.get_max_number_of_vars(), 3, 4)
    for b, lid in enumerate(lids):
        for v, name in enumerate(names):
            lo, hi = bounds[b, v]
            present = [f for f in instances(mesh, name) if f.allocated[lid]]
            if not present:
                continue
            idx = slice(lo, hi + 1)
            # per element (direction): the values of its flat indices, (ncomp, nk, nj, ni)
            slabs = [np.concatenate([f.element(te)[lid] for f in present]) for te in present[0].spec.elements]
            directions = range(1, mesh.ndim + 1) if present[0].has_fluxes else ()
            fluxes = [np.concatenate([f.flux_array(d)[lid] for f in present]) for d in directions]
            for ptrs, shapes, parts, arrays in ((t["ptrs"], t["ptr_shapes"], slabs, pack.arrays),
                                                (t["fluxes"], t["flux_shapes"], fluxes, pack.flux_arrays)):
                for e, want in enumerate(parts):
                    got = [slab_at(r, s, arrays) for r, s in zip(ptrs[b, idx, e], shapes[b, idx, e])]
                    np.testing.assert_array_equal(np.stack(got), want)
                assert (ptrs[b, idx, len(parts):] == null).all() and not shapes[b, idx, len(parts):].any()
        n = bounds[b, :, 1].max() + 1
        assert (t["ptrs"][b, n:] == null).all() and (t["fluxes"][b, n:] == null).all()
        assert not t["ptr_shapes"][b, n:].any() and not t["flux_shapes"][b, n:].any()


@pytest.mark.parametrize("order", ["reversed", "shuffled"])
def test_kernel_tables_address_every_element_of_a_many_block_pack(mesh, order):
    lids = np.arange(mesh.nblocks)[::-1] if order == "reversed" else np.random.default_rng(5).permutation(mesh.nblocks)
    check_kernel_tables(mesh, VARS, lids)


def test_kernel_tables_address_every_topology_of_a_3d_pack(mesh3d):
    lids = np.random.default_rng(2).permutation(mesh3d.nblocks)[:40]  # a subset, shuffled
    check_kernel_tables(mesh3d, VARS_3D, lids)


def rebased(pack, value) -> dict:
    """The kernel tables with each address made an offset into its storage array (host or device), 0 for
    the null slabs."""
    t = tables(value)
    for key, table, arrays in (("ptrs", pack.index_table, pack.arrays), ("fluxes", pack.flux_table, pack.flux_arrays)):
        bases = np.array([storage.address(a) for a in arrays] + [0], dtype=np.int64)[table[..., 0]]
        for column in (0, 3):  # the address, and the address read through a run-time flat index
            addresses = t[key][..., column]
            addresses[(addresses == value._bw_null_slab.ptr) | (addresses == value._bw_zero_slab.ptr)] = 0
            addresses -= np.where(addresses != 0, bases[..., None], 0)
    return t


def test_device_kernel_tables_match_the_cpu_ones():
    """On a (fake) CUDA device the tables hold device addresses: at the same offsets as on the CPU."""
    lids = np.random.default_rng(4).permutation(64)
    packs = []
    for device in ("cpu", "cuda:0"):
        with installed(FakeDriver()):
            mesh = Mesh((8, 8, 8), (2, 2, 2), nghost=1, packages=[package_3d()], device=device)
            allocate_randomly(mesh, {"tr": (2, 5)}, seed=3)
            pack = PackDescriptor(mesh, VARS_3D, with_fluxes=True).get_pack(mesh.mesh_data(lids.tolist()))
            value = pack.kernel_value()
            assert value.ptrs.device == device
            packs.append(rebased(pack, value))
    cpu, dev = packs
    assert cpu["ptrs"][..., 0].any() and cpu["fluxes"][..., 0].any()
    for key in cpu:
        np.testing.assert_array_equal(dev[key], cpu[key])

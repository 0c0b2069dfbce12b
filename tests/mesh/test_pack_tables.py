"""SparsePack tables over many blocks: every flat index read through ``index_table``/``flux_table``
against the fields' own arrays, with bounds recomputed from the allocation with numpy."""

from __future__ import annotations

import numpy as np
import pytest

from brickwork.mesh import Mesh, Metadata, Package, PackDescriptor

VARS = ["rho", "tr", "mom", "B", "sp"]  # dense, sparse vector pool, vector, face, sparse scalar pool


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
    rng = np.random.default_rng(7)
    for base, ids in (("tr", (1, 4, 9)), ("sp", (0, 3))):
        for sid in ids:
            for lid in np.flatnonzero(rng.random(mesh.nblocks) < 0.5):
                mesh.allocate_sparse(int(lid), base, sid)
    offset = 0.0
    for fld in mesh.fields.values():
        for arr in (fld.data, fld.flux):
            if arr is not None:
                arr[...] = offset + np.arange(arr.size).reshape(arr.shape)
                offset += arr.size
    return mesh


def instances(mesh, name):
    """The fields of variable ``name`` in pack order (a pool's instances by sparse id)."""
    pool = mesh.packages[0].sparse_pools.get(name)
    return [mesh.field(name)] if pool is None else [mesh.field(s.name) for s in pool.instances]


def expected_bounds(mesh, lids):
    """(nblocks, nvars, 2) bounds from the allocation: cumulative component counts per block."""
    sizes = np.stack(
        [sum(f.allocated[lids] * f.spec.ncomp for f in instances(mesh, v)) for v in VARS], axis=1
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

"""MeshData, PackDescriptor and SparsePack: host access, bounds, sparse densification, errors."""

from __future__ import annotations

import numpy as np
import pytest

from brickwork.mesh import (
    TE,
    X1DIR,
    X2DIR,
    IndexDomain,
    IndexRange,
    Mesh,
    MeshData,
    Metadata,
    Package,
    PackDescriptor,
    VarTag,
)

rho, mom, B, tr, phi = (VarTag(n) for n in ("rho", "mom", "B", "tr", "phi"))


def make_mesh():
    pkg = Package("p")
    pkg.add_field("rho", Metadata("Cell", "FillGhost", "WithFluxes", "Independent"))
    pkg.add_field("mom", Metadata("Cell", "FillGhost", "WithFluxes", "Vector"), shape=(3,))
    pkg.add_field("B", Metadata("Face", "FillGhost"))
    pkg.add_field("tr", Metadata("Cell", "Sparse", "WithFluxes"), sparse_ids=[1, 4, 9])
    pkg.add_field("phi", Metadata("Node"), dtype=np.int32)
    mesh = Mesh((8, 8), (4, 4), nghost=2, packages=[pkg])
    rng = np.random.default_rng(1)
    for name in ("rho", "mom", "B"):
        mesh.data(name)[:] = rng.standard_normal(mesh.data(name).shape)
    mesh.data("phi")[:] = rng.integers(-50, 50, mesh.data("phi").shape)
    # tr_1 on blocks 0, 2; tr_4 on block 2; tr_9 on blocks 2, 3; nothing on block 1
    for lid, sid in ((0, 1), (2, 1), (2, 4), (2, 9), (3, 9)):
        mesh.allocate_sparse(lid, "tr", sid)
    for sid in (1, 4, 9):
        mesh.data(f"tr_{sid}")[:] += sid * 100.0
        mesh.field(f"tr_{sid}").zero_unallocated()
    return mesh


def test_meshdata_bounds_and_subsets():
    mesh = make_mesh()
    md = MeshData(mesh)
    assert md.nblocks == 4 and md.ndim == 2 and md.lids.tolist() == [0, 1, 2, 3]
    assert md.get_bounds_i(IndexDomain.interior) == IndexRange(2, 5)
    assert md.get_bounds_j(IndexDomain.entire, TE.F2) == IndexRange(0, 8)
    assert md.get_bounds_k(IndexDomain.interior, TE.NN) == IndexRange(0, 0)
    sub = mesh.mesh_data([3, mesh.blocks[1]])
    assert sub.lids.tolist() == [3, 1]
    with pytest.raises(ValueError, match="at least one block"):
        MeshData(mesh, [])
    with pytest.raises(ValueError, match="duplicate blocks"):
        MeshData(mesh, [1, 1])
    with pytest.raises(IndexError, match="block index 4 out of range"):
        MeshData(mesh, [4])


def test_dense_reads_and_writes_match_storage():
    mesh = make_mesh()
    pack = PackDescriptor(mesh, [rho, mom, "B", phi]).get_pack(mesh.mesh_data())
    data = {n: mesh.data(n) for n in ("rho", "mom", "B", "phi")}
    for b in range(4):
        assert pack[b, rho(), 0, 3, 4] == data["rho"][b, 0, 0, 3, 4]
        for c in range(3):
            assert pack[b, mom(c), 0, 5, 2] == data["mom"][b, c, 0, 5, 2]
        for e, te in enumerate((TE.F1, TE.F2, TE.F3)):
            assert pack[b, te, B(0), 0, 8, 8] == data["B"][b, e, 0, 8, 8]
        assert pack[b, phi(), 0, 1, 1] == data["phi"][b, 0, 0, 1, 1]
    # flat indices: rho 0, mom 1..3, B 4, phi 5
    assert pack[2, 3, 0, 4, 4] == data["mom"][2, 2, 0, 4, 4]
    assert pack[1, TE.F3, 4, 0, 2, 2] == data["B"][1, 2, 0, 2, 2]
    pack[3, mom(2), 0, 2, 3] = 42.0
    pack[0, TE.F2, B(), 0, 8, 1] = -1.5
    pack[1, 0, 0, 0, 0] = 7
    assert data["mom"][3, 2, 0, 2, 3] == 42.0
    assert data["B"][0, 1, 0, 8, 1] == -1.5
    assert data["rho"][1, 0, 0, 0, 0] == 7.0
    # views: leave out k, j, i
    view = pack[2, rho()]
    assert view.shape == (1, 8, 8) and np.shares_memory(view, data["rho"])
    view[0, 4, 4] = 3.25
    assert data["rho"][2, 0, 0, 4, 4] == 3.25
    np.testing.assert_array_equal(pack[0, mom(1), 0, 2:6, 2:6], data["mom"][0, 1, 0, 2:6, 2:6])


def test_bounds_and_queries_dense():
    mesh = make_mesh()
    pack = PackDescriptor(mesh, [rho, mom, B]).get_pack(mesh.mesh_data())
    assert pack.get_nblocks() == 4 and pack.get_max_number_of_vars() == 5
    assert (pack.get_lower_bound(0, mom), pack.get_upper_bound(0, mom), pack.get_size(0, mom)) == (1, 3, 3)
    assert pack.get_index(0, mom(2)) == 3 and pack.get_index(0, B()) == 4
    assert pack.contains(3, "rho")
    with pytest.raises(KeyError, match="variable 'phi' is not in this pack \\(it holds: rho, mom, B\\)"):
        pack.get_lower_bound(0, phi)


def test_sparse_instances_are_densified_per_block():
    mesh = make_mesh()
    pack = PackDescriptor(mesh, [rho, tr, mom]).get_pack(mesh.mesh_data())
    # block 0: rho 0, tr_1 1, mom 2..4 | block 1: rho 0, (no tr), mom 1..3
    # block 2: rho 0, tr_1 1, tr_4 2, tr_9 3, mom 4..6 | block 3: rho 0, tr_9 1, mom 2..4
    assert [pack.get_lower_bound(b, tr) for b in range(4)] == [1, -1, 1, 1]
    assert [pack.get_upper_bound(b, tr) for b in range(4)] == [1, -2, 3, 1]
    assert [pack.get_size(b, tr) for b in range(4)] == [1, 0, 3, 1]
    assert [pack.get_lower_bound(b, mom) for b in range(4)] == [2, 1, 4, 2]
    assert [pack.contains(b, tr) for b in range(4)] == [True, False, True, True]
    assert pack.get_index(1, tr(0)) == -1 and pack.get_index(2, tr(2)) == 3
    assert pack.get_max_number_of_vars() == 7
    d = {s: mesh.data(f"tr_{s}") for s in (1, 4, 9)}
    assert pack[2, tr(0), 0, 3, 3] == d[1][2, 0, 0, 3, 3]
    assert pack[2, tr(1), 0, 3, 3] == d[4][2, 0, 0, 3, 3]
    assert pack[2, tr(2), 0, 3, 3] == d[9][2, 0, 0, 3, 3]
    assert pack[3, tr(0), 0, 3, 3] == d[9][3, 0, 0, 3, 3]
    pack[3, tr(0), 0, 1, 1] = 5.0
    assert d[9][3, 0, 0, 1, 1] == 5.0
    with pytest.raises(IndexError, match="variable 'tr' is not allocated on pack block 1"):
        pack[1, tr(0), 0, 0, 0]
    # a single instance by its full name
    one = PackDescriptor(mesh, ["tr_9"]).get_pack(mesh.mesh_data())
    assert [one.get_size(b, "tr_9") for b in range(4)] == [0, 0, 1, 1]


def test_pack_over_a_subset_of_blocks():
    mesh = make_mesh()
    md = mesh.mesh_data([2, 0])
    pack = PackDescriptor(md, [tr, rho]).get_pack(md)
    assert pack.get_nblocks() == 2 and pack.block_lids.tolist() == [2, 0]
    assert pack.get_size(0, tr) == 3 and pack.get_size(1, tr) == 1
    assert pack[0, rho(), 0, 2, 2] == mesh.data("rho")[2, 0, 0, 2, 2]
    assert pack[1, rho(), 0, 2, 2] == mesh.data("rho")[0, 0, 0, 2, 2]


def test_fluxes():
    mesh = make_mesh()
    pack = PackDescriptor(mesh, [rho, tr, mom, B], with_fluxes=True).get_pack(mesh.mesh_data())
    flux_rho = mesh.field("rho").flux
    pack.flux(1, X1DIR, rho(), 0, 3, 6)  # face ie+1 of the cell layout: a ghost slot, allowed
    pack.flux(1, X2DIR, rho())[0, 3, 6] = 2.5
    assert flux_rho[1, 1, 0, 3, 6] == 2.5 and pack.flux(1, X2DIR, rho(), 0, 3, 6) == 2.5
    pack.flux(2, X1DIR, tr(1))[0, 2, 2] = 9.0
    assert mesh.field("tr_4").flux[2, 0, 0, 2, 2] == 9.0
    pack.flux(0, X2DIR, mom(2))[0, 4, 5] = -3.0
    assert mesh.field("mom").flux[0, 5, 0, 4, 5] == -3.0  # direction-major slots: (2-1)*3 + 2
    with pytest.raises(ValueError, match="'B' has no flux arrays"):
        pack.flux(0, X1DIR, B())
    with pytest.raises(IndexError, match="flux direction 3 is not active in a 2-D mesh"):
        pack.flux(0, 3, rho())
    plain = PackDescriptor(mesh, [rho]).get_pack(mesh.mesh_data())
    with pytest.raises(ValueError, match="with_fluxes=True"):
        plain.flux(0, X1DIR, rho())


def test_kernel_tables():
    mesh = make_mesh()
    pack = PackDescriptor(mesh, [rho, tr, B], with_fluxes=True).get_pack(mesh.mesh_data())
    assert pack.index_table.dtype == np.int32 and pack.index_table.shape == (4, 5, 4)
    assert pack.bounds.shape == (4, 3, 2)
    # Recompute every value through the documented table formulas and compare with pack access.
    for b in range(pack.get_nblocks()):
        nvars = int((pack.index_table[b, :, 0] >= 0).sum())
        assert nvars == pack.get_upper_bound(b, B) + 1
        for idx in range(nvars):
            aid, lid, slot, stride = pack.index_table[b, idx]
            arr = pack.arrays[aid]
            te = TE.F2 if idx == pack.get_index(b, B) else None
            e = 0 if te is None else int(te) % 3
            key = (b, idx, 0, 3, 4) if te is None else (b, te, idx, 0, 3, 4)
            assert arr[lid, slot + e * stride, 0, 3, 4] == pack[key]
            fid, flid, fslot, fstride = pack.flux_table[b, idx]
            if idx == pack.get_index(b, B):
                assert fid == -1
            else:
                val = pack.flux_arrays[fid][flid, fslot + (X2DIR - 1) * fstride, 0, 3, 4]
                assert val == pack.flux(b, X2DIR, idx, 0, 3, 4)
        assert (pack.index_table[b, nvars:] == -1).all()
    assert pack.bounds[1, 1].tolist() == [-1, -2]


def test_pack_cache_follows_allocation():
    mesh = make_mesh()
    md = mesh.mesh_data()
    desc = PackDescriptor(mesh, [tr])
    first = desc.get_pack(md)
    assert desc.get_pack(md) is first
    mesh.allocate_sparse(1, "tr", 4)
    second = md.get_pack(desc)
    assert second is not first and second.get_size(1, tr) == 1


def test_descriptor_selection_by_flags():
    mesh = make_mesh()
    desc = PackDescriptor(mesh, flags=[Metadata.FillGhost])
    assert [t.name for t in desc.vars] == ["rho", "mom", "B"]
    assert [t.name for t in PackDescriptor(mesh, flags="WithFluxes").vars] == ["rho", "mom", "tr"]
    assert len(PackDescriptor(mesh.packages[0]).vars) == 5
    assert len(PackDescriptor([mesh.packages[0]], ["rho"]).vars) == 1


@pytest.mark.parametrize(
    "args,kwargs,error,message",
    [
        (([rho, "nope"],), {}, KeyError, "unknown field 'nope'"),
        (([rho, rho],), {}, ValueError, "'rho' is listed twice"),
        (([phi],), {"flags": ["FillGhost"]}, ValueError, "'phi' lacks the required flags FillGhost"),
        (([3],), {}, TypeError, "expected a VarTag"),
        ((None,), {"flags": ["Fill"]}, ValueError, "unknown Metadata flag 'Fill'"),
    ],
)
def test_descriptor_errors(args, kwargs, error, message):
    mesh = make_mesh()
    with pytest.raises(error, match=message):
        PackDescriptor(mesh, *args, **kwargs)


def test_descriptor_source_errors():
    with pytest.raises(TypeError, match="source must be a Mesh, MeshData, Package"):
        PackDescriptor(42, ["rho"])
    with pytest.raises(ValueError, match="non-empty field name"):
        VarTag("")
    with pytest.raises(TypeError, match="component must be an integer"):
        rho(1.5)
    other = Package("other")
    other.add_field("zeta", Metadata())
    with pytest.raises(KeyError, match="'zeta' of the descriptor is not on this mesh"):
        PackDescriptor(other, ["zeta"]).get_pack(make_mesh().mesh_data())


@pytest.mark.parametrize(
    "key,value,error,message",
    [
        ((0, mom(3), 0, 0, 0), None, IndexError, "component 3 out of range for variable 'mom' .*valid 0..2"),
        ((0, mom(-1), 0, 0, 0), None, IndexError, "component -1 out of range"),
        ((4, rho(), 0, 0, 0), None, IndexError, "block index 4 out of range for a pack of 4 blocks"),
        (
            (0, 9, 0, 0, 0),
            None,
            IndexError,
            "flat variable index 9 out of range on pack block 0 \\(valid 0..5\\)",
        ),
        ((0, B(), 0, 0, 0), None, IndexError, "'B' is a Face field: give an element \\(F1, F2, F3\\)"),
        ((0, TE.F1, rho(), 0, 0, 0), None, IndexError, "'rho' has no element F1 \\(it has CC\\)"),
        ((0, VarTag("zz")(), 0, 0, 0), None, KeyError, "variable 'zz' is not in this pack"),
        ((0, 1.5, 0, 0, 0), None, TypeError, "expected a variable"),
        ((0,), None, IndexError, "pack keys are"),
        ((0, rho(), 0, 0, 0), 1.0 + 2.0j, TypeError, "cannot store complex128 values in variable 'rho'"),
        (
            (0, phi(), 0, 0, 0),
            2.5,
            TypeError,
            "cannot store float64 values in variable 'phi' \\(dtype int32\\)",
        ),
        ((0, mom(5), 0, 0, 0), 1.0, IndexError, "component 5 out of range for variable 'mom'"),
        ((0, rho(), 0, 0, 0), "x", TypeError, "cannot store <U1 values"),
    ],
)
def test_bad_access_raises_and_changes_nothing(key, value, error, message):
    mesh = make_mesh()
    pack = PackDescriptor(mesh, [rho, mom, B, phi]).get_pack(mesh.mesh_data())
    before = {n: mesh.data(n).copy() for n in ("rho", "mom", "B", "phi")}
    with pytest.raises(error, match=message):
        if value is None:
            pack[key]
        else:
            pack[key] = value
    for n, arr in before.items():
        np.testing.assert_array_equal(mesh.data(n), arr)

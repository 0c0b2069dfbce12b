"""Packs inside kernel code: reads, writes, face elements, fluxes, sparse bounds, against host access."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

density, momentum, dye, bfield = VarTag("density"), VarTag("momentum"), VarTag("dye"), VarTag("B")


def make_mesh():
    hydro = Package("hydro")
    hydro.add_field("density", Metadata("Cell", "Independent", "FillGhost", "WithFluxes"))
    hydro.add_field("momentum", Metadata("Cell", "Independent", "FillGhost", "Vector"), shape=(3,))
    hydro.add_field("B", Metadata("Face", "FillGhost", "CellMemAligned"))
    hydro.add_field("dye", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[1, 2])
    mesh = Mesh(nx=(16, 8), block_nx=(8, 8), nghost=2, packages=[hydro])
    rng = np.random.default_rng(0)
    for name in ("density", "momentum", "B"):
        mesh.data(name)[...] = rng.random(mesh.data(name).shape)
    mesh.allocate_sparse(0, "dye", 2)
    return mesh


def test_pack_reads_writes_and_bounds_in_a_par_for():
    mesh = make_mesh()
    desc = PackDescriptor(mesh, [density, momentum, dye, bfield], with_fluxes=True)
    pack = desc.get_pack(mesh.mesh_data())
    ib = mesh.cellbounds.get_bounds_i(IndexDomain.interior)
    jb = mesh.cellbounds.get_bounds_j(IndexDomain.interior)
    sizes = wp.zeros((pack.get_nblocks(), 2), dtype=wp.int32)

    def body(b, j, i):  # noqa: F811
        pack[b, momentum(2), 0, j, i] = pack[b, density(), 0, j, i] + pack[b, TE.F1, bfield(), 0, j, i]
        if j == 2 and i == 2:
            sizes[b, 0] = pack.get_size(b, dye)
            sizes[b, 1] = pack.get_lower_bound(b, dye)
            sizes[b, 1] = sizes[b, 1] + pack.get_upper_bound(b, dye) * 100

    before = {n: mesh.data(n).copy() for n in ("density", "momentum", "B")}
    wp.par_for(pack.get_nblocks(), jb, ib, body)
    expected = before["density"][:, 0, 0] + before["B"][:, 0, 0]
    np.testing.assert_array_equal(mesh.data("momentum")[:, 2, 0][:, jb.as_slice(), ib.as_slice()],
                                  expected[:, jb.as_slice(), ib.as_slice()])
    np.testing.assert_array_equal(mesh.data("density"), before["density"])
    assert sizes.numpy().tolist() == [[1, 4 + 4 * 100], [0, -1 - 200]]


def test_fluxes_and_runtime_components():
    mesh = make_mesh()
    pack = PackDescriptor(mesh, [density, momentum], with_fluxes=True).get_pack(mesh.mesh_data())

    def body(b, j, i):
        total = wp.float64(0.0)
        for c in range(3):
            total = total + pack[b, momentum(c), 0, j, i]
        pack.flux[b, 1, density(), 0, j, i] = total
        pack[b, density(), 0, j, i] = pack.flux(b, 1, density(), 0, j, i) * wp.float64(2.0)

    wp.par_for(2, (2, 9), (2, 9), body)
    mom = mesh.data("momentum")[:, :, 0, 2:10, 2:10]
    total = mom[:, 0] + mom[:, 1] + mom[:, 2]
    flux = pack.flux(0, 1, density())
    np.testing.assert_array_equal(flux[0, 2:10, 2:10], total[0])
    np.testing.assert_array_equal(mesh.data("density")[:, 0, 0, 2:10, 2:10], 2.0 * total)


def test_pack_component_out_of_range_is_rejected():
    mesh = make_mesh()
    pack = PackDescriptor(mesh, [density, momentum]).get_pack(mesh.mesh_data())

    def body(b, j, i):
        pack[b, momentum(3), 0, j, i] = wp.float64(1.0)

    with pytest.raises(wp.TypeError, match="component 3 of variable 'momentum' is out of range"):
        wp.par_for(2, 8, 8, body)

    def other(b, j, i):
        pack[b, dye(), 0, j, i] = wp.float64(1.0)

    with pytest.raises(wp.TypeError, match="variable 'dye' is not in this pack"):
        wp.par_for(2, 8, 8, other)


def test_a_pack_called_as_in_parthenon_says_to_index_it_with_square_brackets():
    """``pack(b, var, k, j, i)``, Parthenon's spelling, said "a value of type PackView_<hash> is not callable"."""
    mesh = make_mesh()
    pack = PackDescriptor(mesh, [density, momentum]).get_pack(mesh.mesh_data())
    before = mesh.data("momentum").copy()

    def body(b, j, i):
        pack[b, momentum(0), 0, j, i] = pack(b, density(), 0, j, i)  # the call

    with pytest.raises(wp.KernelTypeError) as info:
        wp.par_for(2, 8, 8, body)
    assert info.value.message == (
        "'pack' is a pack, not a function: index it with square brackets, pack[b, density(), 0, j, i] (Parthenon's "
        "pack(b, var, k, j, i) is pack[b, var, k, j, i] here: Python cannot assign to a call)")
    assert info.value.location.lineno == body.__code__.co_firstlineno + 1
    np.testing.assert_array_equal(mesh.data("momentum"), before)


def test_a_pack_of_values_kernels_do_not_have_is_refused_naming_the_dtype():
    pkg = Package("c")
    pkg.add_field("wave", Metadata("Cell"), dtype=np.complex128)  # fine for storage, outputs and the exchange
    mesh = Mesh((8,), (4,), nghost=1, packages=[pkg])
    pack = PackDescriptor(mesh, [VarTag("wave")]).get_pack(mesh.mesh_data())

    def body(b, i):
        pack[b, VarTag("wave")(), 0, 0, i] = 1.0

    with pytest.raises(TypeError, match="a pack used in a kernel needs values of a kernel scalar type .*; this one "
                                        "holds complex128"):
        wp.par_for(2, 4, body)


def test_a_pack_indexed_by_a_flat_cell_index_says_to_make_a_pack_view():
    """``pack[b, var(), idx]`` with the flat index of an ``la.inner`` loop said only "got 3 indices"."""
    from brickwork import la

    mesh = make_mesh()
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [density, momentum]).get_pack(md)
    space = la.IndexSpace(la.bovi, la.logical_flat, domain=IndexDomain.interior, nblocks=pack.get_nblocks(), md=md)
    before = mesh.data("density").copy()

    def body(rng, b):
        for idx in la.inner(rng):
            pack[b, density(), idx] = wp.float64(1.0)

    with pytest.raises(wp.KernelTypeError) as info:
        la.outer(space, body)
    assert info.value.message == (
        "a pack takes [b, var, k, j, i] or [b, element, var, k, j, i], got 3 indices (a flat cell index of la.inner "
        "addresses a pack view: pv = la.make_pack_view(rng, pack), then pv[var(), idx])")
    assert info.value.location.lineno == body.__code__.co_firstlineno + 2
    np.testing.assert_array_equal(mesh.data("density"), before)

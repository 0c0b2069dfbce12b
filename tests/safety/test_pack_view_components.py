"""A pack component, flat variable index or flux direction computed at run time and out of range, in a release
build: the table row it reads is clamped into the variable's rows (the pack's for a flat index), so the access
lands on the nearest component of the same variable in the same block. Before, the row was read from past the
variable's rows: ``w(3)`` wrote the next block's data and ``w(100000)`` crashed the process (attacker probe).
Release builds do not test it (a test in the vectorized loop costs 2.5-10x, passes/lower_pack_access.py);
debug mode refuses it with a BoundsError naming the component (tests/la/test_la_runtime_components.py)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.mesh import TE, Mesh, Metadata, Package, PackDescriptor, VarTag

u, w, rho = VarTag("u"), VarTag("w"), VarTag("rho")


def _mesh():
    pkg = Package("p")
    pkg.add_field("u", Metadata("Cell"))
    pkg.add_field("w", Metadata("Cell", "Vector"), shape=(3,))
    mesh = Mesh(nx=(8, 8), block_nx=(4, 4), nghost=1, packages=[pkg])
    return mesh, PackDescriptor(mesh, [u, w]).get_pack(mesh.mesh_data())


def _bodies(pack, at):
    def component(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[w(at[0]), idx] = wp.float64(2.0)

    def flat_index(rng, b):
        for k, j, i in la.inner(rng):
            pack[b, at[0], k, j, i] = wp.float64(3.0)

    return {"component": (la.bovi, la.logical_flat, component), "flat index": (la.bvoi, la.logical_coords, flat_index)}


# (form, index) -> (field, component) written: the nearest end of the variable's components, or of the pack's rows
CASES = {("component", 3): ("w", 2), ("component", -1): ("w", 0), ("component", 100000): ("w", 2),
         ("flat index", 4): ("w", 2), ("flat index", -7): ("u", 0), ("flat index", 1 << 30): ("w", 2)}


@pytest.mark.parametrize("form, index", list(CASES))
def test_a_run_time_index_out_of_range_stays_in_its_variables_rows(monkeypatch, form, index):
    monkeypatch.setattr(wp.config, "mode", "release")
    mesh, pack = _mesh()
    loop, inner, body = _bodies(pack, wp.array([index], dtype=int))[form]
    la.outer(la.IndexSpace(loop, inner, nblocks=pack.get_nblocks(), md=mesh.mesh_data()), body)
    field, c = CASES[form, index]
    expected = {"u": np.zeros_like(mesh.data("u")), "w": np.zeros_like(mesh.data("w"))}
    expected[field][:, c, :, 1:-1, 1:-1] = 2.0 if form == "component" else 3.0  # every block's interior, only
    np.testing.assert_array_equal(mesh.data("u"), expected["u"])
    np.testing.assert_array_equal(mesh.data("w"), expected["w"])


def _flux_mesh():
    pkg = Package("p")
    pkg.add_field("u", Metadata("Cell"))
    pkg.add_field("rho", Metadata("Cell", "WithFluxes"))
    mesh = Mesh(nx=(8, 8), block_nx=(4, 4), nghost=1, packages=[pkg])
    return mesh, PackDescriptor(mesh, [u, rho], with_fluxes=True).get_pack(mesh.mesh_data())


def _flux_body(pack, direction):
    def body(rng, b):
        for k, j, i in la.inner(rng):
            pack.flux[b, direction[0], rho(), k, j, i] = wp.float64(4.0)
    return body


@pytest.mark.parametrize("direction, stored", [(3, 2), (0, 1), (-100, 1)])  # a 2-D mesh: directions 1 and 2
def test_a_run_time_flux_direction_out_of_range_stays_in_the_variables_directions(monkeypatch, direction, stored):
    monkeypatch.setattr(wp.config, "mode", "release")
    mesh, pack = _flux_mesh()
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=pack.get_nblocks(), md=mesh.mesh_data())
    la.outer(space, _flux_body(pack, wp.array([direction], dtype=int)))
    flux = mesh.field("rho").flux  # (block, direction, k, j, i)
    expected = np.zeros_like(flux)
    expected[:, stored - 1, :, 1:-1, 1:-1] = 4.0
    np.testing.assert_array_equal(flux, expected)
    assert not mesh.data("u").any() and not mesh.data("rho").any()


def fluxless(rng, b):
    for k, j, i in la.inner(rng):
        FLUX_PACK.flux[b, DIRECTION[0], u(), k, j, i] = wp.float64(4.0)  # fluxless's access


FLUX_MESH, FLUX_PACK = _flux_mesh()
DIRECTION = wp.array([1], dtype=int)


@pytest.mark.parametrize("mode", ["release", "debug"])
def test_a_run_time_flux_direction_of_a_fluxless_variable_is_refused(monkeypatch, mode):
    """No direction has storage (the tables' rows are null: the release build crashed): a compile-time error."""
    monkeypatch.setattr(wp.config, "mode", mode)
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=FLUX_PACK.get_nblocks(), md=FLUX_MESH.mesh_data())
    with pytest.raises(wp.KernelTypeError) as e:
        la.outer(space, fluxless)
    assert ("variable 'u' has no fluxes (its fields lack Metadata WithFluxes, or the pack was built without "
            "with_fluxes=True): a flux in any direction has no storage") in str(e.value)
    assert "test_pack_view_components.py\", line" in str(e.value)
    assert not FLUX_MESH.data("u").any() and not FLUX_MESH.field("rho").flux.any()


AT = wp.array([0], dtype=int)  # the flat index of 'u': a cell field without fluxes


def null_rows(rng, b):
    for k, j, i in la.inner(rng):
        FLUX_PACK.flux[b, 1, AT[0], k, j, i] = wp.float64(4.0)  # u has no flux rows
        FLUX_PACK[b, TE.F2, AT[0], k, j, i] = FLUX_PACK[b, TE.F2, AT[0], k, j, i] + wp.float64(5.0)  # nor F2


def test_a_run_time_flat_index_on_a_null_row_touches_no_field(monkeypatch):
    """Release: the tables' null rows (a fluxless variable's flux rows, a cell field's face elements) point at a
    zeroed slab with strides 0 (mesh/kernel_pack.py), so the accesses land there: before, at address 0 (SIGSEGV)."""
    monkeypatch.setattr(wp.config, "mode", "release")
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=FLUX_PACK.get_nblocks(), md=FLUX_MESH.mesh_data())
    la.outer(space, null_rows)
    assert not FLUX_MESH.data("u").any() and not FLUX_MESH.data("rho").any()
    assert not FLUX_MESH.field("rho").flux.any()
    null = FLUX_PACK.kernel_value()._bw_null_slab.numpy()
    assert set(np.unique(null)) <= {0.0, 4.0, 5.0}  # what the accesses wrote (a null row's read gives 0)
    assert not FLUX_PACK.kernel_value()._bw_zero_slab.numpy().any()


READ = wp.zeros((4, 6, 6), dtype=wp.float64)  # what the body below reads through null rows, per block and cell


def null_reads(rng, b):
    for k, j, i in la.inner(rng):
        FLUX_PACK.flux[b, 1, AT[0], k, j, i] = wp.float64(4.0)  # null rows: into the sink slab
        FLUX_PACK[b, TE.F2, AT[0], k, j, i] = wp.float64(7.0)
        READ[b, j, i] = (FLUX_PACK[b, TE.F2, AT[0], k, j, i] + FLUX_PACK.flux[b, 1, AT[0], k, j, i]
                         + FLUX_PACK.flux(b, 1, AT[0], k, j, i) + wp.float64(1.0))


def test_a_read_through_a_null_row_is_zero_whatever_was_written(monkeypatch):
    """Release: a read through a run-time flat index reaching a null row takes its address from the tables'
    fourth column, a zeroed slab no access writes (round 14; it read what an earlier such write left there:
    21 here, the last write 7 three times); its writes still go to the sink slab, and no field changes."""
    monkeypatch.setattr(wp.config, "mode", "release")
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=FLUX_PACK.get_nblocks(), md=FLUX_MESH.mesh_data())
    for _ in range(2):  # the second launch reads after the first's writes too
        la.outer(space, null_reads)
        expected = np.zeros((4, 6, 6))
        expected[:, 1:5, 1:5] = 1.0
        np.testing.assert_array_equal(READ.numpy(), expected)
    assert not FLUX_MESH.data("u").any() and not FLUX_MESH.data("rho").any()
    assert not FLUX_MESH.field("rho").flux.any() and not FLUX_PACK.kernel_value()._bw_zero_slab.numpy().any()


def test_debug_mode_refuses_a_run_time_flat_index_on_a_null_row(monkeypatch):
    monkeypatch.setattr(wp.config, "mode", "debug")
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=FLUX_PACK.get_nblocks(), md=FLUX_MESH.mesh_data())
    with pytest.raises(wp.BoundsError, match=r"test_pack_view_components\.py"):
        la.outer(space, null_rows)
    assert not FLUX_MESH.data("u").any() and not FLUX_MESH.field("rho").flux.any()


COMPONENT = wp.int32(0)  # captured by the body below: a launch argument, tested by the launch's packer
MESH, PACK = _mesh()


def captured_component(rng, b):
    for k, j, i in la.inner(rng):
        PACK[b, w(COMPONENT), k, j, i] = wp.float64(6.0)


@pytest.mark.parametrize("n", [3, -1, 100000])
def test_a_component_given_at_launch_out_of_range_is_refused(monkeypatch, n):
    """Before, release builds clamped it silently (w(3) wrote w(2)): the packer tests it once per launch (debug
    builds test it in the kernel: a BoundsError, tests/la/test_la_runtime_components.py)."""
    monkeypatch.setattr(wp.config, "mode", "release")
    monkeypatch.setitem(globals(), "COMPONENT", wp.int32(n))
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=PACK.get_nblocks(), md=MESH.mesh_data())
    with pytest.raises(wp.LaunchError) as e:
        la.outer(space, captured_component)
    line = captured_component.__code__.co_firstlineno + 2
    assert str(e.value) == (f"launch of 'captured_component': the access of 'PACK' at {__file__}:{line} takes the "
                            f"component w(COMPONENT) with COMPONENT = {n} at every point of the range, but variable "
                            f"'w' has 3 components in pack 'PACK' (0 to 2); pass a component in that range (release "
                            f"builds do not test it in the kernel)")
    assert not MESH.data("w").any() and not MESH.data("u").any()


def test_a_component_given_at_launch_in_range_is_written(monkeypatch):
    monkeypatch.setattr(wp.config, "mode", "release")
    monkeypatch.setitem(globals(), "COMPONENT", wp.int32(1))
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=PACK.get_nblocks(), md=MESH.mesh_data())
    la.outer(space, captured_component)
    expected = np.zeros_like(MESH.data("w"))
    expected[:, 1, :, 1:-1, 1:-1] = 6.0
    np.testing.assert_array_equal(MESH.data("w"), expected)
    MESH.data("w")[...] = 0.0

"""Pack components computed at run time (``pv[w(c[0]), idx]``, ``pack[b, w(c[0]), k, j, i]``): in range they
address that component; out of range, release builds clamp them into the variable's own components (docs/mesh.md:
a test in a vectorized loop costs too much; tests/safety/test_pack_view_components.py), and debug mode refuses
each one, against the variable's components in the block, without writing anything: ``w(-1)``, which would land
on ``u``, as well as one past the pack's tables."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.mesh import Mesh, Metadata, Package, PackDescriptor, VarTag

u, w = VarTag("u"), VarTag("w")


def _mesh():
    pkg = Package("p")
    pkg.add_field("u", Metadata("Cell"))
    pkg.add_field("w", Metadata("Cell", "Vector"), shape=(3,))
    mesh = Mesh(nx=(8, 8), block_nx=(4, 4), nghost=1, packages=[pkg])
    pack = PackDescriptor(mesh, [u, w]).get_pack(mesh.mesh_data())
    return mesh, pack


def _flat_body(pack, component):
    def body(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[w(component[0]), idx] = wp.float64(2.0)
    return body


def _coords_body(pack, component):
    def body(rng, b):
        for k, j, i in la.inner(rng):
            pack[b, w(component[0]), k, j, i] = wp.float64(3.0)
    return body


FORMS = [(la.bovi, la.logical_flat, _flat_body, 2.0), (la.bvoi, la.logical_coords, _coords_body, 3.0)]


@pytest.mark.parametrize("loop, inner, make, value", FORMS)
@pytest.mark.parametrize("c", [0, 2])
def test_a_run_time_component_in_range_writes_that_component(loop, inner, make, value, c):
    mesh, pack = _mesh()
    md = mesh.mesh_data()
    space = la.IndexSpace(loop, inner, nblocks=pack.get_nblocks(), md=md)
    la.outer(space, make(pack, wp.array([c], dtype=int)))
    expected = np.zeros_like(mesh.data("w"))
    expected[:, c, :, 1:-1, 1:-1] = value  # (block, component, k, j, i): the interior of every block
    np.testing.assert_array_equal(mesh.data("w"), expected)
    assert not mesh.data("u").any()


@pytest.mark.parametrize("loop, inner, make, value", FORMS)
@pytest.mark.parametrize("c", [3, -1, 100000])
def test_debug_mode_refuses_a_component_out_of_range_and_writes_nothing(monkeypatch, loop, inner, make, value, c):
    """Debug mode tests a run-time component against the variable's components in the block before the storage
    indices: w(-1) (u, the variable before w) went through unnoticed, and w(100000) was refused as a row past the
    pack's tables, naming no component."""
    monkeypatch.setattr(wp.config, "mode", "debug")
    mesh, pack = _mesh()
    md = mesh.mesh_data()
    space = la.IndexSpace(loop, inner, nblocks=pack.get_nblocks(), md=md)
    with pytest.raises(wp.BoundsError, match=rf"index \({c}, [^)]*\) is out of bounds for shape \(3, [^)]*\) at "
                                             r".*test_la_runtime_components\.py:\d+ \(computed at run time: the "
                                             r"component of 'w' \(pack.get_size\(b, w\) in this block\)\)"):
        la.outer(space, make(pack, wp.array([c], dtype=int)))
    assert not mesh.data("w").any() and not mesh.data("u").any()


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("loop, inner, make, value", FORMS)
def test_the_gpu_mapping_in_debug_mode_refuses_a_component_out_of_range_too(loop, inner, make, value):
    """The same test on the emulation target (the GPU mapping run block by block on the CPU; each instance is also
    compiled for CUDA by NVRTC)."""
    mesh, pack = _mesh()
    space = la.IndexSpace(loop, inner, nblocks=pack.get_nblocks(), md=mesh.mesh_data(), backend=la.team)
    with wp.config.override(target="cuda-emulation", mode="debug"):
        with pytest.raises(wp.BoundsError, match=r"index \(-1, [^)]*\) is out of bounds for shape \(3, [^)]*\) at .*"
                                                 r"test_la_runtime_components\.py:\d+ \(computed at run time"):
            la.outer(space, make(pack, wp.array([-1], dtype=int)))
        assert not mesh.data("w").any() and not mesh.data("u").any()
        la.outer(space, make(pack, wp.array([1], dtype=int)))
    expected = np.zeros_like(mesh.data("w"))
    expected[:, 1, :, 1:-1, 1:-1] = value
    np.testing.assert_array_equal(mesh.data("w"), expected)

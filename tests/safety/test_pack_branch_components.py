"""A pack component that is a launch argument (``w(n)``, ``n`` an integer parameter or a captured ``wp.int32``) is
tested once per launch wherever the access stands, when the body never tests ``n`` itself: in a branch or a loop of
a loop body, and in a plain ``@wp.kernel`` that takes a pack (attacker probe, round 14). Before, only an access at
the top level of a loop body was tested; these were clamped silently in release builds (``w(3)`` of a
3-component ``w`` wrote ``w(2)``). A body that compares ``n`` (``if n < 3``) keeps its guarded access."""

from typing import Any

import numpy as np
import pytest
from tests.safety.test_pack_view_components import _mesh  # 4 blocks of 4x4 cells, one ghost layer: u and a 3-vector w

import brickwork as wp
from brickwork import la
from brickwork.mesh import VarTag

w = VarTag("w")
MESH, PACK = _mesh()
DIMS = (4, 1, 6, 6)  # blocks, k, j, i of the storage


@wp.kernel
def top_level(p: Any, n: wp.int32):
    b, k, j, i = wp.tid()
    p[b, w(n), k, j, i] = wp.float64(1.0)


@wp.kernel
def in_a_branch(p: Any, n: wp.int32):
    b, k, j, i = wp.tid()
    if i > 0:
        p[b, w(n), k, j, i] = wp.float64(1.0)


@wp.kernel
def guarded(p: Any, n: wp.int32):
    b, k, j, i = wp.tid()
    if n < 3:
        p[b, w(n), k, j, i] = wp.float64(1.0)


N = wp.int32(0)  # captured by the loop body below


def branch_body(rng, b):
    for k, j, i in la.inner(rng):
        if i > 1:
            PACK[b, w(N), k, j, i] = wp.float64(2.0)


def _refusal(kernel, pack, line, n):
    arg = "N" if pack == "PACK" else "n"  # the loop body's captured N, the plain kernels' parameter n
    return (f"launch of '{kernel}': the access of '{pack}' at {__file__}:{line} takes the component w({arg}) with "
            f"{arg} = {n} wherever it runs (the body tests {arg} nowhere, so this value is a mistake whichever branch "
            f"runs), but variable 'w' has 3 components in pack '{pack}' (0 to 2); pass a component in that range "
            f"(release builds do not test it in the kernel)")


@pytest.mark.parametrize("kernel, offset", [(top_level, 3), (in_a_branch, 4)])
@pytest.mark.parametrize("n", [3, -1, wp.int32(100000)])
def test_a_plain_kernels_component_argument_out_of_range_is_refused(monkeypatch, kernel, offset, n):
    monkeypatch.setattr(wp.config, "mode", "release")
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(kernel, dim=DIMS, inputs=[PACK.kernel_value(), n])
    value = n.value if isinstance(n, wp.int32) else n
    line = kernel.func.__code__.co_firstlineno + offset
    assert str(e.value) == _refusal(kernel.key, "p", line, value)
    assert not MESH.data("w").any() and not MESH.data("u").any()


@pytest.mark.parametrize("kernel, cells", [(top_level, 36), (in_a_branch, 30), (guarded, 36)])
def test_a_plain_kernels_component_argument_in_range_is_written(monkeypatch, kernel, cells):
    monkeypatch.setattr(wp.config, "mode", "release")
    wp.launch(kernel, dim=DIMS, inputs=[PACK.kernel_value(), 1])
    np.testing.assert_array_equal(MESH.data("w").sum(axis=(0, 2, 3, 4)), [0.0, 4 * cells, 0.0])
    assert not MESH.data("u").any()
    MESH.data("w")[...] = 0.0


def test_a_body_that_tests_its_component_is_not_refused(monkeypatch):
    monkeypatch.setattr(wp.config, "mode", "release")
    wp.launch(guarded, dim=DIMS, inputs=[PACK.kernel_value(), 3])  # its own test skips the access
    assert not MESH.data("w").any() and not MESH.data("u").any()


@pytest.mark.parametrize("n", [3, -2])
def test_a_loop_bodys_component_in_a_branch_is_refused(monkeypatch, n):
    monkeypatch.setattr(wp.config, "mode", "release")
    space = la.IndexSpace(la.bvoi, la.logical_coords, nblocks=PACK.get_nblocks(), md=MESH.mesh_data())
    monkeypatch.setitem(globals(), "N", wp.int32(n))
    with pytest.raises(wp.LaunchError) as e:
        la.outer(space, branch_body)
    assert str(e.value) == _refusal("branch_body", "PACK", branch_body.__code__.co_firstlineno + 3, n)
    assert not MESH.data("w").any()
    monkeypatch.setitem(globals(), "N", wp.int32(2))
    la.outer(space, branch_body)
    expected = np.zeros_like(MESH.data("w"))
    expected[:, 2, :, 1:5, 2:5] = 2.0  # the interior, i > 1
    np.testing.assert_array_equal(MESH.data("w"), expected)
    MESH.data("w")[...] = 0.0

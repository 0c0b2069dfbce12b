"""The element of a pack access (``pack[b, TE.F2, B(), k, j, i]``, ``pv[TE.F2, B(), k, j, i]``) is a ``TE`` that
the variable's fields store; anything else is a ``KernelTypeError`` naming the line, before anything runs. Before,
``TE.F2`` of a cell field read a null row of the pack's tables (the process crashed), ``TE.CC`` or ``TE.E3`` of a
face field addressed its F1 or F3 element, and a plain int was taken modulo 3."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.mesh import TE, Mesh, Metadata, Package, PackDescriptor, VarTag

HERE = __file__.rsplit("/", 1)[-1]
u, B = VarTag("u"), VarTag("B")

_pkg = Package("p")
_pkg.add_field("u", Metadata("Cell"))
_pkg.add_field("B", Metadata("Face"))
mesh = Mesh(nx=(8, 8), block_nx=(4, 4), nghost=1, packages=[_pkg])
pack = PackDescriptor(mesh, [u, B]).get_pack(mesh.mesh_data())


def _line(text: str) -> str:
    with open(__file__) as f:
        return f"{HERE}\", line {next(n for n, line in enumerate(f, 1) if text in line)}"


def face_of_a_cell_field(rng, b):
    for k, j, i in la.inner(rng):
        pack[b, TE.F2, u(), k, j, i] = wp.float64(2.0)  # face_of_a_cell_field's access


def cell_of_a_face_field(rng, b):
    for k, j, i in la.inner(rng):
        pack[b, TE.CC, B(), k, j, i] = wp.float64(2.0)  # cell_of_a_face_field's access


def edge_of_a_face_field(rng, b):
    for k, j, i in la.inner(rng):
        pack[b, TE.E3, B(), k, j, i] = wp.float64(2.0)  # edge_of_a_face_field's access


def a_number_for_an_element(rng, b):
    for k, j, i in la.inner(rng):
        pack[b, 7, B(), k, j, i] = wp.float64(2.0)  # a_number_for_an_element's access


def a_view_at_a_face_of_a_cell_field(rng, b):
    pv = la.make_pack_view(rng, pack)
    for k, j, i in la.inner(rng):
        pv[TE.F1, u(), k, j, i] = wp.float64(2.0)  # a_view_at_a_face_of_a_cell_field's access


def stored_elements(rng, b):
    pv = la.make_pack_view(rng, pack)
    for k, j, i in la.inner(rng):
        pack[b, TE.F2, B(), k, j, i] = wp.float64(k * 100 + j * 10 + i)
        pv[TE.F3, B(), k, j, i] = wp.float64(-1.0)
        pack[b, TE.CC, u(), k, j, i] = wp.float64(b)


def _space():
    return la.IndexSpace(la.bvoi, la.logical_coords, nblocks=pack.get_nblocks(), md=mesh.mesh_data())


@pytest.mark.parametrize("body, message", [
    (face_of_a_cell_field, "variable 'u' is stored at TE.CC, not at TE.F2"),
    (cell_of_a_face_field, "variable 'B' is stored at TE.F1, TE.F2, TE.F3, not at TE.CC"),
    (edge_of_a_face_field, "variable 'B' is stored at TE.F1, TE.F2, TE.F3, not at TE.E3"),
    (a_number_for_an_element, "the element of pack[b, element, var, k, j, i] is a TE (TE.CC, TE.F1, ...), got 7"),
    (a_view_at_a_face_of_a_cell_field, "variable 'u' is stored at TE.CC, not at TE.F1"),
])
def test_an_element_the_variable_does_not_store_is_refused(body, message):
    for name in ("u", "B"):
        mesh.data(name)[...] = 5.0
    with pytest.raises(wp.KernelTypeError) as e:
        la.outer(_space(), body)
    assert message in str(e.value) and _line(f"{body.__name__}'s access") in str(e.value), str(e.value)
    assert (mesh.data("u") == 5.0).all() and (mesh.data("B") == 5.0).all()


def test_the_stored_elements_are_written():
    for name in ("u", "B"):
        mesh.data(name)[...] = 5.0
    la.outer(_space(), stored_elements)
    b_field, cells = mesh.data("B"), mesh.data("u")  # (block, element, k, j, i) of the 2-D mesh: k = 0
    inside = (slice(None), 0, slice(1, -2), slice(1, -2))  # interior cells of the (1, 7, 7) node extents
    k, j, i = np.meshgrid(np.arange(1), np.arange(7), np.arange(7), indexing="ij")
    np.testing.assert_array_equal(b_field[:, 1][inside], np.broadcast_to((100 * k + 10 * j + i)[0, 1:-2, 1:-2],
                                                                         (4, 4, 4)))
    np.testing.assert_array_equal(b_field[:, 2][inside], -1.0)
    np.testing.assert_array_equal(b_field[:, 0], 5.0)
    np.testing.assert_array_equal(cells[:, 0, 0, 1:-1, 1:-1], np.arange(4.0)[:, None, None] * np.ones((4, 4, 4)))

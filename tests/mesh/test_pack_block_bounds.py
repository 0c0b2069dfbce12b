"""``pack.get_lower_bound(b)`` / ``get_upper_bound(b)`` without a variable, as Parthenon's ``GetLowerBound(b)``
and ``GetUpperBound(b)``: the flat indices of all of block b's variables, on the host and in kernels (a loop
``for n in range(lb, ub + 1)`` over every variable of a flag pack). They were a TypeError on the host and
``pack.get_lower_bound(b, var) takes 2 arguments`` in kernels."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

pkg = Package("bounds")
pkg.add_field("a", Metadata("Cell", "Independent"))
pkg.add_field("v", Metadata("Cell", "Independent", "Vector"), shape=(3,))
pkg.add_field("dye", Metadata("Cell", "Independent", "Sparse"), sparse_ids=[1, 2])
pkg.add_field("d", Metadata("Cell", "Derived"))
mesh = Mesh(nx=(8,), block_nx=(4,), nghost=1, packages=[pkg])
mesh.allocate_sparse(0, "dye", 1)
mesh.allocate_sparse(0, "dye", 2)  # block 0: a (0), v (1..3), dye_1, dye_2 (4, 5); block 1: a, v
md = mesh.mesh_data()
pack = PackDescriptor(mesh, flags=("Independent",)).get_pack(md)
ib = mesh.cellbounds.get_bounds_i(IndexDomain.interior)
uppers = wp.zeros(2, dtype=wp.int32)


def number_every_variable(b, i):
    uppers[b] = pack.get_upper_bound(b)
    for n in range(pack.get_lower_bound(b), pack.get_upper_bound(b) + 1):
        pack[b, n, 0, 0, i] = pack[b, n, 0, 0, i] + wp.float64(n + 1)


def test_the_bounds_of_a_block_span_all_its_variables_on_the_host():
    assert [pack.get_lower_bound(b) for b in range(2)] == [0, 0]
    assert [pack.get_upper_bound(b) for b in range(2)] == [5, 3]
    assert pack.get_upper_bound(0) == pack.get_upper_bound(0, VarTag("dye"))
    dyes = PackDescriptor(mesh, [VarTag("dye")]).get_pack(md)
    assert [dyes.get_upper_bound(b) for b in range(2)] == [1, -1]  # block 1 holds none of its variables
    with pytest.raises(IndexError, match="block index 2 out of range for a pack of 2 blocks"):
        pack.get_upper_bound(2)
    with pytest.raises(IndexError, match="block index 2 out of range"):
        pack.get_lower_bound(2)


def test_a_kernel_loops_over_every_variable_of_each_block():
    names = ["a", "v", "dye_1", "dye_2", "d"]
    before = {n: mesh.data(n).copy() for n in names}
    wp.par_for("number", pack.get_nblocks(), ib, number_every_variable)
    np.testing.assert_array_equal(uppers.numpy(), [5, 3])
    expected = {n: before[n].copy() for n in names}
    expected["a"][:, 0, ..., 1:-1] += 1.0
    for c in range(3):
        expected["v"][:, c, ..., 1:-1] += 2.0 + c
    expected["dye_1"][0, 0, ..., 1:-1] += 5.0  # block 0 only: block 1 has no dye
    expected["dye_2"][0, 0, ..., 1:-1] += 6.0
    for n in names:  # 'd' is not Independent: not in the pack, unchanged
        np.testing.assert_array_equal(mesh.data(n), expected[n], err_msg=n)


def _three_arguments(b, i):
    pack[b, 0, 0, 0, i] = wp.float64(pack.get_upper_bound(b, VarTag("a"), 1))


def _float_block(b, i):
    pack[b, 0, 0, 0, i] = wp.float64(pack.get_upper_bound(wp.float64(1.5)))


@pytest.mark.parametrize("body, message", [
    (_three_arguments, r"pack.get_upper_bound\(b, var\) takes 2 arguments \(or \(b\): all of the block's variables\)"),
    (_float_block, r"pack.get_upper_bound\(b\): the block index must be an integer"),
])
def test_a_wrong_call_is_a_compile_error_naming_the_form(body, message):
    before = mesh.data("a").copy()
    with pytest.raises(wp.KernelTypeError, match=message) as info:
        wp.par_for(pack.get_nblocks(), ib, body)
    assert "test_pack_block_bounds.py" in str(info.value)
    np.testing.assert_array_equal(mesh.data("a"), before)

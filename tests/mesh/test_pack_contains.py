"""``pack.contains`` in Parthenon's three forms, on the host and in kernels: ``contains(b, var)``,
``contains(b, v1, v2, ...)`` (all of them on block b) and ``contains(b)`` (the block holds any of the pack's
variables). The last two were a TypeError on the host and 'takes 2 arguments' in kernels. A variable the pack
was not built with stays a KeyError (host) or a compile error (kernels), as a type missing from Parthenon's
type-based pack does not compile: it names the variable and what the pack holds."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

pkg = Package("contains")
pkg.add_field("a", Metadata("Cell", "Independent"))
pkg.add_field("dye", Metadata("Cell", "Independent", "Sparse"), sparse_ids=[1, 2])
pkg.add_field("ink", Metadata("Cell", "Independent", "Sparse"), sparse_ids=[1])
pkg.add_field("d", Metadata("Cell", "Derived"))
mesh = Mesh(nx=(12,), block_nx=(4,), nghost=1, packages=[pkg])
mesh.allocate_sparse(0, "dye", 2)  # block 0: a, dye; block 1: a, dye, ink; block 2: a only
mesh.allocate_sparse(1, "dye", 1)
mesh.allocate_sparse(1, "ink", 1)
md = mesh.mesh_data()
a, dye, ink, d = VarTag("a"), VarTag("dye"), VarTag("ink"), VarTag("d")
pack = PackDescriptor(mesh, [a, dye, ink]).get_pack(md)
sparse = PackDescriptor(mesh, [dye, ink]).get_pack(md)
ib = mesh.cellbounds.get_bounds_i(IndexDomain.interior)
answers = wp.zeros((3, 4), dtype=wp.int32)

EXPECTED = [[1, 1, 0, 1],  # per block: contains(b, dye), (b, dye, a), (b, ink, a), and sparse.contains(b)
            [1, 1, 1, 1],
            [0, 0, 0, 0]]


def record(b, i):
    if i == ib.s:
        answers[b, 0] = wp.where(pack.contains(b, dye), 1, 0)
        answers[b, 1] = wp.where(pack.contains(b, dye, a), 1, 0)
        answers[b, 2] = wp.where(pack.contains(b, ink, a), 1, 0)
        answers[b, 3] = wp.where(sparse.contains(b), 1, 0)


def test_the_three_forms_on_the_host():
    got = [[pack.contains(b, dye), pack.contains(b, dye, a), pack.contains(b, ink, "a"), sparse.contains(b)]
           for b in range(3)]
    assert np.array_equal(np.array(got, dtype=int), EXPECTED)
    assert [pack.contains(b) for b in range(3)] == [True, True, True]  # 'a' is on every block


def test_the_three_forms_in_a_kernel():
    wp.par_for("contains_forms", pack.get_nblocks(), ib, record)
    np.testing.assert_array_equal(answers.numpy(), EXPECTED)


def test_a_variable_the_pack_does_not_hold_is_an_error_whatever_its_place():
    for call in (lambda: pack.contains(0, d), lambda: pack.contains(2, dye, d)):  # dye is absent on block 2
        with pytest.raises(KeyError, match=r"variable 'd' is not in this pack \(it holds: a, dye, ink\)"):
            call()


def _absent(b, i):
    answers[b, 0] = wp.where(pack.contains(b, a, d), 1, 0)


def test_in_a_kernel_it_is_a_compile_error_with_the_line():
    before = answers.numpy().copy()
    with pytest.raises(wp.KernelTypeError, match=r"variable 'd' is not in this pack \(it has a, dye, ink\)") as info:
        wp.par_for(pack.get_nblocks(), ib, _absent)
    assert "test_pack_contains.py" in str(info.value)
    np.testing.assert_array_equal(answers.numpy(), before)

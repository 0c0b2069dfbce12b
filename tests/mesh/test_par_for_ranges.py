"""A ``par_for`` / ``par_for_outer`` launch whose ranges would take an access that the body makes at every
point out of its array or pack is refused before the body runs (``ir/range_bounds.py``): a ``LaunchError``
naming the access, its file and line, the ranges, the index's span and the shape; nothing is written. In-range
launches run as before, and accesses that may not run at every point stay unchecked."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag
from brickwork.runtime import range_checks

HERE = __file__.rsplit("/", 1)[-1]
X = wp.zeros(1, dtype=wp.float32)  # the arrays the module-level bodies read and write (rebound by the tests)
Y = wp.zeros(1, dtype=wp.float32)


def _line(text: str) -> int:
    """The line of this file holding ``text`` (the access a message must name)."""
    with open(__file__) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)


def _shifted(c: int):
    def body(i):
        Y[i] = X[i + c] + 1.0  # shifted access

    return body


SHIFTED = {c: _shifted(c) for c in range(-2, 3)}


def stencil(k, j, i):
    Y[k, j, i] = X[k, j, i - 1] + X[k, j, i + 2]  # stencil access


def _refused(call, *arrays) -> str:
    before = [a.numpy().copy() for a in arrays]
    with pytest.raises(wp.LaunchError) as info:
        call()
    for a, old in zip(arrays, before):
        np.testing.assert_array_equal(a.numpy(), old)
    return str(info.value)


def test_a_1d_range_past_the_array_is_refused_naming_the_access():
    global X, Y
    X = wp.array(np.arange(8, dtype=np.float32))
    Y = wp.zeros(8, dtype=wp.float32)
    message = _refused(lambda: wp.par_for((0, 7), SHIFTED[1]), X, Y)
    assert f"{HERE}:{_line('# shifted access')}" in message
    assert "'X'" in message and "i + 1" in message and "1..8" in message and "(8,)" in message
    assert "i in 0..7" in message
    wp.par_for((0, 6), SHIFTED[1])
    np.testing.assert_array_equal(Y.numpy(), np.r_[np.arange(1, 8) + 1.0, 0.0])


def test_a_start_below_zero_after_a_negative_offset_is_refused():
    global X, Y
    X = wp.array(np.arange(8, dtype=np.float32))
    Y = wp.zeros(8, dtype=wp.float32)
    message = _refused(lambda: wp.par_for((1, 7), SHIFTED[-2]), X, Y)
    assert "i - 2" in message and "-1..5" in message
    wp.par_for((2, 7), SHIFTED[-2])
    np.testing.assert_array_equal(Y.numpy(), np.r_[0.0, 0.0, np.arange(6) + 1.0])


def test_a_3d_stencil_checks_both_sides_of_each_axis():
    global X, Y
    rng = np.random.default_rng(1)
    X = wp.array(rng.random((3, 4, 9)).astype(np.float32))
    Y = wp.zeros((3, 4, 9), dtype=wp.float32)
    x = X.numpy()
    low = _refused(lambda: wp.par_for((0, 2), (0, 3), (0, 6), stencil), X, Y)
    assert f"{HERE}:{_line('# stencil access')}" in low and "i - 1" in low and "-1..5" in low
    assert "k in 0..2, j in 0..3, i in 0..6" in low and "(3, 4, 9)" in low
    high = _refused(lambda: wp.par_for((0, 2), (0, 3), (1, 7), stencil), X, Y)
    assert "i + 2" in high and "3..9" in high
    rows = _refused(lambda: wp.par_for((0, 2), (0, 4), (1, 6), stencil), X, Y)
    assert "index j on axis 1" in rows and "0..4" in rows
    wp.par_for((0, 2), (1, 3), (1, 6), stencil)
    expected = np.zeros_like(x)
    expected[:, 1:4, 1:7] = x[:, 1:4, 0:6] + x[:, 1:4, 3:9]
    np.testing.assert_allclose(Y.numpy(), expected, rtol=1e-6)


def test_four_ranges_and_constant_indices():
    out = wp.zeros((2, 2, 3, 4), dtype=wp.int32)
    flags = wp.zeros(3, dtype=wp.int32)

    def four(b, k, j, i):
        out[b, k, j, i] = b * 1000 + k * 100 + j * 10 + i
        flags[2] = 1  # constant index

    message = _refused(lambda: wp.par_for(3, 2, 3, 4, four), out, flags)
    assert "index b on axis 0" in message and "0..2" in message and "(2, 2, 3, 4)" in message
    wp.par_for(2, 2, 3, 4, four)
    b, k, j, i = np.meshgrid(*[np.arange(n) for n in (2, 2, 3, 4)], indexing="ij")
    np.testing.assert_array_equal(out.numpy(), b * 1000 + k * 100 + j * 10 + i)
    small = wp.zeros(2, dtype=wp.int32)
    flags = small  # the body sees the array the name holds at launch time: index 2 is past it
    message = _refused(lambda: wp.par_for(2, 2, 3, 4, four), out, small)
    assert "'flags'" in message and "index 2 on axis 0" in message and "(2,)" in message


def test_guarded_and_looped_accesses_stay_unchecked():
    x = wp.zeros(4, dtype=wp.float32)

    def guarded(i):
        if i < 4:
            x[i] = 1.0

    def after_return(i):
        if i >= 4:
            return
        x[i] = 2.0

    def rebound(i):
        i = i // 2
        x[i] = 3.0

    wp.par_for(8, guarded)
    np.testing.assert_array_equal(x.numpy(), [1.0] * 4)
    wp.par_for(8, after_return)
    np.testing.assert_array_equal(x.numpy(), [2.0] * 4)
    wp.par_for(8, rebound)
    np.testing.assert_array_equal(x.numpy(), [3.0] * 4)

    def loop_variable(i):
        for i in range(2):  # noqa: B007 - the loop rebinds the index: after it, i is 1
            x[i] = 4.0
        x[i + 2] = 5.0

    wp.par_for(8, loop_variable)
    np.testing.assert_array_equal(x.numpy(), [4.0, 4.0, 3.0, 5.0])


def test_par_for_outer_checks_its_outer_indices():
    n = 6
    u = wp.array(np.arange(3 * 4 * n, dtype=np.float64).reshape(3, 4, n), dtype=wp.float64)
    out = wp.zeros((3, 4), dtype=wp.float64)

    def rows(member, k, j):
        out[k, j] = u[k, j + 1, 0]  # team access

        def each(i):
            wp.atomic_add(out, k, j, u[k, j + 1, i])

        wp.par_for_inner(member, 1, n - 1, each)

    message = _refused(lambda: wp.par_for_outer(0, 0, (0, 2), (0, 3), rows), u, out)
    assert f"{HERE}:{_line('# team access')}" in message and "j + 1" in message and "1..4" in message
    wp.par_for_outer(0, 0, (0, 2), (0, 2), rows)
    expected = np.zeros((3, 4))
    expected[:, :3] = u.numpy()[:, 1:4, :].sum(axis=2)
    np.testing.assert_array_equal(out.numpy(), expected)


density, bfield = VarTag("density"), VarTag("B")


def _pack():
    hydro = Package("hydro")
    hydro.add_field("density", Metadata("Cell", "Independent", "FillGhost"))
    hydro.add_field("B", Metadata("Face", "FillGhost"))
    mesh = Mesh(nx=(16, 8), block_nx=(8, 8), nghost=2, packages=[hydro])  # 2 blocks of 12 x 12 cells
    rng = np.random.default_rng(0)
    for name in ("density", "B"):
        mesh.data(name)[...] = rng.random(mesh.data(name).shape)
    return mesh, PackDescriptor(mesh, [density, bfield]).get_pack(mesh.mesh_data())


def test_pack_accesses_check_blocks_and_each_variables_storage():
    mesh, pack = _pack()
    before = {n: mesh.data(n).copy() for n in ("density", "B")}

    def double(b, j, i):
        pack[b, density(), 0, j, i] = pack[b, density(), 0, j, i] * wp.float64(2.0)  # cell access

    def faces(b, j, i):
        pack[b, TE.F1, bfield(), 0, j, i] = -pack[b, TE.F1, bfield(), 0, j, i]  # face access

    for ranges, what in (((3, 12, 12), "block index b to 0..2"), ((2, 12, (0, 12)), "cell index i on axis i"),
                         ((2, (-1, 11), 12), "cell index j on axis j to -1..11")):
        with pytest.raises(wp.LaunchError) as info:
            wp.par_for(*ranges, double)
        assert what in str(info.value) and f"{HERE}:{_line('# cell access')}" in str(info.value)
        assert "'pack'" in str(info.value)
    np.testing.assert_array_equal(mesh.data("density"), before["density"])
    assert "has 2 blocks" in _message(lambda: wp.par_for(3, 12, 12, double))
    assert "(1, 12, 12)" in _message(lambda: wp.par_for(2, 12, 13, double))
    wp.par_for(2, 12, 12, double)
    np.testing.assert_array_equal(mesh.data("density"), 2 * before["density"])
    wp.par_for(2, 13, 13, faces)  # a face field's storage has one more cell per direction
    np.testing.assert_array_equal(mesh.data("B")[:, 0], -before["B"][:, 0])
    assert "(1, 13, 13)" in _message(lambda: wp.par_for(2, 13, 14, faces))


def test_a_flat_variable_index_is_checked_against_the_packs_table():
    mesh, pack = _pack()  # flat indices 0 (density) and 1 (B)
    total = wp.zeros((2, 3), dtype=wp.float64)  # room for v = 2: the pack's table is what is past

    def sums(b, v, j, i):
        wp.atomic_add(total, b, v, pack[b, v, 0, j, i])  # flat access

    message = _refused(lambda: wp.par_for(2, 3, 12, 12, sums), total)
    assert f"{HERE}:{_line('# flat access')}" in message and "flat variable index v to 0..2" in message
    assert "2 flat variable indices" in message
    wp.par_for(2, 2, 12, 12, sums)
    expected = [[mesh.data(n)[b, 0, 0, :12, :12].sum() for n in ("density", "B")] + [0.0] for b in range(2)]
    np.testing.assert_allclose(total.numpy(), expected, rtol=1e-12)


def test_the_cells_of_a_flat_variable_index_are_checked_where_all_variables_have_one_storage():
    hydro = Package("hydro")
    for name in ("density", "energy"):
        hydro.add_field(name, Metadata("Cell", "Independent", "FillGhost"))
    mesh = Mesh(nx=(16, 8), block_nx=(8, 8), nghost=2, packages=[hydro])
    mesh.data("density")[...] = 1.0
    mesh.data("energy")[...] = 2.0
    pack = PackDescriptor(mesh, [density, VarTag("energy")]).get_pack(mesh.mesh_data())
    total = wp.zeros((2, 2), dtype=wp.float64)

    def sums(b, v, j, i):
        wp.atomic_add(total, b, v, pack[b, v, 0, j, i])  # uniform access

    message = _refused(lambda: wp.par_for(2, 2, 12, (1, 12), sums), total)
    assert f"{HERE}:{_line('# uniform access')}" in message and "cell index i on axis i to 1..12" in message
    assert "every variable's storage in pack 'pack' has extents (1, 12, 12)" in message
    wp.par_for(2, 2, 12, (1, 11), sums)
    np.testing.assert_array_equal(total.numpy(), [[12 * 11, 2 * 12 * 11]] * 2)
    _, mixed = _pack()  # a face field's storage is larger than a cell field's: no test of the cells
    assert range_checks.pack_extents(mixed.kernel_value(), -1, 0) == range_checks._UNCHECKED
    assert range_checks.pack_extents(mixed.kernel_value(), 1, 0) == (1, 13, 13)


def _message(call) -> str:
    with pytest.raises(wp.LaunchError) as info:
        call()
    return str(info.value)


def test_index_ranges_of_the_mesh_pass_where_they_fit():
    mesh, pack = _pack()
    ib = mesh.cellbounds.get_bounds_i(IndexDomain.interior)
    jb = mesh.cellbounds.get_bounds_j(IndexDomain.interior)
    before = mesh.data("density").copy()

    def smooth(b, j, i):
        pack[b, density(), 0, j, i] = pack[b, density(), 0, j, i - 2] + pack[b, density(), 0, j + 2, i]

    wp.par_for(pack.get_nblocks(), jb, ib, smooth)  # interior cells, two ghost layers: in bounds
    assert not np.array_equal(mesh.data("density"), before)
    entire = mesh.cellbounds.get_bounds_i(IndexDomain.entire)
    assert "i - 2" in _message(lambda: wp.par_for(pack.get_nblocks(), jb, entire, smooth))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 10), start=st.integers(-3, 10), length=st.integers(1, 10), c=st.integers(-2, 2))
def test_a_1d_launch_is_refused_exactly_when_an_access_leaves_the_array(n, start, length, c):
    global X, Y
    X = wp.array(np.arange(n, dtype=np.float32) * 3.0)
    Y = wp.zeros(n, dtype=wp.float32)
    end = start + length - 1
    outside = start < 0 or end >= n or start + c < 0 or end + c >= n
    if outside:
        _refused(lambda: wp.par_for((start, end), SHIFTED[c]), X, Y)
        return
    wp.par_for((start, end), SHIFTED[c])
    expected = np.zeros(n, dtype=np.float32)
    expected[start:end + 1] = X.numpy()[start + c:end + c + 1] + 1.0
    np.testing.assert_array_equal(Y.numpy(), expected)


@settings(max_examples=40, deadline=None)
@given(shape=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 8)),
       starts=st.tuples(st.integers(-1, 2), st.integers(-1, 2), st.integers(-1, 4)),
       lengths=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 6)))
def test_a_3d_stencil_launch_is_refused_exactly_when_an_access_leaves_the_array(shape, starts, lengths):
    global X, Y
    X = wp.array(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    Y = wp.zeros(shape, dtype=wp.float32)
    ranges = [(s, s + m - 1) for s, m in zip(starts, lengths)]
    (ks, ke), (js, je), (is_, ie) = ranges
    fits = [0 <= s and e < n for (s, e), n in zip(ranges, shape)]
    outside = not all(fits) or is_ - 1 < 0 or ie + 2 >= shape[2]
    if outside:
        _refused(lambda: wp.par_for(*ranges, stencil), X, Y)
        return
    wp.par_for(*ranges, stencil)
    x, expected = X.numpy(), np.zeros(shape, dtype=np.float32)
    expected[ks:ke + 1, js:je + 1, is_:ie + 1] = (x[ks:ke + 1, js:je + 1, is_ - 1:ie]
                                                  + x[ks:ke + 1, js:je + 1, is_ + 2:ie + 3])
    np.testing.assert_array_equal(Y.numpy(), expected)

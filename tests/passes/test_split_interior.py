"""split_interior: a launch guarded by affine tests of tid() runs its interior without the test.

Golden text of the pass on two guard forms, which guards it splits (and which it leaves alone),
and results equal to numpy for every size, including grids with an empty interior or no grid at
all, guards with and/or/not, <=, offsets on either side, scalar bounds, 1-D, 2-D and 3-D launches.
"""

from __future__ import annotations

import numpy as np
import pytest
from ir_helpers import check_golden, run, typed_kernel

import brickwork as wp
from brickwork import ir
from brickwork.passes import ProveNoOverflow, SplitInterior


@wp.kernel
def lap3(a: wp.array3d(dtype=wp.float32), out: wp.array3d(dtype=wp.float32)):
    k, j, i = wp.tid()
    if k < 1 or k > a.shape[0] - 2 or j < 1 or j > a.shape[1] - 2 or i < 1 or i > a.shape[2] - 2:
        return
    out[k, j, i] = (a[k - 1, j, i] + a[k + 1, j, i] + a[k, j - 1, i] + a[k, j + 1, i]
                    + a[k, j, i - 1] + a[k, j, i + 1] - 6.0 * a[k, j, i])


def lap3_ref(a, out):
    out = out.copy()
    out[1:-1, 1:-1, 1:-1] = (a[:-2, 1:-1, 1:-1] + a[2:, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1] + a[1:-1, 2:, 1:-1]
                             + a[1:-1, 1:-1, :-2] + a[1:-1, 1:-1, 2:] - 6.0 * a[1:-1, 1:-1, 1:-1])
    return out


@wp.kernel
def smooth1(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i > 0 and i < n - 1:
        out[i] = a[i - 1] + a[i + 1]
    else:
        out[i] = -a[i]
    out[i] = out[i] + 1.0  # after the if: runs at every point in both versions


def smooth1_ref(a, out, n):
    i = np.arange(a.size)
    inside = (i > 0) & (i < n - 1)
    res = -a.copy()
    res[1:-1] = np.where(inside[1:-1], a[:-2] + a[2:], res[1:-1])
    return res + 1.0


@wp.kernel
def offsets2(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float), lo: int):
    j, i = wp.tid()
    s = a[j, i]  # a statement before the guard
    if not (0 < j and lo <= i - 1 and i + 2 <= a.shape[1] and 2 * lo + a.shape[0] - 3 >= j):
        out[j, i] = s
        return
    out[j, i] = a[j - 1, i] + a[j, i - 1] + 10.0 * s


def offsets2_ref(a, out, lo):
    ny, nx = a.shape
    res = a.copy()
    for j in range(ny):
        for i in range(nx):
            if 0 < j and lo <= i - 1 and i + 2 <= nx and 2 * lo + ny - 3 >= j:
                res[j, i] = a[j - 1, i] + a[j, i - 1] + 10.0 * a[j, i]
    return res


@wp.kernel
def right_side(a: wp.array(dtype=float), out: wp.array(dtype=float), m: wp.int64):
    i = wp.tid()
    if 2 < i and wp.int64(i) + wp.int64(1) < m:
        out[i] = a[i] * 2.0


def right_side_ref(a, out, m):
    res = out.copy()
    i = np.arange(a.size)
    sel = (2 < i) & (i + 1 < m)
    res[sel] = a[sel] * 2.0
    return res


@wp.kernel
def not_affine(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    n = n - 1  # a reassigned bound is not the same at every point of the program
    if i < n and a[i] > 0.5:
        out[i] = 1.0


def _lowered(kernel, arg_types):
    return run(typed_kernel(kernel, arg_types), ProveNoOverflow(), SplitInterior())


def test_golden_exit_guard_of_a_3d_stencil():
    fn = _lowered(lap3, [wp.array3d(dtype=wp.float32)] * 2)
    check_golden("split_interior.exit_guard", fn)
    (split,) = [s for s in fn.body if isinstance(s, ir.IRInteriorSplit)]
    assert fn.body[-1] is split and all(b is not None for b in split.lower + split.upper)
    assert not any(isinstance(s, ir.IRIf) for s in split.interior)  # the interior has no test left


def test_golden_enter_guard_with_else_and_a_statement_after():
    fn = _lowered(smooth1, [wp.array(dtype=float), wp.array(dtype=float), wp.int32])
    check_golden("split_interior.enter_guard", fn)
    split = fn.body[-1]
    assert isinstance(split, ir.IRInteriorSplit)
    assert len(split.interior) == 2 and isinstance(split.boundary[0], ir.IRIf)


@pytest.mark.parametrize(("kernel", "types", "split"), [
    (offsets2, [wp.array2d(dtype=float)] * 2 + [wp.int32], True),
    (right_side, [wp.array(dtype=float)] * 2 + [wp.int64], True),
    (not_affine, [wp.array(dtype=float)] * 2 + [wp.int32], False),
])
def test_which_guards_split(kernel, types, split):
    fn = _lowered(kernel, types)
    assert ir.contains(fn.body, ir.IRInteriorSplit) is split


def test_a_non_kernel_function_and_an_unguarded_kernel_are_unchanged():
    @wp.kernel
    def plain(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] + 1.0

    fn = _lowered(plain, [wp.array(dtype=float)])
    assert not ir.contains(fn.body, ir.IRInteriorSplit)


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 2), (3, 3, 3), (3, 4, 5), (5, 2, 7), (6, 7, 17), (0, 4, 4)])
def test_3d_stencil_equals_numpy_for_every_size(shape):
    rng = np.random.default_rng(sum(shape))
    a = rng.random(shape, dtype=np.float32)
    out0 = rng.random(shape, dtype=np.float32)
    out = wp.array(out0)
    wp.launch(lap3, dim=shape, inputs=[wp.array(a), out])
    np.testing.assert_allclose(out.numpy(), lap3_ref(a, out0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 9, 33])
@pytest.mark.parametrize("n_delta", [0, -1, -2, -40])  # n beyond the size would read a[n - 1] out of range
def test_1d_enter_guard_equals_numpy(size, n_delta):
    n = size + n_delta
    a = np.random.default_rng(size).random(size, dtype=np.float32)
    out = wp.zeros(size, dtype=wp.float32)
    wp.launch(smooth1, dim=size, inputs=[wp.array(a), out, n])
    np.testing.assert_allclose(out.numpy(), smooth1_ref(a, out.numpy(), n), rtol=1e-6)


@wp.kernel
def mark(out: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i > 0 and i < n - 1:
        out[i] = 1.0


@pytest.mark.parametrize(("n", "want"), [(-(2**31), [0, 1, 1, 1, 1]), (2**31 - 1, [0, 1, 1, 1, 1]), (3, [0, 1, 0, 0, 0])])
def test_a_bound_that_wraps_in_int32_wraps_as_in_the_guard(n, want):
    # n - 1 of n = -2**31 wraps to 2**31 - 1 in the kernel's int32 arithmetic: the interior is the same
    out = wp.zeros(5, dtype=wp.float32)
    wp.launch(mark, dim=5, inputs=[out, n])
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 4), (4, 3), (5, 9), (8, 16)])
@pytest.mark.parametrize("lo", [-3, 0, 1, 2, 40])
def test_2d_negated_conjunction_with_offsets_and_le_equals_numpy(shape, lo):
    a = np.random.default_rng(lo + 7).random(shape, dtype=np.float32)
    out = wp.zeros(shape, dtype=wp.float32)
    wp.launch(offsets2, dim=shape, inputs=[wp.array(a), out, lo])
    np.testing.assert_allclose(out.numpy(), offsets2_ref(a, out.numpy(), lo), rtol=1e-6)


@pytest.mark.parametrize("size", [0, 1, 3, 4, 10])
@pytest.mark.parametrize("m", [-(2**40), 0, 3, 6, 2**40])
def test_tid_on_the_right_and_an_int64_bound_equal_numpy(size, m):
    a = np.random.default_rng(size).random(size, dtype=np.float32)
    out0 = np.full(size, 7.0, dtype=np.float32)
    out = wp.array(out0)
    wp.launch(right_side, dim=size, inputs=[wp.array(a), out, wp.int64(m)])
    np.testing.assert_array_equal(out.numpy(), right_side_ref(a, out0, m))


def test_a_kernel_left_unsplit_still_computes_the_same():
    a = np.array([0.9, 0.1, 0.7, 0.8], dtype=np.float32)
    out = wp.zeros(4, dtype=wp.float32)
    wp.launch(not_affine, dim=4, inputs=[wp.array(a), out, 4])
    np.testing.assert_array_equal(out.numpy(), [1.0, 0.0, 1.0, 0.0])


@wp.kernel
def named_guard(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    i = wp.tid()
    last = n - 1
    inside = i > 0 and i < last
    if inside:
        out[i] = a[i - 1] + a[i + 1]
    if inside:  # a second test of the same guard: known in the box too
        out[i] = out[i] * 2.0
    else:
        out[i] = -1.0


def test_a_guard_held_in_locals_splits_and_every_test_of_it_is_known_in_the_box():
    fn = _lowered(named_guard, [wp.array(dtype=float), wp.array(dtype=float), wp.int32])
    split = fn.body[-1]
    assert isinstance(split, ir.IRInteriorSplit)
    assert not ir.contains(split.interior, ir.IRIf) and ir.contains(split.boundary, ir.IRIf)


@pytest.mark.parametrize("size", [0, 1, 2, 3, 8])
@pytest.mark.parametrize("n_delta", [0, -1, -3])
def test_a_guard_held_in_locals_equals_numpy(size, n_delta):
    n = size + n_delta
    a = np.random.default_rng(size).random(size, dtype=np.float32)
    out = wp.zeros(size, dtype=wp.float32)
    wp.launch(named_guard, dim=size, inputs=[wp.array(a), out, n])
    want = np.full(size, -1.0, dtype=np.float32)
    for i in range(size):
        if 0 < i < n - 1:
            want[i] = 2.0 * (a[i - 1] + a[i + 1])
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)


@wp.kernel
def stamp_then_stencil(a: wp.array(dtype=float), out: wp.array(dtype=float), seen: wp.array(dtype=int)):
    i = wp.tid()
    seen[i] = 1  # a store before the guard: every point has an effect
    if i > 0 and i < a.shape[0] - 1:
        out[i] = a[i - 1] + a[i + 1]


def _run_function(kernel, types) -> str:
    from brickwork import pipeline

    text, _ = pipeline.generate(kernel, types, kernel.key)
    return text[text.index("static void run("):]


def test_points_outside_an_idle_box_are_not_visited():
    """Warp's stencil idiom (guard, then stores): only the interior box's points run, in the loop
    nest hand-written C uses; the guarded body is not instantiated."""
    f32x3 = wp.array3d(dtype=wp.float32)
    run_text = _run_function(lap3, (f32x3, f32x3))
    assert "body<UNIT>" not in run_text and "body_interior<UNIT>" in run_text
    assert "for (int32_t t0 = lo0; t0 < hi0; ++t0)" in run_text
    assert "for (int32_t t2 = lo2; t2 < hi2; ++t2)" in run_text
    shape = (5, 6, 7)
    a = np.random.default_rng(3).random(shape, dtype=np.float32)
    out0 = np.full(shape, 7.0, dtype=np.float32)  # the boundary keeps what it held
    out = wp.array(out0)
    wp.launch(lap3, dim=shape, inputs=[wp.array(a), out])
    np.testing.assert_allclose(out.numpy(), lap3_ref(a, out0), rtol=1e-6, atol=1e-6)


def test_a_store_before_the_guard_keeps_every_point():
    f32, i32 = wp.array(dtype=float), wp.array(dtype=int)
    assert "body<UNIT>" in _run_function(stamp_then_stencil, (f32, f32, i32))
    a = np.arange(6, dtype=np.float32)
    out, seen = wp.zeros(6, dtype=float), wp.zeros(6, dtype=int)
    wp.launch(stamp_then_stencil, dim=6, inputs=[wp.array(a), out, seen])
    assert seen.numpy().tolist() == [1] * 6
    np.testing.assert_array_equal(out.numpy(), [0, 2, 4, 6, 8, 0])

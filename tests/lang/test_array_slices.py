"""Slices of arrays in kernels are views (Warp's semantics): values and writes against numpy's views
of the same slices, runtime bounds, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp


@wp.kernel
def slice_2d(a: wp.array2d(dtype=wp.int32), r0: int, r1: int, rs: int, c0: int, c1: int, cs: int,
             out: wp.array2d(dtype=wp.int32), shape: wp.array(dtype=wp.int32)):
    view = a[r0:r1:rs, c0:c1:cs]
    shape[0] = view.shape[0]
    shape[1] = view.shape[1]
    shape[2] = view.shape[2]  # past the last dimension: 0, as in Warp
    for i in range(view.shape[0]):
        for j in range(view.shape[1]):
            out[i, j] = view[i, j]


@settings(max_examples=40, deadline=None)
@given(st.tuples(*[st.integers(-9, 9)] * 4), st.sampled_from([1, 2, 3, -1, -2, -3]),
       st.sampled_from([1, 2, -1, -3]))
def test_runtime_slices_match_numpy(bounds, rs, cs):
    data = np.arange(7 * 5, dtype=np.int32).reshape(7, 5)
    r0, r1, c0, c1 = bounds
    expected = data[r0:r1:rs, c0:c1:cs]
    out, shape = wp.zeros((7, 5), dtype=wp.int32), wp.zeros(3, dtype=wp.int32)
    wp.launch(slice_2d, dim=1, inputs=[wp.array(data), r0, r1, rs, c0, c1, cs, out, shape])
    assert shape.numpy().tolist() == [*expected.shape, 0]
    assert out.numpy()[:expected.shape[0], :expected.shape[1]].tolist() == expected.tolist()


def test_left_out_bounds_indices_and_writes_through_views():
    @wp.kernel
    def views(a: wp.array3d(dtype=float), out: wp.array(dtype=float)):
        rev = a[::-1]  # 3-D, bounds left out
        out[0] = rev[0, 0, 0]
        col = a[1, :, -1]  # index, slice, negative index: 1-D
        out[1] = col[2]
        out[2] = float(col.shape[0])
        tail = a[0, 1:]
        tail[0, 0] = 100.0  # writes reach a
        out[3] = float(tail.ndim)

    data = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    a, out = wp.array(data), wp.zeros(4, dtype=float)
    wp.launch(views, dim=1, inputs=[a, out])
    assert out.numpy().tolist() == [data[::-1][0, 0, 0], data[1, :, -1][2], 3.0, 2.0]
    assert a.numpy()[0, 1, 0] == 100.0 and a.numpy()[0, 1, 1] == data[0, 1, 1]


def test_rebinding_a_name_to_views_of_other_dimensions():
    @wp.kernel
    def rebind(a: wp.array2d(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
        sub = a[:2]
        out[0] = sub[1, 3]
        sub = a[:2, 1]
        out[1] = sub[1]
        sub = a[3:, ::2]
        out[2] = sub[0, 1]

    data = np.arange(20, dtype=np.int32).reshape(5, 4)
    out = wp.zeros(3, dtype=wp.int32)
    wp.launch(rebind, dim=1, inputs=[wp.array(data), out])
    assert out.numpy().tolist() == [data[1, 3], data[1, 1], data[3, 2]]


def test_zero_steps():
    # a zero step known at run time makes an empty view and raises after the launch (Python's ValueError), naming
    # the slice's file and line; the other position's step is checked too
    data = np.arange(7 * 5, dtype=np.int32).reshape(7, 5)
    line = next(n for n, text in enumerate(open(__file__).read().splitlines(), 1) if "view = a[r0:r1:rs" in text)
    for rs, cs in ((0, 1), (1, 0)):
        out, shape = wp.full((7, 5), -1, dtype=wp.int32), wp.full(3, -1, dtype=wp.int32)
        with pytest.raises(wp.SliceStepError) as info:
            wp.launch(slice_2d, dim=1, inputs=[wp.array(data), 0, 7, rs, 0, 5, cs, out, shape])
        assert isinstance(info.value, ValueError)
        assert str(info.value) == f"kernel 'slice_2d': slice step cannot be zero at {__file__}:{line}"
        assert shape.numpy()[0 if rs == 0 else 1] == 0 and (out.numpy() == -1).all()  # nothing read through it

    @wp.kernel
    def literal_zero(a: wp.array(dtype=wp.int32)):
        v = a[0:2:0]  # noqa: F841

    with pytest.raises(wp.KernelValueError, match="Slice step cannot be zero") as info:
        wp.launch(literal_zero, dim=1, inputs=[wp.zeros(4, dtype=wp.int32)])
    assert isinstance(info.value, ValueError) and wp.WarpCodegenValueError is wp.KernelValueError


def test_slice_errors():
    a = wp.zeros((2, 2), dtype=wp.int32)

    @wp.kernel
    def float_bound(a: wp.array2d(dtype=wp.int32)):
        v = a[0.5:]  # noqa: F841

    with pytest.raises(wp.KernelTypeError, match="slice bounds and indices of arrays must be integers, got float32"):
        wp.launch(float_bound, dim=1, inputs=[a])

    @wp.kernel
    def too_many(a: wp.array2d(dtype=wp.int32)):
        v = a[:, :, :]  # noqa: F841

    with pytest.raises(wp.KernelTypeError, match="an array of 2 dimensions takes at most 2 indices, got 3"):
        wp.launch(too_many, dim=1, inputs=[a])

    @wp.kernel
    def rebind_in_branch(a: wp.array2d(dtype=wp.int32), flag: int):
        sub = a[:1]
        if flag > 0:
            sub = a[0, :]
        sub[0] = 1  # noqa: F821

    with pytest.raises(wp.KernelTypeError, match="variable 'sub' has type array\\(dtype=int32, ndim=2\\)"):
        wp.launch(rebind_in_branch, dim=1, inputs=[a, 1])
    assert a.numpy().tolist() == [[0, 0], [0, 0]]


def test_slicing_units_run_the_general_stride_instance():
    from brickwork.targets.cpu.unit import _entry

    assert "run<false>(h, a);" in "\n".join(_entry(None, slices=True))
    assert "run<true>" not in "\n".join(_entry(None, slices=True))
    assert "run<false>" not in "\n".join(_entry(None, slices=False))  # the general body waits for a strided launch
    assert "if (h.unit_inner)" in "\n".join(_entry(None, slices=False, general_strides=True))

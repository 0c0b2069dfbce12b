"""``wp.from_numpy`` copies, as Warp's, and infers Warp's dtypes (2-D data: vectors, 3-D: matrices), and numpy memory seen as vectors or
matrices is copied where kernels cannot read it in place (components apart, rows apart by no whole element), as
Warp copies it; a launch given the components as a plain array says how to make the vectors."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def sum_components(x: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i][0] + 10.0 * x[i][1] + 100.0 * x[i][2]


def _expected(rows: np.ndarray) -> list:
    return (rows[:, 0] + 10.0 * rows[:, 1] + 100.0 * rows[:, 2]).astype(np.float32).tolist()


def _run(x) -> list:
    out = wp.zeros(x.shape[0], dtype=float)
    wp.launch(sum_components, dim=x.shape[0], inputs=[x, out])
    return out.numpy().tolist()


@wp.kernel
def move(x: wp.array(dtype=wp.vec3), d: wp.vec3):
    i = wp.tid()
    x[i] = x[i] + d


def test_two_d_data_is_an_array_of_vectors_holding_a_copy():
    pts = np.arange(12, dtype=np.float32).reshape(4, 3)
    x = wp.from_numpy(pts)
    assert x.dtype is wp.vec3f and x.shape == (4,) and x.ndim == 1
    assert not np.shares_memory(x.numpy(), pts)  # a copy, as Warp 1.19's from_numpy on the CPU
    assert _run(x) == _expected(pts)


def test_a_kernel_moving_the_copy_leaves_the_numpy_start_values():
    """A Warp program keeps its start values in the numpy array it gave ``from_numpy`` (x.numpy() - x0 is the
    displacement); ``wp.array(x0, copy=False)`` is the view over that memory."""
    x0 = np.arange(12, dtype=np.float32).reshape(4, 3)
    x = wp.from_numpy(x0)
    wp.launch(move, dim=4, inputs=[x, wp.vec3(1.0, 2.0, 3.0)])
    assert x0.tolist() == np.arange(12, dtype=np.float32).reshape(4, 3).tolist()
    assert (x.numpy() - x0).tolist() == [[1.0, 2.0, 3.0]] * 4
    view = wp.array(x0, dtype=wp.vec3, copy=False)
    wp.launch(move, dim=4, inputs=[view, wp.vec3(1.0, 2.0, 3.0)])
    assert x0.tolist() == (np.arange(12, dtype=np.float32).reshape(4, 3) + [1.0, 2.0, 3.0]).tolist()
    s = np.arange(3, dtype=np.float64)
    y = wp.from_numpy(s, requires_grad=True)
    y.numpy()[0] = 9.0
    assert s.tolist() == [0.0, 1.0, 2.0] and y.requires_grad and y.grad.numpy().tolist() == [0.0] * 3


@pytest.mark.parametrize("shape, dtype, want", [
    ((2, 2, 2), np.float64, wp.mat22d),
    ((3, 3, 4), np.float32, wp.types.matrix((3, 4), wp.float32)),
    ((5, 7), np.float32, wp.types.vector(7, wp.float32)),
    ((2, 3), np.int32, wp.vec3i),
])
def test_inferred_dtypes_match_warps(shape, dtype, want):
    data = np.arange(np.prod(shape)).astype(dtype).reshape(shape)
    a = wp.from_numpy(data)
    assert a.dtype is want and a.shape == (shape[0],)
    assert a.numpy().tolist() == data.tolist()


@pytest.mark.parametrize("shape", [(6,), (2, 3, 4, 5)])
def test_other_ranks_and_a_given_dtype_keep_their_scalars(shape):
    data = np.zeros(shape, dtype=np.float32)
    a = wp.from_numpy(data)
    assert a.dtype is wp.float32 and a.shape == shape
    b = wp.from_numpy(np.zeros((2, 3)), dtype=wp.float64)
    assert b.dtype is wp.float64 and b.shape == (2, 3)
    c = wp.from_numpy(np.zeros((2, 3), dtype=np.float32), dtype=float)  # an annotation's spelling
    assert c.dtype is wp.float32 and c.shape == (2, 3)
    assert wp.array(np.zeros((4, 3), dtype=np.float32)).shape == (4, 3)  # wp.array keeps every dimension


def test_components_apart_in_memory_are_copied_and_read_right():
    q = np.arange(18, dtype=np.float32).reshape(3, 6)
    every_other = q[:, ::2]  # (3, 3), components 8 bytes apart
    for x in (wp.from_numpy(every_other, dtype=wp.vec3), wp.array(every_other, dtype=wp.vec3, copy=False),
              wp.from_numpy(every_other)):
        assert x.numpy().tolist() == every_other.tolist()
        assert _run(x) == _expected(every_other)  # the kernel read q's first three columns before
    assert q.tolist() == np.arange(18, dtype=np.float32).reshape(3, 6).tolist()


def test_rows_apart_by_no_whole_element_are_copied():
    p = np.arange(16, dtype=np.float32).reshape(4, 4)
    for x in (wp.from_numpy(p[:, :3]), wp.from_numpy(p[:, :3], dtype=wp.vec3), wp.from_numpy(p.T[:, :3])):
        assert x.shape == (4,) and x.strides == (12,)
        assert _run(x) == _expected(np.ascontiguousarray(x.numpy()))
    assert _run(wp.from_numpy(p[:, :3])) == _expected(p[:, :3])
    assert p.tolist() == np.arange(16, dtype=np.float32).reshape(4, 4).tolist()


def test_components_as_a_plain_array_are_refused_with_the_spelling_of_vectors():
    flat = wp.array(np.ones((3, 3), dtype=np.float32))  # (3, 3) floats, not 3 vec3
    out = wp.full(3, 7.0, dtype=float)
    with pytest.raises(wp.LaunchError) as e:
        wp.launch(sum_components, dim=3, inputs=[flat, out])
    assert str(e.value) == (
        "launch of 'sum_components': argument 'x' must be array(dtype=vec3f, ndim=1), got array(dtype=float32, "
        "ndim=2) (if its last dimension holds each vec3f's components: make an array of vec3f from the data, "
        "wp.array(data, dtype=wp.vec3f) or wp.from_numpy(data, dtype=wp.vec3f))")
    assert out.numpy().tolist() == [7.0] * 3


def test_a_numpy_launch_argument_keeps_its_dimensions():
    out = wp.full(3, 7.0, dtype=float)
    with pytest.raises(wp.LaunchError) as e:  # numpy data of another dtype: named as numpy holds it
        wp.launch(sum_components, dim=3, inputs=[np.ones((3, 3)), out])
    assert "got array(dtype=float64, ndim=2)" in str(e.value)
    assert out.numpy().tolist() == [7.0] * 3
    wp.launch(sum_components, dim=3, inputs=[np.ones((3, 3), dtype=np.float32), out])  # viewed as vec3
    assert out.numpy().tolist() == [111.0] * 3

"""Assignment to slices of vectors, quaternions, transforms and matrices in kernels (``v[1:] = ...``,
``m[0, :2] = ...``, ``q[::2] += ...``), their gradients, Warp's errors, and ``vector(length=, dtype=)``
as a zero value."""

import numpy as np
import pytest

import brickwork as wp

vec3 = wp.types.vector(3, float)
vec1 = wp.types.vector(1, float)
mat23 = wp.types.matrix((2, 3), float)


@wp.kernel
def vector_slices(out: wp.array(dtype=wp.vec4)):
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    v[1:] = vec3(5.0, 6.0, 7.0)
    out[0] = v
    v[::-1] = wp.vec4(19.0, 20.0, 21.0, 22.0)
    out[1] = v
    v[1::-2] = vec1(25.0)
    out[2] = v
    v[1:] += vec3(26.0, 27.0, 28.0)
    v[:-1] -= vec3(29.0, 30.0, 31.0)
    out[3] = v


def test_vector_slices_store_each_selected_component():
    out = wp.zeros(4, dtype=wp.vec4)
    wp.launch(vector_slices, 1, inputs=[out])
    expect = np.array([[1, 5, 6, 7], [22, 21, 20, 19], [22, 25, 20, 19], [-7, 21, 16, 47]], dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), expect)


@wp.kernel
def matrix_slices(x: wp.array(dtype=wp.vec2), y: wp.array(dtype=mat23), z: wp.array(dtype=wp.mat44)):
    i = wp.tid()
    m = z[i]
    m[0, :2] = x[i]
    m[2:, 1:] = y[i]
    m[:2, 3] += x[i][::-1]
    z[i] = m


def test_matrix_slices_and_their_gradients():
    x = wp.array([[1.0, 2.0]], dtype=wp.vec2, requires_grad=True)
    y = wp.array([np.arange(6, dtype=np.float32).reshape(2, 3)], dtype=mat23, requires_grad=True)
    z = wp.zeros(1, dtype=wp.mat44, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(matrix_slices, 1, inputs=[x, y, z])
    expect = np.zeros((4, 4), np.float32)
    expect[0, :2] = [1, 2]
    expect[2:, 1:] = np.arange(6).reshape(2, 3)
    expect[:2, 3] += [2, 1]
    np.testing.assert_array_equal(z.numpy()[0], expect)
    weights = np.arange(16, dtype=np.float32).reshape(4, 4)
    z.grad = wp.array([weights], dtype=wp.mat44)
    tape.backward()
    # x feeds m[0, :2] and, reversed, m[:2, 3]; y feeds m[2:, 1:]
    np.testing.assert_array_equal(x.grad.numpy()[0], weights[0, :2] + weights[:2, 3][::-1])
    np.testing.assert_array_equal(y.grad.numpy()[0], weights[2:, 1:])


@wp.kernel
def overlapping_slices(x: wp.array(dtype=wp.vec2), y: wp.array(dtype=mat23), z: wp.array(dtype=wp.mat44)):
    i = wp.tid()
    m = z[i]
    m[0, :2] = x[i]
    m[:2, 1:] = y[i]  # overwrites m[0, 1], where x[i][1] went
    m[:2, 3] += x[i][:2]
    m[1:-1, :2] += y[i][::-1, :-1]
    m[2:, 3] -= x[i][0:]
    m[3:, -1:] -= y[i][:1, :1]
    z[i] = m


def test_a_slice_store_cuts_the_gradient_of_what_it_overwrites():
    """Warp's test_mat_slicing_assign_backward kernel: x[1] reaches the result through m[1, 3] (+1) and m[3, 3]
    (-1) only, its first store being overwritten, so its gradient is 0 (Warp 1.19 gives 1, the overwritten
    store's too)."""
    x = wp.ones(1, dtype=wp.vec2, requires_grad=True)
    y = wp.ones(1, dtype=mat23, requires_grad=True)
    z = wp.zeros(1, dtype=wp.mat44, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(overlapping_slices, 1, inputs=[x, y, z])
    np.testing.assert_array_equal(z.numpy()[0], [[1, 1, 1, 2], [1, 2, 1, 2], [1, 1, 0, -1], [0, 0, 0, -2]])
    z.grad = wp.ones_like(z)
    tape.backward()
    np.testing.assert_array_equal(x.grad.numpy()[0], [1.0 + 1.0 - 1.0, 1.0 - 1.0])
    np.testing.assert_array_equal(y.grad.numpy()[0], [[1.0, 2.0, 1.0], [2.0, 2.0, 1.0]])


def test_quaternion_and_transform_slices_backward():
    @wp.kernel
    def k(x: wp.array(dtype=wp.vec2), q: wp.array(dtype=wp.quat), t: wp.array(dtype=wp.transform)):
        i = wp.tid()
        a = q[i]
        a[:2] = x[i]
        a[1:-1] += x[i][:2]
        a[3:1:-1] -= x[i][0:]
        q[i] = a
        b = t[i]
        b[5:] = x[i]
        t[i] = b

    x = wp.ones(1, dtype=wp.vec2, requires_grad=True)
    q = wp.zeros(1, dtype=wp.quat, requires_grad=True)
    t = wp.zeros(1, dtype=wp.transform, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(k, 1, inputs=[x, q, t])
    np.testing.assert_array_equal(q.numpy()[0], [1.0, 2.0, 0.0, -1.0])
    np.testing.assert_array_equal(t.numpy()[0], [0, 0, 0, 0, 0, 1.0, 1.0])
    q.grad = wp.ones_like(q)
    t.grad = wp.ones_like(t)
    tape.backward()
    np.testing.assert_array_equal(x.grad.numpy()[0], [2.0, 2.0])  # 1 + 1 - 1 through q, 1 through t


@pytest.mark.parametrize("value, message", [
    ("wp.vec3d(5.0, 6.0, 7.0)", r"The provided vector is expected to be of length 3 with dtype float32\.$"),
    ("wp.float64(5.0)", r"The provided value is expected to be a vector of length 3, with dtype float32\.$"),
    ("wp.mat22(5.0, 6.0, 7.0, 8.0)", r"The provided value is expected to be a vector of length 3, with dtype float32"),
    ("wp.vec2(5.0, 6.0)", r"The length of the provided vector \(2\) isn't compatible with the given slice "
                          r"\(expected 3\)\.$"),
])
def test_slice_assignment_errors_are_warps(tmp_path, value, message):
    import importlib.util

    src = tmp_path / "bad_slice.py"
    src.write_text("import brickwork as wp\n\n\n@wp.kernel\ndef k(out: wp.array(dtype=wp.vec4)):\n"
                   f"    v = wp.vec4(1.0, 2.0, 3.0, 4.0)\n    v[1:] = {value}\n    out[0] = v\n")
    spec = importlib.util.spec_from_file_location("bad_slice", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = wp.zeros(1, dtype=wp.vec4)
    with pytest.raises(ValueError, match=message):
        wp.launch(mod.k, 1, inputs=[out])
    assert out.numpy().tolist() == [[0.0] * 4]


def test_matrix_slice_shape_error():
    @wp.kernel
    def k(out: wp.array(dtype=wp.mat33)):
        m = wp.mat33()
        m[:2, :2] = wp.mat33()
        out[0] = m

    # Warp prints the tuple in its own parentheses
    with pytest.raises(wp.KernelValueError, match=r"The shape of the provided matrix \(\(3, 3\)\) isn't compatible "
                                                  r"with the given slice \(expected \(2, 2\)\)"):
        wp.launch(k, 1, inputs=[wp.zeros(1, dtype=wp.mat33)])


def test_vector_and_matrix_factories_give_zero_values_in_kernels():
    @wp.kernel
    def k(out: wp.array(dtype=float)):
        v = wp.types.vector(length=10, dtype=float)
        for i in range(10):
            v[i] = float(i) + 1.0
        m = wp.types.matrix(shape=(10, 3), dtype=float)
        m[9, 2] = 5.0
        out[0] = wp.length_sq(v)
        out[1] = m[9, 2] + m[0, 0]

    out = wp.zeros(2)
    wp.launch(k, 1, inputs=[out])
    assert out.numpy().tolist() == [385.0, 5.0]


def test_composite_values_name_their_type_parts():
    @wp.kernel
    def k(out: wp.array(dtype=wp.float64)):
        v = wp.types.vector(length=2, dtype=wp.float64)
        m = wp.identity(n=v.length, dtype=v.dtype) * wp.float64(3.0)
        out[0] = m[1, 1] + m.dtype(2.0)

    out = wp.zeros(1, dtype=wp.float64)
    wp.launch(k, 1, inputs=[out])
    assert out.numpy().tolist() == [5.0]


vec0 = wp.types.vector(0, float)
mat00 = wp.types.matrix((0, 0), float)


@wp.kernel
def empty_slices(out: wp.array(dtype=float)):
    v = wp.vec4(1.0, 2.0, 3.0, 4.0)
    m = wp.mat44(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0)
    q = wp.quat(1.0, 2.0, 3.0, 4.0)
    out[0] = float(v[123:] == vec0())
    out[1] = float(v[:-123] == vec0())
    out[2] = float(m[123:] == mat00())
    out[3] = float(m[1, 5:] == vec0())
    out[4] = float(q[4:] == vec0())
    out[5] = float(len(v[3:1]))
    v[5:] = vec0()  # an empty slice takes the empty vector and stores nothing
    m[:, 7:] = mat00()
    out[6] = v[0] + v[3] + m[3, 3]
    out[7] = float(v[::123] == vec1(1.0))  # one-component vectors compare too


def test_empty_slices_are_empty_vectors_and_matrices():
    out = wp.zeros(8, dtype=float)
    wp.launch(empty_slices, 1, inputs=[out])
    assert out.numpy().tolist() == [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 21.0, 1.0]
    # on the host too: an empty slice of a matrix is the (0, 0) matrix
    m = wp.mat44()
    assert type(m[4:]) is mat00 and type(wp.vec4()[4:]) is vec0


def test_empty_slice_takes_only_an_empty_value():
    @wp.kernel
    def k(out: wp.array(dtype=wp.vec4)):
        v = wp.vec4(1.0, 2.0, 3.0, 4.0)
        v[5:] = wp.vec2(1.0, 2.0)
        out[0] = v

    with pytest.raises(wp.KernelValueError, match=r"the slice 'v\[5:\]' selects no component: the value stored in "
                                                  r"it must be a vector of length 0, got vec2f"):
        wp.launch(k, 1, inputs=[wp.zeros(1, dtype=wp.vec4)])


@wp.kernel
def scaled_slices(x: wp.array(dtype=float), out: wp.array(dtype=wp.mat33)):
    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    m[:2, 1:] *= x[0]
    m[2, :2] /= 2.0
    out[0] = m


def test_slice_scaled_in_place_by_a_scalar_and_its_gradient():
    x = wp.array([3.0], dtype=float, requires_grad=True)
    out = wp.zeros(1, dtype=wp.mat33, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(scaled_slices, 1, inputs=[x, out])
    assert out.numpy()[0].tolist() == [[1.0, 6.0, 9.0], [4.0, 15.0, 18.0], [3.5, 4.0, 9.0]]
    tape.backward(grads={out: wp.ones_like(out)})
    assert x.grad.numpy().tolist() == [2.0 + 3.0 + 5.0 + 6.0]

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

"""Transforms' parts as places: ``t.p = ...``, ``t.q += ...``, ``z[i, j].p = ...``, ``transform_set_translation``/
``transform_set_rotation`` (kernel and host), and ``transform()`` in a kernel being zero, as in Warp."""

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def assign_parts(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=wp.quat), z: wp.array2d(dtype=wp.transform)):
    i = wp.tid()
    a = wp.transform()
    a.p = x[i]
    a.q = y[i]
    a.p += 2.0 * x[i]
    z[i, 0] = a
    z[i, 1].p = x[i]
    z[i, 1].q -= y[i]


def test_assigning_parts_of_transforms_and_their_gradients():
    x = wp.array([[1.0, 2.0, 3.0]], dtype=wp.vec3, requires_grad=True)
    y = wp.array([[0.1, 0.2, 0.3, 0.4]], dtype=wp.quat, requires_grad=True)
    z = wp.zeros((1, 2), dtype=wp.transform, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(assign_parts, 1, inputs=[x, y, z])
    np.testing.assert_allclose(z.numpy()[0, 0], [3, 6, 9, 0.1, 0.2, 0.3, 0.4], rtol=1e-6)
    np.testing.assert_allclose(z.numpy()[0, 1], [1, 2, 3, -0.1, -0.2, -0.3, -0.4], rtol=1e-6)
    w = np.arange(14, dtype=np.float32).reshape(1, 2, 7)
    z.grad = wp.array(w, dtype=wp.transform)
    tape.backward()
    np.testing.assert_allclose(x.grad.numpy()[0], 3 * w[0, 0, :3] + w[0, 1, :3])
    np.testing.assert_allclose(y.grad.numpy()[0], w[0, 0, 3:] - w[0, 1, 3:])


def test_transform_without_arguments_is_zero_in_kernels():
    @wp.kernel
    def k(out: wp.array(dtype=wp.transform)):
        a = wp.transform()
        a[6] += 7.0
        out[0] = a
        out[1] = wp.transform(p=wp.vec3(1.0, 2.0, 3.0))  # p alone: identity rotation

    out = wp.zeros(2, dtype=wp.transform)
    wp.launch(k, 1, inputs=[out])
    assert out.numpy().tolist() == [[0, 0, 0, 0, 0, 0, 7.0], [1, 2, 3, 0, 0, 0, 1.0]]


def test_set_translation_and_rotation_in_kernels():
    @wp.kernel
    def k(xforms: wp.array(dtype=wp.transform), out: wp.array(dtype=wp.transform)):
        i = wp.tid()
        xform = xforms[i]
        wp.transform_set_translation(xform, wp.vec3(0.0, 0.0, 1.0))
        wp.transform_set_rotation(xform, wp.quat_identity())
        wp.transform_set_translation(xforms[i], wp.vec3(5.0, 0.0, 1.0))  # a copy, as in Warp: no effect
        out[i] = xform

    start = [1.0, 2.0, 3.0, 0.0, 0.0, 0.5, 0.5]
    xforms = wp.array([start], dtype=wp.transform)
    out = wp.empty(1, dtype=wp.transform)
    wp.launch(k, 1, inputs=[xforms, out])
    assert out.numpy().tolist() == [[0, 0, 1.0, 0, 0, 0, 1.0]]
    assert xforms.numpy().tolist() == [start]


def test_set_translation_and_rotation_on_the_host():
    t = wp.types.transformation(dtype=wp.float64)()
    wp.transform_set_translation(t, wp.vec3d(1.0, 2.0, 3.0))
    wp.transform_set_rotation(t, wp.quatd(0.0, 0.0, 0.6, 0.8))
    assert list(t) == [1.0, 2.0, 3.0, 0.0, 0.0, 0.6, 0.8]


def test_part_assignment_errors():
    @wp.kernel
    def wrong_part(out: wp.array(dtype=wp.transform)):
        a = wp.transform()
        a.p = wp.vec4()
        out[0] = a

    @wp.kernel
    def wrong_setter(out: wp.array(dtype=wp.transform)):
        v = wp.vec3()
        wp.transform_set_translation(v, v)

    out = wp.zeros(1, dtype=wp.transform)
    with pytest.raises(wp.KernelTypeError, match=r"cannot assign a value of type vec4f to 'a.p' of type vec3f"):
        wp.launch(wrong_part, 1, inputs=[out])
    with pytest.raises(wp.KernelTypeError, match=r"transform_set_translation\(\) needs a transform .* got vec3f"):
        wp.launch(wrong_setter, 1, inputs=[out])
    assert out.numpy().tolist() == [[0.0] * 7]


def test_a_component_assigned_a_composite_names_both_types():
    @wp.kernel
    def vector_into_component(y: wp.array(dtype=wp.vec3), src: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        y[i].y = src[i]

    y = wp.full(1, wp.vec3(1.0, 2.0, 3.0), dtype=wp.vec3)
    with pytest.raises(wp.KernelTypeError, match=r"cannot assign a value of type vec3f to a component of type "
                                                 r"float32 \(Composite slot assignment expects value of type float32, "
                                                 r"got vec3f\)") as err:
        wp.launch(vector_into_component, 1, inputs=[y, wp.zeros(1, dtype=wp.vec3)])
    assert "y[i].y = src[i]" in str(err.value)
    assert y.numpy().tolist() == [[1.0, 2.0, 3.0]]

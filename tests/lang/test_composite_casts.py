"""Converting between a quaternion (or transform) and a vector of as many components, as Warp's
constructors allow: ``wp.vec4d(q)``, ``wp.quatd(v)``, with a change of scalar type too. The C++
compiler rejected these kernels (reported as a brickwork bug)."""

import numpy as np

import brickwork as wp

vec7 = wp.types.vector(length=7, dtype=wp.float32)


@wp.kernel
def quat_vec_casts(out4: wp.array(dtype=wp.vec4f), outq: wp.array(dtype=wp.quatd), out7: wp.array(dtype=vec7)):
    q = wp.quatd(1.0, 2.0, 3.0, 4.0)
    out4[0] = wp.vec4f(q)
    outq[0] = wp.quatd(wp.vec4d(5.0, 6.0, 7.0, 8.0))
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.quat(0.0, 0.0, 0.0, 1.0))
    out7[0] = vec7(t)


def test_quaternions_transforms_and_vectors_convert_componentwise():
    out4 = wp.zeros(1, dtype=wp.vec4f)
    outq = wp.zeros(1, dtype=wp.quatd)
    out7 = wp.zeros(1, dtype=vec7)
    wp.launch(quat_vec_casts, 1, inputs=[out4, outq, out7])
    np.testing.assert_array_equal(out4.numpy()[0], [1, 2, 3, 4])
    np.testing.assert_array_equal(outq.numpy()[0], [5, 6, 7, 8])
    np.testing.assert_array_equal(out7.numpy()[0], [1, 2, 3, 0, 0, 0, 1])
    assert list(wp.vec4d(wp.quatd(1.0, 2.0, 3.0, 4.0))) == [1, 2, 3, 4]  # the host agrees
    assert list(wp.quatd(wp.vec4d(5.0, 6.0, 7.0, 8.0))) == [5, 6, 7, 8]

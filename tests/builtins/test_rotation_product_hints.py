"""t * p of a transform and a vec3, and q * v of a quaternion and a vec3, say which builtin applies them
(newuser round 9): a Warp user's first try said only 'operand types must match, got transformf and vec3f'
(Warp 1.19 refuses both too, naming no builtin). The kernel does not run."""

import pytest

import brickwork as wp


@wp.kernel
def transform_times_point(t: wp.array(dtype=wp.transform), p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = t[i] * p[i]


@wp.kernel
def quat_times_vector(q: wp.array(dtype=wp.quatd), v: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    out[i] = q[i] * v[i]


@pytest.mark.parametrize("kernel, types, line, hint", [
    (transform_times_point, (wp.transform, wp.vec3, wp.vec3), "out[i] = t[i] * p[i]",
     "there is no transformf * vec3f product: wp.transform_point(t, p) moves a point, wp.transform_vector(t, v) "
     "turns a direction"),
    (quat_times_vector, (wp.quatd, wp.vec3d, wp.vec3d), "out[i] = q[i] * v[i]",
     "there is no quatd * vec3d product: wp.quat_rotate(q, v) rotates a vector"),
])
def test_the_message_names_the_builtin(kernel, types, line, hint):
    args = [wp.zeros(1, dtype=t) for t in types[:2]] + [wp.full(1, types[2](7.0), dtype=types[2])]
    with pytest.raises(wp.KernelTypeError) as e:
        wp.launch(kernel, dim=1, inputs=args)
    text = str(e.value)
    assert hint in text and line in text and __file__ in text
    assert args[2].numpy().tolist() == [[7.0] * 3]

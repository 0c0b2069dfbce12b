"""A call that no overload of a @func takes names every overload (newuser round 9): area(a[i], 2.0) of a function
overloaded for vec2f, vec3f and float32 said only 'area(): takes 1 arguments, got 2', neither the grammar nor
which overloads there are. Warp 1.19 lists the argument types only. Nothing runs."""

import pytest

import brickwork as wp


@wp.func
def area(v: wp.vec2):
    return v[0] * v[1]


@wp.func
def area(v: wp.vec3):  # noqa: F811 (an overload, as in Warp)
    return v[0] * v[1] * v[2]


@wp.func
def single(x: float):
    return 2.0 * x


@wp.kernel
def two_arguments(a: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = area(a[i], 2.0)


@wp.kernel
def two_for_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = single(a[i], 1.0)


@pytest.mark.parametrize("kernel, args, line, message", [
    (two_arguments, lambda: [wp.zeros(1, dtype=wp.vec3), wp.full(1, 7.0, dtype=float)], "out[i] = area(a[i], 2.0)",
     "area(): takes 1 argument, got 2; overloads: (v: vec2f); (v: vec3f)"),
    (two_for_one, lambda: [wp.full(1, 7.0, dtype=float)], "a[i] = single(a[i], 1.0)",
     "single(): takes 1 argument, got 2"),
])
def test_the_message_names_the_overloads(kernel, args, line, message):
    arrays = args()
    with pytest.raises(wp.KernelTypeError) as e:
        wp.launch(kernel, dim=1, inputs=arrays)
    text = str(e.value)
    assert text.endswith(message) and __file__ in text and line in text
    assert arrays[-1].numpy().tolist() == [7.0]

"""Launch-time errors: wrong arguments raise ``wp.LaunchError`` naming the argument and both types,
before anything runs (no array changes), and the kernel still launches correctly afterwards."""

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Params:
    scale: float


@wp.struct
class Other:
    scale: float


@wp.kernel
def target(a: wp.array(dtype=wp.float32), n: wp.int32, v: wp.vec3, s: float, p: Params,
           grid: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    a[i] = float(n) + v[0] + s * p.scale
    grid[i, 0] = wp.float64(a[i])


def good_args():
    return [wp.zeros(3), 2, wp.vec3(1.0, 0.0, 0.0), 0.5, Params(scale=2.0), wp.zeros((3, 2), dtype=wp.float64)]


def test_good_launch_and_accepted_conversions():
    args = good_args()
    wp.launch(target, dim=3, inputs=args)
    assert args[0].numpy().tolist() == [4.0, 4.0, 4.0]
    args[1:4] = [wp.int32(1), [2.0, 0.0, 0.0], wp.float32(1.0)]  # typed scalars, a list for a vector
    wp.launch(target, dim=3, inputs=args)
    assert args[0].numpy().tolist() == [5.0, 5.0, 5.0]
    wp.launch(target, dim=3, inputs=args[:3], outputs=args[3:])  # inputs and outputs are concatenated
    assert args[5].numpy()[:, 0].tolist() == [5.0, 5.0, 5.0]


BAD = [
    # position, value, fragments of the message
    (0, wp.zeros(3, dtype=wp.float64),
     ["argument 'a'", "array(dtype=float32, ndim=1)", "array(dtype=float64, ndim=1)"]),
    (0, wp.zeros((3, 1)), ["argument 'a'", "array(dtype=float32, ndim=1)", "array(dtype=float32, ndim=2)"]),
    (0, [0.0, 0.0, 0.0], ["argument 'a'", "array(dtype=float32, ndim=1)", "list"]),
    # a numpy array is used in place (as in Warp); one of the wrong dtype is refused like an array
    (0, np.zeros(3, dtype=np.float64), ["argument 'a'", "array(dtype=float32, ndim=1)", "array(dtype=float64"]),
    (1, 1.5, ["argument 'n'", "int32", "float"]),
    (1, wp.float64(1), ["argument 'n'", "int32", "float64"]),  # (wp.int64(1) converts, as in Warp)
    (1, "3", ["argument 'n'", "int32", "str"]),
    (2, wp.vec4f(1.0, 0.0, 0.0, 0.0), ["argument 'v'", "vec3f", "vec4f"]),  # (wp.vec3d converts, as in Warp)
    (2, 1.0, ["argument 'v'", "expects vec3f but got a single value"]),
    (3, wp.int32(1), ["argument 's'", "float32", "int32"]),  # (wp.float64(0.5) converts, as in Warp)
    (4, Other(), ["argument 'p'", "Params", "Other"]),
    (5, wp.zeros(3, dtype=wp.float64), ["argument 'grid'", "ndim=2", "ndim=1"]),
]


@pytest.mark.parametrize("position, value, fragments", BAD, ids=[f"{p}-{type(v).__name__}" for p, v, _ in BAD])
def test_wrong_argument_type(position, value, fragments):
    args = good_args()
    args[0].fill_(7.0)
    args[position] = value
    with pytest.raises(wp.LaunchError) as info:
        wp.launch(target, dim=3, inputs=args)
    message = str(info.value)
    assert "launch of 'target'" in message
    for fragment in fragments:
        assert fragment in message, message
    if position != 0:
        assert args[0].numpy().tolist() == [7.0, 7.0, 7.0]  # nothing ran


@pytest.mark.parametrize("count", [5, 7, 0])
def test_wrong_argument_count(count):
    args = (good_args() + [1.0])[:count]
    with pytest.raises(wp.LaunchError, match=r"launch of 'target': expected 6 arguments \(a, n, v, s, p, grid\), "
                                             rf"got {count}"):
        wp.launch(target, dim=3, inputs=args)


def test_value_out_of_range_for_int32_names_the_argument():
    args = good_args()
    args[1] = 2**40
    with pytest.raises(wp.LaunchError) as info:
        wp.launch(target, dim=3, inputs=args)
    assert "'n'" in str(info.value) and "int32" in str(info.value)
    assert args[0].numpy().tolist() == [0.0, 0.0, 0.0]


def test_vector_from_a_list_of_the_wrong_length():
    args = good_args()
    args[2] = [1.0, 2.0]
    with pytest.raises(wp.LaunchError) as info:
        wp.launch(target, dim=3, inputs=args)
    assert "argument 'v'" in str(info.value) and "vec3f" in str(info.value)


@pytest.mark.parametrize("dim, fragment", [
    (-1, "must not be negative"), ((2, 2, 2, 2, 2), "1 to 4 entries"),
    ("three", "dim must be an int or a tuple of ints"), ((2.5,), "dim must be an int or a tuple of ints"),
])
def test_bad_dim(dim, fragment):
    with pytest.raises(wp.LaunchError, match=fragment):
        wp.launch(target, dim=dim, inputs=good_args())


@pytest.mark.parametrize("dim", [np.int64(3), np.int32(3), (np.int64(3),), np.prod([3]), np.array([3]), [3]])
def test_numpy_integers_are_dims(dim):
    # as Python ints: np.prod(shape) and shape arithmetic on numpy values give numpy integers
    args = good_args()
    wp.launch(target, dim=dim, inputs=args)
    assert args[0].numpy().tolist() == [4.0, 4.0, 4.0]


@wp.kernel
def _count_points(o: wp.array(dtype=int)):
    i, j = wp.tid()
    wp.atomic_add(o, 0, 1 + i + j)


@pytest.mark.parametrize("dim", [(-2, -3), (-1, -1, -1, -1), (-(2**40), -2), np.array([-2, -3]), (0, -3), (2, -1, -1)])
@pytest.mark.parametrize("name", ["_count_points", "_count_point"])
def test_negative_extents_are_refused_whatever_their_product(dim, name):
    """(-2, -3) has 6 points by its product: only a negative product was refused, and this one ran nothing and said
    nothing (attacker probe), also through the instance of more extents than tid() gives indices (_count_point)."""
    o = wp.zeros(1, dtype=int)
    with pytest.raises(wp.LaunchError, match=rf"launch of '{name}': dim must not be negative, got "):
        wp.launch(globals()[name], dim=dim, inputs=[o])
    assert o.numpy().tolist() == [0]


@wp.kernel
def _count_point(o: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(o, 0, 1 + i)


@pytest.mark.parametrize("dim", [(), []])
def test_an_empty_dim_is_one_point_as_in_warp(dim):
    o = wp.zeros(1, dtype=int)
    wp.launch(_count_points, dim=dim, inputs=[o])
    assert o.numpy().tolist() == [1]


def test_a_0d_numpy_array_is_a_scalar_value():
    args = good_args()
    args[3] = np.array(0.5)  # 0-d: its value, as np.float64(0.5) would be
    wp.launch(target, dim=3, inputs=args)
    assert args[0].numpy().tolist() == [4.0, 4.0, 4.0]


def test_zero_dim_runs_nothing():
    args = good_args()
    args[0].fill_(3.0)
    wp.launch(target, dim=0, inputs=args)
    assert args[0].numpy().tolist() == [3.0, 3.0, 3.0]


def test_unknown_device():
    with pytest.raises((ValueError, RuntimeError)):
        wp.launch(target, dim=3, inputs=good_args(), device="tpu")


def test_errors_do_not_poison_later_launches():
    bad = good_args()
    bad[0] = wp.zeros(3, dtype=wp.int32)
    with pytest.raises(wp.LaunchError):
        wp.launch(target, dim=3, inputs=bad)
    args = good_args()
    wp.launch(target, dim=3, inputs=args)
    assert args[0].numpy().tolist() == [4.0, 4.0, 4.0]
    with pytest.raises(wp.LaunchError):  # the same wrong signature again, after a good launch
        wp.launch(target, dim=3, inputs=bad)


def test_numpy_scalars_convert_for_concrete_parameters():
    args = good_args()
    args[1] = np.int64(2)
    wp.launch(target, dim=3, inputs=args)
    assert args[0].numpy().tolist() != [0.0, 0.0, 0.0]


def test_numpy_data_for_vector_and_matrix_parameters():
    @wp.kernel
    def affine(m: wp.mat22, c: wp.vec2, out: wp.array(dtype=wp.vec2), pts: wp.array(dtype=wp.vec2)):
        i = wp.tid()
        out[i] = m * pts[i] + c

    pts = np.array([[1.0, 0.0], [0.0, 2.0]], dtype=np.float32)
    out = np.zeros((2, 2), dtype=np.float32)  # written through: the same memory, seen as vectors
    wp.launch(affine, dim=2, inputs=[np.array([[0.0, -1.0], [1.0, 0.0]]), np.array([10.0, 20.0]), out, pts])
    assert out.tolist() == [[10.0, 21.0], [8.0, 20.0]]


@wp.kernel
def composite_params(v: wp.vec3, t: wp.transform, n: int, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = v[0] + t[6] + float(n)


def test_launch_built_by_hand_starts_from_zero_values():
    out = wp.full(4, -1.0, dtype=float)
    cmd = wp.Launch(composite_params, None)
    assert cmd.dim == 1 and cmd.params[2] == 0 and cmd.params[3] is None
    assert list(cmd.params[1]) == [0.0] * 7  # zero-initialized, the rotation too (as Warp)
    cmd.set_param_by_name("out", out)
    cmd.set_dim(3)
    cmd.launch()
    assert out.numpy().tolist() == [0.0, 0.0, 0.0, -1.0]
    cmd.set_param_at_index(0, wp.vec3(2.0, 0.0, 0.0))
    cmd.set_param_by_name("n", 1)
    cmd.launch()
    assert out.numpy().tolist() == [3.0, 3.0, 3.0, -1.0]


def test_single_values_and_none_for_composite_parameters():
    out = wp.zeros(1, dtype=float)
    cmd = wp.Launch(composite_params, None)
    with pytest.raises(RuntimeError, match="argument 'v' expects vec3f but got a single value"):
        cmd.set_param_by_name("v", 1.5)
    assert list(cmd.params[0]) == [0.0, 0.0, 0.0]
    with pytest.raises(wp.LaunchArgumentError, match="argument 'v' expects vec3f but got a single value"):
        wp.launch(composite_params, dim=1, inputs=[wp.float32(2.0), wp.transform(), 0, out])
    with pytest.raises(ValueError, match="Failed to convert argument for param v to vec3f"):
        wp.launch(composite_params, dim=1, inputs=[None, wp.transform(), 0, out])
    assert out.numpy().tolist() == [0.0]

    @wp.struct
    class Params:
        x: float

    @wp.kernel
    def takes_struct(p: Params, out: wp.array(dtype=float)):
        out[0] = p.x

    with pytest.raises(RuntimeError, match="argument 'p' expects Params but got None"):
        wp.launch(takes_struct, dim=1, inputs=[None, out])


@wp.func
def not_a_kernel_func(x: float):
    return x


def plain_python(a):
    return a


@pytest.mark.parametrize("obj, fragment", [
    (not_a_kernel_func, "got the wp.func 'not_a_kernel_func'"),
    (plain_python, "got the Python function 'plain_python' (not decorated with @wp.kernel)"),
    (None, "got NoneType None"),
])
@pytest.mark.parametrize("how", [{}, {"adjoint": True}, {"record_cmd": True}])
def test_launching_what_is_not_a_kernel_is_a_type_error(obj, fragment, how):
    a = wp.full(3, 5.0)
    with pytest.raises(TypeError, match="the first argument must be a kernel") as info:
        wp.launch(obj, dim=3, inputs=[a], **how)
    assert fragment in str(info.value)
    assert a.numpy().tolist() == [5.0, 5.0, 5.0]


def test_misspelled_keyword_is_refused_and_warps_launch_shape_is_taken():
    args = good_args()
    with pytest.raises(TypeError, match="unexpected keyword argument 'devce'"):
        wp.launch(target, dim=3, inputs=args, devce="cpu")
    assert args[0].numpy().tolist() == [0.0, 0.0, 0.0]
    wp.launch(target, dim=3, inputs=args, max_blocks=2, block_dim=64)  # Warp's CUDA launch shape: no effect here
    assert args[0].numpy().tolist() == [4.0, 4.0, 4.0]

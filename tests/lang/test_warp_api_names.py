"""Names Warp code uses at import time: wp.Kernel(func=...), @wp.func_grad, generic dtypes in vector and
matrix annotations (wp.Int, wp.Float, (Any, Any) shapes), zero-length vector types."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp


def _double(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 2.0 * x[i]


def test_kernel_built_from_func_keyword():
    k = wp.Kernel(func=_double, key="double_it", options={"enable_backward": False})
    assert k.key == "double_it" and k.options == {"enable_backward": False}
    x = wp.array([1.0, 2.5], dtype=float)
    wp.launch(k, dim=2, inputs=[x])
    assert x.numpy().tolist() == [2.0, 5.0]


@wp.func
def safe_sqrt(x: float):
    return wp.sqrt(wp.max(x, 0.0))


@wp.func_grad(safe_sqrt)
def adj_safe_sqrt(x: float, adj_ret: float):
    pass


@wp.kernel
def use_safe_sqrt(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = safe_sqrt(x[i])


def test_func_grad_is_recorded_and_leaves_the_forward_function_unchanged():
    assert [o.pyfunc for o in safe_sqrt.custom_grads] == [adj_safe_sqrt]
    x = wp.array([4.0, -1.0], dtype=float)
    wp.launch(use_safe_sqrt, dim=2, inputs=[x])
    assert x.numpy().tolist() == [2.0, 0.0]


@wp.func
def int_sum(v: wp.types.vector(3, wp.Int)) -> Any:
    return v[0] + v[1] + v[2]


@wp.kernel
def sums(vi: wp.vec3i, vl: wp.vec3l, out: wp.array(dtype=wp.int64)):
    out[0] = wp.int64(int_sum(vi))
    out[1] = int_sum(vl)


@wp.kernel
def any_matrix(m: wp.types.matrix((Any, Any), float), out: wp.array(dtype=float)):
    out[0] = m[1, 0]


def test_generic_dtype_and_shape_placeholders():
    out = wp.zeros(2, dtype=wp.int64)
    wp.launch(sums, dim=1, inputs=[wp.vec3i(1, 2, 3), wp.vec3l(2**40, 1, 1), out])
    assert out.numpy().tolist() == [6, 2**40 + 2]
    f = wp.zeros(1, dtype=float)
    wp.launch(any_matrix, dim=1, inputs=[wp.mat22(1.0, 2.0, 3.0, 4.0), f])
    assert f.numpy().tolist() == [3.0]
    wp.launch(any_matrix, dim=1, inputs=[wp.types.matrix((3, 2), float)(np.arange(6.0)), f])
    assert f.numpy().tolist() == [2.0]

    @wp.kernel
    def int_only(v: wp.types.vector(3, wp.Int), out: wp.array(dtype=float)):
        out[0] = float(v[0])

    with pytest.raises(wp.LaunchError, match="vec3f"):  # a float vector is not a vector of Int
        wp.launch(int_only, dim=1, inputs=[wp.vec3(1.0, 2.0, 3.0), f])
    assert f.numpy().tolist() == [2.0]


def test_zero_length_vector_type():
    v0 = wp.types.vector(0, float)
    assert v0._length == 0 and len(v0()) == 0
    with pytest.raises(TypeError, match="non-negative int, got -1"):
        wp.types.vector(-1, float)


def test_vector_builtins_on_the_host(capfd):
    v = wp.vec3(3.0, 4.0, 0.0)
    assert wp.length(v) == 5.0 and wp.dot(v, v) == 25.0
    n = wp.normalize(v)
    assert type(n) is wp.vec3 and list(n) == [np.float32(0.6), np.float32(0.8), 0.0]
    assert list(wp.cross(v, wp.vec3(0.0, 0.0, 1.0))) == [4.0, -3.0, 0.0]
    assert wp.determinant(wp.mat22(1.0, 2.0, 3.0, 4.0)) == -2.0
    assert np.asarray(wp.inverse(wp.mat22(1.0, 2.0, 3.0, 4.0))).tolist() == [[-2.0, 1.0], [1.5, -0.5]]
    assert type(wp.transpose(wp.mat22d(1.0, 2.0, 3.0, 4.0))) is wp.mat22d
    wp.expect_eq(wp.vec2(1.0, 2.0), wp.vec2(1.0, 2.0))
    assert capfd.readouterr().out == ""
    wp.expect_eq(1, 2)
    assert "expect_eq failed: 1 != 2" in capfd.readouterr().out


def test_kernel_name_option_and_invalid_names():
    @wp.kernel(name="my_scale")
    def scale_by_two(x: wp.array(dtype=float)):
        x[wp.tid()] *= 2.0

    assert scale_by_two.key == "my_scale"
    x = wp.array([1.5], dtype=float)
    wp.launch(scale_by_two, dim=1, inputs=[x])
    assert x.numpy().tolist() == [3.0]
    for bad in ("1invalid", "has space", "dash-ed", "", 3):
        with pytest.raises(ValueError, match=r"kernel name .* is not a valid C\+\+ identifier"):
            wp.kernel(name=bad)


def test_kernel_entry_point_abi_option():
    """Warp's entry_point_abi: 'warp' (the default) is brickwork's entry point; Warp's checks of the option, and
    wp.launch refuses a kernel for an external launcher, as Warp's does."""

    @wp.kernel(entry_point_abi="warp")
    def fill(x: wp.array(dtype=float)):
        x[wp.tid()] = 4.0

    x = wp.zeros(2, dtype=float)
    wp.launch(fill, dim=2, inputs=[x])
    assert x.numpy().tolist() == [4.0, 4.0]
    with pytest.raises(ValueError, match="must be 'warp' or 'external_constant_params', got 'external'"):
        wp.kernel(entry_point_abi="external")
    with pytest.raises(ValueError, match="requires enable_backward=False"):
        wp.kernel(entry_point_abi="external_constant_params")

    @wp.kernel(entry_point_abi="external_constant_params", enable_backward=False)
    def external(x: wp.array(dtype=float)):
        x[0] = 1.0

    with pytest.raises(RuntimeError, match="cannot be launched with wp.launch"):
        wp.launch(external, dim=1, inputs=[x])
    assert x.numpy().tolist() == [4.0, 4.0]

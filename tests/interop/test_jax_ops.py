"""wp.jax_kernel and wp.jax_callable: brickwork kernels as JAX operations on the CPU (XLA FFI targets whose
handler launches on XLA's buffers), under jax.jit, jax.vmap and jax.grad, with Warp's checks and words."""

from functools import partial

import numpy as np
import pytest

import brickwork as wp

jax = pytest.importorskip("jax")
jnp = jax.numpy


@wp.kernel
def _triple(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 3.0 * x[i]


@wp.kernel
def _sincos(a: wp.array(dtype=float), s: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    s[i] = wp.sin(a[i])
    c[i] = wp.cos(a[i])


@wp.kernel
def _scale_vec(a: wp.array(dtype=wp.vec2), s: float, out: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    out[i] = a[i] * s


@wp.kernel
def _diagonal(out: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    d = float(i + 1)
    out[i] = wp.mat22(d, 0.0, 0.0, 2.0 * d)


@wp.kernel
def _in_out(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    b[i] += a[i]
    c[i] = 2.0 * a[i]


@wp.kernel
def _add2d(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = a[i, j] + b[i, j]


@wp.kernel
def _rowsum(m: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(sums, i, m[i, j])


@wp.kernel
def _lookup(table: wp.array(dtype=float), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = table[idx[i]]


@wp.kernel
def _square_sum(a: wp.array(dtype=float), b: wp.array(dtype=float), s: float, c: wp.array(dtype=float)):
    i = wp.tid()
    c[i] = (a[i] * s + b[i]) * (a[i] * s + b[i])


@wp.kernel
def _two_out(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float),
             d: wp.array(dtype=float)):
    i = wp.tid()
    c[i] = a[i] * a[i]
    d[i] = a[i] * b[i]


@wp.kernel
def _fail(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i]


def _double(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    wp.launch(_triple, dim=b.shape, inputs=[a], outputs=[b])
    wp.launch(_scale_vec_1d, dim=b.shape, inputs=[b, 2.0 / 3.0], outputs=[b])


@wp.kernel
def _scale_vec_1d(a: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * s


def test_a_kernel_under_jit():
    f = jax.jit(lambda x: wp.jax_kernel(_triple)(x))
    (y,) = f(jnp.arange(1000, dtype=jnp.float32))
    assert y.shape == (1000,) and y.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(y), 3 * np.arange(1000))
    (y,) = wp.jax_kernel(_triple)(jnp.arange(4, dtype=jnp.float32))  # also outside jit
    np.testing.assert_array_equal(np.asarray(y), [0, 3, 6, 9])


def test_several_outputs_and_vectors():
    s, c = jax.jit(wp.jax_kernel(_sincos, num_outputs=2))(jnp.linspace(0, 3, 7, dtype=jnp.float32))
    np.testing.assert_allclose(np.asarray(s), np.sin(np.linspace(0, 3, 7)), atol=1e-6)
    np.testing.assert_allclose(np.asarray(c), np.cos(np.linspace(0, 3, 7)), atol=1e-6)
    a = jnp.arange(8, dtype=jnp.float32).reshape(4, 2)
    (out,) = jax.jit(partial(wp.jax_kernel(_scale_vec), s=2.5))(a) if False else \
        jax.jit(lambda a: wp.jax_kernel(_scale_vec)(a, 2.5))(a)
    assert out.shape == (4, 2)
    np.testing.assert_array_equal(np.asarray(out), 2.5 * np.arange(8).reshape(4, 2))


def test_launch_dims_give_outputs_without_inputs():
    (d,) = jax.jit(lambda: wp.jax_kernel(_diagonal)(launch_dims=3))()
    assert d.shape == (3, 2, 2)
    np.testing.assert_array_equal(np.asarray(d)[:, 0, 0], [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(d)[:, 1, 1], [2, 4, 6])
    (d,) = wp.jax_kernel(_diagonal, launch_dims=2, output_dims={"out": (2, 2, 2)})()
    assert d.shape == (2, 2, 2)


def test_launch_dims_smaller_than_the_input():
    (y,) = jax.jit(lambda x: wp.jax_kernel(_triple, launch_dims=5)(x))(jnp.ones(8, dtype=jnp.float32))
    np.testing.assert_array_equal(np.asarray(y), np.full(5, 3.0))


def test_in_out_arguments():
    f = jax.jit(wp.jax_kernel(_in_out, num_outputs=2, in_out_argnames=["b"]))
    b_in = jnp.arange(5, dtype=jnp.float32)
    b, c = f(jnp.ones(5, dtype=jnp.float32), b_in)
    np.testing.assert_array_equal(np.asarray(b), np.arange(1, 6))
    np.testing.assert_array_equal(np.asarray(c), np.full(5, 2.0))
    np.testing.assert_array_equal(np.asarray(b_in), np.arange(5))  # not donated: XLA updated a copy


def test_empty_arrays():
    (y,) = jax.jit(wp.jax_kernel(_triple))(jnp.ones(0, dtype=jnp.float32))
    assert y.shape == (0,)


@pytest.mark.parametrize("vmap_method", ["broadcast_all", "sequential"])
def test_vmap_over_every_axis(vmap_method):
    add = wp.jax_kernel(_add2d, vmap_method=vmap_method)
    a = jnp.arange(24, dtype=jnp.float32).reshape(2, 3, 4)
    b = jnp.ones((2, 3, 4), dtype=jnp.float32)
    for axis in range(3):
        (out,) = jax.jit(jax.vmap(add, in_axes=axis, out_axes=axis))(a, b)
        np.testing.assert_array_equal(np.asarray(out), np.asarray(a) + 1)


@pytest.mark.parametrize("vmap_method", ["broadcast_all", "sequential"])
def test_vmap_in_out_and_unbatched_inputs(vmap_method):
    rowsum = wp.jax_kernel(_rowsum, in_out_argnames=["sums"], vmap_method=vmap_method)
    m = jnp.arange(24, dtype=jnp.float32).reshape(2, 3, 4)
    (out,) = jax.jit(jax.vmap(rowsum))(m, jnp.zeros((2, 3), dtype=jnp.float32))
    np.testing.assert_array_equal(np.asarray(out), np.asarray(m).sum(axis=2))
    lookup = wp.jax_kernel(_lookup, vmap_method=vmap_method)
    table = jnp.arange(10, dtype=jnp.float32) * 10
    idx = jnp.array([[1, 2, 3], [9, 8, 7]], dtype=jnp.int32)
    (out,) = jax.jit(jax.vmap(partial(lookup, launch_dims=3), in_axes=(None, 0)))(table, idx)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(idx) * 10)


def test_gradients_through_the_adjoint():
    f = wp.jax_kernel(_square_sum, enable_backward=True)

    def loss(a, b, s):
        return jnp.sum(f(a, b, s)[0])

    a, b, s = jnp.arange(6, dtype=jnp.float32), jnp.ones(6, dtype=jnp.float32), 2.0
    da, db = jax.jit(jax.grad(loss, argnums=(0, 1)), static_argnames="s")(a, b, s)
    an, bn = np.arange(6), np.ones(6)
    np.testing.assert_allclose(np.asarray(da), 2 * (an * s + bn) * s)
    np.testing.assert_allclose(np.asarray(db), 2 * (an * s + bn))
    (out,) = f(a, b, s)
    np.testing.assert_allclose(np.asarray(out), (an * s + bn) ** 2)


def test_gradients_of_several_outputs_and_under_vmap():
    f = wp.jax_kernel(_two_out, num_outputs=2, enable_backward=True)
    a, b = jnp.arange(4, dtype=jnp.float32), jnp.full(4, 3.0, dtype=jnp.float32)
    da, db = jax.grad(lambda a, b: jnp.sum(sum(f(a, b))), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(np.asarray(da), 2 * np.arange(4) + 3)
    np.testing.assert_allclose(np.asarray(db), np.arange(4))
    g = jax.grad(lambda x: jnp.sum(jax.vmap(lambda r: f(r, r)[1])(x)))(jnp.arange(6, dtype=jnp.float32).reshape(2, 3))
    np.testing.assert_allclose(np.asarray(g), 2 * np.arange(6).reshape(2, 3))


def test_differentiable_wrapper_rejects_what_warp_does():
    f = wp.jax_kernel(_triple, launch_dims=3, enable_backward=True)
    x = jnp.ones(3, dtype=jnp.float32)
    with pytest.raises(TypeError, match="launch_dims cannot be overridden per-call"):
        f(x, launch_dims=3)
    with pytest.raises(TypeError, match="output_dims is not supported"):
        f(x, output_dims=3)
    with pytest.raises(TypeError, match="vmap_method cannot be overridden per-call"):
        f(x, vmap_method="sequential")
    with pytest.raises(NotImplementedError, match="in_out_argnames"):
        wp.jax_kernel(_in_out, num_outputs=2, in_out_argnames=["b"], enable_backward=True)


@pytest.mark.parametrize("output_dims", [2, (2,), {"y": 2}])
def test_differentiable_kernel_with_output_dims(output_dims):
    # Warp 1.19 raises NotImplementedError for this; the outputs take output_dims, the launch launch_dims
    f = wp.jax_kernel(_triple, launch_dims=2, output_dims=output_dims, enable_backward=True)
    x = jnp.arange(4, dtype=jnp.float32)
    (y,) = f(x)
    np.testing.assert_array_equal(np.asarray(y), [0.0, 3.0])
    g = jax.grad(lambda x: jnp.sum(f(x)[0] * jnp.array([1.0, 2.0])))(x)
    np.testing.assert_array_equal(np.asarray(g), [3.0, 6.0, 0.0, 0.0])


def test_callables():
    f = wp.jax_callable(_double)
    (y,) = jax.jit(f)(jnp.arange(5, dtype=jnp.float32))
    np.testing.assert_allclose(np.asarray(y), 2 * np.arange(5), rtol=1e-6)
    (y,) = jax.jit(lambda x: f(x, output_dims=3))(jnp.arange(5, dtype=jnp.float32))  # the first 3 elements
    np.testing.assert_allclose(np.asarray(y), [0, 2, 4], rtol=1e-6)
    (y,) = jax.jit(jax.vmap(f))(jnp.ones((2, 3), dtype=jnp.float32))
    np.testing.assert_allclose(np.asarray(y), np.full((2, 3), 2.0), rtol=1e-6)


def test_callable_graph_modes_on_the_cpu():
    x = jnp.arange(4, dtype=jnp.float32)
    for mode in (wp.JaxCallableGraphMode.NONE, wp.JaxCallableGraphMode.JAX):
        (y,) = jax.jit(wp.jax_callable(_double, graph_mode=mode))(x)
        np.testing.assert_allclose(np.asarray(y), 2 * np.arange(4), rtol=1e-6)
    f = wp.jax_callable(_double, graph_mode=2)
    assert f.graph_mode is wp.JaxCallableGraphMode.WARP and f.graph_cache_size == 0
    with pytest.raises(Exception, match="graph_mode WARP captures a CUDA graph, which the CPU has not"):
        jax.block_until_ready(jax.jit(f)(x))
    wp.clear_jax_callable_graph_cache(f)


def test_wrappers_are_cached_by_their_arguments():
    a = wp.jax_kernel(_triple)
    assert wp.jax_kernel(_triple) is a and wp.jax_kernel(_triple, in_out_argnames=[]) is a
    assert wp.jax_kernel(_triple, in_out_argnames=["y"]) is not a
    assert wp.jax_kernel(_triple, block_dim=64).block_dim == 64 and a.block_dim is None
    c = wp.jax_callable(_double, stage_in_argnames=["a"])
    assert c is wp.jax_callable(_double, stage_in_argnames=["a"]) and c.stage_in_argnames == {"a"}


def test_construction_errors():
    with pytest.raises(ValueError, match="must not contain duplicate names"):
        wp.jax_kernel(_triple, in_out_argnames=["y", "y"])
    with pytest.raises(ValueError, match="in_out arguments should be placed before output-only arguments"):
        wp.jax_kernel(_sincos, num_outputs=2, in_out_argnames=["c"])
    with pytest.raises(ValueError, match="did not match any function argument names"):
        wp.jax_kernel(_triple, in_out_argnames=["missing"])
    with pytest.raises(ValueError, match="At least one output is required"):
        wp.jax_kernel(_triple, num_outputs=0)
    with pytest.raises(ValueError, match="block_dim must be positive"):
        wp.jax_kernel(_triple, block_dim=0)
    with pytest.raises(TypeError, match="block_dim must be an integer or None"):
        wp.jax_kernel(_triple, block_dim=1.5)
    with pytest.raises(TypeError, match="All output arguments must be arrays"):
        wp.jax_kernel(_scale_vec, num_outputs=2)

    def unannotated(a, b):
        pass

    with pytest.raises(RuntimeError, match="Incomplete argument annotations"):
        wp.jax_callable(unannotated)


def test_call_errors():
    f = wp.jax_kernel(_triple)
    with pytest.raises(ValueError, match=r"Expected 1 input \(x\), but got 2"):
        f(jnp.ones(2), jnp.ones(2))
    with pytest.raises(TypeError, match="Invalid data type for array argument 'x', expected float32, got int32"):
        f(jnp.ones(2, dtype=jnp.int32))
    with pytest.raises(TypeError, match="Invalid dimensionality for array argument 'x', expected 1 dimensions"):
        f(jnp.ones((2, 2), dtype=jnp.float32))
    with pytest.raises(TypeError, match=r"Invalid inner dimensions for array argument 'a', expected \(2,\)"):
        wp.jax_kernel(_scale_vec)(jnp.ones((4, 3), dtype=jnp.float32), 1.0)
    with pytest.raises(ValueError, match="Argument 's' must be a static value"):
        jax.jit(lambda a, s: wp.jax_kernel(_scale_vec)(a, s))(jnp.ones((4, 2), dtype=jnp.float32), 2.0)
    with pytest.raises(ValueError, match="Missing output dimensions for argument 'c'"):
        wp.jax_kernel(_sincos, num_outputs=2)(jnp.ones(3, dtype=jnp.float32), output_dims={"s": 3})
    with pytest.raises(ValueError, match=r"Invalid output dimensions for argument 'y': \(3, 3\)"):
        f(jnp.ones(3, dtype=jnp.float32), output_dims=(3, 3))
    with pytest.raises(ValueError, match="Warp cannot launch a kernel using wp.tid\\(\\) with extent 2147483649"):
        jax.jit(lambda: f(jnp.ones(1, dtype=jnp.float32), launch_dims=2**31 + 1, output_dims=1)).lower()


def test_an_error_in_the_call_is_jax_s_error_naming_it():
    def broken(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        raise ValueError("nothing to see")

    with pytest.raises(Exception, match="brickwork FFI callback error: ValueError: nothing to see"):
        jax.block_until_ready(jax.jit(wp.jax_callable(broken))(jnp.ones(2, dtype=jnp.float32)))
    # the target still works afterwards
    (y,) = jax.jit(wp.jax_kernel(_fail))(jnp.ones(2, dtype=jnp.float32))
    np.testing.assert_array_equal(np.asarray(y), [1, 1])


def test_generic_kernels_need_a_concrete_overload():
    @wp.kernel
    def generic(a: wp.array(dtype=wp.Any), b: wp.array(dtype=wp.Any)):
        i = wp.tid()
        b[i] = a[i] + a[i]

    with pytest.raises(TypeError, match="is generic: give a concrete overload"):
        wp.jax_kernel(generic)
    inst = generic.add_overload([wp.array(dtype=wp.int32), wp.array(dtype=wp.int32)])
    (y,) = jax.jit(wp.jax_kernel(inst))(jnp.arange(3, dtype=jnp.int32))
    assert y.dtype == jnp.int32
    np.testing.assert_array_equal(np.asarray(y), [0, 2, 4])

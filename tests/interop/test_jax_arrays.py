"""wp.from_jax / wp.to_jax (memory shared through DLPack), the dtype and device conversions, and their errors,
checked against Warp 1.19's tables, types and words. jax is optional: these tests skip without it."""

import numpy as np
import pytest

import brickwork as wp

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)  # the 64-bit types (as Warp's tests do)

PAIRS = [(jnp.float16, wp.float16), (jnp.bfloat16, wp.bfloat16), (jnp.float32, wp.float32),
         (jnp.float64, wp.float64), (jnp.int8, wp.int8), (jnp.int16, wp.int16), (jnp.int32, wp.int32),
         (jnp.int64, wp.int64), (jnp.uint8, wp.uint8), (jnp.uint16, wp.uint16), (jnp.uint32, wp.uint32),
         (jnp.uint64, wp.uint64), (jnp.bool_, wp.bool)]


@pytest.mark.parametrize("jax_type, ours", PAIRS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_scalar_types_map_both_ways(jax_type, ours):
    assert wp.dtype_to_jax(ours) is jax_type
    assert wp.dtype_from_jax(jax_type) is ours
    assert wp.dtype_from_jax(jnp.dtype(jax_type)) is ours  # a JAX array's .dtype
    assert wp.dtype_from_jax(jnp.zeros(1, jax_type).dtype) is ours


def test_numpy_types_and_python_types():
    assert wp.dtype_from_jax(np.float32) is wp.float32  # numpy's types are JAX's dtypes
    assert wp.dtype_to_jax(float) is jnp.float32 and wp.dtype_to_jax(int) is jnp.int32
    assert wp.dtype_to_jax(bool) is jnp.bool_


@pytest.mark.parametrize("value", [jnp.complex64, jnp.float8_e4m3fn, jnp.int4, "float32", None, 3])
def test_types_brickwork_lacks_are_a_type_error_naming_them(value):
    with pytest.raises(TypeError, match=f"Cannot convert {value} to a Warp type"):
        wp.dtype_from_jax(value)


def test_vector_types_have_no_jax_type_and_the_error_says_what_their_arrays_become():
    with pytest.raises(TypeError, match=r"Cannot convert vec3f to a Jax type \(a vec3f array becomes a JAX array "
                                        r"of float32 with trailing dimensions \(3,\)\)"):
        wp.dtype_to_jax(wp.vec3)
    with pytest.raises(TypeError, match="Cannot convert str to a Jax type"):
        wp.dtype_to_jax(str)


def test_devices_both_ways():
    cpu = jax.devices("cpu")[0]
    assert wp.device_to_jax("cpu") == cpu and wp.device_to_jax(wp.get_device("cpu")) == cpu
    assert wp.device_from_jax(cpu) == wp.get_device("cpu")


def test_device_errors():
    with pytest.raises(TypeError, match="wp.device_from_jax needs a jax.Device, got str"):
        wp.device_from_jax("cpu")

    class Tpu:
        platform = "tpu"

    with pytest.raises(RuntimeError, match="Unsupported Jax device platform 'tpu'"):
        wp.device_from_jax(Tpu())


def test_a_cuda_device_jax_lacks_is_a_runtime_error(monkeypatch):
    import brickwork.interop.jax as bj

    class Cuda:
        ordinal, is_cpu, is_cuda = 0, False, True

    monkeypatch.setattr(bj, "get_device", lambda d: Cuda())
    with pytest.raises(RuntimeError, match="Jax device corresponding to 'cuda:0' is not available"):
        wp.device_to_jax("cuda:0")


def test_from_jax_views_the_memory_and_writes_reach_jax():
    x = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
    a = wp.from_jax(x)
    assert a.shape == (2, 3) and a.dtype is wp.float32 and a.device == wp.get_device("cpu")
    assert a.ptr == x.unsafe_buffer_pointer()  # no copy
    a.numpy()[1, 2] = 42.0  # as in Warp: the JAX array, immutable to JAX, sees the write
    np.testing.assert_array_equal(np.asarray(x), [[0, 1, 2], [3, 4, 42]])


@pytest.mark.parametrize("jax_type, ours", PAIRS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_from_jax_every_scalar_type(jax_type, ours):
    values = np.array([0, 1, 1, 0, 1], dtype=np.dtype(jax_type))
    a = wp.from_jax(jnp.asarray(values))
    assert a.dtype is ours
    if ours is wp.bfloat16:  # numpy() of bfloat16: JAX's ml_dtypes.bfloat16 values, the same bits
        assert a.numpy().dtype == values.dtype
    np.testing.assert_array_equal(a.numpy(), values)


def test_from_jax_vectors_and_matrices_over_trailing_dimensions():
    x = jnp.arange(12, dtype=jnp.float32).reshape(4, 3)
    v = wp.from_jax(x, dtype=wp.vec3)
    assert v.shape == (4,) and v.dtype is wp.vec3
    np.testing.assert_array_equal(v.numpy(), np.arange(12).reshape(4, 3))
    m = wp.from_jax(jnp.arange(8, dtype=jnp.float32).reshape(2, 2, 2), dtype=wp.mat22)
    assert m.shape == (2,)
    np.testing.assert_array_equal(m.numpy()[1], [[4, 5], [6, 7]])
    one = wp.from_jax(jnp.ones(3, dtype=jnp.float32), dtype=wp.vec3)  # a single vector: an array of one
    assert one.shape == (1,) and one.numpy().tolist() == [[1, 1, 1]]


def test_from_jax_integers_of_either_sign_alias():
    x = jnp.array([-1, 2], dtype=jnp.int32)
    np.testing.assert_array_equal(wp.from_jax(x, dtype=wp.uint32).numpy(), [2**32 - 1, 2])


def test_from_jax_zero_d_is_an_array_of_one():
    a = wp.from_jax(jnp.float32(2.5))
    assert a.shape == (1,) and a.numpy()[0] == 2.5


def test_from_jax_bfloat16():
    values = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    a = wp.from_jax(jnp.asarray(values, dtype=jnp.bfloat16))
    assert a.dtype is wp.bfloat16
    back = wp.to_jax(a)
    assert back.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(back, dtype=np.float32), values)


def test_from_jax_errors():
    x = jnp.zeros((4, 2), dtype=jnp.float32)
    with pytest.raises(RuntimeError, match=r"Could not convert JAX array with shape \(4, 2\) to Warp array with "
                                           r"dtype=vec3f, ensure that source inner shape is \(3,\)"):
        wp.from_jax(x, dtype=wp.vec3)
    with pytest.raises(RuntimeError, match="Incompatible data types: DLPack float32 and Warp int32"):
        wp.from_jax(x, dtype=wp.int32)
    with pytest.raises(TypeError, match="wp.from_jax needs a jax.Array .* got int"):
        wp.from_jax(5)
    with pytest.raises(RuntimeError, match="complex"):
        wp.from_jax(jnp.zeros(2, dtype=jnp.complex64))


def _host_array(values: np.ndarray, align: int, offset: int) -> wp.array:
    """A brickwork array over numpy memory at ``offset`` bytes past an ``align``-byte boundary."""
    raw = np.zeros(values.nbytes + 2 * align, np.uint8)
    start = (-raw.ctypes.data) % align + offset
    view = raw[start:start + values.nbytes].view(values.dtype)
    view[:] = values
    return wp.array(ptr=view.ctypes.data, shape=values.shape, dtype=wp.dtype_from_numpy(values.dtype),
                    device="cpu", deleter=lambda ptr, nbytes, keep=raw: None)


def test_to_jax_views_the_memory():
    a = wp.array(np.arange(4, dtype=np.float32))  # brickwork's host arrays are 64-byte aligned, as JAX needs
    j = wp.to_jax(a)
    assert j.dtype == jnp.float32 and j.shape == (4,) and j.unsafe_buffer_pointer() == a.ptr
    a.numpy()[0] = 7.0
    np.testing.assert_array_equal(np.asarray(j), [7, 1, 2, 3])
    assert list(j.devices()) == [jax.devices("cpu")[0]]


def test_to_jax_of_an_array_over_read_only_memory():
    x = jnp.arange(4, dtype=jnp.float32)
    a = wp.array(np.asarray(x), dtype=wp.float32, copy=False)  # numpy's view of a JAX array is read-only
    assert a.ptr == x.unsafe_buffer_pointer()
    j = wp.to_jax(a)  # numpy would refuse to export read-only memory through DLPack; brickwork does not
    assert j.unsafe_buffer_pointer() == a.ptr
    np.testing.assert_array_equal(np.asarray(j), [0, 1, 2, 3])


def test_to_jax_copies_memory_jax_cannot_view():
    a = _host_array(np.arange(4, dtype=np.float32), 64, 16)  # JAX's CPU buffers are 64-byte aligned
    assert wp.to_jax(_host_array(np.ones(2, np.float32), 64, 0)).unsafe_buffer_pointer() % 64 == 0
    j = wp.to_jax(a)
    assert j.unsafe_buffer_pointer() != a.ptr
    a.numpy()[0] = 7.0
    np.testing.assert_array_equal(np.asarray(j), [0, 1, 2, 3])


@pytest.mark.parametrize("jax_type, ours", PAIRS, ids=lambda x: getattr(x, "__name__", str(x)))
def test_to_jax_every_scalar_type(jax_type, ours):
    a = wp.array([1, 0, 1], dtype=ours)
    j = wp.to_jax(a)
    assert j.dtype == jnp.dtype(jax_type)
    np.testing.assert_array_equal(np.asarray(j).astype(np.float64), [1, 0, 1])


def test_to_jax_vectors_matrices_and_transposes():
    v = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=wp.vec3)
    assert wp.to_jax(v).shape == (2, 3)
    m = wp.zeros(3, dtype=wp.mat22)
    assert wp.to_jax(m).shape == (3, 2, 2) and wp.to_jax(m).unsafe_buffer_pointer() == m.ptr
    t = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3)).transpose()  # a permutation: JAX takes it
    np.testing.assert_array_equal(np.asarray(wp.to_jax(t)), np.arange(6).reshape(2, 3).T)


def test_to_jax_errors():
    a = wp.array(np.arange(16, dtype=np.float32).reshape(4, 4))
    with pytest.raises(ValueError, match=r"wp.to_jax: the array's strides \(16,\) skip or repeat elements"):
        wp.to_jax(a[:, 1])
    with pytest.raises(TypeError, match="wp.to_jax needs a brickwork array, got ndarray"):
        wp.to_jax(np.zeros(3))

    @wp.struct
    class S:
        x: float

    with pytest.raises(RuntimeError, match="Cannot convert structured Warp arrays to Jax"):
        wp.to_jax(wp.zeros(2, dtype=S))


def test_round_trip_through_a_kernel():
    @wp.kernel
    def triple(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 3.0 * x[i]

    x = jnp.arange(5, dtype=jnp.float32)
    y = wp.zeros(5)
    wp.launch(triple, dim=5, inputs=[wp.from_jax(x)], outputs=[y])
    np.testing.assert_array_equal(np.asarray(wp.to_jax(y)), 3 * np.arange(5))

"""wp.from_torch / wp.to_torch on the CPU: the same memory both ways (writes through either are seen by the
other), strides, vector and matrix element types over trailing dimensions, lifetimes, launches that take tensors,
devices and streams, and the errors a user can cause (checked against Warp 1.19's types and words)."""

import gc

import numpy as np
import pytest

import brickwork as wp

torch = pytest.importorskip("torch")


@wp.kernel
def _add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def _add_one_2d(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = a[i, j] + 1.0


@wp.kernel
def _scale_vec(a: wp.array(dtype=wp.vec3), s: float):
    i = wp.tid()
    a[i] = a[i] * s


@wp.kernel
def _transpose_mat(a: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    a[i] = wp.transpose(a[i])


# -- zero-copy both ways ------------------------------------------------------------------------------


def test_writes_through_the_array_are_seen_by_the_tensor_and_back():
    t = torch.arange(6, dtype=torch.float32)
    a = wp.from_torch(t)
    assert a.ptr == t.data_ptr() and a.dtype is wp.float32 and a.shape == (6,) and a.device == "cpu"
    wp.launch(_add_one, dim=6, inputs=[a])
    np.testing.assert_array_equal(t.numpy(), np.arange(1, 7))
    t[2] = 40.0  # torch writes, brickwork reads
    assert a.numpy()[2] == 40.0
    a.numpy()[0] = -5.0
    assert t[0].item() == -5.0


def test_to_torch_shares_the_array_memory():
    a = wp.array(np.arange(4, dtype=np.float64))
    t = wp.to_torch(a)
    assert t.dtype is torch.float64 and t.data_ptr() == a.ptr and tuple(t.shape) == (4,)
    t += 10.0
    np.testing.assert_array_equal(a.numpy(), [10.0, 11.0, 12.0, 13.0])
    a.fill_(2.0)
    assert t.tolist() == [2.0] * 4


def test_round_trip_keeps_the_memory_and_the_type():
    for dtype in (wp.float16, wp.float32, wp.float64, wp.int8, wp.int16, wp.int32, wp.int64, wp.uint8, wp.bool,
                  wp.bfloat16):
        a = wp.zeros(5, dtype=dtype)
        back = wp.from_torch(wp.to_torch(a))
        assert back.dtype is dtype and back.ptr == a.ptr and back.shape == (5,)


def test_bfloat16_goes_through_dlpack_with_its_values():
    a = wp.array(np.array([1.0, 2.5, -3.0], np.float32), dtype=wp.bfloat16)
    t = wp.to_torch(a)
    assert t.dtype is torch.bfloat16 and t.data_ptr() == a.ptr
    assert t.float().tolist() == [1.0, 2.5, -3.0]
    u = torch.tensor([0.5, -8.0], dtype=torch.bfloat16)
    b = wp.from_torch(u)
    assert b.dtype is wp.bfloat16 and b.list() == [0.5, -8.0]


# -- strides ------------------------------------------------------------------------------------------


def test_slices_keep_their_strides_and_kernels_reach_the_right_elements():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    t = base[1:3, 2:5]
    a = wp.from_torch(t)
    assert a.ptr == t.data_ptr() and a.shape == (2, 3) and a.strides == (24, 4) and not a.is_contiguous
    wp.launch(_add_one_2d, dim=a.shape, inputs=[a])
    expected = np.arange(24, dtype=np.float32).reshape(4, 6)
    expected[1:3, 2:5] += 1
    np.testing.assert_array_equal(base.numpy(), expected)


def test_capacity_is_the_storage_left_from_the_first_element_as_in_warp():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    assert wp.from_torch(base[1:3, 2:5]).capacity == 96 - 32
    assert wp.from_torch(base[2:, 1::2]).capacity == 96 - 52
    assert wp.from_torch(base).capacity == 96


def test_zero_strides_of_expand_are_kept():
    t = torch.arange(3, dtype=torch.float32).unsqueeze(0).expand(4, -1)
    a = wp.from_torch(t)
    assert a.strides == (0, 4) and a.shape == (4, 3)
    np.testing.assert_array_equal(a.numpy(), np.tile(np.arange(3), (4, 1)))


def test_to_torch_keeps_the_strides_of_a_view():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    t = wp.to_torch(a[:, 1])
    assert t.stride() == (4,) and t.data_ptr() == a.ptr + 4 and t.tolist() == [1.0, 5.0, 9.0]


def test_to_torch_refuses_negative_strides():
    a = wp.array(np.arange(4, dtype=np.float32))[::-1]
    with pytest.raises(ValueError, match=r"negative strides \(-4,\).*copy it first"):
        wp.to_torch(a)
    with pytest.raises(ValueError, match="negative strides"):  # DLPack (bfloat16) too: torch's import would abort
        wp.to_torch(wp.zeros(4, dtype=wp.bfloat16)[::-1])


# -- vector and matrix element types -----------------------------------------------------------------


def test_vector_type_takes_the_trailing_dimension():
    t = torch.arange(12, dtype=torch.float32).reshape(4, 3)
    a = wp.from_torch(t, dtype=wp.vec3)
    assert a.dtype is wp.vec3 and a.shape == (4,) and a.strides == (12,) and a.ptr == t.data_ptr()
    wp.launch(_scale_vec, dim=4, inputs=[a, 2.0])
    np.testing.assert_array_equal(t.numpy(), 2 * np.arange(12).reshape(4, 3))
    assert wp.to_torch(a).shape == (4, 3)


def test_matrix_type_takes_two_trailing_dimensions_over_strided_outer_ones():
    base = torch.arange(40, dtype=torch.float32).reshape(10, 2, 2)
    t = base[1:8:3]
    a = wp.from_torch(t, dtype=wp.mat22)
    assert a.shape == (3,) and a.strides == (48,)
    wp.launch(_transpose_mat, dim=3, inputs=[a])
    np.testing.assert_array_equal(t.numpy(), np.arange(40).reshape(10, 2, 2)[1:8:3].transpose(0, 2, 1))
    assert tuple(wp.to_torch(wp.zeros(5, dtype=wp.mat33)).shape) == (5, 3, 3)
    assert tuple(wp.to_torch(wp.zeros(5, dtype=wp.transform)).shape) == (5, 7)


def test_one_vector_and_a_0d_tensor_are_arrays_of_one():
    assert wp.from_torch(torch.zeros(3), dtype=wp.vec3).shape == (1,)
    a = wp.from_torch(torch.tensor(7.0))
    assert a.shape == (1,) and a.numpy()[0] == 7.0


def test_vector_shape_mismatch_is_refused_with_warps_words():
    with pytest.raises(RuntimeError, match=r"Could not convert PyTorch tensor with shape \(3, 4\) to Warp array "
                                           r"with dtype=vec3f, ensure that source inner shape is \(3,\)"):
        wp.from_torch(torch.zeros(3, 4), dtype=wp.vec3)
    with pytest.raises(RuntimeError, match=r"shape \(2,\).*inner shape is \(2, 2\)"):
        wp.from_torch(torch.zeros(2), dtype=wp.mat22)


def test_non_contiguous_components_are_refused():
    with pytest.raises(RuntimeError, match=r"dtype=vec2f, because the source inner strides are not contiguous "
                                           r"\(strides \(4, 2\) elements\): copy it first"):
        wp.from_torch(torch.zeros(3, 4)[:, ::2], dtype=wp.vec2)
    with pytest.raises(RuntimeError, match="inner strides are not contiguous"):
        wp.from_torch(torch.zeros(4, 3).t().contiguous().t(), dtype=wp.vec3)
    with pytest.raises(RuntimeError, match="inner strides are not contiguous"):  # the rows of a matrix
        wp.from_torch(torch.zeros(2, 2, 4)[:, :, ::2], dtype=wp.mat22)
    t = torch.zeros(4, 3).t().contiguous().t()
    assert wp.from_torch(t).strides == (4, 16)  # as scalars the same tensor is fine


# -- lifetimes ----------------------------------------------------------------------------------------


def test_the_array_keeps_the_tensor_alive_and_the_tensor_the_array():
    a = wp.from_torch(torch.arange(1000, dtype=torch.float64))
    gc.collect()
    torch.zeros(1000, dtype=torch.float64)  # reuses freed memory, were it freed
    assert a.numpy()[999] == 999.0
    t = wp.to_torch(wp.array(np.arange(1000, dtype=np.float64)))
    gc.collect()
    np.zeros(1000)
    assert t[999].item() == 999.0


# -- launches that take tensors -----------------------------------------------------------------------


def test_launch_takes_cpu_tensors_for_array_parameters():
    s = torch.arange(4, dtype=torch.float32)
    v = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    wp.launch(_add_one, dim=4, inputs=[s])
    wp.launch(_scale_vec, dim=2, inputs=[v, 3.0])
    assert s.tolist() == [1.0, 2.0, 3.0, 4.0]
    np.testing.assert_array_equal(v.numpy(), 3 * np.arange(6).reshape(2, 3))


def test_launch_takes_the_descriptor_of_return_ctype():
    t = torch.zeros(3, 2)
    d = wp.from_torch(t, dtype=wp.vec2, return_ctype=True)
    assert (d.data, d.grad, d.ndim, d.shape[0], d.strides[0]) == (t.data_ptr(), 0, 1, 3, 8)
    s = torch.zeros(5)
    wp.launch(_add_one, dim=5, inputs=[wp.from_torch(s, return_ctype=True)])
    assert s.tolist() == [1.0] * 5
    g = torch.zeros(5)
    d = wp.from_torch(s, grad=g, return_ctype=True)
    assert d.grad == g.data_ptr()


# -- devices and streams ------------------------------------------------------------------------------


def test_devices_both_ways():
    assert wp.device_to_torch("cpu") == "cpu" and wp.device_to_torch(wp.get_device("cpu")) == "cpu"
    assert wp.device_from_torch("cpu") == "cpu" and wp.device_from_torch(torch.device("cpu")) == "cpu"
    assert wp.from_torch(torch.zeros(2)).device == wp.device_from_torch(torch.zeros(2).device)


def test_devices_brickwork_lacks_are_refused():
    with pytest.raises(RuntimeError, match="Unsupported Torch device mps"):
        wp.device_from_torch("mps")
    with pytest.raises(RuntimeError, match="Unsupported Torch device type meta"):
        wp.device_from_torch(torch.device("meta"))
    with pytest.raises(ValueError, match="Argument must be a torch.device object or a string, got int"):
        wp.device_from_torch(5)
    with pytest.raises(RuntimeError, match="Unsupported Torch device type meta"):  # before touching memory
        wp.from_torch(torch.zeros(3, device="meta"))


def test_cuda_devices_need_a_cuda_device_here():
    if wp.get_cuda_device_count():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(RuntimeError, match="CUDA"):
        wp.device_from_torch("cuda:0")
    with pytest.raises(RuntimeError, match="CUDA"):
        wp.device_from_torch(torch.device("cuda", 0))


def test_streams_belong_to_cuda_devices():
    if torch.cuda.is_available():
        pytest.skip("torch has CUDA here")
    with pytest.raises(RuntimeError, match="torch has no CUDA device here"):
        wp.stream_from_torch()
    with pytest.raises(RuntimeError, match="cpu has no streams"):
        wp.stream_to_torch("cpu")


# -- what a user can get wrong ------------------------------------------------------------------------


def test_wrong_values_are_type_errors():
    with pytest.raises(TypeError, match="wp.from_torch needs a torch.Tensor, got list"):
        wp.from_torch([1.0, 2.0])
    with pytest.raises(TypeError, match="wp.from_torch needs a torch.Tensor, got ndarray"):
        wp.from_torch(np.zeros(3))
    with pytest.raises(TypeError, match="wp.to_torch needs a brickwork array, got Tensor"):
        wp.to_torch(torch.zeros(3))
    with pytest.raises(TypeError, match="Cannot convert torch.complex64 to a Warp type"):
        wp.from_torch(torch.zeros(3, dtype=torch.complex64))


def test_struct_arrays_have_no_tensor():
    @wp.struct
    class P:
        x: float

    with pytest.raises(RuntimeError, match="Cannot convert structured Warp arrays to Torch: an array of P"):
        wp.to_torch(wp.zeros(2, dtype=P))


def test_more_than_four_dimensions_are_refused():
    with pytest.raises(ValueError, match="1 to 4 dimensions"):
        wp.from_torch(torch.zeros(2, 2, 2, 2, 2))
    assert wp.from_torch(torch.zeros(2, 2, 2, 2, 3), dtype=wp.vec3).shape == (2, 2, 2, 2)


def test_empty_tensors_and_arrays():
    assert tuple(wp.to_torch(wp.zeros((1, 0), dtype=wp.vec2)).shape) == (1, 0, 2)
    a = wp.from_torch(torch.zeros(0, 3), dtype=wp.vec3)
    assert a.shape == (0,) and a.size == 0


def test_launch_names_a_tensor_it_cannot_read():
    t = torch.zeros(2, requires_grad=True)  # torch gives no numpy view of it
    with pytest.raises(wp.errors.LaunchArgumentError, match=r"launch of '.*_add_one': argument 'a': its Tensor "
                                                            r"gives no host array \(Can't call numpy\(\) on Tensor "
                                                            r"that requires grad.*wp.from_torch\(t\) views"):
        wp.launch(_add_one, dim=2, inputs=[t])
    assert t.tolist() == [0.0, 0.0]
    wp.launch(_add_one, dim=2, inputs=[wp.from_torch(t)])
    assert t.tolist() == [1.0, 1.0]

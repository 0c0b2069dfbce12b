"""CUDA devices, device arrays and launches, host side: with a fake driver (memory on the host,
launches recorded) where no GPU exists, and the errors of a machine without one."""

import struct

import numpy as np
import pytest

import brickwork as wp
from brickwork import cuda_driver
from brickwork import device as devices
from brickwork.errors import DeviceUnavailableError
from brickwork.jit import nvrtc

from .cuda_fake import FakeDriver, installed

no_gpu = pytest.mark.skipif(cuda_driver.available(), reason="this machine has a CUDA device")
needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


# -- a machine without a GPU ---------------------------------------------------------------------
@no_gpu
def test_without_a_gpu_cuda_devices_are_refused_with_the_reason():
    assert not wp.is_cuda_available() and devices.get_cuda_device_count() == 0
    for call in (lambda: wp.get_device("cuda:0"), lambda: wp.zeros(4, device="cuda:0"),
                 lambda: wp.array([1.0], device="cuda"), lambda: wp.zeros(2).to("cuda:0")):
        with pytest.raises(DeviceUnavailableError, match="no CUDA device") as err:
            call()
        assert isinstance(err.value, RuntimeError)
    assert wp.get_device() == "cpu"


@no_gpu
def test_without_a_gpu_a_cuda_launch_is_refused_and_nothing_runs():
    @wp.kernel
    def put(a: wp.array(dtype=float)):
        a[wp.tid()] = 1.0

    a = wp.zeros(3)
    with pytest.raises(DeviceUnavailableError, match="no CUDA device"):
        wp.launch(put, dim=3, inputs=[a], device="cuda:0")
    np.testing.assert_array_equal(a.numpy(), 0.0)


# -- devices ----------------------------------------------------------------------------------------
def test_cuda_devices_come_from_the_driver(fake):
    d = wp.get_device("cuda:0")
    assert (d.alias, d.name, d.ordinal, d.arch, d.sm_arch, d.is_cuda) == ("cuda:0", "Fake GPU 0", 0, 90, "sm_90",
                                                                          True)  # arch: Warp's int
    assert wp.get_device("cuda") is d and devices.get_cuda_device_count() == 1 and wp.is_cuda_available()
    with pytest.raises(DeviceUnavailableError, match="no CUDA device 'cuda:1': this machine has 1"):
        wp.get_device("cuda:1")
    with pytest.raises(ValueError, match="unknown device 'cuda:x'"):
        wp.get_device("cuda:x")


def test_scoped_device_makes_cuda_current_for_allocations(fake):
    with wp.ScopedDevice("cuda:0"):
        a = wp.zeros(3)
        assert wp.get_device() == "cuda:0" and a.device == "cuda:0"
    assert wp.get_device() == "cpu" and wp.zeros(3).device == "cpu"


def test_synchronize_waits_for_every_device_used(fake):
    wp.get_device("cuda:0")
    wp.synchronize()
    wp.synchronize_device("cuda:0")
    wp.synchronize_device("cpu")
    assert fake.synchronized == [0, 0]


# -- arrays -----------------------------------------------------------------------------------------
def test_arrays_copy_to_the_device_and_back(fake):
    a = wp.array([1.5, 2.5, 3.5], dtype=wp.float32, device="cuda:0")
    assert type(a).__name__ == "DeviceArray" and a.device == "cuda:0" and a.shape == (3,)
    out = a.numpy()
    np.testing.assert_array_equal(out, [1.5, 2.5, 3.5])
    out[0] = 99.0  # a copy: the device is unchanged
    np.testing.assert_array_equal(a.numpy(), [1.5, 2.5, 3.5])
    assert bytes(fake.memory[a.ptr][:12]) == np.array([1.5, 2.5, 3.5], np.float32).tobytes()
    assert str(a) == "[1.5 2.5 3.5]" and a.list() == [1.5, 2.5, 3.5] and a[1] == 2.5


def test_constructors_on_the_device(fake):
    z = wp.zeros((2, 3), dtype=wp.float64, device="cuda:0")
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3)))
    f = wp.full(4, 7, dtype=wp.int32, device="cuda:0")
    np.testing.assert_array_equal(f.numpy(), [7, 7, 7, 7])
    o = wp.ones(2, dtype=wp.vec3, device="cuda:0")
    np.testing.assert_array_equal(o.numpy(), np.ones((2, 3)))
    v = wp.full(2, wp.vec3(1.0, 2.0, 3.0), device="cuda:0")
    np.testing.assert_array_equal(v.numpy(), [[1, 2, 3], [1, 2, 3]])
    e = wp.empty(5, dtype=wp.float16, device="cuda:0")
    assert e.shape == (5,) and e.numpy().dtype == np.float16
    c = wp.clone(f)
    assert c.device == "cuda:0" and c.ptr != f.ptr
    np.testing.assert_array_equal(c.numpy(), f.numpy())
    n = wp.from_numpy(np.arange(6.0).reshape(2, 3), device="cuda:0")
    np.testing.assert_array_equal(n.numpy(), np.arange(6.0).reshape(2, 3))


def test_copy_and_to_move_data_between_host_and_device(fake):
    host = wp.array(np.arange(4, dtype=np.float32))
    dev = host.to("cuda:0")
    assert dev.device == "cuda:0" and dev.to("cuda:0") is dev
    back = dev.to("cpu")
    assert back.device == "cpu"
    np.testing.assert_array_equal(back.numpy(), [0, 1, 2, 3])
    other = wp.zeros(4, device="cuda:0")
    wp.copy(other, dev)  # device to device
    np.testing.assert_array_equal(other.numpy(), [0, 1, 2, 3])
    target = wp.zeros(4)
    wp.copy(target, other)  # device to host
    np.testing.assert_array_equal(target.numpy(), [0, 1, 2, 3])
    other.assign([5, 6, 7, 8])  # host data to device
    np.testing.assert_array_equal(other.numpy(), [5, 6, 7, 8])
    other[2] = 0.5
    np.testing.assert_array_equal(other.numpy(), [5, 6, 0.5, 8])


def test_copy_with_offsets_on_and_to_the_device(fake):
    src = wp.array(np.arange(1, 6, dtype=np.float32), device="cuda:0")
    dest = wp.zeros(6, device="cuda:0")
    wp.copy(dest, src, dest_offset=1, src_offset=2, count=2)  # device to device: one copy of the bytes
    np.testing.assert_array_equal(dest.numpy(), [0, 3, 4, 0, 0, 0])
    wp.copy(dest, wp.array(np.array([7, 8], dtype=np.float32)), dest_offset=4)  # host to device
    np.testing.assert_array_equal(dest.numpy(), [0, 3, 4, 0, 7, 8])
    host = wp.zeros((2, 2))
    wp.copy(host, src, src_offset=1, count=3)  # device to host, into a 2-D array
    np.testing.assert_array_equal(host.numpy(), [[2, 3], [4, 0]])


def test_views_share_device_memory(fake):
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), device="cuda:0")
    flat = a.flatten()
    assert flat.shape == (6,) and flat.ptr == a.ptr
    r = a.reshape((3, -1))
    r.fill_(4.0)
    np.testing.assert_array_equal(a.numpy(), np.full((2, 3), 4.0))
    with pytest.raises(ValueError, match="cannot reshape"):
        a.reshape((4, 2))
    with pytest.raises(TypeError, match="gives elements, not views"):
        a[0]


def test_cuda_array_interface_and_host_interfaces(fake):
    a = wp.zeros((2, 2), dtype=wp.vec3h, device="cuda:0")
    cai = a.__cuda_array_interface__
    assert cai == {"shape": (2, 2, 3), "typestr": "<f2", "data": (a.ptr, False), "strides": None, "version": 3,
                   "stream": 1}
    assert a.strides == (12, 6) and a.is_contiguous and a.__dlpack_device__() == (2, 0)
    with pytest.raises(AttributeError, match="no host memory"):
        _ = a.__array_interface__
    assert np.asarray(a).shape == (2, 2, 3)


def test_dlpack_export_describes_the_device_memory(fake):
    import ctypes

    from brickwork.types import dlpack_export

    a = wp.zeros((4, 5), dtype=wp.vec2f, device="cuda:0")
    cap = a.__dlpack__()
    assert fake.synchronized == [0]  # finished before sharing
    get = ctypes.pythonapi["PyCapsule_GetPointer"]
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = ctypes.cast(get(cap, b"dltensor"), ctypes.POINTER(dlpack_export.DLManagedTensor)).contents.dl_tensor
    assert (t.data, t.device.device_type, t.device.device_id, t.ndim) == (a.ptr, 2, 0, 3)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 32, 1)
    assert [t.shape[i] for i in range(3)] == [4, 5, 2] and [t.strides[i] for i in range(3)] == [10, 2, 1]
    b = wp.zeros(3, dtype=wp.bfloat16, device="cuda:0")
    cap_b = b.__dlpack__()
    tb = ctypes.cast(get(cap_b, b"dltensor"), ctypes.POINTER(dlpack_export.DLManagedTensor)).contents
    assert (tb.dl_tensor.dtype.code, tb.dl_tensor.dtype.bits) == (4, 16)
    ptr = a.ptr
    del a, t
    assert ptr not in fake.freed  # the capsule keeps the memory alive
    del cap
    assert ptr in fake.freed  # an unconsumed capsule releases the array when it goes


def test_device_memory_is_freed_with_the_last_array(fake):
    a = wp.zeros(8, device="cuda:0")
    ptr = a.ptr
    view = a.flatten()
    del a
    assert ptr not in fake.freed
    del view
    assert ptr in fake.freed


# -- launches ---------------------------------------------------------------------------------------
@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def row_sums(x: wp.array2d(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    for j in range(x.shape[1]):  # a loop: one point per thread
        y[i] += x[i, j]


@wp.kernel
def grid2(out: wp.array2d(dtype=wp.float64), s: wp.float64):
    i, j = wp.tid()
    out[i, j] = s


@needs_nvrtc
def test_a_launch_packs_the_cpu_buffer_and_runs_one_thread_per_point(fake):
    x = wp.array(np.arange(1000, dtype=np.float32), device="cuda:0")
    y = wp.zeros(1000, device="cuda:0")
    wp.launch(saxpy, dim=1000, inputs=[2.0, x, y], device="cuda:0")
    [(ordinal, function, grid, block, params)] = fake.launches
    assert (ordinal, grid, block) == (0, 1, 256)  # ceil(1000 / 1024) blocks of 256 threads, 4 points each
    assert fake.modules[0][:4] == b"\x7fELF"  # the NVRTC cubin
    dims = struct.unpack_from("<4q4i", params)
    assert dims == (1000, 1, 1, 1, 0, 0, 1, 0)
    a, = struct.unpack_from("<f", params, 48)
    xp, xn, xs = struct.unpack_from("<Qqq", params, 56)
    yp, yn, ys = struct.unpack_from("<Qqq", params, 80)
    assert (a, xp, xn, xs, yp, yn, ys) == (2.0, x.ptr, 1000, 1, y.ptr, 1000, 1)
    wp.launch(saxpy, dim=1000, inputs=[3.0, x, y], device="cuda:0")  # the fast path: no second load
    assert len(fake.modules) == 1 and len(fake.launches) == 2
    assert struct.unpack_from("<f", fake.launches[1][4], 48) == (3.0,)
    wp.launch(row_sums, dim=1000, inputs=[wp.zeros((1000, 3), device="cuda:0"), y], device="cuda:0")
    assert fake.launches[2][2:4] == (4, 256)  # ceil(1000 / 256) blocks of 256 threads, a point each


@needs_nvrtc
def test_a_cuda_launch_past_an_array_it_always_accesses_is_refused_before_it_runs(fake):
    x = wp.array(np.arange(10, dtype=np.float32), device="cuda:0")
    y = wp.zeros(10, device="cuda:0")
    with pytest.raises(wp.LaunchError, match=r"'x' .*index 10 .*shape \(10,\)"):
        wp.launch(saxpy, dim=11, inputs=[2.0, x, y], device="cuda:0")
    assert fake.launches == []
    wp.launch(saxpy, dim=10, inputs=[2.0, x, y], device="cuda:0")
    assert len(fake.launches) == 1


@needs_nvrtc
def test_the_current_device_is_the_launch_device_and_2d_launches_count_all_points(fake):
    out = wp.zeros((3, 300), dtype=wp.float64, device="cuda:0")
    with wp.ScopedDevice("cuda:0"):
        wp.launch(grid2, dim=(3, 300), inputs=[out, 1.0])
    [(_, _, grid, block, params)] = fake.launches
    # 3 rows would fill 3 of a tile's 8: rows of 256 points instead, 4 blocks for the 900
    assert grid == 4 and block == 256 and struct.unpack_from("<4q", params) == (3, 300, 1, 1)
    out = wp.zeros((16, 300), dtype=wp.float64, device="cuda:0")
    wp.launch(grid2, dim=(16, 300), inputs=[out, 1.0], device="cuda:0")
    _, _, grid, block, params = fake.launches[-1]  # in tiles of 32 x 8: 10 x 2 blocks cover 300 x 16
    assert grid == (10, 2, 1) and block == (32, 8, 1) and struct.unpack_from("<4q", params) == (16, 300, 1, 1)


@needs_nvrtc
def test_arrays_must_be_on_the_launch_device(fake):
    host = wp.zeros(4)
    dev = wp.zeros(4, device="cuda:0")
    with pytest.raises(wp.LaunchError, match="argument 'x' is an array on cpu; arrays must be on the launch device"):
        wp.launch(saxpy, dim=4, inputs=[1.0, host, dev], device="cuda:0")
    with pytest.raises(wp.LaunchError, match="argument 'y' is an array on cuda:0"):
        wp.launch(saxpy, dim=4, inputs=[1.0, host, dev])
    with pytest.raises(wp.LaunchError, match="on cuda:0: argument 'x' is an array on cpu"):
        wp.launch(saxpy, dim=4, inputs=[1.0, np.zeros(4, np.float32), dev], device="cuda:0")
    assert fake.launches == []
    np.testing.assert_array_equal(host.numpy(), 0.0)


@wp.struct
class Source:
    x: wp.array(dtype=float)


@wp.struct
class Job:
    src: Source
    scale: float


@wp.kernel
def copy_from_struct(job: Job, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = job.scale * job.src.x[i]


@needs_nvrtc
def test_arrays_in_struct_arguments_must_be_on_the_launch_device(fake):
    """A struct holding another device's array is refused at every launch (its fields may change
    between launches): a host address dereferenced on the GPU, or a device address on the CPU
    (which crashed the process before), never reaches a kernel."""
    dev_y, host_y = wp.zeros(4, device="cuda:0"), wp.zeros(4)
    job = Job(src=Source(x=wp.zeros(4, device="cuda:0")), scale=2.0)
    wp.launch(copy_from_struct, dim=4, inputs=[job, dev_y], device="cuda:0")
    assert len(fake.launches) == 1
    with pytest.raises(wp.LaunchError, match=r"launch of 'copy_from_struct' on cpu: argument 'job' holds arrays on "
                                             r"cuda:0; arrays in a struct must be on the launch device"):
        wp.launch(copy_from_struct, dim=4, inputs=[job, host_y], device="cpu")
    job.src.x = wp.array(np.arange(4, dtype=np.float32))  # now on the CPU, after the device's first launch
    with pytest.raises(wp.LaunchError, match=r"on cuda:0: argument 'job' holds arrays on cpu; .*a\.to\('cuda:0'\)"):
        wp.launch(copy_from_struct, dim=4, inputs=[job, dev_y], device="cuda:0")
    assert len(fake.launches) == 1
    wp.launch(copy_from_struct, dim=4, inputs=[job, host_y], device="cpu")  # all on the CPU: runs there
    np.testing.assert_array_equal(host_y.numpy(), [0.0, 2.0, 4.0, 6.0])


@needs_nvrtc
def test_debug_mode_reports_the_first_out_of_bounds_access(fake):
    @wp.kernel
    def shifted(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i + 1] = 1.0

    a = wp.zeros(4, device="cuda:0")
    where = b"test_cuda_runtime.py:1\0"
    text = fake.alloc(0, 64)
    fake.memory[text][:len(where)] = where
    record = struct.pack("<i4xQi4x4q4q", 1, text, 1, 4, 0, 0, 0, 4, 0, 0, 0)
    fake.globals["bw_bounds_record"] = (fake.alloc(0, 88), 88)
    fake.memory[fake.globals["bw_bounds_record"][0]][:] = record  # what the device would have written
    with wp.config.override(mode="debug"):
        with pytest.raises(wp.BoundsError, match=r"index \(4\) is out of bounds for shape \(4\) at test_cuda_runtime"):
            wp.launch(shifted, dim=4, inputs=[a], device="cuda:0")
    assert fake.memory[fake.globals["bw_bounds_record"][0]][:4] == b"\0\0\0\0"  # cleared for the next launch


def test_brickwork_info_reports_nvrtc_the_driver_and_each_device(fake, capsys):
    from brickwork import cli

    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    assert "cuda:       driver 12.9, 1 device(s)" in out
    assert "cuda:0     Fake GPU 0, sm_90, 16 GiB" in out
    if nvrtc.is_available():
        assert "nvrtc:      {}.{} (".format(*nvrtc.version()) in out


@no_gpu
def test_brickwork_info_says_why_there_is_no_cuda_device(capsys):
    from brickwork import cli

    assert cli.main(["info"]) == 0
    assert "cuda:       no CUDA device" in capsys.readouterr().out


@needs_nvrtc
def test_a_taped_cuda_launch_runs_its_backward_kernel_on_the_device(fake):
    """A launch on a CUDA device is recorded on the tape (it was not: gradients stayed 0 on a GPU), and
    tape.backward launches the adjoint kernel there, with the gradients' device pointers; arrays made with
    requires_grad=True on the device get a gradient there."""
    x = wp.array(np.arange(4, dtype=np.float32), device="cuda:0", requires_grad=True)
    y = wp.zeros(4, device="cuda:0", requires_grad=True)
    assert x.grad is not None and x.grad.device == "cuda:0" and y.grad.device == "cuda:0"
    tape = wp.Tape()
    with tape:
        wp.launch(saxpy, dim=4, inputs=[2.0, x, y], device="cuda:0")
    assert len(tape.launches) == 1 and len(fake.launches) == 1
    y.grad.fill_(1.0)
    tape.backward()
    assert len(fake.launches) == 2  # the forward kernel, then the backward one
    params = fake.launches[1][4]
    assert struct.unpack_from("<4q", params) == (4, 1, 1, 1)
    pointers = {struct.unpack_from("<Q", params, off)[0] for off in range(48, len(params) - 7, 8)}
    assert {x.ptr, y.ptr, x.grad.ptr, y.grad.ptr} <= pointers


def team_pad(u, out, scratch: int) -> None:
    """A par_for_outer team per row of ``u``: a pad of ``scratch`` bytes (the arena's size, an argument of the
    kernel) holding the row, copied out after a barrier."""
    n = u.shape[1]

    def body(member, j):
        pad = wp.ScratchPad1D(member, wp.float64, n)

        def produce(i):
            pad[i] = u[j, i]

        wp.par_for_inner(member, 0, n - 1, produce)
        member.team_barrier()

        def consume(i):
            out[j, i] = pad[i]

        wp.par_for_inner(member, 0, n - 1, consume)

    wp.par_for_outer(scratch, 0, u.shape[0], body)


@needs_nvrtc
def test_a_team_launch_runs_the_entry_of_the_memory_its_arena_fits(fake):
    """A kernel with a scratch arena has two entries: one whose arena is the dynamic shared memory (its
    accesses shared-memory instructions), launched while the arena fits the shared-memory limit, and one
    given the global buffer, launched where it does not; the buffer is allocated and passed to that one only."""
    u = wp.zeros((6, 100), dtype=wp.float64, device="cuda:0")
    out = wp.zeros((6, 100), dtype=wp.float64, device="cuda:0")
    limit = wp.config.gpu_shared_limit
    with wp.ScopedDevice("cuda:0"):
        team_pad(u, out, 8 * 100)
        before = set(fake.memory)
        team_pad(u, out, limit)  # the limit itself still fits
        team_pad(u, out, limit + 1)
        team_pad(u, out, 800)
    assert [fake.function_name(launch[1]) for launch in fake.launches] == \
        ["bw_entry", "bw_entry", "bw_entry_global", "bw_entry"]
    # the four calls' bodies are closures of one code, so they share one kernel (one cubin, loaded once),
    # whose global entry is looked up by the first launch that runs it
    assert fake.function_names == ["bw_entry", "bw_entry_global"]
    [buffer] = set(fake.memory) - before  # 6 blocks' arenas, each rounded up to 64 bytes
    assert len(fake.memory[buffer]) == 6 * ((limit + 1 + 63) // 64 * 64)
    assert fake.launch_memory == [(800, 0), (limit, 0), (0, buffer), (800, 0)]
    assert [launch[2:4] for launch in fake.launches] == [(6, 128)] * 4


@pytest.mark.parametrize("where", ["cuda:0 to cuda:0", "cpu to cuda:0", "cuda:0 to cpu"])
def test_a_taped_copy_with_a_cuda_array_passes_its_gradient_back(fake, where):
    """The adjoint of a copy under a tape adds the destination's gradient to the source's and clears the
    copied part, on a CUDA device as on the CPU (it was skipped there: the source's gradient stayed 0)."""
    src_dev, dest_dev = where.split(" to ")
    x = wp.array(np.arange(6, dtype=np.float32), device=src_dev, requires_grad=True)
    y = wp.zeros(6, device=dest_dev, requires_grad=True)
    part = wp.zeros(6, device=dest_dev, requires_grad=True)
    x.grad.assign(np.full(6, 0.5, np.float32))
    tape = wp.Tape()
    with tape:
        wp.copy(y, x)
        wp.copy(part, x, dest_offset=1, src_offset=2, count=3)
    y.grad.assign(np.arange(6, dtype=np.float32))
    part.grad.assign(np.full(6, 10.0, np.float32))
    tape.backward()
    expected = 0.5 + np.arange(6, dtype=np.float32)
    expected[2:5] += 10.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    np.testing.assert_array_equal(y.grad.numpy(), 0.0)
    np.testing.assert_array_equal(part.grad.numpy(), [10.0, 0.0, 0.0, 0.0, 10.0, 10.0])

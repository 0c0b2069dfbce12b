"""CUDA memory another library lends read-only stays read-only (attacker round 16, lead 3): DeviceArray.readonly was
always False, so a kernel, a fill, an assignment or a copy wrote the memory of a producer whose
__cuda_array_interface__ said data=(ptr, True) (a JAX array's, an immutable buffer's), and brickwork's own DLPack
export of such a view came back writable. The flag is carried now and writers are refused as they are for read-only
numpy memory on the CPU; checked with the stand-in driver (device memory is host memory), no GPU needed."""

from __future__ import annotations

import numpy as np
import pytest
from tests.runtime.cuda_fake import FakeDriver, installed

import brickwork as wp
from brickwork.jit import nvrtc

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")


@wp.kernel
def bump(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def bump_indexed(a: wp.indexedarray(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] + 1.0


class Producer:
    """Another library's CUDA array: its memory, lent read-only or not."""

    def __init__(self, ptr, read_only):
        self.desc = {"data": (ptr, read_only), "shape": (4,), "typestr": "<f4", "version": 3}

    @property
    def __cuda_array_interface__(self):
        return self.desc


@pytest.fixture
def driver():
    with installed(FakeDriver()) as fake:
        yield fake


@pytest.fixture
def memory(driver):
    return wp.array([1.0, 2.0, 3.0, 4.0], dtype=wp.float32, device="cuda:0")


def test_the_flag_is_carried_to_views_and_interfaces_and_a_clone_is_writable(memory):
    lent = wp.array(Producer(memory.ptr, True), device="cuda:0")
    assert lent.readonly and lent.reshape((2, 2)).readonly and lent.flatten().readonly
    assert lent.__cuda_array_interface__["data"] == (memory.ptr, True)
    assert not wp.array(Producer(memory.ptr, False), device="cuda:0").readonly
    assert not memory.readonly and memory.__cuda_array_interface__["data"] == (memory.ptr, False)
    copy = wp.clone(lent)
    assert not copy.readonly
    copy.fill_(7.0)
    assert copy.numpy().tolist() == [7.0] * 4 and memory.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]


def test_a_read_only_export_comes_back_read_only_through_dlpack(memory):
    lent = wp.array(Producer(memory.ptr, True), device="cuda:0")
    back = wp.from_dlpack(wp.to_dlpack(lent))
    assert back.readonly and back.ptr == memory.ptr
    assert not wp.from_dlpack(wp.to_dlpack(memory)).readonly


@pytest.mark.parametrize(("what", "write"), [
    ("fill_", lambda a: a.fill_(9.0)),
    ("zero_", lambda a: a.zero_()),
    ("assign", lambda a: a.assign(np.zeros(4, np.float32))),
    ("a[i] = v", lambda a: a.__setitem__(0, 9.0)),
])
def test_host_side_writes_are_refused_and_change_nothing(memory, what, write):
    lent = wp.array(Producer(memory.ptr, True), device="cuda:0")
    with pytest.raises(ValueError) as e:
        write(lent)
    assert str(e.value) == (f"{what}: this cuda:0 array views memory its producer lent read-only (its "
                            f"__cuda_array_interface__ or DLPack export says so); write a copy (wp.clone(a))")
    assert memory.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]


def test_copies_into_it_and_gradients_over_it_are_refused(memory):
    lent = wp.array(Producer(memory.ptr, True), device="cuda:0")
    source = wp.array([5.0, 6.0, 7.0, 8.0], dtype=wp.float32, device="cuda:0")
    for dest_offset, count in ((0, 0), (1, 2)):  # the whole array (an assignment), and a range (a device copy)
        with pytest.raises(ValueError, match=r"^wp.copy: the destination is a read-only array \(it views read-only "
                                             r"memory, on cuda:0\); copy into a writable one \(wp.clone\(a\)\)$"):
            wp.copy(lent, source, dest_offset=dest_offset, count=count)
    wp.copy(source, lent)  # reading it is fine
    assert source.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="grad must be a writable array"):
        wp.zeros(4, dtype=wp.float32, device="cuda:0", requires_grad=True).grad = lent
    assert memory.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]


def test_a_read_only_flag_that_is_not_a_bool_is_refused(memory):
    with pytest.raises(ValueError, match=r"has data \(\d+, 'yes'\), whose read-only flag is not a bool"):
        wp.array(Producer(memory.ptr, "yes"), device="cuda:0")


@needs_nvrtc
def test_kernels_that_write_it_are_refused_at_every_launch(driver, memory):
    writable = wp.array(Producer(memory.ptr, False), device="cuda:0")
    wp.launch(bump, dim=4, inputs=[writable], device="cuda:0")  # a writable view of the type runs first
    assert len(driver.launches) == 1
    message = (r"launch of 'bump': argument 'a' is a read-only array \(it views read-only memory\) but the kernel "
               r"writes it; pass a writable copy \(wp.clone\(a\)\)")
    for lent in (wp.array(Producer(memory.ptr, True), device="cuda:0"), Producer(memory.ptr, True)):
        with pytest.raises(wp.LaunchError, match=message):  # the array, and the producer itself (viewed at launch)
            wp.launch(bump, dim=4, inputs=[lent], device="cuda:0")
    index = wp.array([0, 2], dtype=wp.int32, device="cuda:0")
    with pytest.raises(wp.LaunchError, match=message.replace("bump", "bump_indexed")):
        wp.launch(bump_indexed, dim=2, inputs=[wp.indexedarray(wp.array(Producer(memory.ptr, True), device="cuda:0"),
                                                                [index])], device="cuda:0")
    assert len(driver.launches) == 1 and memory.numpy().tolist() == [1.0, 2.0, 3.0, 4.0]

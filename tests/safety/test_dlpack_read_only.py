"""Read-only memory exported by DLPack comes back read-only: DLPack 0.x cannot say so, and wp.from_dlpack made every
host view writable, so a kernel writing wp.from_dlpack(wp.to_dlpack(a)) of an array over a read-only memory map
died of a segmentation fault (attacker probe). Launches refuse it now, as they refuse the array itself."""

import mmap

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def double(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] * 2.0


@wp.kernel
def copy_out(a: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    out[i] = a[i]


@pytest.fixture
def read_only():
    memory = mmap.mmap(-1, 16, prot=mmap.PROT_READ)  # zeros the process cannot write
    return wp.array(np.frombuffer(memory, dtype=np.float32), copy=False)


@pytest.mark.parametrize("how", ["capsule", "object"])
def test_a_read_only_export_imports_read_only_and_kernels_may_not_write_it(read_only, how):
    back = wp.from_dlpack(wp.to_dlpack(read_only) if how == "capsule" else read_only)
    assert not back.numpy().flags.writeable
    with pytest.raises(wp.LaunchError, match=r"launch of 'double': argument 'a' is a read-only array \(it views "
                                             r"read-only memory\) but the kernel writes it"):
        wp.launch(double, dim=4, inputs=[back])
    out = wp.full(4, 9.0, dtype=wp.float32)
    wp.launch(copy_out, dim=4, inputs=[back, out])  # reading it is fine
    assert out.numpy().tolist() == [0.0, 0.0, 0.0, 0.0]


def test_a_writable_export_stays_writable_and_shares_the_memory():
    a = wp.array(np.arange(4, dtype=np.float32))
    back = wp.from_dlpack(wp.to_dlpack(a))
    wp.launch(double, dim=4, inputs=[back])
    assert a.numpy().tolist() == [0.0, 2.0, 4.0, 6.0]


def test_a_read_only_bfloat16_export_keeps_its_flag():
    bits = np.array([0x3F80, 0x4000], np.uint16)  # 1.0 and 2.0
    bits.setflags(write=False)
    a = wp.array(bits, dtype=wp.bfloat16, copy=False)
    back = wp.from_dlpack(wp.to_dlpack(a))
    assert not back.numpy().flags.writeable
    assert [float(v) for v in back.list()] == [1.0, 2.0]

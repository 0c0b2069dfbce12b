"""Atomics on a kernel's local fixed-size arrays (``wp.zeros`` in a kernel): every operation gives the
plain update's value. On a GPU such an array is in the thread's local memory, where CUDA's atomics are
undefined (an H200 launch failed with "unspecified launch failure"): the device atomics update local
memory without them. This kernel is also compiled for CUDA by NVRTC (tests/targets/test_cuda_nvrtc.py)."""

from pathlib import Path

import numpy as np

import brickwork as wp


@wp.kernel
def local_atomics(x: wp.array(dtype=float), out: wp.array(dtype=float), bits: wp.array(dtype=wp.int32),
                  vout: wp.array(dtype=wp.vec3)):
    a = wp.zeros(shape=(4,), dtype=float)
    old = wp.atomic_add(a, 1, x[0])
    wp.atomic_sub(a, 1, x[1])
    wp.atomic_min(a, 2, x[0])
    wp.atomic_max(a, 3, x[0])
    b = wp.zeros(shape=(2,), dtype=wp.int32)
    wp.atomic_or(b, 0, 6)
    wp.atomic_and(b, 0, 3)
    wp.atomic_xor(b, 0, 1)
    wp.atomic_exch(b, 1, 7)
    was = wp.atomic_cas(b, 1, 7, 9)
    v = wp.zeros(shape=(1,), dtype=wp.vec3)
    wp.atomic_add(v, 0, wp.vec3(1.0, 2.0, 3.0))
    out[0], out[1], out[2], out[3] = a[1], a[2], a[3], old
    bits[0], bits[1], bits[2] = b[0], b[1], was
    vout[0] = v[0]


def test_atomics_on_a_local_array_give_the_plain_updates():
    out, bits, vout = wp.zeros(4), wp.zeros(3, dtype=wp.int32), wp.zeros(1, dtype=wp.vec3)
    wp.launch(local_atomics, 1, inputs=[wp.array([2.5, 1.0]), out, bits, vout])
    np.testing.assert_array_equal(out.numpy(), [1.5, 0.0, 2.5, 0.0])
    np.testing.assert_array_equal(bits.numpy(), [(6 & 3) ^ 1, 9, 7])
    np.testing.assert_array_equal(vout.numpy(), [[1.0, 2.0, 3.0]])


def test_every_device_atomic_updates_local_memory_without_a_cuda_atomic():
    header = (Path(wp.__file__).parent / "include" / "brickwork_cuda_atomics.h").read_text()
    for name in ("atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_exch", "atomic_cas"):
        body = header.split(f"BW_INLINE T {name}(T* p,", 1)[1]
        assert body.split("\n", 2)[1].strip().startswith("BW_IF_LOCAL("), name
    assert "BW_IF_LOCAL(T(old op v))" in header  # and, or, xor

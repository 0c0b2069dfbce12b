"""``wp.launch`` with ndarray subclasses as arguments: their memory is used in place as for a plain ndarray
(an ``np.memmap``: the kernel's writes reach the file), but a masked array is refused, since a kernel would
ignore its mask."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp


@wp.kernel
def add_one(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] + wp.float64(1.0)


@wp.kernel
def scale_into(src: wp.array(dtype=wp.float32, ndim=2), k: wp.float32, dst: wp.array(dtype=wp.float32, ndim=2)):
    i, j = wp.tid()
    dst[i, j] = src[i, j] * k


class Tagged(np.ndarray):
    """A subclass with an attribute of its own, as libraries make (units, labels)."""


def test_memmap_writes_reach_the_file(tmp_path):
    path = tmp_path / "m.bin"
    np.arange(8, dtype=np.float64).tofile(path)
    mm = np.memmap(path, dtype=np.float64, mode="r+")
    wp.launch(add_one, 8, [mm])
    wp.launch(add_one, 8, inputs=[], outputs=[mm])
    assert mm.tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    mm.flush()
    del mm
    assert np.fromfile(path, dtype=np.float64).tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]


def test_read_only_memmap_is_read_and_refused_as_a_written_argument(tmp_path):
    path = tmp_path / "r.bin"
    np.full((2, 3), 1.5, dtype=np.float32).tofile(path)
    src = np.memmap(path, dtype=np.float32, mode="r", shape=(2, 3))
    dst = np.zeros((2, 3), dtype=np.float32)
    wp.launch(scale_into, (2, 3), [src, 4.0, dst])
    assert dst.tolist() == [[6.0] * 3] * 2
    ro = np.memmap(path, dtype=np.float64, mode="r", shape=(3,))
    with pytest.raises(wp.LaunchError, match="argument 'a' is a read-only array"):  # the kernel writes it
        wp.launch(add_one, 3, [ro])
    assert np.fromfile(path, dtype=np.float32).tolist() == [1.5] * 6


def test_other_subclasses_and_mixed_arguments():
    src = np.arange(6, dtype=np.float32).reshape(2, 3).view(Tagged)
    dst = np.zeros((2, 3), dtype=np.float32).view(Tagged)
    wp.launch(scale_into, (2, 3), [src, 2.0, dst])
    assert type(dst) is Tagged and dst.view(np.ndarray).tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    plain = np.zeros((2, 3), dtype=np.float32)
    wp.launch(scale_into, (2, 3), [wp.from_numpy(np.ones((2, 3), dtype=np.float32), dtype=wp.float32), 3.0, plain])
    assert plain.tolist() == [[3.0] * 3] * 2


def test_wrong_dtype_subclass_names_the_argument(tmp_path):
    path = tmp_path / "i.bin"
    np.zeros(4, dtype=np.int32).tofile(path)
    mm = np.memmap(path, dtype=np.int32, mode="r+")
    with pytest.raises(wp.LaunchError, match="argument 'a' must be array\\(dtype=float64"):
        wp.launch(add_one, 4, [mm])
    assert mm.tolist() == [0, 0, 0, 0]


def test_masked_array_is_refused_and_unchanged():
    ma = np.ma.masked_array(np.arange(4, dtype=np.float64), mask=[False, True, False, False])
    with pytest.raises(wp.LaunchError, match="argument 'a' is a numpy.ma.MaskedArray, whose mask a kernel would "
                                             "ignore"):
        wp.launch(add_one, 4, [ma])
    assert ma.data.tolist() == [0.0, 1.0, 2.0, 3.0] and ma.mask.tolist() == [False, True, False, False]
    wp.launch(add_one, 4, [ma.data])  # its data, as the message says
    assert ma.data.tolist() == [1.0, 2.0, 3.0, 4.0]


@wp.kernel
def times(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = x[i] * y[i]


def test_a_memmap_input_under_a_tape_differentiates(tmp_path):
    """The backward launch takes the memmap as the forward did (it was refused as 'got numpy.memmap')."""
    y = np.memmap(tmp_path / "y.dat", dtype=np.float64, mode="w+", shape=(3,))
    y[:] = [0.5, 1.5, 2.5]
    x = wp.array([1.0, 1.0, 1.0], dtype=wp.float64, requires_grad=True)
    out = wp.zeros(3, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(times, 3, inputs=[x, y, out])
    tape.backward(grads={out: wp.array([1.0, 1.0, 1.0], dtype=wp.float64)})
    assert out.numpy().tolist() == [0.5, 1.5, 2.5] and x.grad.numpy().tolist() == [0.5, 1.5, 2.5]

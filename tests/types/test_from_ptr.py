"""``wp.from_ptr`` (Warp's deprecated form): an array over the memory whose address is stored at ``ptr``."""

import ctypes
import subprocess
import sys

import numpy as np
import pytest

import brickwork as wp


def _pointer_to(data: np.ndarray) -> ctypes.c_size_t:
    """A pointer variable holding ``data``'s address, as OmniGraph hands one out."""
    return ctypes.c_size_t(data.ctypes.data)


WARNING = "Warp DeprecationWarning: This version of wp.from_ptr() is deprecated"


def test_from_ptr_views_the_memory_the_pointer_points_to(capsys):
    data = np.arange(6, dtype=np.float32)
    holder = _pointer_to(data)
    a = wp.from_ptr(ctypes.addressof(holder), 6, dtype=wp.float32)
    assert capsys.readouterr().err.startswith(WARNING)  # Warp's form, on stderr (runtime/warp_warnings.py)
    assert a.dtype is wp.float32 and a.shape == (6,) and not a.requires_grad
    assert a.ptr == data.ctypes.data
    np.testing.assert_array_equal(a.numpy(), data)
    a.fill_(2.5)  # the caller's memory, not a copy
    np.testing.assert_array_equal(data, np.full(6, 2.5, np.float32))


def test_from_ptr_takes_a_shape_within_length_and_a_ctypes_pointer():
    data = np.arange(6, dtype=np.float32)
    holder = _pointer_to(data)
    grid = wp.from_ptr(ctypes.pointer(holder), 6, dtype=wp.float32, shape=(2, 3))
    points = wp.from_ptr(ctypes.addressof(holder), 2, dtype=wp.vec3)
    empty = wp.from_ptr(0, 0, dtype=wp.float32)
    np.testing.assert_array_equal(grid.numpy(), data.reshape(2, 3))
    assert points.shape == (2,) and points.dtype is wp.vec3
    np.testing.assert_array_equal(points.numpy(), data.reshape(2, 3))
    assert empty.shape == (0,) and empty.size == 0


@pytest.mark.parametrize("arguments, error, message", [
    ({"length": 6, "shape": (7,)}, ValueError, "capacity 24 is smaller than the 28 bytes"),
    ({"length": 6, "dtype": None}, TypeError, "from_ptr: dtype is required"),
    ({"length": -1}, ValueError, "from_ptr: length must be a number of elements"),
    ({"length": 6, "ptr": "0x10"}, TypeError, "from_ptr: ptr must be the address of a pointer"),
    ({"length": 6, "ptr": 2**64}, ValueError, "from_ptr: ptr must be an address from 0"),
    ({"length": 3, "ptr": 0}, ValueError, r"ptr is 0 \(null\) but shape \(3,\) has elements"),
])
def test_from_ptr_refuses_bad_arguments_and_leaves_the_memory(arguments, error, message):
    data = np.arange(6, dtype=np.float32)
    holder = _pointer_to(data)
    call = {"ptr": ctypes.addressof(holder), "dtype": wp.float32, "length": 6, **arguments}
    with pytest.raises(error, match=message):
        wp.from_ptr(call.pop("ptr"), call.pop("length"), **call)
    np.testing.assert_array_equal(data, np.arange(6, dtype=np.float32))


def test_from_ptr_warning_is_shown_by_default_in_warps_words():
    # Python's default filters show a DeprecationWarning raised from __main__: the caller's line, not brickwork's
    script = "import brickwork as wp\nwp.from_ptr(0, 0, dtype=wp.float32)\n"
    result = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True)
    assert result.stderr.count(WARNING) == 1

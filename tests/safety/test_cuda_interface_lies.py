"""A __cuda_array_interface__ that lies is refused by name before a view is made (attacker probe, with the stand-in
driver): a null pointer with elements became an array at address 0 (a kernel would fault), shape (-4,) and
(2**62,) became arrays of those shapes, (4.5,) an array of 4, and a pointer that is no address, a data entry that is
no pair, a stream that is no handle or a typestr numpy cannot read were bare errors of int(), indexing or numpy."""

from __future__ import annotations

import numpy as np
import pytest
from tests.runtime.cuda_fake import FakeDriver, installed

import brickwork as wp


class Producer:
    """Another library's CUDA array, as far as its interface says."""

    def __init__(self, desc):
        self.desc = desc

    @property
    def __cuda_array_interface__(self):
        return self.desc


@pytest.fixture
def real():
    with installed(FakeDriver()):
        yield wp.array([1.0, 2.0, 3.0, 4.0], dtype=wp.float32, device="cuda:0")


WHAT = "the __cuda_array_interface__ of Producer"


@pytest.mark.parametrize(("change", "error", "message"), [
    ({"data": (0, False)}, ValueError, f"{WHAT} has a null data pointer but shape (4,) has elements"),
    ({"shape": (-4,)}, ValueError, f"{WHAT} has shape (-4,): Array shapes must be non-negative, got -4 in dimension 0"),
    ({"shape": (2**62,)}, ValueError, f"{WHAT} has shape (4611686018427387904,): Array shapes must not exceed the "
                                      "maximum representable value of a signed 32-bit integer, got 4611686018427387904 "
                                      "in dimension 0."),
    ({"shape": (4.5,)}, ValueError, f"{WHAT} has shape (4.5,), not a tuple of integers"),
    ({"data": (-5, False)}, ValueError, f"{WHAT} has data (-5, False), not a (pointer, read-only) pair with a pointer "
                                        "from 0 to 2**64 - 1"),
    ({"data": (2**64, False)}, ValueError, f"{WHAT} has data (18446744073709551616, False), not a (pointer, "
                                           "read-only) pair with a pointer from 0 to 2**64 - 1"),
    ({"data": "PTR"}, ValueError, f"{WHAT} has data PTR, not a (pointer, read-only) pair with a pointer from 0 to "
                                  "2**64 - 1"),
    ({"stream": "x"}, ValueError, f"{WHAT} has stream 'x', not a CUDA stream handle (a positive int)"),
    ({"stream": -3}, ValueError, f"{WHAT} has stream -3, not a CUDA stream handle (a positive int)"),
    ({"typestr": "zz"}, TypeError, f"{WHAT} has typestr 'zz', which names no numpy type"),
])
def test_lies_are_refused_by_name(real, change, error, message):
    desc = {"data": (real.ptr, False), "shape": (4,), "typestr": "<f4", "version": 3, **change}
    if desc["data"] == "PTR":
        desc["data"] = real.ptr
        message = message.replace("PTR", str(real.ptr))
    with pytest.raises(error) as e:
        wp.array(Producer(desc), dtype=wp.float32, device="cuda:0")
    assert str(e.value) == message
    np.testing.assert_array_equal(real.numpy(), [1, 2, 3, 4])


def test_a_truthful_interface_is_viewed(real):
    view = wp.array(Producer({"data": (real.ptr, False), "shape": (2, 2), "typestr": "<f4", "version": 3}),
                    dtype=wp.float32, device="cuda:0")
    assert view.ptr == real.ptr
    np.testing.assert_array_equal(view.numpy(), [[1, 2], [3, 4]])
    empty = wp.array(Producer({"data": (0, False), "shape": (0,), "typestr": "<f4", "version": 3}),
                     dtype=wp.float32, device="cuda:0")  # no elements: a null pointer is fine
    assert empty.shape == (0,)

"""Arrays of elements without bytes (``vector(length=0)``, ``matrix(shape=(0, 0))``) are refused with a
``TypeError`` naming the dtype: ``wp.zeros(3, dtype=vec0)`` raised ``ZeroDivisionError`` (element strides from
byte strides), and such an array would pass a kernel a null pointer. The types themselves stay usable."""

import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp

sys.path.insert(0, str(Path(__file__).parents[1] / "runtime"))
from cuda_fake import FakeDriver, installed  # noqa: E402

VEC0 = wp.types.vector(length=0, dtype=wp.float32)
MAT00 = wp.types.matrix(shape=(0, 0), dtype=wp.float64)


@pytest.mark.parametrize("make, name", [
    (lambda: wp.zeros(3, dtype=VEC0), "vec0f"),
    (lambda: wp.empty((2, 2), dtype=MAT00), "mat00d"),
    (lambda: wp.full(3, VEC0(), dtype=VEC0), "vec0f"),
    (lambda: wp.array(np.zeros((3, 0), np.float32), dtype=VEC0), "vec0f"),
    (lambda: wp.empty(3, dtype=VEC0, strides=(0,)), "an empty vector or matrix type"),
    (lambda: wp.array(ptr=4096, shape=(3,), dtype=VEC0), "an empty vector or matrix type"),
])
def test_arrays_of_elements_without_bytes_are_refused(make, name):
    with pytest.raises(TypeError, match=rf"^an array's elements need at least one byte; {name} has none$"):
        make()


def test_a_cuda_array_of_elements_without_bytes_is_refused():
    with installed(FakeDriver()):
        with pytest.raises(TypeError, match=r"^an array's elements need at least one byte; vec0f has none$"):
            wp.zeros(3, dtype=VEC0, device="cuda:0")


def test_the_empty_types_stay_values_and_other_arrays_are_unchanged():
    assert len(VEC0()) == 0 and MAT00().shape == (0, 0)
    a = wp.zeros(3, dtype=wp.types.vector(length=1, dtype=wp.float32))
    assert a.shape == (3,) and a.strides == (4,) and a.numpy().tolist() == [[0.0], [0.0], [0.0]]

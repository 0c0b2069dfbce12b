"""The lookups the JAX and PyTorch dtype conversions share (``interop/scalar_tables.py``), with a table of
stand-in library types: they run without either library installed."""

import pytest

import brickwork as wp
from brickwork.interop.scalar_tables import library_type, no_scalar

TABLE = {wp.float32: "lib.float32", wp.int32: "lib.int32", wp.bool_: "lib.bool"}


@pytest.mark.parametrize("ours, theirs", [(wp.float32, "lib.float32"), (float, "lib.float32"), (int, "lib.int32"),
                                          (bool, "lib.bool"), (wp.bool_, "lib.bool")])
def test_a_scalar_type_and_the_python_type_standing_for_it_find_the_librarys(ours, theirs):
    assert library_type(TABLE, ours, "Lib", "a lib array") == theirs


@wp.struct
class Point:
    x: float


@pytest.mark.parametrize("value, message", [
    (wp.vec3f, "Cannot convert vec3f to a Lib type (a vec3f array becomes a lib array of float32 with trailing "
               "dimensions (3,))"),
    (wp.mat22d, "Cannot convert mat22d to a Lib type (a mat22d array becomes a lib array of float64 with trailing "
                "dimensions (2, 2))"),
    (wp.float64, "Cannot convert float64 to a Lib type"),
    (Point, "Cannot convert Point to a Lib type"),
    ([1], "Cannot convert [1] to a Lib type"),  # unhashable
    ("float32", "Cannot convert 'float32' to a Lib type"),
])
def test_what_the_table_lacks_is_a_type_error_naming_the_library(value, message):
    with pytest.raises(TypeError) as e:
        library_type(TABLE, value, "Lib", "a lib array")
    assert str(e.value) == message


def test_a_library_type_without_a_brickwork_scalar_lists_brickworks():
    e = no_scalar("lib.complex64")
    assert isinstance(e, TypeError)
    assert str(e) == ("Cannot convert lib.complex64 to a Warp type: brickwork's scalar types are bool, int8-64, "
                      "uint8-64, float16, bfloat16, float32 and float64")

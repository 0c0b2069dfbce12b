"""Tuples in kernels: ``len(t)``, ``t[i]`` with a constant index (or the variable of an unrolled loop),
``wp.static(len(t))``, and ``@func`` parameters annotated ``tuple[...]``, ``tuple[T, ...]``, ``tuple`` or
``Any``, as in Warp."""

from typing import Any

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Frame:
    origin: wp.vec3
    scale: float


@wp.func
def pair(x: int, y: float) -> tuple[int, float]:
    return (x * 3, y * 2.0)


@wp.kernel
def items(out: wp.array(dtype=float)):
    s = Frame(wp.vec3(1.0, 2.0, 3.0), 4.0)
    t = (7, 2.5, wp.vec3(1.0, 2.0, 3.0), s)
    out[0] = float(len(t))
    out[1] = float(wp.static(len(t)))
    out[2] = float(t[0])
    out[3] = t[1]
    out[4] = t[2][2]
    out[5] = t[3].scale
    out[6] = t[-1].origin[1]  # negative indices count from the end
    p = pair(5, 1.5)
    out[7] = float(p[0]) + p[1]
    out[8] = float(len(wp.quat_to_axis_angle(wp.quat(0.0, 0.0, 0.0, 1.0))))


def test_len_index_and_static_len():
    out = wp.zeros(9, dtype=float)
    wp.launch(items, dim=1, inputs=[out])
    np.testing.assert_allclose(out.numpy(), [4, 4, 7, 2.5, 3, 4, 2, 18, 2])


@wp.func
def total3(values: tuple[int, int, int]):
    out = wp.int32(0)
    for i in range(wp.static(len(values))):
        out += values[i]
    for i in range(len(values)):  # a constant range over a tuple is unrolled: i is known in each copy
        out += values[i] * 2
    return out


@wp.func
def total_any(values: Any):
    out = wp.int32(0)
    for i in range(len(values)):
        out += values[i]
    return out


@wp.func
def total_ints(values: tuple[int, ...]):
    out = wp.int32(0)
    for i in range(wp.static(len(values))):
        out += values[i]
    return out


@wp.func
def count_items(values: tuple):
    return len(values)


@wp.kernel
def tuple_parameters(out: wp.array(dtype=int)):
    out[0] = total3((1, 2, 3))
    out[1] = total_any((4,))
    out[2] = total_any((1, 2, 3, 4))
    out[3] = total_ints((5, 6))
    out[4] = total_ints((1, 1, 1, 1, 1))
    out[5] = count_items((1, 2.0, wp.vec2()))


def test_tuple_parameters():
    out = wp.zeros(6, dtype=int)
    wp.launch(tuple_parameters, dim=1, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [18, 4, 10, 11, 5, 3])


@wp.func
def first_of_three(values: tuple[int, int, int]):
    return values[0]


@wp.func
def first_float(values: tuple[float, ...]):
    return values[0]


def _kernel_error(body):
    out = wp.zeros(1, dtype=float)
    with pytest.raises(wp.KernelError) as info:
        wp.launch(wp.kernel(body), dim=1, inputs=[out])
    return info


def test_index_out_of_range():
    def k(out: wp.array(dtype=float)):
        t = (1.0, 2.0)
        out[0] = t[2]

    info = _kernel_error(k)
    assert isinstance(info.value, RuntimeError)
    assert "Tuple index out of bounds, 2 >= 2" in str(info.value)


def test_runtime_index():
    def k(out: wp.array(dtype=float)):
        t = (1.0, 2.0)
        for i in range(wp.tid(), 2):
            out[0] = t[i]

    info = _kernel_error(k)
    assert isinstance(info.value, RuntimeError)
    assert "Tuple index must be a compile time expression" in str(info.value)


def test_annotation_mismatch():
    def wrong_length(out: wp.array(dtype=float)):
        out[0] = float(first_of_three((1, 2)))

    def wrong_item(out: wp.array(dtype=float)):
        out[0] = first_float((1.0, 2))

    assert "overloads: (tuple[int32, int32, int32])" in str(_kernel_error(wrong_length).value)
    assert "overloads: (tuple[float32, ...])" in str(_kernel_error(wrong_item).value)

"""Kernels whose size could make the C++ compiler run for minutes: a vector or matrix of thousands of
components holding one value (``wp.vector(length=n)``, a zero matrix) is filled by a loop, not by a call of
n arguments (g++ took over two minutes at 100 000 components; Warp 1.19 compiles one in about 12 s). One of
more than 1 MiB is refused: a kernel's values live on its thread's stack (a vector of 4M floats took the
compiler past five minutes, one of 2**40 components was a MemoryError without a message)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.pipeline import generate

Wide = wp.vector(length=5000, dtype=wp.float32)
TooWide = wp.vector(length=(1 << 18) + 1, dtype=wp.float32)


@wp.kernel
def zero_wide(out: wp.array(dtype=float)):
    i = wp.tid()
    v = Wide()
    v[i] = 2.0
    out[i] = v[i] + v[4999 - i]


@wp.kernel
def zero_matrix(out: wp.array(dtype=float)):
    m = wp.matrix(shape=(60, 60), dtype=float)
    m[59, 1] = 3.0
    out[0] = m[59, 1] + m[0, 0]


@wp.kernel
def few_components(out: wp.array(dtype=float)):
    v = wp.vec3(1.0, 1.0, 1.0)
    out[0] = v[0] + v[2]


@wp.kernel
def too_wide(out: wp.array(dtype=float)):
    v = TooWide()  # E:too_wide
    out[0] = v[0]


@wp.kernel
def too_wide_matrix(out: wp.array(dtype=wp.float64)):
    m = wp.matrix(shape=(400, 400), dtype=wp.float64)  # E:too_wide_matrix
    out[0] = m[0, 0]


def _line(marker: str) -> int:
    with open(__file__) as f:
        return next(i for i, text in enumerate(f, 1) if text.rstrip().endswith(f"# E:{marker}"))


@pytest.mark.parametrize("kernel, what", [(too_wide, "vec262145f has 262145 components (1048580 bytes)"),
                                          (too_wide_matrix, "has 160000 components (1280000 bytes)")])
def test_a_value_over_a_mebibyte_is_refused_with_its_line(kernel, what):
    out = wp.full(1, 5.0, dtype=out_type(kernel))
    with pytest.raises(wp.KernelTypeError) as e:
        wp.launch(kernel, dim=1, inputs=[out])
    message = str(e.value)
    assert what in message and "live on its thread's stack" in message, message
    assert f'File "{__file__}", line {_line(kernel.key)}' in message
    assert out.numpy()[0] == 5.0


def out_type(kernel):
    return wp.float64 if kernel is too_wide_matrix else float


def test_a_wide_vector_of_one_value_is_filled_by_a_loop():
    text, _ = generate(zero_wide, zero_wide.concrete_types(), "zero_wide")
    assert "bw::make_filled<bw::vec<5000, float>>" in text and len(text) < 20000
    out = wp.zeros(3, dtype=float)
    wp.launch(zero_wide, dim=3, inputs=[out])
    np.testing.assert_array_equal(out.numpy(), [2.0, 2.0, 2.0])


def test_a_zero_matrix_is_filled_by_a_loop():
    text, _ = generate(zero_matrix, zero_matrix.concrete_types(), "zero_matrix")
    assert "bw::make_filled<bw::mat<60, 60, float>>" in text
    out = wp.zeros(1, dtype=float)
    wp.launch(zero_matrix, dim=1, inputs=[out])
    assert out.numpy()[0] == 3.0


def test_a_few_equal_components_are_still_listed():
    text, _ = generate(few_components, few_components.concrete_types(), "few_components")
    assert "make_filled" not in text
    out = wp.zeros(1, dtype=float)
    wp.launch(few_components, dim=1, inputs=[out])
    assert out.numpy()[0] == 2.0

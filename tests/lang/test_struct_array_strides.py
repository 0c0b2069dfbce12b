"""Arrays reached through a struct are addressed with their own strides.

The launch's unit-stride flag covers a kernel's array arguments only; an array in a struct field
(through a local alias, a nested struct, a row view, or passed on to a function) may be any view
of numpy memory, and its elements must be the view's, whatever the arguments' strides are. On the
CPU target, the emulation target, and in the CUDA source (``bw::at<false>`` for such accesses)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, pipeline
from brickwork.targets.cuda import CudaTarget


@wp.struct
class Inner:
    rows: wp.array2d(dtype=float)


@wp.struct
class Holder:
    a: wp.array(dtype=float)
    inner: Inner


@wp.func
def element(a: wp.array(dtype=float), i: int) -> float:
    return a[i]


@wp.kernel
def read_through_struct(s: Holder, out: wp.array2d(dtype=float)):
    i = wp.tid()
    alias = s.a
    row = s.inner.rows[1]
    out[0, i] = s.a[i]  # a field
    out[1, i] = alias[i]  # a local copied from one
    out[2, i] = element(s.a, i)  # passed to a function
    out[3, i] = row[i]  # a row view of a nested struct's 2-D field
    out[4, i] = s.inner.rows[0, i]
    wp.atomic_add(s.a, i, 100.0)  # an atomic on one


def _holder(base: np.ndarray, grid: np.ndarray):
    s = Holder()
    s.a = wp.array(base[::3], dtype=float, copy=False)  # innermost stride 3 elements
    inner = Inner()
    inner.rows = wp.array(grid[:, ::2], dtype=float, copy=False)  # innermost stride 2
    s.inner = inner
    return s


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_views_in_structs_read_and_write_their_own_elements(target):
    base = np.arange(30, dtype=np.float32)
    grid = np.arange(40, dtype=np.float32).reshape(2, 20)
    s = _holder(base, grid)
    out = wp.zeros((5, 10), dtype=float)  # contiguous: the launch's unit flag is set
    with config.override(target=target):
        wp.launch(read_through_struct, dim=10, inputs=[s, out])
    want_a = np.arange(0, 30, 3, dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), [want_a, want_a, want_a, grid[1, ::2], grid[0, ::2]])
    np.testing.assert_array_equal(base[::3], want_a + 100)  # the atomics added to the view's elements
    np.testing.assert_array_equal(np.delete(base, np.s_[::3]), np.delete(np.arange(30), np.s_[::3]))


def test_the_cuda_source_addresses_struct_arrays_with_their_strides():
    text, _ = pipeline.generate(read_through_struct, read_through_struct.concrete_types(), "read_through_struct",
                                target=CudaTarget("sm_90"))
    body = text[text.index("void body("):]
    # the local copies of fields are checked on the device as on the CPU (a field never set has shape (0,))
    for access in ("bw::at<false>((v_s).m_a, ", "bw::at_checked<false>(v_alias, ", "bw::at_checked<false>(v_row, ",
                   "bw::at<false>(((v_s).m_inner).m_rows, ", "bw::atomic_add(&bw::at<false>((v_s).m_a, "):
        assert access in body
    assert "f_element_" in body and "<false>((v_s).m_a, v_i)" in body  # the function runs strided
    # only the argument keeps the launch's flag (a 2-D access: its indices' constant terms apart)
    assert "bw::at_split<UNIT>(v_out, " in body and "<UNIT>" not in body.replace("bw::at_split<UNIT>(v_out, ", "").split(
        "struct Args")[0]

"""Reductions and scans index an array's scalars flat in int32: an array of more than 2**31 - 1 scalars is a
ValueError naming the function, the argument, its shape and count, before anything is copied or written. Before,
a 2-D array of 2**31 + 65536 float32 was copied whole (8.6 GB, 50 s) into a flat array whose shape was then
refused ('Array shapes must not exceed ... in dimension 0'). The arrays here repeat one row (stride 0): no memory."""

import numpy as np
import pytest

import brickwork as wp

SHAPE = (65536, 32769)  # 2**31 + 65536 scalars
ROW = np.arange(SHAPE[1], dtype=np.float32)
OTHER_ROW = np.zeros(SHAPE[1], dtype=np.float32)


def _repeated(row: np.ndarray):
    return wp.array(ptr=row.ctypes.data, shape=SHAPE, strides=(0, 4), dtype=wp.float32, device="cpu")


def _message(func: str, name: str) -> str:
    return (f"{func}(): '{name}' of shape {SHAPE} holds 2147549184 scalars, more than the 2**31 - 1 its kernels "
            f"index")


@pytest.mark.parametrize("axis", [None, 1])
def test_array_sum_refuses_more_than_2_31_scalars(axis):
    out = wp.full((1,) if axis is None else (SHAPE[0], 1), 7.0, dtype=wp.float32)
    with pytest.raises(ValueError) as e:
        wp.utils.array_sum(_repeated(ROW), out=out, axis=axis)
    assert str(e.value) == _message("array_sum", "values")
    assert (out.numpy() == 7.0).all()


def test_array_inner_refuses_more_than_2_31_scalars():
    out = wp.full((1,), 7.0, dtype=wp.float32)
    with pytest.raises(ValueError) as e:
        wp.utils.array_inner(_repeated(ROW), _repeated(ROW), out=out)
    assert str(e.value) == _message("array_inner", "a")
    assert out.numpy().tolist() == [7.0]


def test_array_scan_refuses_more_than_2_31_scalars():
    with pytest.raises(ValueError) as e:
        wp.utils.array_scan(_repeated(ROW), _repeated(OTHER_ROW))
    assert str(e.value) == _message("array_scan", "in_array")
    assert not OTHER_ROW.any()


def test_an_array_below_the_limit_still_sums():
    flat = np.arange(1000, dtype=np.float32)
    assert wp.utils.array_sum(wp.array(flat)) == pytest.approx(float(flat.sum()))

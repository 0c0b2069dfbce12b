"""``a.ptr`` and ``wp.array(ptr=..., shape=..., dtype=...)`` in kernels: arrays over existing memory."""

import numpy as np
import pytest

import brickwork as wp


@wp.struct
class Pair:
    a: wp.float32
    b: wp.int32


def test_array_over_an_address_writes_the_memory():
    @wp.kernel
    def over(src: wp.array2d(dtype=float), rows: int, cols: int, out: wp.array(dtype=wp.uint64)):
        view = wp.array(ptr=src.ptr, shape=(rows, cols), dtype=float)  # the same memory, another shape
        view[1, 0] = 5.0
        out[0] = src.ptr

    src = wp.zeros((2, 3), dtype=float)
    out = wp.zeros(1, dtype=wp.uint64)
    wp.launch(over, dim=1, inputs=[src, 3, 2, out])
    assert out.numpy()[0] == src.ptr
    assert src.numpy().ravel().tolist() == [0.0, 0.0, 5.0, 0.0, 0.0, 0.0]  # row 1 of the 3 x 2 view


def test_array_of_structs_over_an_address():
    @wp.kernel
    def fill(p: wp.uint64):
        arr = wp.array(ptr=p, shape=2, dtype=Pair)
        arr[1].a = 2.5
        arr[1].b = 7

    pairs = wp.zeros(2, dtype=Pair)
    wp.launch(fill, dim=1, inputs=[wp.uint64(pairs.ptr)])
    assert pairs.numpy()["a"].tolist() == [0.0, 2.5] and pairs.numpy()["b"].tolist() == [0, 7]


@pytest.mark.parametrize("call, message", [
    ("wp.array(src.ptr, (2,), float)", "takes the keywords ptr, shape and dtype only"),
    ("wp.array(ptr=src.ptr, dtype=float)", "needs shape"),
    ("wp.array(ptr=1.5, shape=(2,), dtype=float)", "ptr must be a uint64 address"),
    ("wp.array(ptr=src.ptr, shape=(2.0,), dtype=float)", "shape must be 1 to 4 integers"),
    ("wp.array(ptr=src.ptr, shape=(2,), dtype=wp.array)", "dtype must be a scalar, vector, matrix or struct"),
])
def test_array_over_an_address_errors(call, message, tmp_path):
    source = f"import brickwork as wp\n\n@wp.kernel\ndef k(src: wp.array(dtype=float)):\n    v = {call}\n"
    path = tmp_path / "kernel_ptr.py"
    path.write_text(source)
    namespace = {}
    exec(compile(source, str(path), "exec"), namespace)
    src = wp.array(np.arange(2, dtype=np.float32))
    with pytest.raises(wp.KernelTypeError, match=message):
        wp.launch(namespace["k"], dim=1, inputs=[src])
    assert src.numpy().tolist() == [0.0, 1.0]

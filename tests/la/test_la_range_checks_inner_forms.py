"""Range checks of inner loops the first checks missed (``ir/range_bounds.py``): a body ``fn(k, j, i)`` under
the ``logical_flat`` tag (``la.inner(rng, fn)``, ``la.inner_reduce(rng, fn)``) visits the logical box as
``logical_coords`` does, and the body of a ``memory`` inner loop still runs in every slice, so its accesses
by the block ``b`` are checked. These launches read and wrote past their arrays (a space of 3 blocks over
arrays of 2: garbage sums and minima, memory written past the output). Refused, naming the access; nothing
written; in-range launches give numpy's values."""

import numpy as np
import pytest
from test_la_range_checks import _refused as refused

import brickwork as wp
from brickwork import la

HERE = __file__.rsplit("/", 1)[-1]
F = wp.zeros((1, 1, 1, 1), dtype=wp.float64)  # what the bodies read and write (rebound by _arrays)
OUT = wp.zeros((1, 1, 1, 1), dtype=wp.float64)


def _line(text: str) -> str:
    with open(__file__) as f:
        return f"{HERE}:{next(n for n, line in enumerate(f, 1) if text in line)}"


def call_body(rng, b):
    def copy(k, j, i):
        OUT[b, k, j, i] = F[b, k, j, i + 1]  # call access

    la.inner(rng, copy)


def reduce_body(rng, b):
    def value(k, j, i):
        return F[b, k, j, i]  # reduce access

    la.inner_reduce(rng, value)


def memory_body(rng, b):
    for idx in la.inner(rng):
        OUT[b, 0, 0, idx] = F[b, 0, 0, 0]  # memory access


def _arrays(nb, m, out_shape=None):
    global F, OUT
    F = wp.array(np.random.default_rng(1).random((nb, m, m, m)), dtype=wp.float64)
    OUT = wp.zeros(out_shape or (nb, m, m, m), dtype=wp.float64)
    return F.numpy()


def _refused(call) -> str:
    return refused(call, (F, OUT))


@pytest.mark.parametrize("loop", (la.bovi, la.bvoi, la.boiv), ids=lambda t: t.name)
def test_a_kji_body_under_logical_flat(loop):
    space = la.IndexSpace.box(loop, la.logical_flat, 3, 4, 4, 4, 1)
    _arrays(2, 6, out_shape=(3, 6, 6, 6))  # F of 2 blocks
    message = _refused(lambda: la.outer(space, call_body))
    assert _line("# call access") in message and "'F'" in message and "index b on axis 0 to 0..2" in message
    _arrays(3, 5, out_shape=(3, 6, 6, 6))  # F of 5 cells a side: i + 1 reaches 5
    message = _refused(lambda: la.outer(space, call_body))
    assert "k in 1..4, j in 1..4, i in 1..4" in message and "index i + 1 on axis 3 to 2..5" in message
    f = _arrays(3, 6)
    la.outer(space, call_body)
    expected = np.zeros_like(f)
    expected[:, 1:5, 1:5, 1:5] = f[:, 1:5, 1:5, 2:6]
    np.testing.assert_array_equal(OUT.numpy(), expected)


@pytest.mark.parametrize("reducer", (la.MinLoc, la.Sum), ids=lambda r: r.__name__)
def test_an_inner_reduce_over_more_blocks_than_its_array(reducer):
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 3, 4, 4, 4, 2).with_reducer(reducer(wp.float64))
    _arrays(2, 8)
    message = _refused(lambda: la.outer_reduce(space, reduce_body))
    assert _line("# reduce access") in message and "index b on axis 0 to 0..2" in message
    f = _arrays(3, 8)
    result = la.outer_reduce(space, reduce_body)
    inner = f[:, 2:6, 2:6, 2:6]
    if reducer is la.Sum:
        assert np.isclose(result, inner.sum())
    else:
        assert result[0] == inner.min()


def test_a_memory_inner_loop_checks_its_block_index():
    space = la.IndexSpace.box(la.bovi, la.memory, 3, 4, 1, 1, 0, ninner=la.i_pencil)
    _arrays(2, 4, out_shape=(3, 4, 4, 4))
    message = _refused(lambda: la.outer(space, memory_body))
    assert _line("# memory access") in message and "index b on axis 0 to 0..2" in message
    f = _arrays(3, 4)
    la.outer(space, memory_body)
    expected = np.zeros_like(f)
    expected[:, 0, 0, :] = f[:, 0, 0, 0][:, None]
    np.testing.assert_array_equal(OUT.numpy(), expected)

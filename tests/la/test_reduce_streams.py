"""``la.outer_reduce`` on a CUDA device keeps its partials per stream: the launches of a reduction on one
stream never write memory that a reduction on another stream uses, while reductions one after the other
on the same stream reuse theirs (no allocation for a repeated reduction). Checked through the fake
driver (tests/runtime/cuda_fake.py), which records each launch's packed arguments."""

import struct

import numpy as np

import brickwork as wp
from brickwork import la

VALUES = None


def sum_body(rng, b):
    def cell(k, j, i):
        return VALUES[b, k, j, i]

    la.inner_reduce(rng, cell)


def device_pointers(fake, params: bytes) -> set:
    """The 8-byte words of a launch's packed arguments that point into memory the fake driver allocated."""
    words = struct.unpack_from(f"<{len(params) // 8}Q", params)
    return {w for w in words if any(base <= w < base + len(buf) for base, buf in fake.memory.items())}


def reduce_on(fake, stream, space, out) -> set:
    """The device memory the launches of one reduction on ``stream`` reach (its inputs and buffers)."""
    first = len(fake.launches)
    with wp.ScopedStream(stream):
        la.outer_reduce(space, sum_body, out=out)
    assert len(fake.launches) == first + 3  # the slices' partials, the blocks' partials, their fold into out
    return set().union(*(device_pointers(fake, p) for *_, p in fake.launches[first:]))


def test_reductions_on_two_streams_share_no_work_memory(fake_cuda):
    global VALUES
    VALUES = wp.array(np.arange(2 * 4 * 4 * 4, dtype=np.float64).reshape(2, 4, 4, 4), dtype=wp.float64)
    space = la.IndexSpace.box(la.bovi, la.logical_coords, 2, 4, 4, 4, 0).with_reducer(la.Sum(wp.float64))
    a, b = wp.Stream("cuda:0"), wp.Stream("cuda:0")
    out_a, out_b = wp.zeros(1, dtype=wp.float64), wp.zeros(1, dtype=wp.float64)
    inputs = {VALUES.ptr, out_a.ptr, out_b.ptr}
    on_a = reduce_on(fake_cuda, a, space, out_a) - inputs
    on_b = reduce_on(fake_cuda, b, space, out_b) - inputs
    assert on_a and on_b  # each reduction has work memory: its partials and its blocks' partials
    assert not on_a & on_b  # a shared partials buffer: stream b's launches would overwrite stream a's
    allocated = len(fake_cuda.memory)
    assert reduce_on(fake_cuda, a, space, out_a) - inputs == on_a  # in order on one stream: the same memory again
    assert len(fake_cuda.memory) == allocated

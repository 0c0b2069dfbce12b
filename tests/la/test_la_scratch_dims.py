"""``la.get_per_point_scratch(T, rng, dims=...)`` in a body takes positive int sizes whose product fits a scratch
index, a scalar type, and constant components within the sizes; anything else is a ``KernelTypeError`` naming the
body's line, before anything runs. Before, ``dims=(0,)`` or ``(-3,)`` gave a pad every access overran, ``(2.5,)``
was taken as 2, ``(100000, 100000)`` crashed the process (the pad's size wrapped around) and ``s[5, idx]`` of
``dims=(2,)`` wrote past the pad."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import la

HERE = __file__.rsplit("/", 1)[-1]
NB, N, NG = 2, 4, 1
SHAPE = (NB, N + 2 * NG, N + 2 * NG, N + 2 * NG)
out = wp.zeros(SHAPE, dtype=wp.float64)


def _line(text: str) -> str:
    with open(__file__) as f:
        return f"{HERE}\", line {next(n for n, line in enumerate(f, 1) if text in line)}"


def zero_sized(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng, dims=(0,))  # zero_sized's scratch
    for idx in la.inner(rng):
        s[0, idx] = wp.float64(1.0)


def negative(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng, dims=(2, -3))  # negative's scratch
    for idx in la.inner(rng):
        s[0, 0, idx] = wp.float64(1.0)


def fractional(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng, dims=(2.5,))  # fractional's scratch
    for idx in la.inner(rng):
        s[0, idx] = wp.float64(1.0)


def not_a_tuple(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng, dims=3)  # not_a_tuple's scratch
    for idx in la.inner(rng):
        s[0, idx] = wp.float64(1.0)


def too_many(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng, dims=(100000, 100000))  # too_many's scratch
    for idx in la.inner(rng):
        s[99999, 99999, idx] = wp.float64(1.0)


def of_vectors(rng, b):
    s = la.get_per_point_scratch(wp.vec3d, rng)  # of_vectors's scratch
    for idx in la.inner(rng):
        s[idx] = wp.vec3d()


def past_the_sizes(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng, dims=(2, 3))
    for idx in la.inner(rng):
        s[1, 3, idx] = wp.float64(1.0)  # past_the_sizes's access


def below_zero(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng, dims=(2,))
    for idx in la.inner(rng):
        s[-1, idx] = wp.float64(1.0)  # below_zero's access


def last_components(rng, b):
    s = la.get_per_point_scratch(wp.float64, rng, dims=(2, 3))
    for idx in la.inner(rng):
        k, j, i = rng.get_kji(idx)
        s[1, 2, idx] = wp.float64(k * 100 + j * 10 + i)
        s[0, 0, idx] = wp.float64(1.0)
        out[b, k, j, i] = s[1, 2, idx] + s[0, 0, idx]


@pytest.mark.parametrize("body, marker, message", [
    (zero_sized, "zero_sized's scratch", "get_per_point_scratch: dims must be positive, got (0,)"),
    (negative, "negative's scratch", "get_per_point_scratch: dims must be positive, got (2, -3)"),
    (fractional, "fractional's scratch", "get_per_point_scratch: dims must be a tuple of ints, got (2.5,)"),
    (not_a_tuple, "not_a_tuple's scratch", "get_per_point_scratch: dims must be a tuple of ints, got 3"),
    (too_many, "too_many's scratch", "get_per_point_scratch: dims (100000, 100000) make 10000000000 values per "
                                     "point, more than the int32 slots of a scratch index (2**31 - 1)"),
    (of_vectors, "of_vectors's scratch", "per-point scratch holds scalars, got vec3d"),
    (past_the_sizes, "past_the_sizes's access", "scratch component 3 is out of range [0, 3) on axis 1 of dims (2, 3)"),
    (below_zero, "below_zero's access", "scratch component -1 is out of range [0, 2) on axis 0 of dims (2,)"),
])
def test_bad_scratch_sizes_and_components_are_refused_before_the_body_runs(body, marker, message):
    out.zero_()
    space = la.IndexSpace.box(la.bovi, la.logical_flat, NB, N, N, N, NG, ninner=la.i_pencil)
    with pytest.raises(wp.KernelTypeError) as e:
        la.outer(space, body)
    assert message in str(e.value) and _line(marker) in str(e.value), str(e.value)
    assert not out.numpy().any()


def test_the_last_component_of_each_axis_is_its_own_slot():
    out.zero_()
    space = la.IndexSpace.box(la.bovi, la.logical_flat, NB, N, N, N, NG, ninner=la.i_pencil)
    la.outer(space, last_components)
    k, j, i = np.meshgrid(*(np.arange(N + 2 * NG),) * 3, indexing="ij")
    expected = np.where((k >= NG) & (k < N + NG) & (j >= NG) & (j < N + NG) & (i >= NG) & (i < N + NG),
                        k * 100.0 + j * 10.0 + i + 1.0, 0.0)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(expected, SHAPE))


BOIV_SHAPE = (1, 6, 6, 6)
boiv_out = wp.zeros(BOIV_SHAPE, dtype=wp.float64)


def boiv_scratch_body(count):
    """A boiv body whose scratch holds ``count`` float64 values per cell of la.halo.minus_i's box (2 cells)."""
    def body(rng, b):
        hr = rng.add_halo(la.halo.minus_i)
        s = la.get_per_point_scratch(wp.float64, hr, dims=(count,))  # boiv_scratch_body's scratch
        s.zero()
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            s[count - 1, idx] = wp.float64(i)
        rng.team_barrier()
        for k, j, i in la.inner(rng):
            boiv_out[b, k, j, i] = s[count - 1, k, j, i - 1] + s[0, k, j, i]

    return body


def test_boiv_scratch_past_a_threads_stack_is_refused_before_the_body_runs():
    """boiv scratch is an array on the stack of each point's thread: 2 cells x 10**6 float64 (16 MB) crashed the
    process."""
    boiv_out.zero_()
    space = la.IndexSpace.box(la.boiv, la.logical_flat, 1, 4, 4, 4, 1)
    with pytest.raises(wp.KernelTypeError) as e:
        la.outer(space, boiv_scratch_body(10**6))
    assert ("get_per_point_scratch: boiv scratch is an array local to each point's thread, and this body's takes "
            "16000000 bytes (2 cells of the halo's box x 1000000 float64 values here), more than 524288 (the "
            "thread's stack); use bovi or bvoi, whose scratch is in an arena") in str(e.value), str(e.value)
    assert _line("boiv_scratch_body's scratch") in str(e.value), str(e.value)
    assert not boiv_out.numpy().any()


def test_boiv_scratch_of_the_limit_holds_its_last_component():
    boiv_out.zero_()
    space = la.IndexSpace.box(la.boiv, la.logical_flat, 1, 4, 4, 4, 1)
    la.outer(space, boiv_scratch_body(32768))  # 2 x 32768 x 8 bytes: the limit itself
    expected = np.zeros(BOIV_SHAPE)
    expected[0, 1:5, 1:5, 1:5] = np.arange(4.0)  # cell i reads its left neighbour's i - 1 (ghost i = 0)
    np.testing.assert_array_equal(boiv_out.numpy(), expected)

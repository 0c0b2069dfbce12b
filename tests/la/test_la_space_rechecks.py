"""A launch checks again what changed since the last launch of the same body over the same space: a
space changed by assignment gets the constructor's errors, a halo the body names that was rebound
gets the halo check. Nothing runs when a launch is refused."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import la

CNT = wp.zeros((2, 6, 6, 6), dtype=wp.int32)


def count(rng, b):
    for idx in la.inner(rng):
        k, j, i = rng.get_kji(idx)
        wp.atomic_add(CNT, b, k, j, i, 1)


def visits(space, body=count):
    CNT.zero_()
    la.outer(space, body)
    return CNT.numpy().copy()


@pytest.mark.parametrize("tags, attr, value, error, message", [
    ((la.boiv, la.logical_flat), "inner_tag", la.memory, TypeError, r"la.IndexSpace\(la.boiv, la.memory\) is not"),
    ((la.bovi, la.logical_flat), "loop_tag", la.logical_flat, TypeError, "the loop tag must be one of"),
    ((la.bovi, la.logical_flat), "backend", la.memory, TypeError, "the backend must be one of la.raw, la.team"),
    ((la.bovi, la.logical_flat), "ninner", 0, ValueError, "ninner must be a positive int .*, got 0"),
    ((la.bovi, la.logical_flat), "ninner", -2, ValueError, "ninner must be a positive int .*, got -2"),
    ((la.bovi, la.logical_flat), "ninner", 2.5, TypeError, "ninner must be a positive int .*, got 2.5"),
    ((la.bovi, la.logical_flat), "nblocks", 0, ValueError, "nblocks must be at least 1, got 0"),
    ((la.bovi, la.logical_flat), "nblocks", 1.0, TypeError, "nblocks must be an int, got 1.0"),
    ((la.bovi, la.logical_flat), "L", la.Indexer3D(1, 0, 1, 4, 1, 4), ValueError, "the logical box .* is empty"),
    ((la.bovi, la.logical_flat), "L", (1, 4, 1, 4, 1, 4), TypeError, "the box L must be an la.Indexer3D"),
])
@pytest.mark.parametrize("launched_before", [False, True])
def test_a_space_changed_after_construction_gets_the_constructors_error(tags, attr, value, error, message,
                                                                          launched_before):
    space = la.IndexSpace.box(*tags, 2, 4, 4, 4, 1, ninner=5)
    if launched_before:  # the checked state is cached: the change must still be seen
        assert visits(space)[:, 1:5, 1:5, 1:5].min() == 1
    CNT.fill_(7)
    setattr(space, attr, value)
    with pytest.raises(error, match=message):
        la.outer(space, count)
    assert (CNT.numpy() == 7).all()  # nothing ran
    with pytest.raises(error, match=message):
        la.outer_reduce(space.with_reducer(la.Sum(wp.float64)),
                        lambda rng, b: la.inner_reduce(rng, lambda k, j, i: wp.float64(1.0)))


@pytest.mark.parametrize("attr, value, message", [("nblocks", 2.0, "nblocks must be an int, got 2.0"),
                                                   ("ninner", 5.0, "ninner must be a positive int .*, got 5.0"),
                                                   ("ninner", True, "ninner must be a positive int .*, got True")])
def test_a_count_equal_to_the_old_one_but_not_an_int_is_refused(attr, value, message):
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 2, 4, 4, 4, 1, ninner=5 if value != 1 else 1)
    visits(space)
    setattr(space, attr, value)  # == the old value: the cached check must still see it
    with pytest.raises(TypeError, match=message):
        la.outer(space, count)


def test_a_legitimate_change_is_followed():
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 1, 4, 4, 4, 1, ninner=5)
    assert visits(space)[1].sum() == 0
    space.nblocks = 2
    space.ninner = 7
    got = visits(space)
    assert (got[:, 1:5, 1:5, 1:5] == 1).all() and got.sum() == 128


def test_a_reducer_set_by_assignment_must_be_a_reducer():
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 1, 4, 4, 4, 1)
    space.reducer = "sum"
    with pytest.raises(wp.LaunchError, match="needs a reduction space"):
        la.outer_reduce(space, lambda rng, b: la.inner_reduce(rng, lambda k, j, i: wp.float64(1.0)))


# the halo the bodies below name, rebound between launches
H = la.halo.minus_i
HITS = wp.zeros((1, 6, 6, 6), dtype=wp.int32)


def with_halo(rng, b):
    hr = rng.add_halo(H)
    for k, j, i in la.inner(hr):
        wp.atomic_add(HITS, b, k, j, i, 1)


def fold_with_halo(rng, b):
    hr = rng.add_halo(H)
    for k, j, i in la.inner(hr):
        wp.atomic_add(HITS, b, k, j, i, 1)
    la.inner_reduce(rng, lambda k, j, i: wp.float64(1.0))


@pytest.mark.parametrize("reduce", [False, True])
def test_a_rebound_halo_is_checked_again(reduce):
    global H
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 1, 4, 4, 4, 1)  # one ghost layer
    if reduce:
        space = space.with_reducer(la.Sum(wp.float64))

    def run():  # the same body over the same space at every launch
        if reduce:
            la.outer_reduce(space, fold_with_halo)
        else:
            la.outer(space, with_halo)

    try:
        HITS.zero_()
        run()  # minus_i needs one ghost cell in i: fine
        want = np.zeros((1, 6, 6, 6), dtype=np.int32)
        want[0, 1:5, 1:5, 0:5] = 1
        np.testing.assert_array_equal(HITS.numpy(), want)
        H = la.halo.make([(0, 0, -2), (0, 0, 0)])  # needs two
        HITS.zero_()
        with pytest.raises(wp.LaunchError, match=r"halo la.halo.make\(\[\(0, 0, -2\), \(0, 0, 0\)\]\) takes the "
                                                 r"logical box .* \(not enough ghost cells\)"):
            run()
        assert not HITS.numpy().any()  # nothing ran
        H = la.halo.minus_i  # back: launches again
        run()
        np.testing.assert_array_equal(HITS.numpy(), want)
    finally:
        H = la.halo.minus_i

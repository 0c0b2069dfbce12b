"""par_for_inner's constant bounds stay within +-2**30, as par_for's ranges do: the loop stops at hi + 1, so a bound
of 2**31 - 1 wrapped around and no iteration ran, silently (attacker probe: par_for_inner(member, 0, 2147483647, b)
with a body that writes the first four indices wrote none)."""

import numpy as np
import pytest

import brickwork as wp
from brickwork.errors import KernelValueError

OUT = wp.zeros((2, 4), dtype=wp.float32)
LIMIT = 2**30


def _to_the_limit(member, j):
    def b(i):
        if i < 4:
            OUT[j, i] = wp.float32(i) + 1.0
    wp.par_for_inner(member, 0, 2147483647, b)


def _from_below_the_limit(member, j):
    def b(i):
        OUT[j, 0] = 1.0
    wp.par_for_inner(member, -2147483647, -2147483646, b)


def _within_the_limit(member, j):
    def b(i):
        OUT[j, i - LIMIT + 3] = wp.float32(j) + 1.0
    wp.par_for_inner(member, LIMIT - 3, LIMIT, b)


@pytest.fixture
def out():
    OUT.fill_(-1.0)
    return OUT


@pytest.mark.parametrize("body, bound", [(_to_the_limit, 2147483647), (_from_below_the_limit, -2147483647)])
def test_a_constant_bound_past_the_index_range_is_refused(out, body, bound):
    with pytest.raises(KernelValueError) as info:
        wp.par_for_outer("team", 0, 0, (0, 1), body)
    text = str(info.value)
    assert f"in {body.__name__}\n    wp.par_for_inner(member, " in text
    assert f"par_for_inner: bound {bound} reaches beyond +-2**30, the index range of loop bodies" in text
    assert np.all(out.numpy() == -1.0)


def test_bounds_at_the_limit_run(out):
    wp.par_for_outer("team", 0, 0, (0, 1), _within_the_limit)
    assert out.numpy().tolist() == [[1.0] * 4, [2.0] * 4]

"""Blocks shared among ranks along a Morton curve: compact, contiguous, balanced pieces."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brickwork.mesh.decomposition import assign_ranks, morton_key


def test_morton_key_interleaves_bits_x1_lowest():
    assert [morton_key((x, 0, 0)) for x in range(4)] == [0, 1, 8, 9]
    assert morton_key((0, 1, 0)) == 2 and morton_key((0, 0, 1)) == 4 and morton_key((1, 1, 1)) == 7
    curve = sorted(((x, y, 0) for y in range(2) for x in range(2)), key=morton_key)
    assert curve == [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]  # the Z


def test_a_2d_lattice_is_cut_into_quadrants():
    locations = [(x, y, 0) for y in range(4) for x in range(4)]
    owner = assign_ranks(locations, 4)
    for (x, y, _), rank in zip(locations, owner):
        assert rank == (x // 2) + 2 * (y // 2)


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 40))
def test_pieces_are_contiguous_balanced_and_never_empty(n1, n2, n3, nranks):
    locations = [(x, y, z) for z in range(n3) for y in range(n2) for x in range(n1)]
    if nranks > len(locations):
        with pytest.raises(ValueError, match="every rank needs at least one block"):
            assign_ranks(locations, nranks)
        return
    owner = assign_ranks(locations, nranks)
    along_curve = [owner[g] for g in sorted(range(len(locations)), key=lambda g: morton_key(locations[g]))]
    assert along_curve == sorted(along_curve)  # contiguous pieces of the curve, in rank order
    counts = [along_curve.count(r) for r in range(nranks)]
    assert min(counts) >= 1 and max(counts) - min(counts) <= 1


def test_weights_move_the_cuts():
    locations = [(x, 0, 0) for x in range(8)]
    assert assign_ranks(locations, 2) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert assign_ranks(locations, 2, weights=[5, 1, 1, 1, 1, 1, 1, 1]) == [0, 0, 1, 1, 1, 1, 1, 1]
    with pytest.raises(ValueError, match="weights must be 8 positive numbers"):
        assign_ranks(locations, 2, weights=[1] * 7)
    with pytest.raises(ValueError, match="nranks must be a positive integer"):
        assign_ranks(locations, 0)

"""IndexShape bounds, TopologicalElement numbering and offsets, IndexDomain
(docs/reference/loop_abstraction_semantics.md §2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brickwork.mesh import (
    TE,
    X1DIR,
    X2DIR,
    X3DIR,
    IndexDomain,
    IndexRange,
    IndexShape,
    TopologicalElement,
    TopologicalType,
)

D = IndexDomain


def test_constants_and_numbering():
    assert (X1DIR, X2DIR, X3DIR) == (1, 2, 3)
    assert TE is TopologicalElement
    values = [int(t) for t in (TE.CC, TE.F1, TE.F2, TE.F3, TE.E1, TE.E2, TE.E3, TE.NN)]
    assert values == [0, 3, 4, 5, 6, 7, 8, 9]
    assert [t.component for t in (TE.F1, TE.F2, TE.F3, TE.E1, TE.E2, TE.E3)] == [0, 1, 2, 0, 1, 2]
    assert TE.F2.topological_type is TopologicalType.Face
    assert TE.E3.topological_type is TopologicalType.Edge
    assert TE.NN.topological_type is TopologicalType.Node
    assert TE.CC.topological_type is TopologicalType.Cell


def test_offsets_follow_the_spec():
    # offI for F1, E2, E3, NN; offJ for F2, E3, E1, NN; offK for F3, E2, E1, NN
    off = {t: (t.offset(1), t.offset(2), t.offset(3)) for t in TE}
    assert off == {
        TE.CC: (0, 0, 0),
        TE.F1: (1, 0, 0),
        TE.F2: (0, 1, 0),
        TE.F3: (0, 0, 1),
        TE.E1: (0, 1, 1),
        TE.E2: (1, 0, 1),
        TE.E3: (1, 1, 0),
        TE.NN: (1, 1, 1),
    }


def test_index_domain_helpers():
    assert [int(d) for d in D] == list(range(8))
    assert D.inner(2) is D.inner_x2 and D.outer(3) is D.outer_x3
    assert D.outer_x1.direction == 1 and D.interior.direction is None
    assert D.inner_x3.is_inner and not D.inner_x3.is_outer and D.outer_x2.is_outer
    with pytest.raises(ValueError, match="direction must be 1, 2 or 3"):
        D.inner(4)


def test_index_range():
    r = IndexRange(2, 5)
    assert (r.s, r.e, r.size, len(r), list(r)) == (2, 5, 4, 4, [2, 3, 4, 5])
    assert r.as_slice() == slice(2, 6)
    assert 5 in r and 6 not in r
    assert IndexRange(3, 2).size == 0


# IndexShape(nx3=0, nx2=4, nx1=6, ng=2): i interior [2, 7] of 10, j interior [2, 5] of 8, k inactive.
SHAPE_2D = IndexShape(0, 4, 6, 2)

CASES_2D = [
    # (direction, domain, te, expected (s, e))
    (1, D.entire, TE.CC, (0, 9)),
    (1, D.interior, TE.CC, (2, 7)),
    (1, D.inner_x1, TE.CC, (0, 1)),
    (1, D.outer_x1, TE.CC, (8, 9)),
    (1, D.inner_x2, TE.CC, (0, 9)),
    (1, D.outer_x3, TE.CC, (0, 9)),
    (1, D.entire, TE.F1, (0, 10)),
    (1, D.interior, TE.F1, (2, 8)),
    (1, D.inner_x1, TE.F1, (0, 1)),
    (1, D.outer_x1, TE.F1, (9, 10)),
    (1, D.outer_x2, TE.F1, (0, 10)),
    (1, D.interior, TE.F2, (2, 7)),
    (1, D.interior, TE.E1, (2, 7)),
    (1, D.interior, TE.E2, (2, 8)),
    (1, D.interior, TE.NN, (2, 8)),
    (2, D.entire, TE.CC, (0, 7)),
    (2, D.interior, TE.F2, (2, 6)),
    (2, D.outer_x2, TE.F2, (7, 8)),
    (2, D.inner_x2, TE.F2, (0, 1)),
    (2, D.outer_x1, TE.F2, (0, 8)),
    (2, D.interior, TE.F1, (2, 5)),
    (2, D.interior, TE.E1, (2, 6)),
    (2, D.interior, TE.E3, (2, 6)),
    (3, D.entire, TE.CC, (0, 0)),
    (3, D.interior, TE.F3, (0, 0)),  # no offset in an inactive direction
    (3, D.entire, TE.NN, (0, 0)),
    (3, D.inner_x3, TE.CC, (0, 0)),
    (3, D.outer_x3, TE.NN, (0, 0)),
    (3, D.outer_x1, TE.E1, (0, 0)),
]


@pytest.mark.parametrize("direction,domain,te,expected", CASES_2D)
def test_bounds_2d(direction, domain, te, expected):
    r = SHAPE_2D.get_bounds(direction, domain, te)
    assert (r.s, r.e) == expected
    getter = {1: SHAPE_2D.get_bounds_i, 2: SHAPE_2D.get_bounds_j, 3: SHAPE_2D.get_bounds_k}[direction]
    assert getter(domain, te) == r


def test_memory_extents_and_sizes():
    assert SHAPE_2D.memory_extents(TE.CC) == (1, 8, 10)
    assert SHAPE_2D.memory_extents(TE.NN) == (1, 9, 11)
    assert SHAPE_2D.memory_extents(TE.F1) == (1, 8, 11)
    shape3 = IndexShape(3, 4, 5, 1)
    assert shape3.memory_extents() == (5, 6, 7)
    assert shape3.ndim == 3 and SHAPE_2D.ndim == 2
    assert shape3.size(D.interior) == 60
    assert shape3.size(D.interior, TE.NN) == 4 * 5 * 6
    assert shape3.ncells(1, D.outer_x1, TE.F1) == 1


def test_inner_bound_with_zero_ghosts_is_zero():
    shape = IndexShape(0, 0, 4, 0)
    assert shape.get_bounds_i(D.inner_x1) == IndexRange(0, 0)  # x.s == 0 -> 0, per semantics §2
    assert shape.get_bounds_i(D.interior) == IndexRange(0, 3)
    assert shape.get_bounds_i(D.entire, TE.F1) == IndexRange(0, 4)


def test_index_shape_rejects_bad_sizes():
    with pytest.raises(ValueError, match="nx1 must be a non-negative integer, got -1"):
        IndexShape(0, 0, -1, 1)
    with pytest.raises(ValueError, match="ng must be a non-negative integer"):
        IndexShape(0, 0, 4, 1.5)


@given(
    st.integers(0, 9),
    st.integers(0, 9),
    st.integers(1, 9),
    st.integers(0, 4),
    st.sampled_from(list(TE)),
)
def test_property_domains_partition_entire(nx3, nx2, nx1, ng, te):
    shape = IndexShape(nx3, nx2, nx1, ng)
    for d, n in ((1, nx1), (2, nx2), (3, nx3)):
        entire = shape.get_bounds(d, D.entire, te)
        interior = shape.get_bounds(d, D.interior, te)
        inner = shape.get_bounds(d, D.inner(d), te)
        outer = shape.get_bounds(d, D.outer(d), te)
        if n == 0:
            assert entire == interior == inner == outer == IndexRange(0, 0)
            continue
        off = te.offset(d)
        assert entire == IndexRange(0, n + 2 * ng - 1 + off)
        assert interior.size == n + off
        if ng > 0:
            assert inner == IndexRange(0, ng - 1)
            assert inner.e + 1 == interior.s and interior.e + 1 == outer.s
            assert outer.e == entire.e and outer.size == ng
        # a ghost slab of another direction spans the entire range of this one
        other = 1 + d % 3
        assert shape.get_bounds(d, D.inner(other), te) == entire

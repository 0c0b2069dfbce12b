"""Compile-time values an outer body captures are part of its instance key: a body rebuilt with another
halo, another get_delta (another geometry) or another chunk shape must not reuse a stale instance."""

from __future__ import annotations

import la_bodies as B
import la_model as M
import pytest

import brickwork as wp
from brickwork import la


def test_captured_halo_is_part_of_the_key():
    geo = M.Geo(1, (0, 0, 0, 0, 1, 2), (1, 1, 4))
    space = M.make_space(la.bvoi, la.logical_flat, geo)
    seen = {}
    for halo in (la.halo.none, la.halo.minus_i, la.halo.plus_i, la.halo.none):
        rows = B.run_logged(space, B.probe, halo, 64)
        seen[halo.name] = sorted(tuple(int(x) for x in r[5:8]) for r in rows if r[0] == 1)
    assert seen == {"none": [(0, 0, 1), (0, 0, 2)], "minus_i": [(0, 0, 0), (0, 0, 1), (0, 0, 2)],
                    "plus_i": [(0, 0, 1), (0, 0, 2), (0, 0, 3)]}


def shifted(out, d):
    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            q, r, s = rng.get_kji(idx + d)
            out[b, k, j, i] = (q * 100 + r) * 100 + s

    return body


@pytest.mark.parametrize("it", [la.logical_flat, la.memory, la.logical_coords], ids=lambda t: t.name)
def test_captured_delta_of_another_geometry_is_part_of_the_key(it):
    """get_delta(X2DIR) depends on NI: two geometries, one body source, two instances."""
    for nx in (3, 5, 4):
        space = la.IndexSpace.box(la.bovi, it, 1, nx, 2, 2, 1)
        out = wp.zeros((1, 4, 4, nx + 2), dtype=wp.int32)
        la.outer(space, shifted(out, space.get_delta(wp.X2DIR)))
        assert out.numpy()[0, 1, 1, 1] == (1 * 100 + 2) * 100 + 1, f"nx={nx}"

"""Marching cubes (``brickwork.geometry.IsoSurfaceMarchingCubes``): the case tables, the extraction against Warp
1.19's outputs and against a sphere's geometry, gradients, the GPU mapping and the user's errors."""

from __future__ import annotations

import numpy as np

import brickwork as wp
from brickwork.geometry import marching_cubes_tables as mct

# -- the case tables ----------------------------------------------------------------------------------------------


def test_the_tables_have_the_classic_sizes():
    assert len(mct.CORNER_OFFSETS) == 8 and len(mct.EDGE_CORNERS) == 12 and len(mct.EDGE_OFFSETS) == 12
    assert len(mct.CASE_TRIANGLES) == 256 and len(mct.CASE_TRI_START) == 257
    assert mct.CASE_TRI_START[0] == 0 and mct.CASE_TRI_START[-1] == len(mct.TRI_EDGES) == 2460
    assert mct.CASE_TRI_START[1] == 0 and mct.CASE_TRI_START[255] == mct.CASE_TRI_START[256]  # no surface
    assert mct.MAX_CASE_TRIANGLES == 5
    # the first cases as Warp's table has them: corner 0 alone, corner 1 alone, corners 0 and 1
    assert mct.TRI_EDGES[:12] == (0, 8, 3, 0, 1, 9, 1, 8, 3, 9, 8, 1)


def test_each_edge_offset_names_the_edge_between_its_corners():
    for e, (a, b) in enumerate(mct.EDGE_CORNERS):
        dx, dy, dz, axis = mct.EDGE_OFFSETS[e]
        start, end = np.array(mct.CORNER_OFFSETS[a]), np.array(mct.CORNER_OFFSETS[b])
        assert (start == (dx, dy, dz)).all()
        assert (end - start == np.eye(3, dtype=int)[axis]).all()  # one step along a positive axis


def test_each_case_uses_exactly_the_edges_whose_corners_differ():
    for case in range(256):
        inside = [(case >> c) & 1 for c in range(8)]
        crossed = {e for e, (a, b) in enumerate(mct.EDGE_CORNERS) if inside[a] != inside[b]}
        edges = mct.TRI_EDGES[mct.CASE_TRI_START[case]:mct.CASE_TRI_START[case + 1]]
        assert len(edges) % 3 == 0 and set(edges) == crossed, case
        tris = np.array(edges).reshape(-1, 3)
        assert (tris[:, 0] != tris[:, 1]).all() and (tris[:, 1] != tris[:, 2]).all() and (tris[:, 0] != tris[:, 2]).all()


def test_device_tables_are_int32_arrays_made_once_per_device():
    tables = mct.device_tables("cpu")
    assert tables is mct.device_tables("cpu") is mct.device_tables()
    assert tables.case_tri_start.dtype == wp.int32 and tables.edge_offsets.shape == (12, 4)
    assert tables.tri_edges.numpy().tolist() == list(mct.TRI_EDGES)
    assert tables.corner_offsets.numpy().tolist() == [list(c) for c in mct.CORNER_OFFSETS]
    assert tables.edge_corners.numpy().tolist() == [list(e) for e in mct.EDGE_CORNERS]
    fresh = mct.numpy_tables()
    fresh.tri_edges[0] = 99  # a copy: the module's tables stay as they are
    assert mct.numpy_tables().tri_edges[0] == 0

"""Sparse marching cubes, as Warp 1.19's ``warp.geometry.sparse_marching_cubes``: the isosurface of an implicit
function on a grid, without sampling the grid.

The Lipschitz octree (:mod:`.octree`) finds the finest cells the level set may cross, the field is evaluated once
at each of their distinct corners (:mod:`.sparse_corners`), and marching cubes runs on those cells
(:mod:`.sparse_extract`). With the same grid, the surface is the dense :class:`IsoSurfaceMarchingCubes`' one.

``brickwork.geometry`` loads this module for its three names (a module named like one of them would, once
imported, take that name's place on the package).
"""

from __future__ import annotations

import numpy as np

from ..runtime.warp_names import wp
from .iso_surface import resolve_domain_bounds
from .octree import (
    as_point,
    build_octree,
    check_lipschitz_bound,
    cull_to_grid,
    lipschitz_octree,
    make_evaluator,
    real_number,
)
from .sparse_corners import check_stride, dedupe_corners
from .sparse_extract import empty_mesh, extract, sparse_marching_cubes_from_cells

__all__ = ["lipschitz_octree", "sparse_marching_cubes", "sparse_marching_cubes_from_cells"]


# -- implicit functions ----------------------------------------------------------------------------------------


def _node_count(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer number of grid nodes, got {type(value).__name__}.")
    return int(value)


def sparse_marching_cubes(field, nx: int, ny: int, nz: int, *, lower=None, upper=None, threshold: float = 0.0,
                          lipschitz_bound: float = 1.0, device=None, return_stats: bool = False):
    """The ``threshold`` isosurface of an implicit function on an ``nx x ny x nz``-node grid, without the grid.

    The grid is :meth:`IsoSurfaceMarchingCubes.extract`'s: node ``(0, 0, 0)`` at ``lower`` (default the origin),
    node ``(nx - 1, ny - 1, nz - 1)`` at ``upper`` (default the node indices), possibly anisotropic; the surface
    is the one marching cubes gives on that grid. The octree's root covers the grid padded to a power of two
    cells per axis; the cells of the padding are dropped before extraction.

    - field: a batched callable ``evaluate(points: wp.array[wp.vec3]) -> wp.array[wp.float32]`` (see
      :func:`lipschitz_octree`), called at cell centres for each octree level, then once at the leaves' corners.
    - nx, ny, nz: grid nodes per axis (2 or more).
    - lipschitz_bound: a bound on the field's Lipschitz constant (1 for a signed distance function).
    - return_stats: also return a dict: ``leaf_cells``, ``unique_corners``, ``field_evaluations``,
      ``resolution``, ``requested_ncells``, ``culled_cells``.

    Returns ``(verts, indices)`` as :func:`sparse_marching_cubes_from_cells` (and the stats). When the array
    ``field`` returns for the corners has ``requires_grad``, the vertices are differentiable through it.
    """
    counts = tuple(_node_count(name, v) for name, v in (("nx", nx), ("ny", ny), ("nz", nz)))
    if min(counts) < 2:
        raise ValueError(f"nx, ny, nz must each be at least 2, got {counts}.")
    bound = check_lipschitz_bound(lipschitz_bound)
    isovalue = real_number("threshold", threshold)
    device = wp.get_device(device)
    lower, upper = (None if p is None else as_point(name, p) for name, p in (("lower", lower), ("upper", upper)))
    low, delta = resolve_domain_bounds(counts, lower, upper)
    ncells = tuple(n - 1 for n in counts)
    depth = (max(ncells) - 1).bit_length()
    resolution = 1 << depth
    check_stride(resolution + 1)  # before any evaluation: the corners' codes must fit
    evaluate = make_evaluator(field, device)
    stats = {"leaf_cells": 0, "unique_corners": 0, "field_evaluations": 0, "resolution": resolution,
             "requested_ncells": ncells, "culled_cells": 0}

    def counted(points):
        stats["field_evaluations"] += points.shape[0]
        return evaluate(points)

    def finish(mesh):
        return (*mesh, stats) if return_stats else mesh

    root = np.array([delta[a] for a in range(3)], dtype=np.float32) * np.float32(resolution)
    cells = build_octree(counted, tuple(low), root, depth, isovalue, bound, device)
    if cells is None:
        return finish(empty_mesh(device))
    if ncells != (resolution,) * 3:  # an exact power of two on every axis has no padding
        cells, stats["culled_cells"] = cull_to_grid(cells, ncells, device)
    if cells.shape[0] == 0:
        return finish(empty_mesh(device))
    stats["leaf_cells"] = cells.shape[0]
    width = root / np.float32(resolution)
    cell_corners, positions, _ = dedupe_corners(cells, (0, 0, 0), resolution + 1, tuple(low), tuple(width), device)
    stats["unique_corners"] = positions.shape[0]
    values = counted(positions)
    return finish(extract(cell_corners, positions, values, isovalue, device))

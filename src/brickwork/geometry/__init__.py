"""Geometry processing, as Warp 1.19's ``warp.geometry``: isosurfaces of dense fields (marching cubes, surface
nets) and of implicit functions (sparse marching cubes on a Lipschitz octree), triangle adjacency and Delaunay
edge flips, swept volumes of moving meshes.

Each name loads its module on first use (``brickwork.geometry.IsoSurfaceNets``), so that importing the package
compiles nothing.
"""

import importlib as _importlib

from .iso_surface import IsoSurfaceBase

# name -> module of this package that defines it
_LAZY = {
    "IsoSurfaceMarchingCubes": "marching_cubes",
    "IsoSurfaceNets": "surface_nets",
    "lipschitz_octree": "sparse_surface",
    "sparse_marching_cubes": "sparse_surface",
    "sparse_marching_cubes_from_cells": "sparse_surface",
    "delaunay_edge_flip": "delaunay",
    "tri_tri_adjacency": "delaunay",
    "find_triangle_neighbor_edge_index": "delaunay",
    "in_circle": "delaunay",
    "signed_area": "delaunay",
    "SweptVolumeSignMode": "swept_volume",
    "swept_volume_bounds": "swept_volume",
    "swept_volume_field": "swept_volume",
    "swept_volume_mesh": "swept_volume",
    "swept_volume_sdf": "swept_volume",
}

__all__ = ["IsoSurfaceBase", *_LAZY]


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'brickwork.geometry' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

"""Rebuildable volumes (Warp's ``rebuildable=True``) and point masks of the allocation methods.

A rebuildable volume's grid is laid out for reserved node counts (the format module's ``build_grid(...,
capacity=...)``: the node arrays have room for the capacity, the tree's counts say how many are used), so
its buffer keeps its size and address: ``Volume.rebuild`` writes the new topology into the same memory and
the id kernels hold stays valid. A topology that needs more than the reserved counts sets the status flags
and changes nothing (an allocation makes an empty grid then), as Warp's. The rest of the volume (transform,
background, value type) is kept.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .nanovdb.build import build_grid, build_index_grid, count_nodes
from .volume_load import VolumeError

SUCCESS = 0
LEAF_CAPACITY_EXCEEDED = 1 << 0
LOWER_CAPACITY_EXCEEDED = 1 << 1
UPPER_CAPACITY_EXCEEDED = 1 << 2
VOXEL_CAPACITY_EXCEEDED = 1 << 3
INVALID_INPUT = 1 << 4


class RebuildInfo(NamedTuple):
    """The reserved capacity of a rebuildable volume (Warp's ``Volume.RebuildInfo``): the kind of points its
    rebuilds take ("tiles", "voxels", or None for a volume that cannot be rebuilt) and the counts reserved."""

    kind: str | None
    max_voxel_count: int
    max_leaf_node_count: int
    max_lower_node_count: int
    max_upper_node_count: int


class ActiveStats(NamedTuple):
    """The topology the grid holds now (Warp's ``Volume.ActiveStats``): voxels it indexes and node counts."""

    voxel_count: int
    leaf_node_count: int
    lower_node_count: int
    upper_node_count: int


NOT_REBUILDABLE = RebuildInfo(None, 0, 0, 0, 0)


def capacity(value, default: int, name: str) -> int:
    """A reserved count: ``value`` or ``default``, a positive integer below 2**32 (Warp's errors)."""
    count = default if value is None else value
    try:
        count = int(count)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be an integer, got {count!r}") from err
    if count <= 0:
        raise ValueError(f"{name} must be positive, got {count}")
    if count >= 2**32:
        raise ValueError(f"{name} must fit in uint32, got {count}")
    return count


def tile_capacity(n_points: int, max_tiles, max_lower, max_upper) -> RebuildInfo:
    tiles = capacity(max_tiles, n_points, "max_tiles")
    lower = capacity(max_lower, tiles, "max_lower_nodes")
    return RebuildInfo("tiles", tiles * 512, tiles, lower, capacity(max_upper, lower, "max_upper_nodes"))


def voxel_capacity(n_points: int, max_voxels, max_leaf, max_lower, max_upper) -> RebuildInfo:
    voxels = capacity(max_voxels, n_points, "max_active_voxels")
    leaf = capacity(max_leaf, voxels, "max_leaf_nodes")
    lower = capacity(max_lower, leaf, "max_lower_nodes")
    return RebuildInfo("voxels", voxels, leaf, lower, capacity(max_upper, lower, "max_upper_nodes"))


def check_status(status, device):
    """The status array (one or more uint32 on the volume's device), or RuntimeError as Warp's."""
    from ..types.arrays import array
    from ..types.scalars import uint32

    if status is None:
        return None
    if not isinstance(status, array) or status.dtype is not uint32 or status.size < 1:
        raise VolumeError("status must be a Warp array with dtype uint32 and at least one element")
    if status.device != device:
        raise VolumeError(f"status must be on device {device}")
    return status


def write_status(status, flags: int) -> None:
    if status is not None:
        host = status.numpy().copy()
        host.reshape(-1)[0] = flags
        status.assign(host)


def apply_mask(ijk: np.ndarray, point_mask, n_points: int) -> np.ndarray:
    """The points whose mask entry is not zero (all without a mask); RuntimeError for a bad mask."""
    from ..types.arrays import array
    from ..types.scalars import int32

    if point_mask is None:
        return ijk
    if not isinstance(point_mask, array) or point_mask.dtype is not int32 or point_mask.ndim != 1 or \
            not point_mask.is_contiguous:
        raise VolumeError("point_mask must be a contiguous 1D Warp array with dtype int32")
    if point_mask.shape[0] < n_points:
        raise VolumeError(f"point_mask must have at least {n_points} entries, got {point_mask.shape[0]}")
    return ijk[point_mask.numpy()[:n_points] != 0]


def fit(ijk: np.ndarray, info: RebuildInfo) -> tuple[np.ndarray, int]:
    """The points to build and the status flags: no points (an empty grid) when they need more than ``info``
    reserves."""
    leaf, lower, upper, voxels = count_nodes(ijk, tiles=info.kind == "tiles")
    flags = (LEAF_CAPACITY_EXCEEDED * (leaf > info.max_leaf_node_count)
             | LOWER_CAPACITY_EXCEEDED * (lower > info.max_lower_node_count)
             | UPPER_CAPACITY_EXCEEDED * (upper > info.max_upper_node_count)
             | VOXEL_CAPACITY_EXCEEDED * (voxels > info.max_voxel_count))
    return (ijk[:0] if flags else ijk), int(flags)


def build(ijk, tiles: bool, grid_type, m, translation, info: RebuildInfo | None) -> np.ndarray:
    """The grid of ``ijk`` (an index grid when ``grid_type`` is None, else (code, background)), laid out for
    ``info``'s capacity when given."""
    cap = None if info is None else (info.max_leaf_node_count, info.max_lower_node_count, info.max_upper_node_count)
    translation = tuple(float(x) for x in translation)
    if grid_type is None:
        return build_index_grid(ijk, transform=m, translation=translation, tiles=tiles, capacity=cap)
    code, background = grid_type
    return build_grid(ijk, None, grid_type=code, background=background, transform=m, translation=translation,
                      tiles=tiles, capacity=cap)

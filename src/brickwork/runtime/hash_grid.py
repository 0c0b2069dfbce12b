"""``wp.HashGrid``: points bucketed in a grid of cells for neighbour queries in kernels, as in Warp.

``build(points, radius)`` sorts the points by cell (cells are cubes of edge ``radius``; the virtual cell
``(x, y, z)`` of the unbounded grid is stored in the physical cell ``(x mod dim_x, y mod dim_y, z mod
dim_z)``), and by group within a cell when ``groups`` are given. Kernels receive the grid as its ``id``
(a ``uint64``: the address of a 64-byte descriptor on the grid's device, which stays the same across
builds) and query it with ``hash_grid_query`` / ``hash_grid_query_next`` (``include/brickwork_hash_grid.h``,
which computes cell coordinates exactly as the build's ``_axis`` does, ``hash_grid_build.py``).

A grid builds with compiled kernels launched on its device (``hash_grid_build.py``: a counting sort, in
parallel; a CUDA grid's points and tables never go through the host, only the 64-byte descriptor is
uploaded when it changes). The sort is stable, so a build is deterministic: the same points give the same
order on any device, and kernels that sum over neighbours give the same bits run to run. During a graph
capture a build is recorded, not run, and runs at each replay with the arrays' data of that moment.
"""

from __future__ import annotations

import mmap
import operator

import numpy as np

from ..device import get_device
from ..errors import BrickworkError, CaptureError
from ..types import recording
from ..types.array_constructors import empty
from ..types.arrays import array, type_name
from ..types.composite import vector
from ..types.scalars import float16, float32, float64, int32, python_annotation_type, uint8
from . import hash_grid_build, live_ids
from .hash_grid_build import Scratch, build_tables, zero_tables
from .launch import launcher

#: Warp's limit: cell indices are int32.
MAX_CELLS = 2**31 - 1

#: The descriptor the kernels read (``bw::hash_grid_data``).
DESCRIPTOR = np.dtype([("dim", "<i4", 3), ("num_points", "<i4"), ("inv_f", "<f4"), ("has_groups", "<i4"),
                       ("inv_d", "<f8"), ("point_ids", "<u8"), ("cell_starts", "<u8"), ("cell_ends", "<u8"),
                       ("groups", "<u8")])
assert DESCRIPTOR.itemsize == 64


class HashGridError(BrickworkError, ValueError, RuntimeError):
    """A hash grid's size, a build's cell width, or arrays on the wrong device or of the wrong length (the
    message says which). A ``ValueError`` and a ``RuntimeError``, as Warp raises either."""


class HashGridTypeError(BrickworkError, TypeError):
    """A hash grid given the wrong type: its dimensions, its scalar type, or points of another type."""


class HashGridCaptureError(CaptureError, NotImplementedError):
    """``reserve`` during a graph capture (reserve before the capture)."""


class HashGrid:
    """A grid of ``dim_x * dim_y * dim_z`` cells holding points of scalar type ``dtype`` (float16, float32 or
    float64; vec3h, vec3f or vec3d points) on ``device``, for neighbour queries in kernels: pass ``grid.id``
    to a ``uint64`` parameter and call ``wp.hash_grid_query(id, point, radius)`` there.

    The grid is unbounded: a point falls in the cell ``floor(p / radius)`` wrapped into the grid, so cells
    far apart share storage and queries return candidates to be tested by distance."""

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self.id = 0  # a grid whose __init__ failed has no descriptor
        return self

    def __init__(self, dim_x: int, dim_y: int, dim_z: int, device=None, dtype=None):
        dtype = float32 if dtype is None else python_annotation_type(dtype)
        if dtype not in (float16, float32, float64):
            raise HashGridTypeError(f"HashGrid: dtype must be float16, float32 or float64, got "
                                    f"{type_name(dtype)}")
        try:
            if any(isinstance(d, (bool, np.bool_)) for d in (dim_x, dim_y, dim_z)):
                raise TypeError  # operator.index(True) is 1: a flag passed as a size
            dims = tuple(operator.index(d) for d in (dim_x, dim_y, dim_z))
        except TypeError:
            raise HashGridTypeError(f"HashGrid dimensions must be integers, got "
                                    f"{', '.join(type(d).__name__ for d in (dim_x, dim_y, dim_z))}") from None
        if min(dims) <= 0:
            raise HashGridError(f"HashGrid dimensions must be positive, got {dims}")
        cells = dims[0] * dims[1] * dims[2]
        if cells > MAX_CELLS:
            raise HashGridError(f"Hash grid cell count exceeds supported limit: {dims[0]} * {dims[1]} * {dims[2]} = "
                                f"{cells} > {MAX_CELLS}")
        self.device = get_device(device)
        self.dtype = dtype
        self.dims = dims
        self.groups = None  # the groups of the last build
        self.reserved = False  # whether the tables are allocated (by a build or reserve)
        self._point_type = vector(3, dtype)
        self._tables: dict = {}  # name -> the array the descriptor points to (kept alive here)
        self._capacity = 0  # points the tables hold
        self._scratch = Scratch(self.device)  # the work arrays of the builds
        self._launch = launcher(self.device)
        self._descriptor = np.zeros(1, DESCRIPTOR)
        self._descriptor["dim"] = dims
        if self.device.is_cpu:  # the kernels read the host descriptor itself
            self._device_descriptor = None
            self.id = int(self._descriptor.ctypes.data)
        else:
            self._device_descriptor = array(self._descriptor.view(np.uint8), dtype=uint8, device=self.device)
            self._uploaded = self._descriptor.tobytes()  # what the device's descriptor holds
            self.id = int(self._device_descriptor.ptr)
        live_ids.register("hash_grid", self)  # launches passing the id to a hash grid query check it is live

    @property
    def num_points(self) -> int:
        """The number of points of the last build."""
        return int(self._descriptor["num_points"][0])

    # -- building ----------------------------------------------------------------------------------
    def build(self, points, radius: float, groups=None) -> None:
        """Bucket ``points`` (an array of vec3 of the grid's scalar type, any shape and strides) in cells of
        edge ``radius``; with ``groups`` (int32, one per point), queries can be limited to one group. Query
        with a radius close to ``radius`` for the fewest candidates. Call it again whenever the points move."""
        self._check_points(points)
        try:
            if isinstance(radius, (str, bytes)):
                raise TypeError
            width = float(radius)
        except (TypeError, ValueError):
            raise HashGridTypeError(f"HashGrid.build: radius must be a number, got {type(radius).__name__}") from None
        if not width > 0.0 or not np.isfinite(width):
            raise HashGridError(f"Hash grid cell width must be positive and finite, got {radius}")
        if groups is not None:
            self._check_groups(groups, points)
        recording.run_or_record(self._build, points, width, groups)

    def reserve(self, num_points: int, with_groups: bool = False) -> None:
        """Allocate the tables for builds of up to ``num_points`` points now (with ``with_groups``, grouped
        builds too), so that builds captured in a graph allocate nothing. Not during a capture."""
        if recording.recorder is not None:
            raise HashGridCaptureError("HashGrid.reserve() cannot be called during graph capture; reserve before "
                                       "capture")
        n = operator.index(num_points)
        if n < 0:
            raise HashGridError(f"HashGrid.reserve: num_points must not be negative, got {n}")
        if n > 2**31 - 1:  # the tables hold int32 point indices (numpy's own error named no argument)
            raise HashGridError(f"HashGrid.reserve: num_points must be at most 2**31 - 1 (points are indexed by "
                                f"int32), got {n}")
        self._allocate(n, bool(with_groups))
        self.reserved = True

    def _check_points(self, points) -> None:
        if not isinstance(points, array):
            name = type_name(self._point_type)
            raise HashGridTypeError(f"Hash grid points should be a brickwork array of {name}, got "
                                    f"{type(points).__name__} (convert it: wp.array(points, dtype=wp.{name}))")
        if points.dtype is not self._point_type:
            raise HashGridTypeError(f"Hash grid points should have type {type_name(self._point_type)} (the grid's "
                                    f"dtype is {type_name(self.dtype)}), got {type_name(points.dtype)}")
        if points.device != self.device:
            raise HashGridError(f"points must live on the same device as this HashGrid ({self.device}), got "
                                f"points on {points.device}")
        if points.size > MAX_CELLS:
            raise HashGridError(f"HashGrid.build: at most {MAX_CELLS} points, got {points.size}")

    def _check_groups(self, groups, points) -> None:
        if not isinstance(groups, array) or groups.dtype is not int32:
            raise HashGridError(f"groups should be an array of type wp.int32, got "
                                f"{type_name(groups.dtype) if isinstance(groups, array) else type(groups).__name__}")
        if groups.device != self.device:
            raise HashGridError(f"groups must live on the same device as this HashGrid ({self.device}), got groups "
                                f"on {groups.device}")
        if groups.size != points.size:
            raise HashGridError(f"groups must have the same length as points ({points.size}), got {groups.size}")

    def _allocate(self, n: int, with_groups: bool) -> None:
        """Tables for ``n`` points (kept when big enough) and the cell ranges; the descriptor's pointers."""
        cells = self.dims[0] * self.dims[1] * self.dims[2]
        if "cell_starts" not in self._tables:
            for name in ("cell_starts", "cell_ends"):
                self._tables[name] = self._zeros(cells)
        if n > self._capacity or "point_ids" not in self._tables:
            self._capacity = max(n, self._capacity)
            self._tables["point_ids"] = self._zeros(self._capacity)
            self._tables.pop("groups", None)
        if with_groups and "groups" not in self._tables:
            self._tables["groups"] = self._zeros(self._capacity)
        for name in ("point_ids", "cell_starts", "cell_ends", "groups"):
            table = self._tables.get(name)
            self._descriptor[name] = 0 if table is None else table.ptr

    def _zeros(self, n: int) -> array:
        # int32 tables (the groups' bits are read as uint32); at least one element, so each has an address
        n = max(n, 1)
        if not self.device.is_cpu:  # zeroed by a kernel: nothing uploaded
            table = empty(n, dtype=int32, device=self.device)
            zero_tables(self._launch, table)
            return table
        # an anonymous mapping: the system maps a zero page where a build first writes, in pages of 4 KiB (numpy
        # asks for 2 MiB pages for large arrays), so a large grid's cells cost memory only where points are
        return array(np.frombuffer(mmap.mmap(-1, 4 * n), np.int32), dtype=int32, copy=False)

    def _build(self, points, width: float, groups) -> None:
        calc = np.float64 if self.dtype is float64 else np.float32
        with np.errstate(over="ignore", divide="ignore"):  # a width below the type's range: infinite cells per unit
            inv = calc(1.0) / calc(width)
        n = points.size
        self._allocate(n, groups is not None)
        self._descriptor["num_points"] = n
        self._descriptor["inv_f"] = np.float32(inv)
        self._descriptor["inv_d"] = np.float64(inv)
        self._descriptor["has_groups"] = int(groups is not None)
        if groups is None:
            self._descriptor["groups"] = 0
        points = _one_dimensional(points)
        groups_1d = None if groups is None else _one_dimensional(groups)
        if hash_grid_build.on_device(self.device):  # many chunks, 8-bit digits, a parallel scan
            hash_grid_build.build_on_device(points, inv, self.dims, groups_1d, self._tables, self._scratch,
                                            self._launch)
        else:
            build_tables(points, inv, self.dims, groups_1d, self._tables, self._scratch)
        if self._device_descriptor is not None and self._descriptor.tobytes() != self._uploaded:
            self._device_descriptor.assign(self._descriptor.view(np.uint8))
            self._uploaded = self._descriptor.tobytes()
        self.groups = groups
        self.reserved = True

    def __del__(self):
        # the tables and the descriptor are arrays: dropping them frees the memory (a kernel still holding the
        # id afterwards reads freed memory, as in Warp)
        self.__dict__.pop("_tables", None)
        self.__dict__.pop("_device_descriptor", None)


def _one_dimensional(a: array) -> array:
    """``a`` as a 1-D array of its elements in row-major order (a view where the strides allow one)."""
    return a if a.ndim == 1 else a.contiguous().flatten()


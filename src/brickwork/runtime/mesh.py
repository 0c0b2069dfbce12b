"""``wp.Mesh``: a triangle mesh for closest-point, ray and box queries in kernels, as in Warp.

The mesh keeps the user's ``points`` (and ``velocities``) and ``indices`` arrays: kernels read them
directly, so moving the points moves the mesh; ``refit()`` then updates the tree over the triangles'
bounds (``runtime/bvh.py``). Kernels receive the mesh as its ``id`` (the address of a 152-byte descriptor,
``bw::mesh_data`` in ``include/brickwork_bvh.h``: the tree's descriptor, then the arrays' addresses, then
those of the points' and velocities' gradients, where the backward pass of ``wp.mesh_get`` accumulates, then
that of the nodes' winding-number moments of a mesh built with ``support_winding_number=True``,
``mesh_winding.py``, or null).
"""

from __future__ import annotations

import numpy as np

from ..device import get_device
from ..types import recording
from ..types.array_constructors import wrap_numpy
from ..types.arrays import array, type_name
from ..types.composite import vector
from ..types.scalars import float32, int32
from . import bvh_refit, live_ids, mesh_winding
from .bvh import DESCRIPTOR as BVH_DESCRIPTOR
from .bvh import (
    BvhError,
    TreeStorage,
    build_on_device,
    build_tree,
    check_constructor,
    check_groups,
    check_leaf_size,
    on_device,
    one_launch_build,
    refit_on_device,
    write_built,
    write_tree,
)

#: ``bw::mesh_data``: the tree's fields, then the mesh's.
DESCRIPTOR = np.dtype(BVH_DESCRIPTOR.descr + [("points", "<u8"), ("velocities", "<u8"), ("indices", "<u8"),
                                              ("num_points", "<i4"), ("num_tris", "<i4"),
                                              ("points_grad", "<u8"), ("velocities_grad", "<u8"),
                                              ("winding", "<u8")])
assert DESCRIPTOR.itemsize == 152


class MeshError(BvhError):
    """Mesh arrays of the wrong type, shape or device (the message says which); a ``RuntimeError`` and a
    ``ValueError``, as Warp raises either."""


def _check_vec3(value, what: str) -> None:
    if not isinstance(value, array) or value.dtype is not vector(3, float32) or not value.is_contiguous:
        got = type_name(value.dtype) if isinstance(value, array) else type(value).__name__
        raise MeshError(f"Mesh {what} should be a contiguous array of type wp.vec3, got {got}")


def _grad_address(a: array) -> int:
    g = a.grad
    return int(g.ptr) if g is not None and g.size and g.is_contiguous else 0


class Mesh:
    """Triangles ``(points[indices[3f]], points[indices[3f + 1]], points[indices[3f + 2]])`` for queries in
    kernels: pass ``mesh.id`` to a ``uint64`` parameter and call ``wp.mesh_query_point(id, p, max_dist)``,
    ``wp.mesh_query_ray(id, start, dir, max_t)``, ``wp.mesh_query_aabb(id, lower, upper)`` and the others
    there. ``points`` (vec3f) and ``indices`` (int32, three per triangle) must be contiguous and on one
    device; ``velocities`` (vec3f, one per point) are read by ``mesh_eval_velocity``. With
    ``support_winding_number=True`` the tree's nodes also hold the moments of their triangles for the fast
    winding number of ``mesh_query_point_sign_winding_number`` (``mesh_winding.py``); without it that query
    signs as ``mesh_query_point``, as in Warp."""

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self.id = 0
        self._points = self._velocities = self._indices = None  # a mesh whose __init__ failed has none
        return self

    def __init__(self, points, indices, velocities=None, support_winding_number: bool = False,
                 bvh_constructor=None, bvh_leaf_size=None, groups=None):
        _check_vec3(points, "points")
        if velocities is not None:
            _check_vec3(velocities, "velocities")
        if not isinstance(indices, array) or indices.dtype is not int32 or not indices.is_contiguous:
            got = type_name(indices.dtype) if isinstance(indices, array) else type(indices).__name__
            raise MeshError(f"Mesh indices should be a contiguous array of type wp.int32, got {got}")
        if indices.ndim != 1:
            raise MeshError(f"Mesh indices should be a flattened 1d array of indices, got {indices.ndim} dimensions")
        if indices.size % 3:
            raise MeshError(f"Mesh indices should hold three per triangle, got {indices.size}")
        if points.device != indices.device or velocities is not None and velocities.device != points.device:
            raise MeshError("Mesh points and indices must live on the same device")
        if velocities is not None and velocities.size != points.size:
            raise MeshError(f"Mesh velocities should have one per point ({points.size}), got {velocities.size}")
        groups = check_groups(groups, bvh_constructor, indices.size // 3, points.device, "indices / 3", MeshError)
        idx = np.asarray(indices.numpy()).reshape(-1)
        if idx.size and idx.view(np.uint32).max() >= points.size:  # one pass: a negative index is a large uint32
            raise MeshError(f"Mesh indices must lie in [0, {points.size}), got values from {idx.min()} to "
                            f"{idx.max()}")
        self.bvh_leaf_size = check_leaf_size(4 if bvh_leaf_size is None else bvh_leaf_size, "bvh_leaf_size")
        self.device = get_device(points.device)
        self.bvh_constructor = check_constructor(bvh_constructor, self.device)
        self._points = points
        self._velocities = velocities
        self._indices = indices
        self.groups = groups
        self.support_winding_number = bool(support_winding_number)
        self._storage = TreeStorage(self.device, np.zeros(1, DESCRIPTOR))
        # the triangles (the host's bounds of a device mesh read them; on the CPU only their count: a view, not a
        # copy of a million triangles' indices)
        self._tris = idx.reshape(-1, 3) if self.device.is_cpu else idx.astype(np.int64).reshape(-1, 3)
        self._tree = self._refit_plan = None
        self._write_arrays()
        self._build()
        self.id = self._storage.address
        live_ids.register("mesh", self)  # launches passing the id to a mesh query check it is live
        # and to a BVH query: mesh_get_bvh(id) is the id itself (the descriptor starts with the tree's), and a
        # kernel may hand it to another launch's bvh_query_* (Warp's mesh BVH lives as long as the mesh)
        live_ids.register("bvh", self)

    def _write_arrays(self) -> None:
        points, velocities, indices = self._points, self._velocities, self._indices
        self._storage.set_fields(
            points=points.ptr if points.size else 0, velocities=0 if velocities is None else velocities.ptr,
            indices=indices.ptr if indices.size else 0, num_points=points.size, num_tris=len(self._tris),
            # as Warp's mesh keeps its arrays' gradients: those the arrays have now (none: no gradient flows)
            points_grad=_grad_address(points),
            velocities_grad=0 if velocities is None else _grad_address(velocities))

    def _bounds(self) -> tuple:
        if not self.device.is_cpu or not len(self._tris):
            p = np.asarray(self._points.numpy(), np.float32).reshape(-1, 3)
            corners = p[self._tris]  # (tris, 3, 3)
            return corners.min(axis=1), corners.max(axis=1)
        # on the CPU by a kernel: numpy's min and max over the corners, bit for bit, without the (tris, 3, 3) copy
        lo, hi = np.empty((len(self._tris), 3), np.float32), np.empty((len(self._tris), 3), np.float32)
        self._triangle_boxes(lo, hi)
        return lo, hi

    def _triangle_boxes(self, lo: np.ndarray, hi: np.ndarray) -> None:
        boxes = (wrap_numpy(lo, float32), wrap_numpy(hi, float32))
        bvh_refit.triangle_items(self._points, self.indices, *boxes, self.device)

    def _build(self) -> None:
        self._refit_plan = None
        if on_device(self.device, self.bvh_constructor, self.groups, len(self._tris)):  # no copy through the host
            self._tree = build_on_device(self._storage, len(self._tris), lambda lo, hi: bvh_refit.triangle_items(
                self._points, self.indices, lo, hi, self.device), self.bvh_leaf_size)
        elif one_launch := one_launch_build(self.device, self.bvh_constructor, self.groups, len(self._tris),
                                            self.bvh_leaf_size):  # the triangles' boxes, the tree, its bounds
            self._tree = write_built(self._storage, one_launch(len(self._tris), self.bvh_leaf_size,
                                                               points=self._points, indices=self.indices))
        else:
            lo, hi = self._bounds()
            self._tree = build_tree(self._storage, lo, hi, self.bvh_leaf_size, self.groups, self.bvh_constructor)
        if self.support_winding_number and len(self._tris):
            mesh_winding.allocate(self._storage, self._tree.num_nodes)
            self._storage.upload()  # the table's address
            self._winding()

    def _winding(self) -> None:
        # the nodes' moments from the points and the refit node bounds (a mesh without them: sign by rays, as Warp)
        if "winding" in self._storage.tables:  # allocated (a dict lookup: the descriptor's field costs a microsecond)
            mesh_winding.compute(self._storage, self._tree, self._points, self.indices)

    def _check_indices(self) -> None:
        # the CPU kernels read points[indices[i]] unchecked: indices edited in place to point past the points would
        # crash the refit's triangle boxes (and the queries); the constructor checked them once. A view and one
        # reduction (a negative index is a large unsigned one). A device mesh's refit copies nothing to the host
        # (an asynchronous launch): not checked there
        if self.device.is_cpu and self._indices.size:
            idx = self._indices.numpy()
            if idx.view(np.uint32).max() >= self._points.size:
                raise MeshError(f"Mesh.refit: mesh.indices must lie in [0, {self._points.size}), got values from "
                                f"{idx.min()} to {idx.max()} (changed in place since the mesh was built); nothing "
                                f"was refit")

    def _refit(self) -> None:
        if self._refit_plan is not None:  # a CPU mesh refit before in one launch: the same again (the common path)
            if not bvh_refit.refit_mesh(self._refit_plan, self._points, self._indices):
                self._check_indices()  # raises, naming the indices
            self._winding()
            return
        if not self.device.is_cpu or len(self._tris) > bvh_refit.MESH_ONE_LAUNCH:  # else checked in its launch
            self._check_indices()
        if not self.device.is_cpu and len(self._tris):  # on the device: no copy through the host
            refit_on_device(self._storage, self._tree, lambda lo, hi: bvh_refit.triangle_items(
                self._points, self.indices, lo, hi, self.device))
        elif self.device.is_cpu and 0 < len(self._tris) <= bvh_refit.MESH_ONE_LAUNCH:  # check, boxes, refit
            if self._refit_plan is None:  # the launch's tables once per tree (a wrapped table costs microseconds)
                t, tables = self._tree.kernel_tables, self._storage.tables
                boxes = (wrap_numpy(tables[name], float32) for name in ("item_lowers", "item_uppers", "node_lowers",
                                                                         "node_uppers"))
                self._refit_plan = (t["leaves"], t["inner"], t["first"], t["last"], t["order"], *boxes,
                                    wrap_numpy(np.ones(1, np.int32), int32))
            if not bvh_refit.refit_mesh(self._refit_plan, self._points, self._indices):
                self._check_indices()  # raises, naming the indices
        elif len(self._tris):  # the CPU: the boxes into the tree's item tables, then its refit, in place
            tables = self._storage.tables
            self._triangle_boxes(tables["item_lowers"], tables["item_uppers"])
            bvh_refit.refit(self._tree, *(wrap_numpy(tables[name], float32)
                                          for name in ("item_lowers", "item_uppers", "node_lowers", "node_uppers")))
        else:
            lo, hi = self._bounds()
            write_tree(self._storage, self._tree, lo, hi, structure=False)
        self._winding()

    def refit(self) -> None:
        """Update the tree's bounds after the points moved (the triangles' connectivity is kept), and with
        ``support_winding_number`` the nodes' winding-number moments. On the CPU, a ``MeshError`` if ``indices``,
        edited in place, points past the points (nothing is refit)."""
        recording.run_or_record(self._refit)

    @property
    def points(self):
        """The mesh's points (vec3f): the array the kernels read. Setting another array of the same length
        (on the mesh's device) refits the mesh to it."""
        return self._points

    @points.setter
    def points(self, points_new) -> None:
        _check_vec3(points_new, "points")
        if points_new.device != self.device:
            raise MeshError(f"The new points must live on the mesh's device ({self.device}), got "
                            f"{points_new.device}")
        if points_new.size != self._points.size:
            raise MeshError(f"The new points must have the same length as the old ones ({self._points.size}), "
                            f"got {points_new.size}")
        self._check_indices()  # before anything changes: the refit below would refuse them after
        self._points = points_new
        self._write_arrays()
        self._storage.upload()  # the descriptor's new points address (a device refit changes no descriptor)
        self._refit()

    @property
    def indices(self):
        """The mesh's triangles (int32, three point indices each): the array the kernels read. Not replaceable (a
        new connectivity is a new tree: build a new Mesh)."""
        return self._indices

    @indices.setter
    def indices(self, value) -> None:
        # the descriptor holds the array's address: a replaced array would be freed under the kernels' reads
        raise MeshError("Mesh.indices cannot be replaced (the mesh's tree is built over its triangles): build a new "
                        "wp.Mesh for other triangles")

    @property
    def velocities(self):
        """The mesh's velocities (vec3f, one per point), or None."""
        return self._velocities

    @velocities.setter
    def velocities(self, velocities_new) -> None:
        if velocities_new is not None:
            _check_vec3(velocities_new, "velocities")
            if velocities_new.device != self.device or velocities_new.size != self._points.size:
                raise MeshError(f"The new velocities must have one per point ({self._points.size}) on the mesh's "
                                f"device ({self.device})")
        self._velocities = velocities_new
        self._write_arrays()
        self._storage.upload()

    def __del__(self):
        self.__dict__.pop("_storage", None)

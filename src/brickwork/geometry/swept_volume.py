"""Swept volumes of rigid meshes moved through sampled poses, as Warp 1.19's ``warp.geometry``: the signed distance
to the union of every mesh at every pose (a kernel function), that distance sampled on a grid, the bounds of the
posed meshes, and the isosurface of the field as a triangle mesh.

Poses are a ``(num_meshes, num_samples)`` array of ``wp.transform`` (rest space to world space); the union is
taken over the given samples only, nothing is interpolated between them.
"""

from __future__ import annotations

import enum
import math
import numbers

import numpy as np

from ..runtime.mesh import Mesh
from ..runtime.warp_names import wp

__all__ = ["SweptVolumeSignMode", "swept_volume_bounds", "swept_volume_field", "swept_volume_mesh",
           "swept_volume_sdf"]


class SweptVolumeSignMode(enum.IntEnum):
    """How :func:`swept_volume_sdf` decides inside from outside for each posed mesh (an ``IntEnum``: its members
    are integers, passed to kernels as they are).

    - ``NORMAL``: the side of the closest face's normal (``mesh_query_point_sign_normal``); closed meshes only.
    - ``WINDING_NUMBER``: the generalized winding number (``mesh_query_point_sign_winding_number``); robust on open
      shells, needs meshes built with ``support_winding_number=True``.
    - ``PARITY``: the parity of ray crossings (``mesh_query_point_sign_parity``).
    - ``NO_SIGN``: no sign, the unsigned distance (``mesh_query_point_no_sign``): only a positive level of the field
      is meaningful, the surface of a thin shell dilated by that level (a solid also gets an inner offset surface).
    """

    NORMAL = 0
    WINDING_NUMBER = 1
    PARITY = 2
    NO_SIGN = 3


@wp.func
def swept_volume_sdf(point: wp.vec3, mesh_ids: wp.array(dtype=wp.uint64), transforms: wp.array2d(dtype=wp.transform),
                     max_dist: wp.float32, sign_mode: wp.int32) -> wp.float32:
    """The signed distance (negative inside) of world point ``point`` to the union of mesh ``mesh_ids[m]`` posed by
    ``transforms[m, s]`` over every mesh ``m`` and sample ``s``: the least signed distance over all of them, found
    by mapping the point into each mesh's rest frame (a rigid map keeps distances).

    ``max_dist`` bounds each closest-point search; a point with no surface within it gets ``max_dist``, whether it
    lies outside or deep inside, so pass a bound that spans the region of interest. ``sign_mode`` is a
    :class:`SweptVolumeSignMode` value. Callable from user kernels; there, as in Warp, a ``wp.Tape`` carries
    the distance's gradient (through the closest point of the nearest pose) to the point and the poses."""
    best = max_dist
    for m in range(mesh_ids.shape[0]):
        mesh = mesh_ids[m]
        for s in range(transforms.shape[1]):
            local = wp.transform_point(wp.transform_inverse(transforms[m, s]), point)
            sign = 1.0
            if sign_mode == SweptVolumeSignMode.NO_SIGN:
                # an unsigned distance beyond the best so far cannot lower it: search no farther
                q = wp.mesh_query_point_no_sign(mesh, local, best)
            elif sign_mode == SweptVolumeSignMode.WINDING_NUMBER:
                q = wp.mesh_query_point_sign_winding_number(mesh, local, max_dist)
                sign = q.sign
            elif sign_mode == SweptVolumeSignMode.PARITY:
                q = wp.mesh_query_point_sign_parity(mesh, local, max_dist)
                sign = q.sign
            else:
                q = wp.mesh_query_point_sign_normal(mesh, local, max_dist)
                sign = q.sign
            if q.result:
                closest = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
                best = wp.min(best, sign * wp.length(local - closest))
    return best


@wp.kernel(enable_backward=False)
def _field_kernel(mesh_ids: wp.array(dtype=wp.uint64), transforms: wp.array2d(dtype=wp.transform),
                  origin: wp.vec3, spacing: wp.vec3, max_dist: wp.float32, sign_mode: wp.int32,
                  field: wp.array3d(dtype=wp.float32)):
    i, j, k = wp.tid()
    p = origin + wp.cw_mul(spacing, wp.vec3(float(i), float(j), float(k)))
    field[i, j, k] = swept_volume_sdf(p, mesh_ids, transforms, max_dist, sign_mode)


@wp.kernel(enable_backward=False)
def _rest_box_kernel(points: wp.array(dtype=wp.vec3), slot: wp.int32, lower: wp.array(dtype=wp.vec3),
                     upper: wp.array(dtype=wp.vec3)):
    # the rest-pose bounding box of one mesh, reduced into its slot
    i = wp.tid()
    wp.atomic_min(lower, slot, points[i])
    wp.atomic_max(upper, slot, points[i])


@wp.kernel(enable_backward=False)
def _posed_box_kernel(rest_lower: wp.array(dtype=wp.vec3), rest_upper: wp.array(dtype=wp.vec3),
                      transforms: wp.array2d(dtype=wp.transform), lower: wp.array(dtype=wp.vec3),
                      upper: wp.array(dtype=wp.vec3)):
    # the bounds of the rest box moved by one pose: those of its eight moved corners
    m, s = wp.tid()
    lo = rest_lower[m]
    hi = rest_upper[m]
    if lo[0] <= hi[0]:  # an empty mesh left its slot inverted
        for c in range(8):
            corner = wp.vec3(wp.where((c & 1) == 0, lo[0], hi[0]), wp.where((c & 2) == 0, lo[1], hi[1]),
                             wp.where((c & 4) == 0, lo[2], hi[2]))
            p = wp.transform_point(transforms[m, s], corner)
            wp.atomic_min(lower, 0, p)
            wp.atomic_max(upper, 0, p)


def _check_meshes(meshes, device_arg):
    """The launch device (``device_arg``, else the first mesh's), after checking ``meshes`` lives there."""
    if isinstance(meshes, Mesh) or not hasattr(meshes, "__len__"):
        raise TypeError(f"'meshes' must be a sequence of wp.Mesh, got {type(meshes).__name__}")
    if len(meshes) == 0:
        raise ValueError("'meshes' must contain at least one mesh")
    for i, mesh in enumerate(meshes):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"'meshes[{i}]' must be a wp.Mesh, got {type(mesh).__name__}")
    device = wp.get_device(device_arg) if device_arg is not None else meshes[0].device
    for i, mesh in enumerate(meshes):
        if mesh.device != device:
            raise ValueError(f"'meshes[{i}]' is on device '{mesh.device}' but the launch device is '{device}'")
    return device


def _as_transforms(transforms, num_meshes: int, device):
    """``transforms`` as a ``(num_meshes, num_samples)`` array of ``wp.transform`` on ``device``: a Warp array of
    that shape, or anything numpy reads as ``(num_meshes, num_samples, 7)`` (translation xyz, quaternion xyzw)."""
    if isinstance(transforms, wp.array):
        if transforms.ndim != 2:
            raise ValueError(f"'transforms' must be a 2D array of shape (num_meshes, num_samples), got "
                             f"{transforms.ndim} dimensions")
        if transforms.dtype is not wp.transform:
            name = getattr(transforms.dtype, "__name__", str(transforms.dtype))
            raise TypeError(f"'transforms' must have dtype wp.transform, got {name}")
        shape = tuple(transforms.shape)
    else:
        try:
            values = np.asarray(transforms, dtype=np.float32)
        except (TypeError, ValueError) as e:
            raise TypeError(f"'transforms' must be a wp.array2d of wp.transform or numbers of shape "
                            f"(num_meshes, num_samples, 7): {e}") from None
        if values.ndim != 3 or values.shape[2] != 7:
            raise ValueError(f"'transforms' must be a wp.array2d of wp.transform or an array of shape "
                             f"(num_meshes, num_samples, 7), got shape {values.shape}")
        shape = values.shape[:2]
    if shape[0] != num_meshes:
        raise ValueError(f"'transforms' has {shape[0]} rows (one per mesh) but there are {num_meshes} meshes")
    if shape[1] == 0:
        raise ValueError("'transforms' must hold at least one pose per mesh")
    if isinstance(transforms, wp.array):
        return transforms if transforms.device == device else transforms.to(device)
    return wp.array(values, dtype=wp.transform, device=device)


def _bounds(meshes, transforms, device):
    """``(lower, upper)`` (numpy float64) of the rest boxes of ``meshes`` moved by every pose."""
    inf = math.inf
    rest_lower = wp.full(len(meshes), wp.vec3(inf, inf, inf), dtype=wp.vec3, device=device)
    rest_upper = wp.full(len(meshes), wp.vec3(-inf, -inf, -inf), dtype=wp.vec3, device=device)
    for m, mesh in enumerate(meshes):
        if mesh.points.shape[0]:
            wp.launch(_rest_box_kernel, dim=mesh.points.shape[0], inputs=[mesh.points, m, rest_lower, rest_upper],
                      device=device)
    lower = wp.full(1, wp.vec3(inf, inf, inf), dtype=wp.vec3, device=device)
    upper = wp.full(1, wp.vec3(-inf, -inf, -inf), dtype=wp.vec3, device=device)
    wp.launch(_posed_box_kernel, dim=tuple(transforms.shape), inputs=[rest_lower, rest_upper, transforms, lower, upper],
              device=device)
    lo, hi = lower.numpy()[0].astype(np.float64), upper.numpy()[0].astype(np.float64)
    if not np.all(np.isfinite(lo)):
        raise ValueError("the swept volume has no bounds: every mesh is empty")
    return lo, hi


def _positive_number(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"'{name}' must be a number, got {type(value).__name__}")
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"'{name}' must be a positive finite number, got {value}")
    return float(value)


def _resolution(resolution) -> tuple:
    try:
        dims = tuple(resolution)
    except TypeError:
        raise TypeError(f"'resolution' must be three node counts (nx, ny, nz), got {resolution!r}") from None
    if len(dims) != 3:
        raise ValueError(f"'resolution' must have exactly 3 entries, got {dims}")
    if not all(isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in dims):
        raise TypeError(f"'resolution' must hold integers, got {dims}")
    dims = tuple(int(n) for n in dims)
    if any(n < 2 for n in dims):
        raise ValueError(f"'resolution' must be at least 2 along each axis, got {dims}")
    return dims


def _corner(value, name: str) -> np.ndarray:
    try:
        c = np.asarray([float(value[a]) for a in range(3)], dtype=np.float64)
    except (TypeError, ValueError, IndexError):
        raise TypeError(f"'{name}' must be three numbers (x, y, z), got {value!r}") from None
    if not np.all(np.isfinite(c)):
        raise ValueError(f"'{name}' must be finite, got {tuple(c)}")
    return c


def _check_grid_arguments(voxel_size, resolution, lower, upper):
    """``(voxel size or None, node counts or None, lower or None, upper or None)``, each checked, before any
    launch: so a refused call computes nothing."""
    if (lower is None) != (upper is None):
        raise ValueError("pass both 'lower' and 'upper', or neither")
    if voxel_size is not None and resolution is not None:
        raise ValueError("pass either 'voxel_size' or 'resolution', not both")
    if voxel_size is None and resolution is None:
        raise ValueError("pass either 'voxel_size' or 'resolution' to size the grid")
    voxel = None if voxel_size is None else _positive_number(voxel_size, "voxel_size")
    dims = None if resolution is None else _resolution(resolution)
    if lower is None:
        return voxel, dims, None, None
    if voxel is not None:
        # a given domain cannot grow to whole cells of that size
        raise ValueError("'voxel_size' cannot be combined with explicit 'lower'/'upper' bounds (the domain would "
                         "have to grow to whole cells): pass 'resolution' instead")
    lo, hi = _corner(lower, "lower"), _corner(upper, "upper")
    if np.any(hi <= lo):
        raise ValueError(f"'upper' {tuple(hi)} must exceed 'lower' {tuple(lo)} on every axis")
    return voxel, dims, lo, hi


def _grid(voxel, dims, tight_lower, tight_upper, padding: float):
    """``(lower, upper, dims)`` of the grid around the swept bounds: padded by ``padding`` plus two cells, so the
    extracted level stays inside; a voxel size then grows the extent to whole cells of exactly that size."""
    extent = tight_upper - tight_lower
    if voxel is not None:
        pad = padding + 2.0 * voxel
        dims = tuple(max(2, math.ceil((extent[a] + 2.0 * pad) / voxel) + 1) for a in range(3))
        grow = 0.5 * (np.array([(n - 1) * voxel for n in dims]) - extent)
    else:
        grow = padding + 2.0 * extent / (np.array(dims) - 1.0)
        if np.any(grow <= 0.0):
            axis = "xyz"[int(np.argmin(grow))]
            raise ValueError(f"the swept meshes are flat along {axis} and no padding was asked: pass 'voxel_size', "
                             "or 'lower' and 'upper'")
    return tight_lower - grow, tight_upper + grow, dims


def _sign_mode(sign_mode) -> SweptVolumeSignMode:
    try:
        return SweptVolumeSignMode(sign_mode)
    except ValueError:
        raise ValueError(f"'sign_mode' must be a SweptVolumeSignMode, got {sign_mode!r}") from None


def _vec3(values) -> wp.vec3:
    return wp.vec3(*(float(v) for v in values))


def swept_volume_bounds(meshes, transforms, padding: float = 0.0, device=None):
    """The world bounds ``(lower, upper)`` (``wp.vec3``) of ``meshes`` over every pose of ``transforms``, widened
    by ``padding`` on every side.

    Each mesh's rest-pose bounding box is moved by each pose and the boxes around the moved corners are united (for
    rotations a box a little larger than the moved points'). Use it to size one domain for several fields.

    - meshes: a sequence of rest-pose ``wp.Mesh``.
    - transforms: the poses, as for :func:`swept_volume_field`.
    - padding: the widening, in world units.
    - device: where to run; the first mesh's by default.
    """
    device = _check_meshes(meshes, device)
    if isinstance(padding, bool) or not isinstance(padding, numbers.Real) or not math.isfinite(padding):
        raise TypeError(f"'padding' must be a finite number, got {padding!r}")
    transforms = _as_transforms(transforms, len(meshes), device)
    lo, hi = _bounds(meshes, transforms, device)
    return _vec3(lo - padding), _vec3(hi + padding)


def _field(meshes, transforms, voxel_size, resolution, lower, upper, sign_mode, device, padding: float):
    """The checked arguments' field, domain and node counts (``swept_volume_field`` and ``swept_volume_mesh``)."""
    device = _check_meshes(meshes, device)
    mode = _sign_mode(sign_mode)
    if mode == SweptVolumeSignMode.WINDING_NUMBER:
        for i, mesh in enumerate(meshes):
            # a winding-number query of a mesh built without its data gives meaningless signs, not an error
            if not mesh.support_winding_number:
                raise ValueError(f"'meshes[{i}]' was not built with support_winding_number=True, which "
                                 "SweptVolumeSignMode.WINDING_NUMBER (the default) needs: rebuild it with "
                                 "wp.Mesh(..., support_winding_number=True) or pass another sign_mode")
    voxel, dims, lo, hi = _check_grid_arguments(voxel_size, resolution, lower, upper)
    transforms = _as_transforms(transforms, len(meshes), device)
    tight_lo, tight_hi = _bounds(meshes, transforms, device)
    if lo is None:
        lo, hi, dims = _grid(voxel, dims, tight_lo, tight_hi, padding)
    # a search that finds no surface gives no sign either: the bound must reach the surface from every node, and a
    # given domain may lie inside the solid or away from it, so span the domain and the geometry together
    span = np.maximum(hi, tight_hi) - np.minimum(lo, tight_lo)
    max_dist = float(np.linalg.norm(span))
    spacing = (hi - lo) / (np.array(dims) - 1.0)
    ids = wp.array([mesh.id for mesh in meshes], dtype=wp.uint64, device=device)
    field = wp.empty(dims, dtype=wp.float32, device=device)
    wp.launch(_field_kernel, dim=dims, inputs=[ids, transforms, _vec3(lo), _vec3(spacing), max_dist, int(mode),
                                               field], device=device)
    return field, _vec3(lo), _vec3(hi)


def swept_volume_field(meshes, transforms, voxel_size=None, *, resolution=None, lower=None, upper=None,
                       sign_mode=SweptVolumeSignMode.WINDING_NUMBER, device=None):
    """The swept volume's signed distance (:func:`swept_volume_sdf`) at the nodes of a regular grid: ``(field,
    lower, upper)``, a ``float32`` 3-D array and the world positions (``wp.vec3``) of nodes ``(0, 0, 0)`` and
    ``(nx-1, ny-1, nz-1)``. Negative inside (with ``NO_SIGN`` positive everywhere); forward only.

    - meshes: a sequence of rest-pose ``wp.Mesh``.
    - transforms: the poses, rest space to world space (unit quaternions): a ``wp.array2d`` of ``wp.transform`` of
      shape ``(num_meshes, num_samples)``, or numbers of shape ``(num_meshes, num_samples, 7)`` (translation xyz,
      then quaternion xyzw). Only these samples count: motion between them is not bounded.
    - voxel_size: the cell edge; the domain (the swept bounds padded by two cells) grows to whole cells, so the
      spacing is exactly this. Not with ``lower``/``upper``.
    - resolution: node counts ``(nx, ny, nz)`` instead (at least 2 each); the spacing follows from the extent.
    - lower, upper: the domain's corners, used as given (both or neither; with ``resolution``).
    - sign_mode: a :class:`SweptVolumeSignMode`; the default winding number needs every mesh built with
      ``support_winding_number=True``.
    - device: where to run; the first mesh's by default.
    """
    return _field(meshes, transforms, voxel_size, resolution, lower, upper, sign_mode, device, 0.0)


def swept_volume_mesh(meshes, transforms, voxel_size=None, *, resolution=None, lower=None, upper=None,
                      threshold: float = 0.0, sign_mode=SweptVolumeSignMode.WINDING_NUMBER, device=None):
    """The swept volume's surface: the ``threshold`` isosurface of :func:`swept_volume_field` by marching cubes, as
    ``(vertices, indices)``, world ``wp.vec3`` positions and flat ``int32`` corners, three per triangle.

    Arguments as for :func:`swept_volume_field`; the default domain is padded by ``threshold`` more, so the
    extracted level is not clipped. ``threshold = 0`` traces the envelope of the sampled poses, a positive one
    dilates it; the surface encloses every sampled pose once ``threshold`` exceeds half a cell's diagonal. With
    ``NO_SIGN`` the threshold must be positive (the unsigned field has no zero level). Few samples of a fast or
    thin mesh leave separate copies ("stroboscopic" gaps).
    """
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not math.isfinite(threshold):
        raise TypeError(f"'threshold' must be a finite number, got {threshold!r}")
    if _sign_mode(sign_mode) == SweptVolumeSignMode.NO_SIGN and threshold <= 0.0:
        raise ValueError(f"'threshold' must be positive with SweptVolumeSignMode.NO_SIGN, got {threshold}: the "
                         "unsigned field is positive everywhere, so its zero level is empty")
    from .marching_cubes import IsoSurfaceMarchingCubes

    field, lo, hi = _field(meshes, transforms, voxel_size, resolution, lower, upper, sign_mode, device,
                           max(float(threshold), 0.0))
    return IsoSurfaceMarchingCubes.extract(field, threshold=float(threshold), lower=lo, upper=hi)

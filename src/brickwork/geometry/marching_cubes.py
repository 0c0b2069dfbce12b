"""Marching cubes on a dense grid, as Warp 1.19's ``warp.geometry.IsoSurfaceMarchingCubes``.

Four kernels on the field's device, each pass once over the grid:

1. each grid edge (node ``(i, j, k)`` to its neighbour along one axis) whose two values lie on either side of the
   threshold gets a vertex: a count per edge, and their inclusive scan numbers the vertices in the order of the
   edges (node by node in row-major order, then x, y, z);
2. each such edge writes its vertex, interpolated linearly between its nodes (the only step that carries
   gradients, recorded on a ``wp.Tape``);
3. each cell counts its triangles from its case (bit ``c`` set when corner ``c`` is at or above the threshold, see
   :mod:`.marching_cubes_tables`), and their inclusive scan places each cell's triangles;
4. each cell writes its triangles: the vertex of each of their edges is found from the vertex scan, so the cells
   sharing an edge share its vertex.

The order of vertices and triangles is therefore fixed by the grid, the same as Warp's.
"""

from __future__ import annotations

import warnings

from ..runtime.warp_names import wp
from ..utils import array_scan
from . import marching_cubes_tables as tables
from .iso_surface import IsoSurfaceBase, check_bounds, resolve_domain_bounds, validate_field

vec3 = wp.vec3

# indices are int32 (Warp's): the grid's edges must be countable in one
_MAX_EDGES = 2**31 - 1


@wp.func
def _edge_number(field: wp.array3d(dtype=wp.float32), i: int, j: int, k: int, axis: int):
    # the grid edge's place in the vertex scan: node (i, j, k) in row-major order, then its axis
    return ((i * field.shape[1] + j) * field.shape[2] + k) * 3 + axis


@wp.func
def _crosses(field: wp.array3d(dtype=wp.float32), threshold: float, i: int, j: int, k: int, axis: int):
    # whether the grid edge leaving node (i, j, k) along axis has a vertex (never one past the grid's end);
    # written as two cases so that a NaN value, never >= nor <, gives no vertex (as Warp)
    i1 = i + wp.where(axis == 0, 1, 0)
    j1 = j + wp.where(axis == 1, 1, 0)
    k1 = k + wp.where(axis == 2, 1, 0)
    if i1 >= field.shape[0] or j1 >= field.shape[1] or k1 >= field.shape[2]:
        return False
    a = field[i, j, k]
    b = field[i1, j1, k1]
    return (a >= threshold and b < threshold) or (a < threshold and b >= threshold)


@wp.func
def _cell_case(field: wp.array3d(dtype=wp.float32), threshold: float, i: int, j: int, k: int):
    # bit c: corner c of the cell at or above the threshold (corners as tables.CORNER_OFFSETS)
    case = 0
    if field[i, j, k] >= threshold:
        case += 1
    if field[i + 1, j, k] >= threshold:
        case += 2
    if field[i + 1, j + 1, k] >= threshold:
        case += 4
    if field[i, j + 1, k] >= threshold:
        case += 8
    if field[i, j, k + 1] >= threshold:
        case += 16
    if field[i + 1, j, k + 1] >= threshold:
        case += 32
    if field[i + 1, j + 1, k + 1] >= threshold:
        case += 64
    if field[i, j + 1, k + 1] >= threshold:
        case += 128
    return case


@wp.kernel(enable_backward=False)
def _count_vertices(field: wp.array3d(dtype=wp.float32), threshold: float, counts: wp.array(dtype=wp.int32)):
    i, j, k, axis = wp.tid()
    counts[_edge_number(field, i, j, k, axis)] = wp.where(_crosses(field, threshold, i, j, k, axis), 1, 0)


@wp.kernel
def _emit_vertices(field: wp.array3d(dtype=wp.float32), threshold: float, lower: wp.vec3, delta: wp.vec3,
                   vertex_ends: wp.array(dtype=wp.int32), verts: wp.array(dtype=wp.vec3)):
    i, j, k, axis = wp.tid()
    if not _crosses(field, threshold, i, j, k, axis):
        return
    i1 = i + wp.where(axis == 0, 1, 0)
    j1 = j + wp.where(axis == 1, 1, 0)
    k1 = k + wp.where(axis == 2, 1, 0)
    a = field[i, j, k]
    b = field[i1, j1, k1]
    t = wp.clamp((threshold - a) / (b - a), 0.0, 1.0)
    p0 = lower + wp.vec3(float(i) * delta[0], float(j) * delta[1], float(k) * delta[2])
    p1 = lower + wp.vec3(float(i1) * delta[0], float(j1) * delta[1], float(k1) * delta[2])
    verts[vertex_ends[_edge_number(field, i, j, k, axis)] - 1] = wp.lerp(p0, p1, t)


@wp.kernel(enable_backward=False)
def _count_triangles(field: wp.array3d(dtype=wp.float32), threshold: float, case_start: wp.array(dtype=wp.int32),
                     counts: wp.array(dtype=wp.int32)):
    i, j, k = wp.tid()
    case = _cell_case(field, threshold, i, j, k)
    cell = (i * (field.shape[1] - 1) + j) * (field.shape[2] - 1) + k
    counts[cell] = (case_start[case + 1] - case_start[case]) // 3


@wp.kernel(enable_backward=False)
def _emit_triangles(field: wp.array3d(dtype=wp.float32), threshold: float, case_start: wp.array(dtype=wp.int32),
                    tri_edges: wp.array(dtype=wp.int32), edge_offsets: wp.array2d(dtype=wp.int32),
                    vertex_ends: wp.array(dtype=wp.int32), triangle_ends: wp.array(dtype=wp.int32),
                    indices: wp.array(dtype=wp.int32)):
    i, j, k = wp.tid()
    case = _cell_case(field, threshold, i, j, k)
    first = case_start[case]
    n = case_start[case + 1] - first
    if n == 0:
        return
    cell = (i * (field.shape[1] - 1) + j) * (field.shape[2] - 1) + k
    out = 0
    if cell > 0:
        out = 3 * triangle_ends[cell - 1]
    for s in range(n):
        e = tri_edges[first + s]
        node_i = i + edge_offsets[e, 0]
        node_j = j + edge_offsets[e, 1]
        node_k = k + edge_offsets[e, 2]
        indices[out + s] = vertex_ends[_edge_number(field, node_i, node_j, node_k, edge_offsets[e, 3])] - 1


def _scan_total(counts, device):
    """The inclusive scan of ``counts`` and its total (one value read back: the outputs' size)."""
    ends = wp.empty(counts.shape, dtype=wp.int32, device=device)
    array_scan(counts, ends, inclusive=True)
    return ends, int(ends[-1:].numpy()[0])


def _check_field(field) -> None:
    validate_field(field)
    nx, ny, nz = field.shape
    if 3 * nx * ny * nz > _MAX_EDGES:
        raise ValueError(f"A field of shape {(nx, ny, nz)} has too many grid edges for int32 vertex indices.")


class _Unset:
    """The default of a deprecated argument, told apart from an explicit None."""

    def __repr__(self):
        return "None"


_UNSET = _Unset()


def _deprecated(message: str, stacklevel: int) -> None:
    warnings.warn(message, DeprecationWarning, stacklevel=stacklevel + 1)


def _warn_bound_attribute(attribute: str, replacement: str) -> None:
    _deprecated(f"IsoSurfaceMarchingCubes.{attribute} is deprecated and will be removed in a future version of "
                f"Warp. Use `{replacement}` instead.", 3)


def _legacy_bound(new_name: str, new, old_name: str, old):
    """The bound that a deprecated argument ``old_name`` gives (with Warp's warning), or ``new``."""
    if old is _UNSET:
        return new
    if new is not None and old is not None:
        raise TypeError(f"Cannot specify both `{new_name}` and `{old_name}`.")
    _deprecated(f"IsoSurfaceMarchingCubes() argument `{old_name}` is deprecated and will be removed in a future "
                f"version of Warp. Use `{new_name}` instead.", 3)
    return new if old is None else old


class IsoSurfaceMarchingCubes(IsoSurfaceBase):
    """Marching cubes: the triangle mesh of an isosurface of a float32 field on the nodes of a dense grid.

    Construct it with the grid's node counts and call :meth:`surface` for each field of that shape (read
    :attr:`verts` and :attr:`indices`), or call the class method :meth:`extract` once. Each grid edge whose values
    straddle the threshold gets one vertex, interpolated linearly along the edge and shared by the triangles of
    the cells around it; each cell gets the triangles of its case (at most five). A cell's corners at or above
    the threshold are outside: faces of a signed distance field wind counter-clockwise seen from outside.

    Vertices come in the order of their edges (node ``(i, j, k)`` in row-major order, then its x, y and z edge),
    triangles in the order of their cells, as Warp's. In a ``wp.Tape`` with ``field.requires_grad``, the vertex
    positions carry gradients back to ``field`` through the interpolation; ``indices`` is discrete.

    - nx, ny, nz: the grid's node counts (each at least 2 for :meth:`surface` to run).
    - lower, upper: where node ``(0, 0, 0)`` and node ``(nx-1, ny-1, nz-1)`` sit (a ``vec3`` or three numbers;
      defaults: the origin and ``(nx-1, ny-1, nz-1)``, so that nodes sit at their indices).
    - domain_bounds_lower_corner, domain_bounds_upper_corner: Warp's deprecated names of ``lower`` and
      ``upper`` (a DeprecationWarning; giving both names of one bound is a TypeError).
    """

    #: (dx, dy, dz) of each cube corner from the cell's lowest node; corner c is bit c of a cell's case
    CUBE_CORNER_OFFSETS = tables.CORNER_OFFSETS
    #: the two corners each of the 12 edges joins
    EDGE_TO_CORNERS = tables.EDGE_CORNERS
    #: 257 starts: case c's triangle edges are TRI_LOCAL_INDICES[CASE_TO_TRI_RANGE[c]:CASE_TO_TRI_RANGE[c + 1]]
    CASE_TO_TRI_RANGE = tables.CASE_TRI_START
    #: the triangles' edges (0-11) of every case, three per triangle (2460 values)
    TRI_LOCAL_INDICES = tables.TRI_EDGES

    def __init__(self, nx: int, ny: int, nz: int, lower=None, upper=None, *, domain_bounds_lower_corner=_UNSET,
                 domain_bounds_upper_corner=_UNSET):
        lower = _legacy_bound("lower", lower, "domain_bounds_lower_corner", domain_bounds_lower_corner)
        upper = _legacy_bound("upper", upper, "domain_bounds_upper_corner", domain_bounds_upper_corner)
        check_bounds("lower", lower)
        check_bounds("upper", upper)
        super().__init__(nx, ny, nz, lower=lower, upper=upper)

    @property
    def domain_bounds_lower_corner(self):
        """Deprecated name of :attr:`lower` (a DeprecationWarning)."""
        _warn_bound_attribute("domain_bounds_lower_corner", "lower")
        return self.lower

    @domain_bounds_lower_corner.setter
    def domain_bounds_lower_corner(self, value):
        _warn_bound_attribute("domain_bounds_lower_corner", "lower")
        check_bounds("domain_bounds_lower_corner", value)
        self.lower = value

    @property
    def domain_bounds_upper_corner(self):
        """Deprecated name of :attr:`upper` (a DeprecationWarning)."""
        _warn_bound_attribute("domain_bounds_upper_corner", "upper")
        return self.upper

    @domain_bounds_upper_corner.setter
    def domain_bounds_upper_corner(self, value):
        _warn_bound_attribute("domain_bounds_upper_corner", "upper")
        check_bounds("domain_bounds_upper_corner", value)
        self.upper = value

    def surface(self, field, threshold: float) -> None:
        """Extract the ``threshold`` isosurface of ``field`` (shape ``(nx, ny, nz)``) into :attr:`verts` and
        :attr:`indices`, replacing the last ones. A field of another shape is a ValueError (see :meth:`resize`)."""
        _check_field(field)
        self._check_field_shape(field)
        self.verts, self.indices = self.extract(field, threshold, lower=self.lower, upper=self.upper)

    @classmethod
    def extract(cls, field, threshold: float = 0.0, *, lower=None, upper=None):
        """``(verts, indices)``: the ``threshold`` isosurface of ``field``, a 3-D float32 array of at least two
        nodes on each axis, on its device.

        ``verts`` is a ``vec3`` array (``requires_grad`` as ``field``), ``indices`` a flat int32 array of three
        vertex indices per triangle; both are empty when no cell crosses the threshold. ``lower``/``upper`` place
        the grid's first and last node (defaults: node ``(i, j, k)`` at ``(i, j, k)``). A field that is not 3-D
        or has an axis of fewer than two nodes is a ValueError, one of another dtype a TypeError.
        """
        _check_field(field)
        check_bounds("lower", lower)
        check_bounds("upper", upper)
        lower, delta = resolve_domain_bounds(field.shape, lower, upper)
        threshold = float(threshold)
        device = field.device
        nx, ny, nz = field.shape

        counts = wp.empty(nx * ny * nz * 3, dtype=wp.int32, device=device)
        wp.launch(_count_vertices, dim=(nx, ny, nz, 3), inputs=[field, threshold, counts], device=device,
                  record_tape=False)
        vertex_ends, nverts = _scan_total(counts, device)
        verts = wp.empty(nverts, dtype=vec3, device=device, requires_grad=field.requires_grad)
        if nverts:
            wp.launch(_emit_vertices, dim=(nx, ny, nz, 3), inputs=[field, threshold, lower, delta, vertex_ends],
                      outputs=[verts], device=device)

        tab = tables.device_tables(device)
        cells = (nx - 1, ny - 1, nz - 1)
        counts = wp.empty((nx - 1) * (ny - 1) * (nz - 1), dtype=wp.int32, device=device)
        wp.launch(_count_triangles, dim=cells, inputs=[field, threshold, tab.case_tri_start, counts], device=device,
                  record_tape=False)
        triangle_ends, ntris = _scan_total(counts, device)
        indices = wp.empty(3 * ntris, dtype=wp.int32, device=device)
        if ntris:
            wp.launch(_emit_triangles, dim=cells,
                      inputs=[field, threshold, tab.case_tri_start, tab.tri_edges, tab.edge_offsets, vertex_ends,
                              triangle_ends, indices], device=device, record_tape=False)
        return verts, indices

    @staticmethod
    def extract_surface_marching_cubes(field, threshold: float = 0.0, domain_bounds_lower_corner=None,
                                       domain_bounds_upper_corner=None):
        """Deprecated name of :meth:`extract` (a DeprecationWarning), with Warp's old bound names."""
        _deprecated("IsoSurfaceMarchingCubes.extract_surface_marching_cubes() is deprecated and will be removed in "
                    "a future version of Warp. Use IsoSurfaceMarchingCubes.extract() instead.", 2)
        return IsoSurfaceMarchingCubes.extract(field, threshold, lower=domain_bounds_lower_corner,
                                               upper=domain_bounds_upper_corner)

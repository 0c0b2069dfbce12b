"""Marching cubes on a sparse set of cells, the core of :mod:`.sparse_marching_cubes`, and Warp 1.19's
``warp.geometry.sparse_marching_cubes_from_cells`` (cells and corner values given by the caller).

Cells share corners (:mod:`.sparse_corners`), and the vertex of a crossed edge lives at one slot, ``3 * (the
edge's lower corner) + axis``, whichever cell finds it, so the mesh is watertight. Each step is a kernel on the
cells' device; the numbers of vertices and faces come back to the host to size the outputs, as in Warp.
Vertices are ordered by slot and faces by cell, so on the same cells the outputs are Warp's, element for element.

Vertex positions are differentiable with respect to the corner values (``wp.Tape``): the gather of each unique
corner's value from its first source and the edge interpolation are recorded; the discrete steps are not.
"""

from __future__ import annotations

import numpy as np

from ..runtime.launch import launcher
from ..runtime.warp_names import wp
from .marching_cubes_tables import device_tables
from .octree import as_point, real_number, scan_counts
from .sparse_corners import check_stride, dedupe_corners, gather_corner_values

__all__ = ["sparse_marching_cubes_from_cells"]

_INT32 = np.iinfo(np.int32)


# -- kernels ---------------------------------------------------------------------------------------------------


@wp.kernel(enable_backward=False)
def _mark_edges(cell_corners: wp.array[wp.int32], values: wp.array[wp.float32], isovalue: wp.float32,
                tri_start: wp.array[wp.int32], tri_edges: wp.array[wp.int32], edge_corners: wp.array2d[wp.int32],
                edge_offsets: wp.array2d[wp.int32], active: wp.array[wp.int32], upper: wp.array[wp.int32],
                cases: wp.array[wp.int32], faces: wp.array[wp.int32]):
    # cells sharing an edge write the same values to its slot: the races are benign
    cell = wp.tid()
    case = 0
    for corner in range(8):
        if values[cell_corners[8 * cell + corner]] >= isovalue:
            case = case | (1 << corner)
    cases[cell] = case
    start = tri_start[case]
    end = tri_start[case + 1]
    faces[cell] = (end - start) // 3
    for i in range(start, end):
        edge = tri_edges[i]
        slot = 3 * cell_corners[8 * cell + edge_corners[edge, 0]] + edge_offsets[edge, 3]
        active[slot] = 1
        upper[slot] = cell_corners[8 * cell + edge_corners[edge, 1]]


@wp.kernel
def _place_vertices(offsets: wp.array[wp.int32], upper: wp.array[wp.int32], positions: wp.array[wp.vec3],
                    values: wp.array[wp.float32], isovalue: wp.float32, verts: wp.array[wp.vec3]):
    slot = wp.tid()
    at = offsets[slot]
    if offsets[slot + 1] > at:
        lower = slot // 3
        higher = upper[slot]
        a = values[lower]
        t = wp.clamp((isovalue - a) / (values[higher] - a), 0.0, 1.0)
        verts[at] = wp.lerp(positions[lower], positions[higher], t)


@wp.kernel(enable_backward=False)
def _write_faces(cell_corners: wp.array[wp.int32], cases: wp.array[wp.int32], tri_start: wp.array[wp.int32],
                 tri_edges: wp.array[wp.int32], edge_corners: wp.array2d[wp.int32],
                 edge_offsets: wp.array2d[wp.int32], vertex_of: wp.array[wp.int32], face_offsets: wp.array[wp.int32],
                 indices: wp.array[wp.int32]):
    cell = wp.tid()
    case = cases[cell]
    start = tri_start[case]
    base = 3 * face_offsets[cell] - start
    for i in range(start, tri_start[case + 1]):
        edge = tri_edges[i]
        indices[base + i] = vertex_of[3 * cell_corners[8 * cell + edge_corners[edge, 0]] + edge_offsets[edge, 3]]


@wp.kernel
def _subscript_bounds(cells: wp.array[wp.vec3i], lo: wp.array[wp.int32], hi: wp.array[wp.int32]):
    t = wp.tid()
    c = cells[t]
    for a in range(3):
        wp.atomic_min(lo, a, c[a])
        wp.atomic_max(hi, a, c[a])


# -- extraction ------------------------------------------------------------------------------------------------


def empty_mesh(device, requires_grad: bool = False):
    return (wp.empty(0, dtype=wp.vec3, device=device, requires_grad=requires_grad),
            wp.empty(0, dtype=wp.int32, device=device))


def extract(cell_corners, positions, values, isovalue: float, device):
    """``(verts, indices)`` of marching cubes on cells whose corners are numbered (``cell_corners``, 8 per
    cell) with unique ``positions`` and ``values``."""
    n = cell_corners.shape[0] // 8
    slots = 3 * positions.shape[0]
    tables = device_tables(device)
    run = launcher(device)
    iso = wp.float32(isovalue)
    active = wp.zeros(slots + 1, dtype=wp.int32, device=device)
    upper = wp.empty(slots, dtype=wp.int32, device=device)
    cases = wp.empty(n, dtype=wp.int32, device=device)
    faces = wp.zeros(n + 1, dtype=wp.int32, device=device)
    run(_mark_edges, n, cell_corners, values, iso, tables.case_tri_start, tables.tri_edges, tables.edge_corners,
        tables.edge_offsets, active, upper, cases, faces)
    n_verts = scan_counts(active, slots, device)
    if n_verts == 0:
        return empty_mesh(device, values.requires_grad)
    verts = wp.empty(n_verts, dtype=wp.vec3, device=device, requires_grad=values.requires_grad)
    # the one differentiable step of the extraction: recorded on a tape
    wp.launch(_place_vertices, slots, inputs=[active, upper, positions, values, iso], outputs=[verts], device=device)
    n_faces = scan_counts(faces, n, device)
    indices = wp.empty(3 * n_faces, dtype=wp.int32, device=device)
    run(_write_faces, n, cell_corners, cases, tables.case_tri_start, tables.tri_edges, tables.edge_corners,
        tables.edge_offsets, active, faces, indices)
    return verts, indices


# -- explicit cells --------------------------------------------------------------------------------------------


def _as_cells(cells, device):
    """``cells`` as a contiguous ``vec3i`` array on ``device``: an ``(N, 3)`` int32 or ``vec3i`` array there is
    used in place; anything else goes through numpy."""
    if isinstance(cells, wp.array):
        cells = cells.to(device).contiguous()
        if cells.dtype == wp.vec3i:
            return cells.flatten() if cells.ndim > 1 else cells
        if cells.dtype == wp.int32 and cells.size % 3 == 0 and cells.shape[-1] == 3:
            return cells.reshape((-1, 3)).view(wp.vec3i)
        cells = cells.numpy()
    data = np.asarray(cells)
    if data.ndim == 0 or data.shape[-1] != 3 or data.dtype.kind not in "iufb":
        raise ValueError(f"cells must be an (N, 3) array of integer cell subscripts, got shape {data.shape} of "
                         f"{data.dtype}.")
    data = data.reshape(-1, 3)
    if data.size and data.dtype.kind in "iu" and (data.min() < _INT32.min or data.max() > _INT32.max):
        raise ValueError("cells must be int32 subscripts, got values outside the int32 range.")
    return wp.array(np.ascontiguousarray(data, dtype=np.int32), dtype=wp.vec3i, device=device)


def _as_corner_values(corner_values, n: int, device):
    if isinstance(corner_values, wp.array):
        values = corner_values.to(device)
    else:
        values = wp.array(np.ascontiguousarray(corner_values, dtype=np.float32), device=device)
    if values.dtype != wp.float32:
        raise ValueError(f"corner_values must be float32, got {values.dtype.__name__}.")
    if values.size != 8 * n:
        raise ValueError(f"corner_values must have {8 * n} entries for {n} cells, got {values.size}.")
    if not values.is_contiguous:
        values = wp.clone(values)  # a strided view: a gather reads the flat layout
    return values if values.ndim == 1 else values.reshape((8 * n,))


def _subscript_range(cells, device) -> tuple:
    lo = wp.full(3, _INT32.max, dtype=wp.int32, device=device)
    hi = wp.full(3, _INT32.min, dtype=wp.int32, device=device)
    wp.launch(_subscript_bounds, cells.shape[0], inputs=[cells], outputs=[lo, hi], device=device, record_tape=False)
    return lo.numpy().astype(np.int64), hi.numpy().astype(np.int64)


def sparse_marching_cubes_from_cells(cells, corner_values, origin=(0.0, 0.0, 0.0), cell_width: float = 1.0,
                                     threshold: float = 0.0, device=None):
    """Marching cubes on an explicit set of cells with the field's values at their corners.

    - cells: the cells' minimum-corner subscripts, ``(N, 3)``: a ``wp.array`` of ``vec3i`` or of int32 (used in
      place on ``device``) or anything numpy converts. Cell ``(i, j, k)`` covers ``origin + cell_width * [(i, j,
      k), (i + 1, j + 1, k + 1)]``; subscripts may be negative or far from 0. Cells should be distinct.
    - corner_values: ``(N, 8)`` float32 values (any shape of ``8 N`` entries, strided views included), corner
      ``c`` of a cell at subscript ``(i, j, k) + IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS[c]``. A corner
      shared by several cells takes its value from the first of them (in cell order).
    - origin: where subscript ``(0, 0, 0)`` is; cell_width: the cells' side (positive).
    - threshold: the isovalue; device: where to run (the current device by default).

    Returns ``(verts, indices)``: ``wp.array[wp.vec3]`` and a flat ``wp.array[wp.int32]``, three per triangle.
    With ``corner_values.requires_grad`` inside a ``wp.Tape``, gradients flow from ``verts`` to
    ``corner_values``.
    """
    device = wp.get_device(device)
    width = real_number("cell_width", cell_width)
    if not width > 0.0:
        raise ValueError(f"cell_width must be positive, got {cell_width}.")
    origin = as_point("origin", origin)
    isovalue = real_number("threshold", threshold)
    cells = _as_cells(cells, device)
    n = cells.shape[0]
    values = _as_corner_values(corner_values, n, device)
    if n == 0:
        return empty_mesh(device)
    lo, hi = _subscript_range(cells, device)
    stride = int((hi - lo).max()) + 2  # the corners of the last cell are one further
    check_stride(stride)
    cell_corners, positions, source = dedupe_corners(cells, tuple(int(v) for v in lo), stride, origin,
                                                     (width, width, width), device)
    unique_values = wp.empty(positions.shape[0], dtype=wp.float32, device=device, requires_grad=values.requires_grad)
    wp.launch(gather_corner_values, positions.shape[0], inputs=[source, values], outputs=[unique_values],
              device=device)
    return extract(cell_corners, positions, unique_values, isovalue, device)

"""Surface nets (``IsoSurfaceNets``), as Warp 1.19's ``warp.geometry.IsoSurfaceNets``: the isosurface of a
float32 field sampled at the nodes of a dense grid, with one vertex per sheet of the surface in each cell it
crosses and one quad (or two triangles) across each crossed grid edge.

This is the uniform meshing path of OpenVDB's volume-to-mesh tool on a dense grid: a cell's vertex is the
mean of its sheet's edge crossings; a configuration ambiguous across a face is flipped when the neighbour
across that face is ambiguous across it too; a sheet whose edges all lie on the grid's boundary (which no
quad can use) puts no vertex. Three kernel passes, each over the cells, on the field's device: classify
and count, place the vertices, emit the faces, with prefix sums (``array_scan``) of the counts between them.
"""

from __future__ import annotations

from ..runtime.warp_names import wp
from ..utils import array_scan
from .iso_surface import IsoSurfaceBase, check_bounds, resolve_domain_bounds, validate_field
from .surface_nets_tables import device_tables

TOPOLOGIES = ("triangle", "quad")

# Corner c's offset from its cell's origin node is bit c of these, per axis (surface_nets_tables.CORNER_OFFSETS).
CORNER_X, CORNER_Y, CORNER_Z = 0x66, 0xF0, 0xCC
# Edge e < 4 joins corners nibble e of RING_FROM and of RING_TO, edge 4 + e the same corners + 4 (the y = 1
# ring), edge 8 + e corners e and e + 4 (surface_nets_tables.EDGE_CORNERS).
RING_FROM, RING_TO = 0x0310, 0x3221

# A classified cell's flags: its corrected configuration (bits 0-7), the sheets that put a vertex (bits 8-11),
# which of its origin node's +x, +y, +z edges the surface crosses (bits 12-14: the cell owns those edges' quads)
# and whether its origin node is inside (bit 15). The owned edges and the inside bit use the raw configuration.
SHEETS_SHIFT, OWNED_SHIFT, INSIDE = 8, 12, 1 << 15


def validate_topology(topology) -> None:
    """Refuse a face type other than ``"triangle"`` and ``"quad"``."""
    if topology not in TOPOLOGIES:
        raise ValueError(f"Expected 'topology' to be one of {TOPOLOGIES}, but got {topology!r}.")


# -- the cell's corners and edges ---------------------------------------------------------------------------------


@wp.func
def _corner_value(field: wp.array3d[wp.float32], i: int, j: int, k: int, c: int) -> wp.float32:
    return field[i + ((CORNER_X >> c) & 1), j + ((CORNER_Y >> c) & 1), k + ((CORNER_Z >> c) & 1)]


@wp.func
def _corner_offset(c: int) -> wp.vec3:
    return wp.vec3(float((CORNER_X >> c) & 1), float((CORNER_Y >> c) & 1), float((CORNER_Z >> c) & 1))


@wp.func
def _configuration(field: wp.array3d[wp.float32], i: int, j: int, k: int, threshold: wp.float32) -> int:
    """Bit c set when corner c is inside (below the threshold)."""
    config = 0
    for c in range(8):
        if _corner_value(field, i, j, k, c) < threshold:
            config = config | (1 << c)
    return config


@wp.func
def _edge_from(e: int) -> int:
    if e >= 8:
        return e - 8
    return ((RING_FROM >> (4 * (e & 3))) & 15) + (e & 4)


@wp.func
def _edge_to(e: int) -> int:
    if e >= 8:
        return e - 4
    return ((RING_TO >> (4 * (e & 3))) & 15) + (e & 4)


@wp.func
def _edge_axis(e: int) -> int:
    """0, 1, 2: the edge runs along x, y, z (ring edges alternate x and z)."""
    if e >= 8:
        return 1
    return 2 * (e & 1)


@wp.func
def _crossed(config: int, e: int) -> bool:
    return ((config >> _edge_from(e)) & 1) != ((config >> _edge_to(e)) & 1)


@wp.func
def _sheet(row: int, e: int) -> int:
    """The sheet (0-3) a crossed edge's crossing belongs to (a packed row of surface_nets_tables)."""
    return (row >> (2 * e)) & 3


@wp.func
def _count_bits(bits: int) -> int:
    return (bits & 1) + ((bits >> 1) & 1) + ((bits >> 2) & 1) + ((bits >> 3) & 1)


@wp.func
def _inner_node(node: int, cells: int) -> bool:
    """A node coordinate off the grid's two boundary planes along its axis."""
    return node > 0 and node < cells


# -- pass 1: classify the cells, count their vertices and quads ---------------------------------------------------


@wp.kernel
def _classify_cells(field: wp.array3d[wp.float32], threshold: wp.float32, rows: wp.array[wp.int32],
                    ambiguous_faces: wp.array[wp.int32], flags: wp.array3d[wp.int32],
                    vertex_counts: wp.array[wp.int32], quad_counts: wp.array[wp.int32]):
    i, j, k = wp.tid()
    nx, ny, nz = flags.shape[0], flags.shape[1], flags.shape[2]
    raw = _configuration(field, i, j, k, threshold)
    if raw == 0 or raw == 255:
        return
    inside = raw & 1
    # corners 1, 4 and 3 are the origin node's neighbours along +x, +y and +z
    owned = 0
    if ((raw >> 1) & 1) != inside:
        owned = owned | 1
    if ((raw >> 4) & 1) != inside:
        owned = owned | 2
    if ((raw >> 3) & 1) != inside:
        owned = owned | 4

    # A configuration ambiguous across a face takes its complement when the neighbour across that face is
    # ambiguous across the same face (from its side), so that the two cells' sheets meet on it.
    config = raw
    face = ambiguous_faces[raw]
    if face != 0:
        ni, nj, nk = i, j, k
        if face == 1:
            nk = k - 1
        elif face == 2:
            ni = i + 1
        elif face == 3:
            nk = k + 1
        elif face == 4:
            ni = i - 1
        elif face == 5:
            nj = j - 1
        else:
            nj = j + 1
        facing = 11 - face  # 5 <-> 6
        if face <= 4:
            facing = (face + 1) % 4 + 1  # 1 <-> 3, 2 <-> 4
        if ni >= 0 and ni < nx and nj >= 0 and nj < ny and nk >= 0 and nk < nz:
            if ambiguous_faces[_configuration(field, ni, nj, nk, threshold)] == facing:
                config = 255 - raw

    # A sheet puts a vertex when one of its edges is inside the grid (off its boundary planes across the edge):
    # only those edges have four cells around them, and so a quad.
    row = rows[config]
    sheets = 0
    for e in range(12):
        if _crossed(config, e):
            a = _edge_from(e)
            b = _edge_to(e)
            x = ((CORNER_X >> b) & 1) != ((CORNER_X >> a) & 1) or _inner_node(i + ((CORNER_X >> a) & 1), nx)
            y = ((CORNER_Y >> b) & 1) != ((CORNER_Y >> a) & 1) or _inner_node(j + ((CORNER_Y >> a) & 1), ny)
            z = ((CORNER_Z >> b) & 1) != ((CORNER_Z >> a) & 1) or _inner_node(k + ((CORNER_Z >> a) & 1), nz)
            if x and y and z:
                sheets = sheets | (1 << _sheet(row, e))

    quads = 0
    if (owned & 1) != 0 and j > 0 and k > 0:
        quads += 1
    if (owned & 2) != 0 and i > 0 and k > 0:
        quads += 1
    if (owned & 4) != 0 and i > 0 and j > 0:
        quads += 1

    cell = (i * ny + j) * nz + k
    flags[i, j, k] = config | (sheets << SHEETS_SHIFT) | (owned << OWNED_SHIFT) | (inside * INSIDE)
    vertex_counts[cell] = _count_bits(sheets)
    quad_counts[cell] = quads


# -- pass 2: the vertices -----------------------------------------------------------------------------------------


@wp.kernel
def _place_vertices(field: wp.array3d[wp.float32], threshold: wp.float32, rows: wp.array[wp.int32],
                    flags: wp.array3d[wp.int32], vertex_offsets: wp.array[wp.int32], lower: wp.vec3,
                    spacing: wp.vec3, verts: wp.array[wp.vec3]):
    i, j, k = wp.tid()
    cell_flags = flags[i, j, k]
    sheets = (cell_flags >> SHEETS_SHIFT) & 15
    if sheets == 0:
        return
    config = cell_flags & 255
    row = rows[config]
    first = vertex_offsets[(i * flags.shape[1] + j) * flags.shape[2] + k]
    for s in range(4):
        if ((sheets >> s) & 1) != 0:
            # the mean of the sheet's edge crossings, in the cell's unit cube (in edge order, as OpenVDB)
            mean = wp.vec3(0.0, 0.0, 0.0)
            n = 0
            for e in range(12):
                if _crossed(config, e):
                    if _sheet(row, e) == s:
                        a = _edge_from(e)
                        va = _corner_value(field, i, j, k, a)
                        t = (threshold - va) / (_corner_value(field, i, j, k, _edge_to(e)) - va)
                        # t goes to the edge's axis alone (a NaN field value spoils that coordinate only)
                        step = wp.vec3(0.0, 0.0, 0.0)
                        step[_edge_axis(e)] = t
                        mean = (mean + _corner_offset(a)) + step
                        n += 1
            if n > 1:
                mean = mean * (1.0 / float(n))
            local = wp.vec3(float(i), float(j), float(k)) + mean
            verts[first + _count_bits(sheets & ((1 << s) - 1))] = lower + wp.cw_mul(local, spacing)


# -- pass 3: the faces --------------------------------------------------------------------------------------------


@wp.func
def _vertex_on(flags: wp.array3d[wp.int32], rows: wp.array[wp.int32], vertex_offsets: wp.array[wp.int32],
               i: int, j: int, k: int, e: int) -> int:
    """The vertex of cell (i, j, k) whose sheet holds the crossing on its edge e."""
    cell_flags = flags[i, j, k]
    s = _sheet(rows[cell_flags & 255], e)
    sheets = (cell_flags >> SHEETS_SHIFT) & 15
    return vertex_offsets[(i * flags.shape[1] + j) * flags.shape[2] + k] + _count_bits(sheets & ((1 << s) - 1))


@wp.func
def _write_face(indices: wp.array[wp.int32], quad: bool, slot: int, v0: int, v1: int, v2: int, v3: int,
                reverse: bool):
    """Quad ``slot`` as four corners, or as the triangles (0, 1, 2) and (0, 2, 3); ``reverse`` flips it."""
    a, b, c, d = v0, v1, v2, v3
    if reverse:
        a, b, c, d = v3, v2, v1, v0
    if quad:
        indices[4 * slot + 0] = a
        indices[4 * slot + 1] = b
        indices[4 * slot + 2] = c
        indices[4 * slot + 3] = d
    else:
        indices[6 * slot + 0] = a
        indices[6 * slot + 1] = b
        indices[6 * slot + 2] = c
        indices[6 * slot + 3] = a
        indices[6 * slot + 4] = c
        indices[6 * slot + 5] = d


@wp.kernel
def _emit_faces(flags: wp.array3d[wp.int32], rows: wp.array[wp.int32], vertex_offsets: wp.array[wp.int32],
                quad_offsets: wp.array[wp.int32], quad: bool, indices: wp.array[wp.int32]):
    """The quads around the cell's owned crossed edges, each joining the vertices of the edge's four cells;
    winding counter-clockwise seen from outside (the side above the threshold)."""
    i, j, k = wp.tid()
    cell_flags = flags[i, j, k]
    owned = (cell_flags >> OWNED_SHIFT) & 7
    if owned == 0:
        return
    inside = (cell_flags & INSIDE) != 0
    slot = quad_offsets[(i * flags.shape[1] + j) * flags.shape[2] + k]
    if (owned & 1) != 0 and j > 0 and k > 0:  # the +x edge: edges 0, 4, 6, 2 of its four cells
        _write_face(indices, quad, slot,
                    _vertex_on(flags, rows, vertex_offsets, i, j, k, 0),
                    _vertex_on(flags, rows, vertex_offsets, i, j - 1, k, 4),
                    _vertex_on(flags, rows, vertex_offsets, i, j - 1, k - 1, 6),
                    _vertex_on(flags, rows, vertex_offsets, i, j, k - 1, 2), not inside)
        slot += 1
    if (owned & 2) != 0 and i > 0 and k > 0:  # the +y edge: edges 8, 11, 10, 9
        _write_face(indices, quad, slot,
                    _vertex_on(flags, rows, vertex_offsets, i, j, k, 8),
                    _vertex_on(flags, rows, vertex_offsets, i, j, k - 1, 11),
                    _vertex_on(flags, rows, vertex_offsets, i - 1, j, k - 1, 10),
                    _vertex_on(flags, rows, vertex_offsets, i - 1, j, k, 9), not inside)
        slot += 1
    if (owned & 4) != 0 and i > 0 and j > 0:  # the +z edge: edges 3, 7, 5, 1
        _write_face(indices, quad, slot,
                    _vertex_on(flags, rows, vertex_offsets, i, j, k, 3),
                    _vertex_on(flags, rows, vertex_offsets, i, j - 1, k, 7),
                    _vertex_on(flags, rows, vertex_offsets, i - 1, j - 1, k, 5),
                    _vertex_on(flags, rows, vertex_offsets, i - 1, j, k, 1), inside)


# -- the host side ------------------------------------------------------------------------------------------------


def _exclusive_sums(counts, device):
    """Exclusive prefix sums of ``counts`` (whose last entry is a zero) and their total (a synchronisation)."""
    offsets = wp.empty(counts.shape[0], dtype=wp.int32, device=device)
    array_scan(counts, offsets, inclusive=False)
    return offsets, int(offsets[counts.shape[0] - 1:].numpy()[0])


def surface_nets(field, threshold, lower, spacing, topology: str):
    """``(verts, indices)`` of the ``threshold`` isosurface of a checked ``field``; node (i, j, k) sits at
    ``lower + (i, j, k) * spacing``."""
    device = field.device
    cells = tuple(n - 1 for n in field.shape)
    count = cells[0] * cells[1] * cells[2]
    rows, ambiguous_faces = device_tables(str(device))

    flags = wp.zeros(cells, dtype=wp.int32, device=device)
    # one entry more than cells, left zero: its exclusive sum is the total
    vertex_counts = wp.zeros(count + 1, dtype=wp.int32, device=device)
    quad_counts = wp.zeros(count + 1, dtype=wp.int32, device=device)
    wp.launch(_classify_cells, dim=cells, inputs=[field, threshold, rows, ambiguous_faces],
              outputs=[flags, vertex_counts, quad_counts], device=device)
    vertex_offsets, num_verts = _exclusive_sums(vertex_counts, device)
    quad_offsets, num_quads = _exclusive_sums(quad_counts, device)

    verts = wp.empty(num_verts, dtype=wp.vec3, device=device, requires_grad=field.requires_grad)
    wp.launch(_place_vertices, dim=cells, inputs=[field, threshold, rows, flags, vertex_offsets, lower, spacing],
              outputs=[verts], device=device)
    quad = topology == "quad"
    indices = wp.empty((4 if quad else 6) * num_quads, dtype=wp.int32, device=device)
    wp.launch(_emit_faces, dim=cells, inputs=[flags, rows, vertex_offsets, quad_offsets, quad], outputs=[indices],
              device=device)
    return verts, indices


class IsoSurfaceNets(IsoSurfaceBase):
    """Isosurfaces of a float32 field on a dense grid by surface nets, reusable for fields of one shape.

    Each cell the surface crosses gets one vertex per sheet of the surface in it (most cells: one), at the
    mean of that sheet's edge crossings; each crossed grid edge inside the grid gets one quad joining the
    vertices of its four cells. A surface inside the grid is a closed 2-manifold (each edge in two faces);
    one that leaves the grid is open and may stop short of the grid's boundary. Every vertex is in a face.

    ``topology`` picks the faces: ``"triangle"`` (each quad split into the triangles (0, 1, 2) and
    (0, 2, 3)) or ``"quad"``; :attr:`indices` then holds three or four indices per face. Faces of a signed
    distance field (negative inside) wind counter-clockwise seen from outside. ``lower`` and ``upper``
    place the grid as in :meth:`extract`. Vertex positions are differentiable with respect to the field
    (``wp.Tape``); the topology is not.
    """

    def __init__(self, nx: int, ny: int, nz: int, *, lower=None, upper=None, topology: str = "triangle"):
        validate_topology(topology)
        check_bounds("lower", lower)
        check_bounds("upper", upper)
        super().__init__(nx, ny, nz, lower=lower, upper=upper)
        self.topology = topology

    def surface(self, field, threshold: float) -> None:
        """Extract the ``threshold`` isosurface of ``field`` (shape ``(nx, ny, nz)``) into :attr:`verts` and
        :attr:`indices`, with faces of :attr:`topology`."""
        self._check_field_shape(field)
        self.verts, self.indices = self.extract(field, threshold=threshold, lower=self.lower, upper=self.upper,
                                                topology=self.topology)

    @classmethod
    def extract(cls, field, threshold: float = 0.0, *, lower=None, upper=None, topology: str = "triangle"):
        """``(verts, indices)`` of the ``threshold`` isosurface of ``field`` (a 3-D float32 array).

        Node ``(0, 0, 0)`` maps to ``lower`` (default: the origin) and the last node to ``upper`` (default: its
        indices), each axis scaled on its own. ``indices`` holds three indices per triangle, or four per quad
        with ``topology="quad"``. A field that is not a 3-D array with at least two nodes on each axis, a
        bound that is not three numbers and an unknown ``topology`` raise ``ValueError``; a field that is not
        a brickwork float32 array ``TypeError``.
        """
        validate_field(field)
        validate_topology(topology)
        check_bounds("lower", lower)
        check_bounds("upper", upper)
        low, spacing = resolve_domain_bounds(field.shape, lower, upper)
        return surface_nets(field, float(threshold), low, spacing, topology)

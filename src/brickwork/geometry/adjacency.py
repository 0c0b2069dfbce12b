"""Triangle-triangle adjacency of an indexed triangle mesh, as Warp 1.19's ``warp.geometry.tri_tri_adjacency``.

Each half-edge (local edge ``j`` of triangle ``t``: the edge opposite corner ``j``, id ``3 t + j``) gets the key
``(lo, hi)`` of its two vertex indices in order. A stable sort by that key (by ``hi``, then by ``lo``, ties in
half-edge order) puts the half-edges of one undirected edge next to each other, in increasing id; the first of
each run of equal keys pairs them two by two: the first with the second, the third with the fourth, and so on.
A manifold edge is a run of two; a boundary edge (or the last of an odd run of a non-manifold edge) stays
unpaired (``-1``). The pairing depends only on the input, never on thread timing.
The sort is ``runtime.counting_sort`` on the CPU (a chunk per thread), and ``runtime.device_sort`` on a GPU and
while a graph is captured (its launches are recorded, where the CPU's sort runs at once).

A half-edge with an endpoint outside ``[0, vertex_count)`` is sorted into a bucket of its own past the valid
keys and never paired, so a wrong index cannot write outside the arrays.
"""

from __future__ import annotations

from ..runtime import counting_sort, device_sort
from ..runtime.capture import is_capturing
from ..runtime.warp_names import wp
from ..sparse.topology import native_cpu
from ..types.arrays import type_name

int32 = wp.int32


@wp.kernel(enable_backward=False)
def _index_range(tri: wp.array2d(dtype=int32), bounds: wp.array(dtype=int32)):
    # bounds = (smallest index, largest index), seeded by _seed_range
    t = wp.tid()
    for j in range(3):
        wp.atomic_min(bounds, 0, tri[t, j])
        wp.atomic_max(bounds, 1, tri[t, j])


@wp.kernel(enable_backward=False)
def _seed_range(tri: wp.array2d(dtype=int32), bounds: wp.array(dtype=int32)):
    bounds[0] = tri[0, 0]
    bounds[1] = tri[0, 0]


@wp.kernel(enable_backward=False)
def _half_edge_keys(tri: wp.array2d(dtype=int32), vertex_count: int32, lo: wp.array(dtype=int32),
                    hi: wp.array(dtype=int32)):
    t = wp.tid()
    for j in range(3):
        v1 = tri[t, (j + 1) % 3]
        v2 = tri[t, (j + 2) % 3]
        a = wp.min(v1, v2)
        b = wp.max(v1, v2)
        if a < 0 or b >= vertex_count:
            # out of range: a bucket of its own after every valid key, never paired
            a = vertex_count
            b = 0
        lo[3 * t + j] = a
        hi[3 * t + j] = b


@wp.kernel(enable_backward=False)
def _gather(order: wp.array(dtype=int32), lo: wp.array(dtype=int32), hi: wp.array(dtype=int32),
            sorted_lo: wp.array(dtype=int32), sorted_hi: wp.array(dtype=int32)):
    p = wp.tid()
    sorted_lo[p] = lo[order[p]]
    sorted_hi[p] = hi[order[p]]


@wp.kernel(enable_backward=False)
def _fill_unpaired(neighbors: wp.array2d(dtype=int32), edges: wp.array2d(dtype=int32), with_edges: int32):
    t = wp.tid()
    for j in range(3):
        neighbors[t, j] = -1
        if with_edges != 0:
            edges[t, j] = -1


@wp.func
def _same_key(lo: wp.array(dtype=int32), hi: wp.array(dtype=int32), p: int32, q: int32) -> bool:
    return lo[p] == lo[q] and hi[p] == hi[q]


@wp.kernel(enable_backward=False)
def _pair_runs(lo: wp.array(dtype=int32), hi: wp.array(dtype=int32), order: wp.array(dtype=int32), n: int32,
               vertex_count: int32, neighbors: wp.array2d(dtype=int32), edges: wp.array2d(dtype=int32),
               with_edges: int32):
    # the thread at the head of a run of equal keys pairs its half-edges two by two, in sorted (id) order
    p = wp.tid()
    if lo[p] == vertex_count:
        return
    if p > 0:
        if _same_key(lo, hi, p - 1, p):
            return
    q = p
    while q + 1 < n:
        if not _same_key(lo, hi, p, q + 1):
            break
        ha = order[q]
        hb = order[q + 1]
        ta = ha // 3
        ja = ha % 3
        tb = hb // 3
        jb = hb % 3
        neighbors[ta, ja] = tb
        neighbors[tb, jb] = ta
        if with_edges != 0:
            edges[ta, ja] = jb
            edges[tb, jb] = ja
        q = q + 2
        if q >= n:
            break
        if not _same_key(lo, hi, p, q):
            break


def check_indices(where: str, indices) -> None:
    """Refuse ``indices`` that are not a ``(num_tris, 3)`` int32 array."""
    if not isinstance(indices, wp.array):
        raise TypeError(f"{where}: indices must be a wp.array of int32, got {type(indices).__name__}")
    if indices.ndim != 2 or indices.shape[1] != 3:
        raise ValueError(f"{where}: indices must be a (num_tris, 3) array of triangle vertex indices, got shape "
                         f"{tuple(indices.shape)}")
    if indices.dtype is not int32:
        raise TypeError(f"{where}: indices must hold int32 vertex indices, got {type_name(indices.dtype)}")


def _launcher(device):
    def run(kernel, dim, *inputs):
        wp.launch(kernel, dim, inputs=list(inputs), device=device, record_tape=False)

    return run


def _work(device):
    """``work(name, shape)``: int32 arrays on ``device``, one per name (the sort's scratch)."""
    arrays: dict = {}

    def get(name, shape):
        key = (name, tuple(shape))
        if key not in arrays:
            arrays[key] = wp.empty(shape, dtype=int32, device=device)
        return arrays[key]

    return get


def _inferred_vertex_count(indices, run) -> int:
    """One plus the largest vertex index (read back to the host, as Warp does); a negative index is refused."""
    if is_capturing():
        raise RuntimeError("tri_tri_adjacency: vertex_count must be given while a graph is being captured (inferring "
                           "it reads the largest vertex index back to the host)")
    bounds = wp.empty(2, dtype=int32, device=indices.device)
    run(_seed_range, 1, indices, bounds)
    run(_index_range, indices.shape[0], indices, bounds)
    smallest, largest = (int(v) for v in bounds.numpy())
    if smallest < 0:
        raise ValueError(f"tri_tri_adjacency: vertex indices must be non-negative, got {smallest}")
    return largest + 1


def _check_count(vertex_count) -> int:
    if isinstance(vertex_count, bool) or not isinstance(vertex_count, int) and not hasattr(vertex_count, "__index__"):
        raise TypeError(f"tri_tri_adjacency: vertex_count must be an integer or None, got "
                        f"{type(vertex_count).__name__}")
    count = int(vertex_count.__index__())
    if not 0 <= count < 2**31 - 1:
        raise ValueError(f"tri_tri_adjacency: vertex_count must be in [0, 2**31 - 1), got {count}")
    return count


def tri_tri_adjacency(indices, vertex_count: int | None = None, return_neighbor_edge_indices: bool = True):
    """The triangle across each edge of each triangle of a mesh.

    - indices: a ``(num_tris, 3)`` int32 array of vertex indices. Orientation need not be consistent.
    - vertex_count: the number of vertices; ``None`` reads one plus the largest index back from the device
      (refused while a graph is captured). Edges with an endpoint outside ``[0, vertex_count)`` stay unpaired.
    - return_neighbor_edge_indices: also return, for each edge, its local index in the neighbouring triangle.

    Returns ``triangle_neighbors`` (``(num_tris, 3)`` int32, on the device of ``indices``), and with
    ``return_neighbor_edge_indices`` the tuple ``(triangle_neighbors, neighbor_edge_indices)``.
    ``triangle_neighbors[t, j]`` is the triangle sharing the edge of ``t`` opposite its corner ``j`` (the edge
    of corners ``(j + 1) % 3`` and ``(j + 2) % 3``), or ``-1`` on a boundary edge; ``neighbor_edge_indices[t, j]``
    is that edge's local index in the neighbour (``-1`` on a boundary). An edge of more than two triangles
    pairs them in triangle order (first with second, third with fourth); an odd one out has ``-1``.
    """
    check_indices("tri_tri_adjacency", indices)
    device = indices.device
    run = _launcher(device)
    num_tris = indices.shape[0]
    with_edges = bool(return_neighbor_edge_indices)
    neighbors = wp.empty((num_tris, 3), dtype=int32, device=device)
    edges = wp.empty((num_tris, 3) if with_edges else (0, 3), dtype=int32, device=device)
    if vertex_count is not None:
        vertex_count = _check_count(vertex_count)
    if num_tris > 0:
        if vertex_count is None:
            vertex_count = _inferred_vertex_count(indices, run)
        pair_half_edges(indices, vertex_count, neighbors, edges if with_edges else None)
    return (neighbors, edges) if with_edges else neighbors


def pair_half_edges(indices, vertex_count: int, neighbors, edges=None) -> None:
    """Write the adjacency of the ``(num_tris, 3)`` int32 ``indices`` into ``neighbors`` (and the neighbour's
    local edge into ``edges`` unless None): launches only, so that it can be captured in a graph."""
    device = indices.device
    run = _launcher(device)
    n = 3 * indices.shape[0]
    with_edges = int32(0 if edges is None else 1)
    if edges is None:
        edges = wp.empty((0, 3), dtype=int32, device=device)
    run(_fill_unpaired, indices.shape[0], neighbors, edges, with_edges)
    if n == 0:
        return
    work = _work(device)
    lo, hi = work("lo", (n,)), work("hi", (n,))
    run(_half_edge_keys, indices.shape[0], indices, int32(vertex_count), lo, hi)
    order, sorted_lo, sorted_hi = work("order", (n,)), work("sorted_lo", (n,)), work("sorted_hi", (n,))
    if native_cpu(device) and not is_capturing():
        # the CPU's sort: 16-bit digits
        digits = [0] if vertex_count < 2**16 else [0, 16]
        passes = [(hi, counting_sort.DIGIT, s) for s in digits] + [(lo, counting_sort.DIGIT, s) for s in digits]
        counting_sort.sort(passes, n, order, work)
        run(_gather, n, order, lo, hi, sorted_lo, sorted_hi)
    else:
        plan = device_sort.GPU
        passes = [(1, s) for s in plan.digits(vertex_count)] + [(0, s) for s in plan.digits(vertex_count + 1)]
        device_sort.sort([lo, hi], passes, n, order, [sorted_lo, sorted_hi], work, run, plan)
    run(_pair_runs, n, sorted_lo, sorted_hi, order, int32(n), int32(vertex_count), neighbors, edges, with_edges)

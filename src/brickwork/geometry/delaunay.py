"""Delaunay edge flips of a 2-D triangulation, as Warp 1.19's ``warp.geometry.delaunay_edge_flip``, with the
kernel functions ``signed_area``, ``in_circle`` and ``find_triangle_neighbor_edge_index`` and the adjacency
builder ``tri_tri_adjacency`` (defined in ``adjacency.py``).

The flips run in passes, every step a kernel on the data's device. In a pass, each interior edge that should
flip (its quad is convex, the opposite apex lies inside the circumcircle, and the optional reference
configuration stays non-degenerate) claims the four triangle rows a flip reads or rewrites: its two triangles
and their neighbours across the two edges that change hands. A claim is an ``atomic_max`` of the edge's
priority; an edge flips only if it holds all four of its rows, so the flips of one pass touch disjoint rows
and run in parallel without races. The outcome depends only on the input (a maximum does not depend on the
order of the atomics), so the triangulation is the same on every run and device.

Priorities are a bijective hash of the half-edge id ``3 t + j`` (never 0, the "unclaimed" value): ids in
triangle order would let chains of conflicting edges on meshes numbered row by row resolve one edge per pass.
"""

from __future__ import annotations

import math

from ..runtime.capture import capture_while, is_capturing
from ..runtime.warp_names import wp
from ..types.arrays import type_name
from .adjacency import check_indices, pair_half_edges, tri_tri_adjacency

__all__ = ["delaunay_edge_flip", "find_triangle_neighbor_edge_index", "in_circle", "signed_area",
           "tri_tri_adjacency"]

int32, uint32, vec2 = wp.int32, wp.uint32, wp.vec2


@wp.func
def signed_area(a: wp.vec2, b: wp.vec2, c: wp.vec2) -> float:
    """The signed area of triangle ``abc``: positive when its corners run counter-clockwise."""
    return 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


@wp.func
def _circle_det(a: wp.vec2, b: wp.vec2, c: wp.vec2, d: wp.vec2) -> float:
    # the in-circle determinant of d against the counter-clockwise triangle abc, with d moved to the origin:
    # positive inside the circumcircle, zero on it, negative outside
    p = a - d
    q = b - d
    r = c - d
    pp = wp.dot(p, p)
    qq = wp.dot(q, q)
    rr = wp.dot(r, r)
    return p[0] * (q[1] * rr - r[1] * qq) - p[1] * (q[0] * rr - r[0] * qq) + pp * (q[0] * r[1] - q[1] * r[0])


@wp.func
def in_circle(a: wp.vec2, b: wp.vec2, c: wp.vec2, d: wp.vec2) -> bool:
    """Whether ``d`` lies strictly inside the circumcircle of the counter-clockwise triangle ``abc`` (the
    floating-point determinant, not an exact predicate)."""
    return _circle_det(a, b, c, d) > 0.0


@wp.func
def find_triangle_neighbor_edge_index(triangle_neighbors: wp.array2d(dtype=wp.int32), triangle: wp.int32,
                                      neighbor: wp.int32) -> wp.int32:
    """The local edge ``j`` of ``triangle`` with ``triangle_neighbors[triangle, j] == neighbor``, or -1 if the
    two are not adjacent (``triangle_neighbors`` as :func:`tri_tri_adjacency` builds it)."""
    for j in range(3):
        if triangle_neighbors[triangle, j] == neighbor:
            return j
    return -1


@wp.func
def _priority(t: wp.int32, j: wp.int32) -> wp.uint32:
    # odd multiplier and xor-shift: both bijections of uint32 that keep 0 at 0, so nonzero keys stay unique
    # and nonzero, and the order of the priorities no longer follows the triangle numbering
    x = wp.uint32(3 * t + j + 1) * wp.uint32(0x9E3779B1)
    return x ^ (x >> wp.uint32(15))


@wp.func
def _claim(claim: wp.array(dtype=wp.uint32), t: wp.int32, prio: wp.uint32):
    if t >= 0:
        wp.atomic_max(claim, t, prio)


@wp.func
def _in_range(v: wp.int32, count: wp.int32) -> bool:
    return v >= 0 and v < count


@wp.kernel(enable_backward=False)
def _check_vertices(tri: wp.array2d(dtype=wp.int32), vertex_count: wp.int32, state: wp.array(dtype=wp.int32)):
    # state = (flips this pass, total flips, passes, loop condition, bad index); this kernel sets the last
    t = wp.tid()
    for j in range(3):
        if not _in_range(tri[t, j], vertex_count):
            state[4] = 1


@wp.kernel(enable_backward=False)
def _start(state: wp.array(dtype=wp.int32)):
    for i in range(5):
        state[i] = 0
    state[3] = 1


@wp.kernel(enable_backward=False)
def _clear_claims(claim: wp.array(dtype=wp.uint32), state: wp.array(dtype=wp.int32)):
    t = wp.tid()
    claim[t] = wp.uint32(0)
    if t == 0:
        state[0] = 0


@wp.func
def _should_flip(tri: wp.array2d(dtype=wp.int32), pos: wp.array(dtype=wp.vec2), ref: wp.array(dtype=wp.vec2),
                 has_ref: wp.int32, area_eps: float, ref_eps: float, t: wp.int32, j: wp.int32, n: wp.int32,
                 jn: wp.int32) -> bool:
    # t = (c, a, b) with the shared edge ab opposite c, n holds d opposite it: the flip makes (c, a, d), (c, d, b)
    c = tri[t, j]
    a = tri[t, (j + 1) % 3]
    b = tri[t, (j + 2) % 3]
    d = tri[n, jn]
    # both new triangles counter-clockwise (the quad is convex), with at least the minimum area
    if signed_area(pos[c], pos[a], pos[d]) <= area_eps or signed_area(pos[c], pos[d], pos[b]) <= area_eps:
        return False
    if _circle_det(pos[c], pos[a], pos[b], pos[d]) <= 0.0:
        return False
    if has_ref != 0:
        if wp.abs(signed_area(ref[c], ref[a], ref[d])) <= ref_eps:
            return False
        if wp.abs(signed_area(ref[c], ref[d], ref[b])) <= ref_eps:
            return False
    return True


@wp.kernel(enable_backward=False)
def _stake_claims(tri: wp.array2d(dtype=wp.int32), nbr: wp.array2d(dtype=wp.int32), pos: wp.array(dtype=wp.vec2),
                  ref: wp.array(dtype=wp.vec2), has_ref: wp.int32, area_eps: float, ref_eps: float,
                  claim: wp.array(dtype=wp.uint32), state: wp.array(dtype=wp.int32)):
    t = wp.tid()
    if state[4] != 0:  # an index out of range: no flip reads a position
        return
    for j in range(3):
        n = nbr[t, j]
        if n > t:  # each interior edge once, from its lower triangle
            jn = find_triangle_neighbor_edge_index(nbr, n, t)
            if jn >= 0:
                if _should_flip(tri, pos, ref, has_ref, area_eps, ref_eps, t, j, n, jn):
                    prio = _priority(t, j)
                    _claim(claim, t, prio)
                    _claim(claim, n, prio)
                    _claim(claim, nbr[t, (j + 1) % 3], prio)
                    _claim(claim, nbr[n, (jn + 1) % 3], prio)


@wp.func
def _owns(claim: wp.array(dtype=wp.uint32), t: wp.int32, prio: wp.uint32) -> bool:
    return t < 0 or claim[t] == prio


@wp.kernel(enable_backward=False)
def _flip_owned(tri: wp.array2d(dtype=wp.int32), nbr: wp.array2d(dtype=wp.int32), claim: wp.array(dtype=wp.uint32),
                state: wp.array(dtype=wp.int32)):
    t = wp.tid()
    for j in range(3):
        prio = _priority(t, j)
        # only the edge that owns row t reads it: other flips of this pass may be rewriting rows they own
        if claim[t] == prio:
            n = nbr[t, j]
            if n > t and claim[n] == prio:
                jn = find_triangle_neighbor_edge_index(nbr, n, t)
                j1 = (j + 1) % 3
                jn1 = (jn + 1) % 3
                n_bc = nbr[t, j1]  # across edge bc of t, which moves to n
                n_ad = nbr[n, jn1]  # across edge ad of n, which moves to t
                if jn >= 0 and _owns(claim, n_bc, prio) and _owns(claim, n_ad, prio):
                    c = tri[t, j]
                    d = tri[n, jn]
                    # t: (c, a, b) -> (c, a, d); n: (d, b, a) -> (d, b, c); corner slots keep their places
                    tri[t, (j + 2) % 3] = d
                    tri[n, (jn + 2) % 3] = c
                    nbr[t, j] = n_ad
                    nbr[t, j1] = n
                    nbr[n, jn] = n_bc
                    nbr[n, jn1] = t
                    if n_ad >= 0:
                        nbr[n_ad, find_triangle_neighbor_edge_index(nbr, n_ad, n)] = t
                    if n_bc >= 0:
                        nbr[n_bc, find_triangle_neighbor_edge_index(nbr, n_bc, t)] = n
                    wp.atomic_add(state, 0, 1)


@wp.kernel(enable_backward=False)
def _end_pass(max_passes: wp.int32, state: wp.array(dtype=wp.int32)):
    state[1] = state[1] + state[0]
    state[2] = state[2] + 1
    if state[0] > 0 and state[2] < max_passes and state[4] == 0:
        state[3] = 1
    else:
        state[3] = 0


@wp.kernel(enable_backward=False)
def _copy_total(state: wp.array(dtype=wp.int32), total: wp.array(dtype=wp.int32)):
    total[0] = state[1]


def _check_positions(name: str, value, device) -> None:
    if not isinstance(value, wp.array):
        raise TypeError(f"delaunay_edge_flip: {name} must be a wp.array of wp.vec2, got {type(value).__name__}")
    if value.dtype is not vec2 or value.ndim != 1:
        raise TypeError(f"delaunay_edge_flip: {name} must be a one-dimensional array of wp.vec2 (float32), got "
                        f"{value.ndim} dimension(s) of {type_name(value.dtype)}")
    if value.device != device:
        raise ValueError(f"delaunay_edge_flip: {name} and indices must be on the same device, got {value.device} "
                         f"and {device}")


def _check_epsilon(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise TypeError(f"delaunay_edge_flip: {name} must be a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value) or value < 0.0:
        raise ValueError(f"delaunay_edge_flip: {name} must be a finite, non-negative number, got {value}")
    return value


def _check_passes(value) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"delaunay_edge_flip: max_passes must be an integer, got {type(value).__name__}")
    value = int(value.__index__())
    if not 1 <= value < 2**31:
        raise ValueError(f"delaunay_edge_flip: max_passes must be at least 1 (and below 2**31), got {value}")
    return value


def delaunay_edge_flip(positions, indices, ref_positions=None, max_passes: int = 1000, area_epsilon: float = 0.0,
                       ref_area_epsilon: float = 1.0e-10):
    """Flip the interior edges of a 2-D triangulation, in place, until every one is Delaunay (or no flip is
    allowed, or ``max_passes`` passes have run).

    - positions: the ``(vertex_count,)`` ``wp.vec2`` vertex positions (not changed).
    - indices: the ``(num_tris, 3)`` int32 triangles, counter-clockwise, a manifold mesh; rewritten in place.
    - ref_positions: optional reference positions (``wp.vec2``, one per vertex): a flip that would make a
      triangle of area at most ``ref_area_epsilon`` in this configuration is not made.
    - max_passes: the most passes (at least 1); each flips a set of edges whose flips do not overlap.
    - area_epsilon: the smallest signed area each triangle a flip makes must exceed (finite, non-negative);
      a flip whose quad is not convex is never made.
    - ref_area_epsilon: the degeneracy threshold of ``ref_positions`` (finite, non-negative).

    Returns a ``(1,)`` int32 array on the device of ``indices``: the number of flips made (read it after the
    graph's replay when the call is captured). An index outside ``[0, vertex_count)`` is a ``ValueError``
    raised before anything changes (under graph capture, where it cannot be read back, nothing flips).
    """
    check_indices("delaunay_edge_flip", indices)
    device = indices.device
    _check_positions("positions", positions, device)
    if ref_positions is not None:
        _check_positions("ref_positions", ref_positions, device)
        if ref_positions.shape != positions.shape:
            raise ValueError(f"delaunay_edge_flip: ref_positions must hold one position per vertex "
                             f"({positions.shape[0]}), got {ref_positions.shape[0]}")
    passes = _check_passes(max_passes)
    area_eps = _check_epsilon("area_epsilon", area_epsilon)
    ref_eps = _check_epsilon("ref_area_epsilon", ref_area_epsilon)

    def run(kernel, dim, *inputs):
        wp.launch(kernel, dim, inputs=list(inputs), device=device, record_tape=False)

    total = wp.empty(1, dtype=int32, device=device)
    state = wp.empty(5, dtype=int32, device=device)
    run(_start, 1, state)
    num_tris = indices.shape[0]
    if num_tris == 0:
        run(_copy_total, 1, state, total)
        return total
    vertex_count = positions.shape[0]
    run(_check_vertices, num_tris, indices, int32(vertex_count), state)
    if not is_capturing() and int(state.numpy()[4]):
        raise ValueError(f"delaunay_edge_flip: indices must lie in [0, {vertex_count}) (one per position)")
    nbr = wp.empty((num_tris, 3), dtype=int32, device=device)
    pair_half_edges(indices, vertex_count, nbr)
    claim = wp.empty(num_tris, dtype=uint32, device=device)
    has_ref = int32(0 if ref_positions is None else 1)
    ref = positions if ref_positions is None else ref_positions

    def flip_pass():
        run(_clear_claims, num_tris, claim, state)
        run(_stake_claims, num_tris, indices, nbr, positions, ref, has_ref, area_eps, ref_eps, claim, state)
        run(_flip_owned, num_tris, indices, nbr, claim, state)
        run(_end_pass, 1, int32(passes), state)

    # state[3] is the loop's condition: read back once per pass, or tested at each replay of a captured graph
    capture_while(state[3:4], flip_pass)
    run(_copy_total, 1, state, total)
    return total

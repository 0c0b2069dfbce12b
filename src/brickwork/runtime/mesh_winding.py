"""The fast winding number of a ``wp.Mesh`` built with ``support_winding_number=True``: per tree node, the
moments of its triangles that approximate their solid angle far from them (Barill et al. 2018), computed by
kernels on the mesh's device at construction and at each refit.

A triangle's solid angle seen from ``q`` is the integral over it of ``(x - q) . n / |x - q|^3``; about a
centre ``c`` its Taylor series in ``y = x - c`` needs, per node, the area-weighted normal ``N_i`` (the integral
of ``n_i``), ``N_ij`` (of ``n_i y_j``) and ``N_ijk`` (of ``n_i y_j y_k``, symmetric in ``jk``). ``c`` is the
area-weighted centroid of the node's triangles (its box's centre if they have no area), ``r2`` the squared
distance from ``c`` to the farthest corner of the node's box. A triangle about its own centroid has
``N_ij = 0`` and ``N_ijk = N_i C_jk / area``, ``C`` the integral of ``y y^T`` over it, which is ``area / 12`` times
the sum over its corners ``e`` (relative to the centroid) of ``e e^T``; moments move to another centre by the
binomial expansion of ``(y + d)``. Leaves sum their triangles' moments, inner nodes their children's (a pass
per level on a GPU, one descending pass on the CPU, as ``bvh_refit``). The query walk is
``mesh_detail::fast_winding_number`` in ``include/brickwork_bvh.h``.

Each node's record, ``RECORD`` float32 (144 bytes): ``c`` (0-2), ``r2`` (3), ``N`` (4-6), the area (7),
``N_ij`` row-major (8-16), ``N_ijk`` for ``i`` = x, y, z, each its six ``jk`` = xx, yy, zz, xy, xz, yz (17-34),
one unused.
"""

from __future__ import annotations

import numpy as np

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.arrays import array, array2d
from ..types.composite import matrix, vector
from ..types.scalars import float32, int32, int64
from .bvh_build import PARALLEL_MIN
from .launch import launch_now

_vec3, _mat33 = vector(3, float32), matrix((3, 3), float32)
_tid, _cross, _length, _dot, _outer = (_FUNCTIONS[name] for name in ("tid", "cross", "length", "dot", "outer"))

#: Floats per node (``bw::mesh_detail::WINDING_RECORD`` in the header).
RECORD = 36
#: On the CPU a tree of at most this many leaves takes one launch (one thread: leaves, then inner nodes); a
#: larger one computes its leaves in parallel first (a launch costs tens of microseconds, a leaf's moments less
#: than one, and a parallel launch risks a wait for a descheduled thread: ``bvh_build.PARALLEL_MIN``).
ONE_LAUNCH = PARALLEL_MIN
_C, _R2, _N, _AREA, _NIJ, _NIJK = 0, 3, 4, 7, 8, 17


@func
def _corner(points: array(dtype=_vec3), indices: array(dtype=int32), f: int32, k: int32):
    return points[indices[int64(3) * int64(f) + int64(k)]]


@func
def _get3(w: array2d(dtype=float32), node: int32, at: int32):
    return _vec3(w[node, at], w[node, at + 1], w[node, at + 2])


@func
def _put3(w: array2d(dtype=float32), node: int32, at: int32, v: _vec3):
    for c in range(3):
        w[node, at + c] = v[c]


@func
def _get_sym(w: array2d(dtype=float32), node: int32, at: int32):
    # a symmetric matrix stored as xx, yy, zz, xy, xz, yz
    return _mat33(w[node, at], w[node, at + 3], w[node, at + 4], w[node, at + 3], w[node, at + 1], w[node, at + 5],
                  w[node, at + 4], w[node, at + 5], w[node, at + 2])


@func
def _put_sym(w: array2d(dtype=float32), node: int32, at: int32, m: _mat33):
    for c in range(3):
        w[node, at + c] = m[c, c]
    w[node, at + 3] = m[0, 1]
    w[node, at + 4] = m[0, 2]
    w[node, at + 5] = m[1, 2]


@func
def _finish(node: int32, area: float32, weighted: _vec3, n: _vec3, w: array2d(dtype=float32),
            node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # the node's centre (the area-weighted centroid; its box's centre without area), r2, N and the area
    lo = _vec3(node_lowers[node, 0], node_lowers[node, 1], node_lowers[node, 2])
    hi = _vec3(node_uppers[node, 0], node_uppers[node, 1], node_uppers[node, 2])
    c = weighted / area if area > float32(0.0) else (lo + hi) * float32(0.5)
    e = _vec3(max(c[0] - lo[0], hi[0] - c[0]), max(c[1] - lo[1], hi[1] - c[1]), max(c[2] - lo[2], hi[2] - c[2]))
    _put3(w, node, _C, c)
    w[node, _R2] = _dot(e, e)
    _put3(w, node, _N, n)
    w[node, _AREA] = area
    w[node, RECORD - 1] = float32(0.0)
    return c


@func
def _store_moments(w: array2d(dtype=float32), node: int32, nij: _mat33, t0: _mat33, t1: _mat33, t2: _mat33):
    for i in range(3):
        _put3(w, node, _NIJ + 3 * i, nij[i])
    _put_sym(w, node, _NIJK, t0)
    _put_sym(w, node, _NIJK + 6, t1)
    _put_sym(w, node, _NIJK + 12, t2)


@func
def _leaf(node: int32, first: array(dtype=int32), last: array(dtype=int32), order: array(dtype=int32),
          points: array(dtype=_vec3), indices: array(dtype=int32), w: array2d(dtype=float32),
          node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # sums in locals: `w[...] += x` would be an atomic add (as in Warp)
    start = -(first[node] + 1)
    end = last[node]
    area = float32(0.0)
    weighted = _vec3()
    n = _vec3()
    for s in range(start, end):  # the area, area-weighted centroids and normals
        f = order[s]
        a = _corner(points, indices, f, 0)
        b = _corner(points, indices, f, 1)
        c3 = _corner(points, indices, f, 2)
        nt = _cross(b - a, c3 - a) * float32(0.5)
        at = _length(nt)
        area += at
        weighted += at * ((a + b + c3) / float32(3.0))
        n += nt
    c = _finish(node, area, weighted, n, w, node_lowers, node_uppers)
    nij = _mat33()
    t0 = _mat33()
    t1 = _mat33()
    t2 = _mat33()
    for s in range(start, end):  # the triangles' moments about the node's centre
        f = order[s]
        a = _corner(points, indices, f, 0)
        b = _corner(points, indices, f, 1)
        c3 = _corner(points, indices, f, 2)
        nt = _cross(b - a, c3 - a) * float32(0.5)
        p = (a + b + c3) / float32(3.0)
        d = p - c
        m = (_outer(a - p, a - p) + _outer(b - p, b - p) + _outer(c3 - p, c3 - p)) / float32(12.0) + _outer(d, d)
        nij += _outer(nt, d)
        t0 += nt[0] * m
        t1 += nt[1] * m
        t2 += nt[2] * m
    _store_moments(w, node, nij, t0, t1, t2)


@func
def _moved(w: array2d(dtype=float32), ch: int32, i: int32, d: _vec3, nij: _mat33):
    # a child's N_ijk for one i (a symmetric matrix in jk) moved by d: + N_ij d_k + N_ik d_j + N_i d_j d_k
    row = nij[i]
    return (_get_sym(w, ch, _NIJK + 6 * i) + _outer(row, d) + _outer(d, row) + w[ch, _N + i] * _outer(d, d))


@func
def _join(node: int32, first: array(dtype=int32), last: array(dtype=int32), w: array2d(dtype=float32),
          node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # an inner node's moments from its two children's, moved to its centre
    a = first[node]
    b = last[node]
    area = w[a, _AREA] + w[b, _AREA]
    weighted = w[a, _AREA] * _get3(w, a, _C) + w[b, _AREA] * _get3(w, b, _C)
    c = _finish(node, area, weighted, _get3(w, a, _N) + _get3(w, b, _N), w, node_lowers, node_uppers)
    nij = _mat33()
    t0 = _mat33()
    t1 = _mat33()
    t2 = _mat33()
    for h in range(2):
        ch = a if h == 0 else b
        d = _get3(w, ch, _C) - c
        cij = _mat33(w[ch, _NIJ], w[ch, _NIJ + 1], w[ch, _NIJ + 2], w[ch, _NIJ + 3], w[ch, _NIJ + 4],
                     w[ch, _NIJ + 5], w[ch, _NIJ + 6], w[ch, _NIJ + 7], w[ch, _NIJ + 8])
        nij += cij + _outer(_get3(w, ch, _N), d)
        t0 += _moved(w, ch, 0, d, cij)
        t1 += _moved(w, ch, 1, d, cij)
        t2 += _moved(w, ch, 2, d, cij)
    _store_moments(w, node, nij, t0, t1, t2)


@kernel(enable_backward=False)
def _leaves(leaves: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
            order: array(dtype=int32), points: array(dtype=_vec3), indices: array(dtype=int32),
            w: array2d(dtype=float32), node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    _leaf(leaves[_tid()], first, last, order, points, indices, w, node_lowers, node_uppers)


@kernel(enable_backward=False)
def _leaf_nodes(first: array(dtype=int32), last: array(dtype=int32), order: array(dtype=int32),
                points: array(dtype=_vec3), indices: array(dtype=int32), w: array2d(dtype=float32),
                node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # one thread per node of a tree built on its device: the leaves' moments
    node = _tid()
    if first[node] < 0:
        _leaf(node, first, last, order, points, indices, w, node_lowers, node_uppers)


@kernel(enable_backward=False)
def _inner(inner: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
           w: array2d(dtype=float32), node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # one thread over the inner nodes in descending id order: children before their parents
    for k in range(inner.shape[0]):
        _join(inner[k], first, last, w, node_lowers, node_uppers)


@kernel(enable_backward=False)
def _whole(leaves: array(dtype=int32), inner: array(dtype=int32), first: array(dtype=int32),
           last: array(dtype=int32), order: array(dtype=int32), points: array(dtype=_vec3), indices: array(dtype=int32),
           w: array2d(dtype=float32), node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # one thread: the leaves, then the inner nodes (a small tree's moments in one launch)
    for k in range(leaves.shape[0]):
        _leaf(leaves[k], first, last, order, points, indices, w, node_lowers, node_uppers)
    for k in range(inner.shape[0]):
        _join(inner[k], first, last, w, node_lowers, node_uppers)


@kernel(enable_backward=False)
def _level(nodes: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
           w: array2d(dtype=float32), node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    _join(nodes[_tid()], first, last, w, node_lowers, node_uppers)


@kernel(enable_backward=False)
def _level_range(base: int32, first: array(dtype=int32), last: array(dtype=int32), w: array2d(dtype=float32),
                 node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    node = base + _tid()
    if first[node] >= 0:
        _join(node, first, last, w, node_lowers, node_uppers)


def allocate(storage, num_nodes: int) -> None:
    """The node records' table (``winding`` in the descriptor) in the tree's storage, sized for ``num_nodes``."""
    if storage.device.is_cpu:
        old = storage.tables.get("winding")
        if old is None or old.shape != (num_nodes, RECORD):
            storage.put("winding", np.zeros((num_nodes, RECORD), np.float32))
    else:
        storage.reserve("winding", 4 * RECORD * num_nodes)


def compute(storage, tree, points: array, indices: array, tables: dict | None = None) -> None:
    """Every node's record from the mesh's current ``points`` and the node bounds in ``storage`` (refit first),
    by launches on the storage's device: on the CPU one pass over the inner nodes (after the leaves, in the same
    launch for a tree of at most ``ONE_LAUNCH`` leaves), elsewhere one launch per
    level of ``tables`` (``tree.tables_on(device)``: its ``levels`` of node ids, or the ``ranges`` of a tree
    built on its device). ``tables`` given, the per-level form runs on any device (the GPU's mapping, tested
    on the CPU)."""
    device = storage.device
    w = storage.view("winding", (-1, RECORD))
    boxes = storage.view("node_lowers", (-1, 4)), storage.view("node_uppers", (-1, 4))
    mesh = (points, indices, w, *boxes)
    if tables is None and device.is_cpu:
        t = tree.kernel_tables
        if t["leaves"].shape[0] <= ONE_LAUNCH:
            launch_now(_whole, 1, device, t["leaves"], t["inner"], t["first"], t["last"], t["order"], *mesh)
            return
        launch_now(_leaves, t["leaves"].shape[0], device, t["leaves"], t["first"], t["last"], t["order"], *mesh)
        launch_now(_inner, 1, device, t["inner"], t["first"], t["last"], w, *boxes)
        return
    t = tree.tables_on(device) if tables is None else tables
    links = (t["first"], t["last"])
    if "ranges" in t:  # a tree built on its device: each level a range of node ids
        launch_now(_leaf_nodes, t["num_nodes"], device, *links, t["order"], *mesh)
        for a, b in t["ranges"]:
            launch_now(_level_range, b - a, device, a, *links, w, *boxes)
        return
    launch_now(_leaves, t["leaves"].shape[0], device, t["leaves"], *links, t["order"], *mesh)
    for level in t["levels"]:
        launch_now(_level, level.shape[0], device, level, *links, w, *boxes)

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
from ..types.composite import vector
from ..types.scalars import float32, int32, int64
from .launch import launch_now

_vec3 = vector(3, float32)
_tid, _cross, _length = _FUNCTIONS["tid"], _FUNCTIONS["cross"], _FUNCTIONS["length"]

#: Floats per node (``bw::mesh_detail::WINDING_RECORD`` in the header).
RECORD = 36
_C, _R2, _N, _AREA, _NIJ, _NIJK = 0, 3, 4, 7, 8, 17


@func
def _pair_j(s: int32):
    # the first index of symmetric pair s: xx, yy, zz, xy, xz, yz
    return s if s < 3 else (0 if s < 5 else 1)


@func
def _pair_k(s: int32):
    return s if s < 3 else (1 if s == 3 else 2)


@func
def _corner(points: array(dtype=_vec3), indices: array(dtype=int32), f: int32, k: int32):
    return points[indices[int64(3) * int64(f) + int64(k)]]


@func
def _finish(node: int32, w: array2d(dtype=float32), node_lowers: array2d(dtype=float32),
            node_uppers: array2d(dtype=float32)):
    # the centre (area-weighted sum / area, held in c; the box's centre without area) and r2
    area = w[node, _AREA]
    r2 = float32(0.0)
    for c in range(3):
        lo = node_lowers[node, c]
        hi = node_uppers[node, c]
        x = w[node, _C + c] / area if area > float32(0.0) else (lo + hi) * float32(0.5)
        w[node, _C + c] = x
        e = max(x - lo, hi - x)
        r2 += e * e
    w[node, _R2] = r2


@func
def _leaf(node: int32, first: array(dtype=int32), last: array(dtype=int32), order: array(dtype=int32),
          points: array(dtype=_vec3), indices: array(dtype=int32), w: array2d(dtype=float32),
          node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    start = -(first[node] + 1)
    end = last[node]
    for k in range(RECORD):
        w[node, k] = float32(0.0)
    for s in range(start, end):  # the area, area-weighted centroids and normals
        f = order[s]
        a = _corner(points, indices, f, 0)
        b = _corner(points, indices, f, 1)
        c3 = _corner(points, indices, f, 2)
        n = _cross(b - a, c3 - a) * float32(0.5)
        area = _length(n)
        p = (a + b + c3) / float32(3.0)
        w[node, _AREA] += area
        for c in range(3):
            w[node, _C + c] += area * p[c]
            w[node, _N + c] += n[c]
    _finish(node, w, node_lowers, node_uppers)
    for s in range(start, end):  # the triangles' moments about the node's centre
        f = order[s]
        a = _corner(points, indices, f, 0)
        b = _corner(points, indices, f, 1)
        c3 = _corner(points, indices, f, 2)
        n = _cross(b - a, c3 - a) * float32(0.5)
        p = (a + b + c3) / float32(3.0)
        d = p - _vec3(w[node, _C], w[node, _C + 1], w[node, _C + 2])
        ea = a - p
        eb = b - p
        ec = c3 - p
        for i in range(3):
            for j in range(3):
                w[node, _NIJ + 3 * i + j] += n[i] * d[j]
        for q in range(6):
            j = _pair_j(q)
            k = _pair_k(q)
            m = (ea[j] * ea[k] + eb[j] * eb[k] + ec[j] * ec[k]) / float32(12.0) + d[j] * d[k]
            for i in range(3):
                w[node, _NIJK + 6 * i + q] += n[i] * m


@func
def _join(node: int32, first: array(dtype=int32), last: array(dtype=int32), w: array2d(dtype=float32),
          node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # an inner node's moments from its two children's, moved to its centre
    a = first[node]
    b = last[node]
    for k in range(RECORD):
        w[node, k] = float32(0.0)
    for h in range(2):
        ch = a if h == 0 else b
        area = w[ch, _AREA]
        w[node, _AREA] += area
        for c in range(3):
            w[node, _C + c] += area * w[ch, _C + c]
            w[node, _N + c] += w[ch, _N + c]
    _finish(node, w, node_lowers, node_uppers)
    for h in range(2):
        ch = a if h == 0 else b
        d = _vec3(w[ch, _C] - w[node, _C], w[ch, _C + 1] - w[node, _C + 1], w[ch, _C + 2] - w[node, _C + 2])
        for i in range(3):
            ni = w[ch, _N + i]
            for j in range(3):
                w[node, _NIJ + 3 * i + j] += w[ch, _NIJ + 3 * i + j] + ni * d[j]
            for q in range(6):
                j = _pair_j(q)
                k = _pair_k(q)
                w[node, _NIJK + 6 * i + q] += (w[ch, _NIJK + 6 * i + q] + w[ch, _NIJ + 3 * i + j] * d[k]
                                               + w[ch, _NIJ + 3 * i + k] * d[j] + ni * d[j] * d[k])


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
    by launches on the storage's device: on the CPU one pass over the inner nodes, elsewhere one launch per
    level of ``tables`` (``tree.tables_on(device)``: its ``levels`` of node ids, or the ``ranges`` of a tree
    built on its device). ``tables`` given, the per-level form runs on any device (the GPU's mapping, tested
    on the CPU)."""
    device = storage.device
    w = storage.view("winding", (-1, RECORD))
    boxes = storage.view("node_lowers", (-1, 4)), storage.view("node_uppers", (-1, 4))
    mesh = (points, indices, w, *boxes)
    if tables is None and device.is_cpu:
        t = tree.kernel_tables
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

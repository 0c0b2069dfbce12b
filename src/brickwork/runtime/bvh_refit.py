"""The refit of a tree (``wp.Bvh``, ``wp.Mesh``) in compiled kernels: new node bounds in place, on the tree's
device.

The leaves' bounds in parallel (each the bounds of its items), then the inner nodes'. On the CPU one thread
takes the leaves in the order of their items' positions (``Tree.kernel_tables``: the item order and, items being
near their neighbours in it, the item boxes read in memory order) and the inner nodes in one pass of descending
node id (a tree numbers its nodes level by level, so children come after their parents); on a GPU, where one
thread would walk a million nodes alone, each level is a launch over its nodes, deepest first
(``refit_by_levels``). A CPU ``wp.Bvh``'s refit (``refit`` with ``boxes``) first reads the user's boxes in item
order, copying them into the tree's item tables and writing the bounds of each leaf that holds one item (all of a
tree of ``leaf_size`` 1): a leaf's box is its item's, and read by position the boxes of a tree over scattered
boxes come in a random order. A device tree's item boxes are also written there, from the user's boxes or a
mesh's points and triangles, so a refit never copies through the host. Bounds combine as numpy's
``minimum``/``maximum`` do, which the tree's build uses (``bvh_tree.Tree.bounds``): a NaN in any box of a node makes
that node's bound NaN. A one-thread refit folds by plain selects and, if it met a NaN, folds again by that rule
(``_fold_lower``): the same bits, at a select per bound instead of three instructions.
"""

from __future__ import annotations

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.array_constructors import wrap_numpy
from ..types.arrays import array, array2d
from ..types.composite import vector
from ..types.scalars import float32, int32, int64, uint32
from . import bvh_build
from .launch import launch_now, launch_on_cpu

_vec3 = vector(3, float32)

_tid = _FUNCTIONS["tid"]

#: On the CPU a tree of at most this many leaves is refit in one launch (one thread: leaves, then inner nodes); a
#: larger one's leaves first, in parallel (``bvh_build.PARALLEL_MIN``: below it a parallel launch risks more than
#: it saves)
ONE_LAUNCH = bvh_build.PARALLEL_MIN
#: A CPU mesh of at most this many triangles refits in one launch on one thread (``refit_mesh``): every mesh (on
#: 262144 and 1048576 triangles, 16 to 23 and 103 to 108 ms against 43 to 47 and 112 ms by the parallel launches
#: on two threads at load 14, and not slower on one thread)
MESH_ONE_LAUNCH = 2**31 - 1


# Two selects each, which g++ compiles to a min (max) and a blend: which of two box bounds is lower is a coin
# toss, and one condition `a < b or a != a` became branches mispredicted half the time (5x slower)
@func
def _lower(a: float32, b: float32):
    m = a if a < b else b
    return a if a != a else m  # numpy's minimum: NaN wins, b on a tie


@func
def _upper(a: float32, b: float32):
    m = a if a > b else b
    return a if a != a else m


# Without a NaN among them, numpy's minimum of a and b is `a if a < b else b`: one min instruction, where the NaN
# test costs a compare and moves through an integer register (a 1024-triangle mesh's refit kernel 13 -> 8 us). A
# refit takes that form, with ``exact`` 0, unless its inputs hold a NaN (then again with ``exact`` 1: numpy's rule).
# ``exact`` is a constant at each call, which the compiler folds
@func
def _fold_lower(a: float32, b: float32, exact: int32):
    if exact != 0:
        return _lower(a, b)
    return a if a < b else b


@func
def _fold_upper(a: float32, b: float32, exact: int32):
    if exact != 0:
        return _upper(a, b)
    return a if a > b else b


@func
def _leaf(node: int32, first: array(dtype=int32), last: array(dtype=int32), order: array(dtype=int32),
          lowers: array2d(dtype=float32), uppers: array2d(dtype=float32), node_lowers: array2d(dtype=float32),
          node_uppers: array2d(dtype=float32), exact: int32):
    # a leaf's bounds from its items' boxes; returns 1 if a box holds a NaN (only looked at where exact is 0)
    start = -(first[node] + 1)  # a leaf's item range: first = -(start + 1), last = end
    item = order[start]
    lx = lowers[item, 0]
    ly = lowers[item, 1]
    lz = lowers[item, 2]
    hx = uppers[item, 0]
    hy = uppers[item, 1]
    hz = uppers[item, 2]
    nan = int32(lx != lx) | int32(ly != ly) | int32(lz != lz) | int32(hx != hx) | int32(hy != hy) | int32(hz != hz)
    for s in range(start + 1, last[node]):  # one pass, each axis folded in the items' order
        item = order[s]
        ix = lowers[item, 0]
        iy = lowers[item, 1]
        iz = lowers[item, 2]
        jx = uppers[item, 0]
        jy = uppers[item, 1]
        jz = uppers[item, 2]
        nan = nan | int32(ix != ix) | int32(iy != iy) | int32(iz != iz) | int32(jx != jx) | int32(jy != jy)
        nan = nan | int32(jz != jz)
        lx = _fold_lower(lx, ix, exact)
        ly = _fold_lower(ly, iy, exact)
        lz = _fold_lower(lz, iz, exact)
        hx = _fold_upper(hx, jx, exact)
        hy = _fold_upper(hy, jy, exact)
        hz = _fold_upper(hz, jz, exact)
    node_lowers[node, 0] = lx
    node_lowers[node, 1] = ly
    node_lowers[node, 2] = lz
    node_uppers[node, 0] = hx
    node_uppers[node, 1] = hy
    node_uppers[node, 2] = hz
    return nan


@kernel(enable_backward=False)
def _leaves(leaves: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
            order: array(dtype=int32), lowers: array2d(dtype=float32), uppers: array2d(dtype=float32),
            node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    _leaf(leaves[_tid()], first, last, order, lowers, uppers, node_lowers, node_uppers, 1)


@func
def _join(node: int32, first: array(dtype=int32), last: array(dtype=int32), node_lowers: array2d(dtype=float32),
          node_uppers: array2d(dtype=float32), exact: int32):
    # an inner node's bounds from its two children's
    a = first[node]
    b = last[node]
    for c in range(3):
        node_lowers[node, c] = _fold_lower(node_lowers[a, c], node_lowers[b, c], exact)
        node_uppers[node, c] = _fold_upper(node_uppers[a, c], node_uppers[b, c], exact)


@kernel(enable_backward=False)
def _inner(inner: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
           node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # one thread, over the inner nodes in descending id order: children before their parents
    for k in range(inner.shape[0]):
        _join(inner[k], first, last, node_lowers, node_uppers, 1)


@func
def _item(i: int32, boxes_lo: array(dtype=_vec3), boxes_hi: array(dtype=_vec3), item_leaf: array(dtype=int32),
          lowers: array2d(dtype=float32), uppers: array2d(dtype=float32), node_lowers: array2d(dtype=float32),
          node_uppers: array2d(dtype=float32)):
    # box i into the item tables and, if its leaf holds it alone (``item_leaf[i]``, else -1), the leaf's bounds;
    # returns 1 if the box holds a NaN
    p = boxes_lo[i]
    q = boxes_hi[i]
    node = item_leaf[i]
    for c in range(3):
        lowers[i, c] = p[c]
        uppers[i, c] = q[c]
    if node >= 0:
        for c in range(3):
            node_lowers[node, c] = p[c]
            node_uppers[node, c] = q[c]
    nan = int32(p[0] != p[0]) | int32(p[1] != p[1]) | int32(p[2] != p[2])
    return nan | int32(q[0] != q[0]) | int32(q[1] != q[1]) | int32(q[2] != q[2])


@kernel(enable_backward=False)
def _items(boxes_lo: array(dtype=_vec3), boxes_hi: array(dtype=_vec3), item_leaf: array(dtype=int32),
           lowers: array2d(dtype=float32), uppers: array2d(dtype=float32), node_lowers: array2d(dtype=float32),
           node_uppers: array2d(dtype=float32)):
    _item(_tid(), boxes_lo, boxes_hi, item_leaf, lowers, uppers, node_lowers, node_uppers)


@func
def _nodes(leaves: array(dtype=int32), inner: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
           order: array(dtype=int32), lowers: array2d(dtype=float32), uppers: array2d(dtype=float32),
           node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32), exact: int32):
    # the leaves (in the order of their items' positions: the item order read in memory order), then the inner
    # nodes in descending id order (children before their parents); returns 1 if an item box holds a NaN
    nan = int32(0)
    for k in range(leaves.shape[0]):
        nan = nan | _leaf(leaves[k], first, last, order, lowers, uppers, node_lowers, node_uppers, exact)
    for k in range(inner.shape[0]):
        _join(inner[k], first, last, node_lowers, node_uppers, exact)
    return nan


@kernel(enable_backward=False)
def _whole(boxes_lo: array(dtype=_vec3), boxes_hi: array(dtype=_vec3), item_leaf: array(dtype=int32),
           multi: array(dtype=int32), inner: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
           order: array(dtype=int32), lowers: array2d(dtype=float32), uppers: array2d(dtype=float32),
           node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # one thread (a small tree's refit in one launch): the boxes in item order (``_item``), the other leaves by
    # position, then the inner nodes; again by numpy's rule if a box holds a NaN
    nan = int32(0)
    for i in range(item_leaf.shape[0]):
        nan = nan | _item(i, boxes_lo, boxes_hi, item_leaf, lowers, uppers, node_lowers, node_uppers)
    nan = nan | _nodes(multi, inner, first, last, order, lowers, uppers, node_lowers, node_uppers, 0)
    if nan != 0:
        _nodes(multi, inner, first, last, order, lowers, uppers, node_lowers, node_uppers, 1)


@kernel(enable_backward=False)
def _level(nodes: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
           node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # one thread per inner node of one level (their children's bounds are final)
    _join(nodes[_tid()], first, last, node_lowers, node_uppers, 1)


@kernel(enable_backward=False)
def _boxes(lowers: array(dtype=_vec3), uppers: array(dtype=_vec3), item_lowers: array2d(dtype=float32),
           item_uppers: array2d(dtype=float32)):
    i = _tid()
    for c in range(3):
        item_lowers[i, c] = lowers[i][c]
        item_uppers[i, c] = uppers[i][c]


@func
def points_nan(points: array(dtype=_vec3)):
    # 1 if a point holds a NaN: then the triangles' boxes need numpy's rule (``exact``). One pass the compiler
    # vectorizes: a tenth of the cost of testing each triangle's corners
    nan = int32(0)
    for i in range(points.shape[0]):
        p = points[i]
        nan = nan | int32(p[0] != p[0]) | int32(p[1] != p[1]) | int32(p[2] != p[2])
    return nan


@func
def _triangle(f: int32, points: array(dtype=_vec3), indices: array(dtype=int32), item_lowers: array2d(dtype=float32),
              item_uppers: array2d(dtype=float32), exact: int32):
    # triangle f's box, its corners folded in order as numpy's min/max over them (``Mesh._bounds``)
    at = int64(3) * int64(f)  # 64-bit: 3 * f overflows int32 past 715 million triangles
    p = points[indices[at]]
    q = points[indices[at + int64(1)]]
    r = points[indices[at + int64(2)]]
    for c in range(3):
        item_lowers[f, c] = _fold_lower(_fold_lower(p[c], q[c], exact), r[c], exact)
        item_uppers[f, c] = _fold_upper(_fold_upper(p[c], q[c], exact), r[c], exact)


@kernel(enable_backward=False)
def _triangles(points: array(dtype=_vec3), indices: array(dtype=int32), item_lowers: array2d(dtype=float32),
               item_uppers: array2d(dtype=float32)):
    _triangle(_tid(), points, indices, item_lowers, item_uppers, 1)


@kernel(enable_backward=False)
def _mesh(points: array(dtype=_vec3), indices: array(dtype=int32), leaves: array(dtype=int32),
          inner: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32), order: array(dtype=int32),
          item_lowers: array2d(dtype=float32), item_uppers: array2d(dtype=float32),
          node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32), status: array(dtype=int32)):
    # one thread, a mesh's whole refit: its indices checked (status 1 and nothing written if one is out of range:
    # the greatest as unsigned, a negative one is a large unsigned one; a reduction without branches), its
    # triangles' boxes, then its nodes (``_nodes``), by numpy's rule if a point is NaN
    top = uint32(0)
    for k in range(indices.shape[0]):
        top = max(top, uint32(indices[k]))
    if indices.shape[0] > 0 and top >= uint32(points.shape[0]):
        status[0] = 1
        return
    status[0] = 0
    if points_nan(points) == 0:
        for f in range(indices.shape[0] // 3):
            _triangle(f, points, indices, item_lowers, item_uppers, 0)
        _nodes(leaves, inner, first, last, order, item_lowers, item_uppers, node_lowers, node_uppers, 0)
    else:
        for f in range(indices.shape[0] // 3):
            _triangle(f, points, indices, item_lowers, item_uppers, 1)
        _nodes(leaves, inner, first, last, order, item_lowers, item_uppers, node_lowers, node_uppers, 1)


def refit_mesh(plan: tuple, points: array, indices: array) -> bool:
    """A mesh's refit in one launch on one thread (a mesh of at most ``MESH_ONE_LAUNCH`` triangles): ``plan`` (made
    once per tree: its ``leaves``, ``inner``, ``first``, ``last`` and ``order`` (``Tree.kernel_tables``), the item
    and node tables as for ``refit``, and a one-int status array). False, with nothing written, if an index is out
    of range of ``points``."""
    launch_on_cpu(_mesh, 1, points, indices, *plan)
    return plan[-1].numpy()[0] == 0


def refit(tree, lowers: array, uppers: array, node_lowers: array, node_uppers: array, boxes: tuple = ()) -> None:
    """Write the bounds of ``tree``'s nodes over the item boxes ``lowers``/``uppers`` ((n, 3) float32 CPU
    arrays) into the first three columns of ``node_lowers``/``node_uppers`` ((nodes, 4) float32). With ``boxes``
    (two vec3f CPU arrays of n boxes) the item boxes are first copied from them, in the same pass."""
    t, singles = tree.kernel_tables, tree.single_tables
    if not boxes:  # the item tables hold the boxes: copied onto themselves
        boxes = tuple(wrap_numpy(table.numpy(), _vec3) for table in (lowers, uppers))
    tree_tables, nodes = (t["first"], t["last"]), (node_lowers, node_uppers)
    items, multi = (*boxes, singles["item_leaf"]), singles["multi"]
    if t["leaves"].shape[0] <= ONE_LAUNCH:
        launch_on_cpu(_whole, 1, *items, multi, t["inner"], *tree_tables, t["order"], lowers, uppers, *nodes)
        return
    launch_on_cpu(_items, items[0].shape[0], *items, lowers, uppers, *nodes)
    if multi.shape[0]:
        launch_on_cpu(_leaves, multi.shape[0], multi, *tree_tables, t["order"], lowers, uppers, *nodes)
    launch_on_cpu(_inner, 1, t["inner"], *tree_tables, *nodes)


def refit_by_levels(tables: dict, lowers: array, uppers: array, node_lowers: array, node_uppers: array,
                    device) -> None:
    """``refit`` on ``device`` with one launch per level of inner nodes (``Tree.tables_on``'s ``levels``, deepest
    first): the form a GPU runs in parallel."""
    tree_tables, nodes = (tables["first"], tables["last"]), (node_lowers, node_uppers)
    launch_now(_leaves, tables["leaves"].shape[0], device, tables["leaves"], *tree_tables, tables["order"], lowers,
               uppers, *nodes)
    for level in tables["levels"]:
        launch_now(_level, level.shape[0], device, level, *tree_tables, *nodes)


def box_items(lowers: array, uppers: array, item_lowers: array, item_uppers: array, device) -> None:
    """The item boxes of a tree over boxes: ``lowers``/``uppers`` (vec3f) into the (n, 3) float32 tables."""
    launch_now(_boxes, lowers.shape[0], device, lowers, uppers, item_lowers, item_uppers)


def triangle_items(points: array, indices: array, item_lowers: array, item_uppers: array, device) -> None:
    """The item boxes of a mesh's tree: each triangle's bounds, from ``points`` (vec3f) and ``indices`` (int32)."""
    count = indices.shape[0] // 3
    _triangles.work_per_item = 1 if count > bvh_build.PARALLEL_MIN else 0  # the CPU: one thread below it
    launch_now(_triangles, count, device, points, indices, item_lowers, item_uppers)


@kernel(enable_backward=False)
def _leaf_nodes(first: array(dtype=int32), last: array(dtype=int32), order: array(dtype=int32),
                lowers: array2d(dtype=float32), uppers: array2d(dtype=float32), node_lowers: array2d(dtype=float32),
                node_uppers: array2d(dtype=float32)):
    # one thread per node; the leaves' bounds (as ``_leaves``), the inner nodes left to their level
    node = _tid()
    if first[node] < 0:
        _leaf(node, first, last, order, lowers, uppers, node_lowers, node_uppers, 1)


@kernel(enable_backward=False)
def _level_range(base: int32, first: array(dtype=int32), last: array(dtype=int32),
                 node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # one thread per node of a level (a range of ids from ``base``): the inner ones join their children
    node = base + _tid()
    if first[node] >= 0:
        _join(node, first, last, node_lowers, node_uppers, 1)


def refit_by_ranges(tables: dict, lowers: array, uppers: array, node_lowers: array, node_uppers: array,
                    device) -> None:
    """``refit_by_levels`` for a tree whose levels are ranges of node ids (an lbvh tree built on its device,
    ``bvh_lbvh``): ``tables`` holds ``first``, ``last``, ``order``, ``num_nodes`` and ``ranges``, the
    ``(first, end)`` ids of each level that has inner nodes, deepest first. A launch over all nodes for the
    leaves, then one per level."""
    tree_tables, nodes = (tables["first"], tables["last"]), (node_lowers, node_uppers)
    launch_now(_leaf_nodes, tables["num_nodes"], device, *tree_tables, tables["order"], lowers, uppers, *nodes)
    for a, b in tables["ranges"]:
        launch_now(_level_range, b - a, device, a, *tree_tables, *nodes)

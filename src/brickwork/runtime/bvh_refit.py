"""The refit of a CPU tree (``wp.Bvh``, ``wp.Mesh``) in compiled kernels: new node bounds in place.

The leaves' bounds in parallel (each the bounds of its items), then the inner nodes' in one pass of
descending node id (a tree numbers its nodes level by level, so children come after their parents). Bounds
combine as numpy's ``minimum``/``maximum`` do, which the host refit of device trees uses (``bvh.Tree.bounds``):
a NaN in any box of a node makes that node's bound NaN.
"""

from __future__ import annotations

from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..lang.function import func
from ..lang.kernel import kernel
from ..types.arrays import array, array2d
from ..types.scalars import float32, int32
from .launch import launch_on_cpu

_tid = _FUNCTIONS["tid"]


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


@kernel(enable_backward=False)
def _leaves(leaves: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
            order: array(dtype=int32), lowers: array2d(dtype=float32), uppers: array2d(dtype=float32),
            node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    node = leaves[_tid()]
    start = -(first[node] + 1)  # a leaf's item range: first = -(start + 1), last = end
    for c in range(3):
        lo = lowers[order[start], c]
        hi = uppers[order[start], c]
        for s in range(start + 1, last[node]):
            lo = _lower(lo, lowers[order[s], c])
            hi = _upper(hi, uppers[order[s], c])
        node_lowers[node, c] = lo
        node_uppers[node, c] = hi


@kernel(enable_backward=False)
def _inner(inner: array(dtype=int32), first: array(dtype=int32), last: array(dtype=int32),
           node_lowers: array2d(dtype=float32), node_uppers: array2d(dtype=float32)):
    # one thread, over the inner nodes in descending id order: children before their parents
    for k in range(inner.shape[0]):
        node = inner[k]
        a = first[node]
        b = last[node]
        for c in range(3):
            node_lowers[node, c] = _lower(node_lowers[a, c], node_lowers[b, c])
            node_uppers[node, c] = _upper(node_uppers[a, c], node_uppers[b, c])


def refit(tree, lowers: array, uppers: array, node_lowers: array, node_uppers: array) -> None:
    """Write the bounds of ``tree``'s nodes over the item boxes ``lowers``/``uppers`` ((n, 3) float32 CPU
    arrays) into the first three columns of ``node_lowers``/``node_uppers`` ((nodes, 4) float32)."""
    t = tree.kernel_tables
    tree_tables, nodes = (t["first"], t["last"]), (node_lowers, node_uppers)
    launch_on_cpu(_leaves, t["leaves"].shape[0], t["leaves"], *tree_tables, t["order"], lowers, uppers, *nodes)
    launch_on_cpu(_inner, 1, t["inner"], *tree_tables, *nodes)

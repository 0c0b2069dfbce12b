"""Graph coloring, as Warp's ``wp.utils.graph_coloring_*``: one-thread compiled CPU kernels
(runtime/graph_coloring.py), as Warp's are native CPU code; arrays on a CUDA device go through the host."""

from __future__ import annotations

import operator

import numpy as np

from ..runtime.graph_coloring_algorithm import GraphColoringAlgorithm
from ..types.arrays import array
from ..types.scalars import int32
from .common import INT32_MAX


def graph_coloring_assign(edges: array, node_colors: array,
                          algorithm: GraphColoringAlgorithm = GraphColoringAlgorithm.MCS) -> int:
    """Color the nodes of an undirected graph so that no edge joins two nodes of the same color, as Warp's
    ``wp.utils.graph_coloring_assign``; returns the number of colors. The colors equal Warp's for the same input.

    - edges: an int32 array of shape ``(edge_count, 2)``, one edge ``[i, j]`` per row (indices in
      ``[0, node_count)``).
    - node_colors: an int32 array of ``node_count`` (at least 1) elements, overwritten with the colors
      ``0 .. count - 1``.
    - algorithm: the order in which the nodes take the smallest color their colored neighbours leave free:
      ``GraphColoringAlgorithm.MCS`` (maximum cardinality search, the default; usually fewer colors) or
      ``GraphColoringAlgorithm.GREEDY`` (decreasing degree).

    The work runs on the CPU; arrays on a CUDA device are copied to the host and the colors back (Warp accepts
    CPU arrays only). Bad arguments raise Warp's errors before ``node_colors`` is written.
    """
    from ..runtime import graph_coloring as gc

    func = "graph_coloring_assign"
    gc.check_colors(func, node_colors, edges)
    n = node_colors.shape[0]
    if n == 0:
        raise RuntimeError("Cannot color an empty graph")
    kind = gc.integer(func, "algorithm", algorithm, "a GraphColoringAlgorithm")
    graph = gc.build_graph("Graph coloring failed", edges, n)
    if kind not in (GraphColoringAlgorithm.MCS, GraphColoringAlgorithm.GREEDY):
        raise RuntimeError(f"Graph coloring failed: Unrecognized coloring algorithm number: {kind}!")
    colors = gc.host(node_colors)
    count = gc.color(graph, kind, colors)
    if colors is not node_colors:
        node_colors.assign(colors)
    return count


def graph_coloring_balance(edges: array, node_colors: array, color_count: int, target_max_min_ratio: float, *,
                           max_iterations: int | None = None) -> float:
    """Even out the sizes of the color groups of a valid coloring, in place, as Warp's
    ``wp.utils.graph_coloring_balance``; returns the ratio of the largest group's size to the smallest's reached
    (a float32 value; ``inf`` while a group is empty). The result equals Warp's for the same input.

    Nodes move one at a time into the smallest group, from the largest (or else the first other group with a
    node that can move without sharing a color with a neighbour). It stops at ``target_max_min_ratio``, when the
    sizes differ by at most 2, when no node can move, or after ``max_iterations`` moves (default: the node
    count; a warning says so then). A move that made the ratio worse is undone. The coloring stays valid.

    - edges, node_colors: as ``graph_coloring_assign``'s; each color must lie in ``[0, color_count)``.
    - color_count: the number of colors (``graph_coloring_assign``'s result); at most 1 returns 1.0 and changes
      nothing.
    - max_iterations: None or an integer in ``[0, 2**31 - 1]``.

    Arrays on a CUDA device are copied to the host and back (Warp accepts CPU arrays only). Bad arguments raise
    Warp's errors before ``node_colors`` is written.
    """
    from ..runtime import graph_coloring as gc
    from ..runtime.warp_warnings import warn

    func = "graph_coloring_balance"
    gc.check_colors(func, node_colors, edges)
    n = node_colors.shape[0]
    if max_iterations is None:
        max_iterations = n
    else:
        if isinstance(max_iterations, (bool, np.bool_)):
            raise TypeError(f"max_iterations must be an integer or None, got {type(max_iterations).__name__}")
        try:
            max_iterations = operator.index(max_iterations)
        except TypeError:
            raise TypeError(f"max_iterations must be an integer or None, got {type(max_iterations).__name__}") from None
        if max_iterations < 0:
            raise ValueError(f"max_iterations must be non-negative, got {max_iterations}")
        if max_iterations > INT32_MAX:
            raise ValueError(f"max_iterations must not exceed {INT32_MAX}, got {max_iterations}")
    count = gc.integer(func, "color_count", color_count)
    if count > INT32_MAX:
        raise ValueError(f"{func}(): color_count must not exceed {INT32_MAX}, got {count}")
    if isinstance(target_max_min_ratio, (bool, np.bool_)) or not isinstance(target_max_min_ratio, (int, float,
                                                                                                    np.number)):
        raise TypeError(f"{func}(): target_max_min_ratio must be a number, got {type(target_max_min_ratio).__name__}")
    graph = gc.build_graph("Graph coloring balance failed", edges, n)
    if count <= 1:
        return 1.0
    colors = gc.host(node_colors)
    gc.check_color_range("Graph coloring balance failed", colors, count)
    ratio, limited = gc.balance(graph, colors, count, float(target_max_min_ratio), max_iterations)
    if colors is not node_colors:
        node_colors.assign(colors)
    if limited:
        warn(f"Graph coloring stopped because it reached the {max_iterations}-iteration limit (achieved ratio "
                f"{ratio:g}, target {target_max_min_ratio:g}).")
    return ratio


def graph_coloring_get_groups(node_colors: array, color_count: int, return_wp_array: bool = True,
                              device="cpu") -> tuple:
    """The nodes of each color, as Warp's ``wp.utils.graph_coloring_get_groups``: a tuple of ``color_count``
    int32 arrays, the ``i``-th holding the nodes of color ``i`` in increasing order (an empty tuple for
    ``color_count`` 0).

    - node_colors: an int32 array of colors, each in ``[0, color_count)`` (on any device: read on the host).
    - return_wp_array: True (the default, as Warp's) for arrays on ``device`` (default the CPU), False for numpy
      arrays.
    """
    from ..runtime import graph_coloring as gc

    func = "graph_coloring_get_groups"
    count = gc.integer(func, "color_count", color_count)
    if count < 0:
        raise RuntimeError("color_count must be non-negative")
    if count == 0:
        return ()
    gc.check_colors(func, node_colors)
    colors = gc.host(node_colors)
    gc.check_color_range("", colors, count)
    groups = gc.groups(colors, count)
    if not return_wp_array:
        return groups
    return tuple(array(g, dtype=int32, device=device) for g in groups)

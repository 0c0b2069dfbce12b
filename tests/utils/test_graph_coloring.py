"""Graph coloring (``brickwork.utils.graph_coloring_assign``, ``graph_coloring_balance``,
``graph_coloring_get_groups``): valid colorings of random graphs, Warp 1.19's colorings and balanced colorings
of small meshes reproduced exactly (ties included), the libstdc++ sort order behind the GREEDY ties, groups
against numpy, and every bad argument refused before ``node_colors`` is written."""

import contextlib
import hashlib
import io
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.runtime.graph_coloring_sort import degree_order
from brickwork.utils import (
    GraphColoringAlgorithm,
    graph_coloring_assign,
    graph_coloring_balance,
    graph_coloring_get_groups,
)

MCS, GREEDY = GraphColoringAlgorithm.MCS, GraphColoringAlgorithm.GREEDY


# -- graphs -------------------------------------------------------------------------------------------------


def grid_graph(rows, cols, diagonals=True):
    """A rows x cols grid: horizontal edges, vertical edges, then one diagonal per cell."""
    idx = np.arange(rows * cols).reshape(rows, cols)
    parts = [np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], 1),
             np.stack([idx[:-1, :].ravel(), idx[1:, :].ravel()], 1)]
    if diagonals:
        parts.append(np.stack([idx[:-1, :-1].ravel(), idx[1:, 1:].ravel()], 1))
    return rows * cols, np.concatenate(parts).astype(np.int32)


def lattice_faces(n):
    """The triangles of Warp's test lattice of n x n vertices (the diagonal alternating per cell)."""
    faces = []
    for i in range(n - 1):
        for j in range(n - 1):
            v = j + i * n
            if (i + j) % 2:
                faces += [(v, v + n + 1, v + 1), (v, v + n, v + n + 1)]
            else:
                faces += [(v, v + n, v + 1), (v + n, v + n + 1, v + 1)]
    return np.array(faces, dtype=np.int32)


def cloth_graph(faces):
    """A cloth solver's graph: the triangles' edges as first met, then a bending edge (the two opposite
    corners) per interior edge, as Warp's test builds it."""
    opposite = {}
    for f in faces:
        for a, b, o in ((f[0], f[1], f[2]), (f[1], f[2], f[0]), (f[2], f[0], f[1])):
            opposite.setdefault((min(a, b), max(a, b)), []).append(o)
    bending = [(o[0], o[1]) for o in opposite.values() if len(o) > 1]
    return int(faces.max()) + 1, np.array(list(opposite) + bending, dtype=np.int32)


GRAPHS = {
    "path5": (5, np.array([[0, 1], [1, 2], [2, 3], [3, 4]], np.int32)),
    "corner": (2, np.array([[0, 1]], np.int32)),  # Warp's corner case
    "grid4x5": grid_graph(4, 5),
    "grid6x6_plain": grid_graph(6, 6, diagonals=False),
    "cloth6": cloth_graph(lattice_faces(6)),
    "components": (9, np.array([[5, 6], [6, 7], [7, 5], [2, 3], [8, 3]], np.int32)),  # and isolated nodes
    "duplicates": (6, np.array([[0, 1], [1, 0], [0, 1], [2, 3], [3, 4], [4, 2], [5, 0], [5, 1]], np.int32)),
}

# (graph, algorithm) -> color count, colors, then the ratio and colors of graph_coloring_balance(..., 1.1) on
# them, from Warp 1.19 on the CPU
WARP = {
    ("path5", "MCS"): (2, [0, 1, 0, 1, 0], 1.5, [0, 1, 0, 1, 0]),
    ("path5", "GREEDY"): (2, [1, 0, 1, 0, 1], 1.5, [1, 0, 1, 0, 1]),
    ("corner", "MCS"): (2, [0, 1], 1.0, [0, 1]),
    ("corner", "GREEDY"): (2, [0, 1], 1.0, [0, 1]),
    ("grid4x5", "MCS"): (3, [0, 1, 2, 0, 1, 1, 2, 0, 1, 2, 2, 0, 1, 2, 0, 0, 1, 2, 0, 1], 1.1666666269302368,
                         [0, 1, 2, 0, 1, 1, 2, 0, 1, 2, 2, 0, 1, 2, 0, 0, 1, 2, 0, 1]),
    ("grid4x5", "GREEDY"): (3, [1, 2, 0, 1, 2, 2, 0, 1, 2, 0, 0, 1, 2, 0, 1, 1, 2, 0, 1, 2], 1.1666666269302368,
                            [1, 2, 0, 1, 2, 2, 0, 1, 2, 0, 0, 1, 2, 0, 1, 1, 2, 0, 1, 2]),
    ("grid6x6_plain", "MCS"): (2, [0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0,
                                   1, 0, 1, 1, 0, 1, 0, 1, 0], 1.0,
                               [0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0,
                                1, 0, 1, 1, 0, 1, 0, 1, 0]),
    ("grid6x6_plain", "GREEDY"): (2, [1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0,
                                      1, 0, 1, 0, 0, 1, 0, 1, 0, 1], 1.0,
                                  [1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0,
                                   1, 0, 1, 0, 0, 1, 0, 1, 0, 1]),
    ("cloth6", "MCS"): (6, [0, 2, 1, 3, 0, 1, 1, 3, 0, 4, 2, 5, 2, 4, 2, 1, 3, 4, 0, 5, 3, 4, 0, 2, 4, 1, 0, 2, 5, 1,
                            3, 2, 4, 1, 3, 0], 1.399999976158142,
                        [5, 2, 5, 3, 0, 1, 1, 3, 0, 4, 2, 5, 2, 4, 2, 1, 3, 4, 0, 5, 3, 4, 0, 2, 4, 1, 0, 2, 5, 1,
                         3, 2, 4, 1, 3, 0]),
    ("cloth6", "GREEDY"): (6, [2, 0, 1, 2, 3, 4, 1, 5, 3, 5, 1, 0, 0, 2, 4, 0, 4, 3, 3, 5, 1, 5, 2, 5, 1, 0, 4, 3, 0,
                               1, 4, 3, 2, 1, 4, 2], 1.399999976158142,
                           [2, 0, 1, 2, 3, 4, 1, 5, 3, 5, 1, 0, 0, 2, 4, 0, 4, 3, 3, 5, 1, 5, 2, 5, 1, 0, 4, 3, 0,
                            1, 4, 3, 2, 1, 4, 2]),
    ("components", "MCS"): (3, [0, 0, 0, 1, 0, 0, 1, 2, 0], 2.0, [2, 1, 0, 1, 0, 0, 1, 2, 0]),
    ("components", "GREEDY"): (3, [0, 0, 1, 0, 0, 0, 1, 2, 1], 2.0, [2, 0, 1, 0, 0, 0, 1, 2, 1]),
    ("duplicates", "MCS"): (3, [0, 1, 0, 1, 2, 2], 1.0, [0, 1, 0, 1, 2, 2]),
    ("duplicates", "GREEDY"): (3, [0, 1, 0, 1, 2, 2], 1.0, [0, 1, 0, 1, 2, 2]),
}

# the 20 x 20 cloth (400 nodes): color count, sha256 prefix and sizes of the colors, then of
# graph_coloring_balance(..., 1.05)'s, from Warp 1.19
WARP_CLOTH20 = {
    "MCS": (7, "87595c8660b0999a", [64, 56, 67, 60, 73, 71, 9], 1.0357142686843872, "f0abae01427f3586",
            [57, 56, 57, 58, 58, 58, 56]),
    "GREEDY": (8, "0647a2b6366ed065", [63, 60, 64, 61, 67, 58, 20, 7], 1.040816307067871, "6c38b70e996ae71a",
               [50, 50, 50, 50, 51, 51, 49, 49]),
}


def digest(colors):
    return hashlib.sha256(np.ascontiguousarray(colors, dtype=np.int32).tobytes()).hexdigest()[:16]


def invalid_edges(edges, colors):
    return int(np.sum(colors[edges[:, 0]] == colors[edges[:, 1]])) if len(edges) else 0


def cpu(data):
    return wp.array(np.asarray(data, dtype=np.int32), dtype=wp.int32, device="cpu")


# -- Warp's colorings ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, algorithm", sorted(WARP))
def test_colorings_and_balanced_colorings_are_warps(name, algorithm):
    n, edges = GRAPHS[name]
    count, expected, ratio, balanced = WARP[(name, algorithm)]
    colors = wp.full(n, 99, dtype=wp.int32, device="cpu")
    assert graph_coloring_assign(cpu(edges), colors, GraphColoringAlgorithm[algorithm]) == count
    assert colors.numpy().tolist() == expected
    assert graph_coloring_balance(cpu(edges), colors, count, 1.1) == ratio
    assert colors.numpy().tolist() == balanced
    assert invalid_edges(edges, colors.numpy()) == 0


@pytest.mark.parametrize("algorithm", ["MCS", "GREEDY"])
def test_cloth_with_bending_edges_colors_and_balances_as_warp(algorithm):
    n, edges = cloth_graph(lattice_faces(20))
    count, colored, sizes, ratio, balanced, balanced_sizes = WARP_CLOTH20[algorithm]
    colors = wp.empty(n, dtype=wp.int32, device="cpu")
    assert graph_coloring_assign(cpu(edges), colors, GraphColoringAlgorithm[algorithm]) == count
    assert digest(colors.numpy()) == colored
    assert np.bincount(colors.numpy()).tolist() == sizes
    assert graph_coloring_balance(cpu(edges), colors, count, 1.05) == ratio
    assert np.bincount(colors.numpy()).tolist() == balanced_sizes
    assert digest(colors.numpy()) == balanced
    assert invalid_edges(edges, colors.numpy()) == 0


# a random graph of 150 nodes and 1500 draws of edges (numpy's default_rng(3)), balanced into one color more
# than the coloring used (an empty group: moves from every group, the largest often blocked), from Warp 1.19:
# color count, sha256 prefix, sizes, ratio, balanced sha256 prefix and sizes
WARP_DENSE = {
    "MCS": (9, "fe69f00abd7c3492", [26, 22, 18, 21, 17, 18, 15, 9, 4, 0], 1.1428571939468384, "d0e8a931562a8eb2",
            [14, 15, 16, 16, 16, 16, 15, 14, 14, 14]),
    "GREEDY": (9, "2b3b352155bba1ff", [21, 20, 21, 21, 21, 16, 18, 10, 2, 0], 1.1428571939468384,
               "6ffe344161eb5401", [15, 15, 15, 15, 16, 16, 16, 14, 14, 14]),
}


@pytest.mark.parametrize("algorithm", ["MCS", "GREEDY"])
def test_dense_graph_balanced_into_an_extra_color_as_warp(algorithm):
    edges = np.random.default_rng(3).integers(0, 150, size=(1500, 2)).astype(np.int32)
    edges = edges[edges[:, 0] != edges[:, 1]]
    count, colored, sizes, ratio, balanced, balanced_sizes = WARP_DENSE[algorithm]
    colors = wp.empty(150, dtype=wp.int32, device="cpu")
    assert graph_coloring_assign(cpu(edges), colors, GraphColoringAlgorithm[algorithm]) == count
    assert digest(colors.numpy()) == colored
    assert np.bincount(colors.numpy(), minlength=count + 1).tolist() == sizes
    assert graph_coloring_balance(cpu(edges), colors, count + 1, 1.0) == ratio
    assert np.bincount(colors.numpy(), minlength=count + 1).tolist() == balanced_sizes
    assert digest(colors.numpy()) == balanced
    assert invalid_edges(edges, colors.numpy()) == 0


def test_default_algorithm_is_mcs_and_algorithm_takes_integers():
    n, edges = GRAPHS["cloth6"]
    a, b, c = (wp.empty(n, dtype=wp.int32, device="cpu") for _ in range(3))
    assert graph_coloring_assign(cpu(edges), a) == graph_coloring_assign(cpu(edges), b, 0) == 6
    assert a.numpy().tolist() == b.numpy().tolist() == WARP[("cloth6", "MCS")][1]
    graph_coloring_assign(cpu(edges), c, np.int64(1))
    assert c.numpy().tolist() == WARP[("cloth6", "GREEDY")][1]
    assert [int(GraphColoringAlgorithm.MCS), int(GraphColoringAlgorithm.GREEDY)] == [0, 1]


def test_strided_edges_and_colors_are_read_and_written_in_place():
    n, edges = GRAPHS["grid4x5"]
    wide = np.zeros((len(edges), 4), np.int32)
    wide[:, 3], wide[:, 1] = edges[:, 0], edges[:, 1]
    strided = cpu(wide)[:, 3::-2]  # columns 3 and 1: the edges, strided
    store = wp.full(2 * n, -7, dtype=wp.int32, device="cpu")
    colors = store[::2]
    assert graph_coloring_assign(strided, colors, MCS) == 3
    assert store.numpy()[::2].tolist() == WARP[("grid4x5", "MCS")][1]
    assert (store.numpy()[1::2] == -7).all()


# -- the GREEDY order: libstdc++'s std::sort -----------------------------------------------------------------

# keys (i * 7) % 5 for i < 40 ordered by decreasing key with libstdc++'s std::sort (GCC 13), and with its
# introsort's depth budget at 0 (the heap sort of the whole range)
LIBSTDCXX_SORT = [17, 2, 37, 22, 7, 32, 27, 12, 9, 24, 14, 29, 19, 34, 4, 39, 21, 1, 26, 31, 36, 16, 11, 6, 18, 23,
                  38, 13, 28, 3, 8, 33, 0, 20, 5, 35, 10, 30, 15, 25]
LIBSTDCXX_HEAP = [17, 12, 37, 32, 7, 27, 2, 22, 39, 34, 9, 4, 24, 19, 29, 14, 31, 16, 1, 36, 21, 11, 26, 6, 33, 8,
                  18, 38, 3, 23, 13, 28, 15, 35, 20, 10, 0, 5, 25, 30]


def test_degree_order_ties_as_libstdcxx_sort():
    keys = np.array([(i * 7) % 5 for i in range(40)], np.int32)
    assert degree_order(keys).numpy().tolist() == LIBSTDCXX_SORT
    assert degree_order(keys, depth=0).numpy().tolist() == LIBSTDCXX_HEAP


@settings(max_examples=40, deadline=None)
@given(keys=st.lists(st.integers(0, 12), max_size=300), depth=st.sampled_from([None, 0, 1, 2]))
def test_degree_order_is_a_permutation_by_decreasing_key(keys, depth):
    keys = np.array(keys, np.int32)
    order = degree_order(keys, depth=depth).numpy()
    assert sorted(order.tolist()) == list(range(len(keys)))
    assert (np.diff(keys[order]) <= 0).all()


# -- random graphs ------------------------------------------------------------------------------------------


@st.composite
def graphs(draw, loops=False):
    n = draw(st.integers(1, 60))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
    edges = np.array([p for p in pairs if loops or p[0] != p[1]], np.int32).reshape(-1, 2)
    return n, edges


@settings(max_examples=60, deadline=None)
@given(graph=graphs(), algorithm=st.sampled_from([MCS, GREEDY]))
def test_colorings_of_random_graphs_are_valid(graph, algorithm):
    n, edges = graph
    colors = wp.full(n, -5, dtype=wp.int32, device="cpu")
    count = graph_coloring_assign(cpu(edges), colors, algorithm)
    c = colors.numpy()
    assert invalid_edges(edges, c) == 0
    assert c.min() == 0 and c.max() == count - 1
    assert set(c.tolist()) == set(range(count))  # every color used
    degree = np.bincount(edges.ravel(), minlength=n)
    # greedy: a node takes a color below its number of neighbours plus one
    assert (c <= degree).all()


@settings(max_examples=60, deadline=None)
@given(graph=graphs(), algorithm=st.sampled_from([MCS, GREEDY]), target=st.sampled_from([1.0, 1.1, 1.5, 3.0]),
       max_iterations=st.sampled_from([None, 0, 1, 5]))
def test_balance_keeps_the_coloring_valid_and_returns_its_ratio(graph, algorithm, target, max_iterations):
    n, edges = graph
    colors = wp.empty(n, dtype=wp.int32, device="cpu")
    count = graph_coloring_assign(cpu(edges), colors, algorithm)
    before = np.bincount(colors.numpy(), minlength=count)
    with contextlib.redirect_stderr(io.StringIO()):
        ratio = graph_coloring_balance(cpu(edges), colors, count, target, max_iterations=max_iterations)
    c = colors.numpy()
    assert invalid_edges(edges, c) == 0
    sizes = np.bincount(c, minlength=count)
    assert sizes.sum() == n and c.max() < count
    if count <= 1:
        assert ratio == 1.0
        return
    with np.errstate(divide="ignore"):
        reached = np.float32(sizes.max()) / np.float32(sizes.min())
        initial = np.float32(before.max()) / np.float32(before.min())
    assert ratio == reached
    assert ratio <= initial  # never worse than the input
    moved = int(np.sum(c != graph_coloring_assign_colors(edges, n, algorithm)))
    assert moved <= (n if max_iterations is None else max_iterations)


@settings(max_examples=30, deadline=None)
@given(graph=graphs(loops=True), algorithm=st.sampled_from([MCS, GREEDY]))
def test_self_loops_constrain_no_color(graph, algorithm):
    n, edges = graph
    colors = wp.empty(n, dtype=wp.int32, device="cpu")
    count = graph_coloring_assign(cpu(edges), colors, algorithm)
    others = edges[edges[:, 0] != edges[:, 1]]
    assert invalid_edges(others, colors.numpy()) == 0 and colors.numpy().max() == count - 1
    with contextlib.redirect_stderr(io.StringIO()):
        graph_coloring_balance(cpu(edges), colors, count, 1.0)
    assert invalid_edges(others, colors.numpy()) == 0


def graph_coloring_assign_colors(edges, n, algorithm):
    colors = wp.empty(n, dtype=wp.int32, device="cpu")
    graph_coloring_assign(cpu(edges), colors, algorithm)
    return colors.numpy()


def test_balance_reaches_the_target_on_a_mesh():
    n, edges = cloth_graph(lattice_faces(30))
    colors = wp.empty(n, dtype=wp.int32, device="cpu")
    count = graph_coloring_assign(cpu(edges), colors, GREEDY)
    sizes = np.bincount(colors.numpy())
    assert sizes.max() / sizes.min() > 3  # greedy leaves a small last color
    ratio = graph_coloring_balance(cpu(edges), colors, count, 1.1)
    sizes = np.bincount(colors.numpy(), minlength=count)
    assert ratio <= np.float32(1.1) and ratio == np.float32(sizes.max()) / np.float32(sizes.min())
    assert invalid_edges(edges, colors.numpy()) == 0


def test_balance_iteration_limit_warns_as_warp(capfd):
    # Warp's test: a star of 0 and a 7-node coloring 1:4:2; no move allowed, the ratio stays 4
    edges = cpu([(0, 1), (0, 2), (0, 3), (0, 4), (0, 6), (1, 6), (2, 5), (4, 6)])
    colors = cpu([0, 1, 1, 1, 1, 2, 2])
    assert graph_coloring_balance(edges, colors, 3, 1.1, max_iterations=0) == 4.0
    assert capfd.readouterr().err == ("Warp UserWarning: Graph coloring stopped because it reached the "
                                      "0-iteration limit (achieved ratio 4, target 1.1).\n")
    assert colors.numpy().tolist() == [0, 1, 1, 1, 1, 2, 2]
    assert graph_coloring_balance(edges, colors, 3, 1.1, max_iterations=2) == 1.5
    assert colors.numpy().tolist() == [0, 1, 2, 1, 1, 0, 2]
    assert capfd.readouterr().err == ""


def test_balance_warning_names_the_caller_under_verbose_warnings(capfd):
    edges = cpu([(0, 1), (0, 2), (0, 3), (0, 4), (0, 6), (1, 6), (2, 5), (4, 6)])
    colors = cpu([0, 1, 1, 1, 1, 2, 2])
    with wp.config.override(verbose_warnings=True):
        line = sys._getframe().f_lineno + 1
        graph_coloring_balance(edges, colors, 3, 1.1, max_iterations=0)
    assert capfd.readouterr().err == (
        "Warp UserWarning: Graph coloring stopped because it reached the 0-iteration limit (achieved ratio 4, "
        f"target 1.1). ({__file__}:{line})\n"
        "  graph_coloring_balance(edges, colors, 3, 1.1, max_iterations=0)\n")


def test_balance_of_one_color_or_no_nodes():
    colors = cpu([0, 0, 0])
    assert graph_coloring_balance(cpu(np.zeros((0, 2))), colors, 1, 1.1) == 1.0
    assert graph_coloring_balance(cpu(np.zeros((0, 2))), colors, 0, 1.1) == 1.0
    assert colors.numpy().tolist() == [0, 0, 0]
    # three colors, one used: an empty group makes the ratio infinite; moves stop when sizes differ by 2
    assert graph_coloring_balance(cpu(np.zeros((0, 2))), colors, 3, 1.1) == np.inf
    assert colors.numpy().tolist() == [1, 0, 0]
    assert np.isnan(graph_coloring_balance(cpu(np.zeros((0, 2))), cpu([]), 3, 1.1))  # Warp's 0 / 0


# -- groups -------------------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(colors=st.lists(st.integers(0, 6), max_size=200), extra=st.integers(0, 3))
def test_groups_match_numpy(colors, extra):
    count = (max(colors) + 1 if colors else 0) + extra
    data = np.array(colors, np.int32)
    groups = graph_coloring_get_groups(cpu(data), count, return_wp_array=False)
    assert len(groups) == count
    for c, g in enumerate(groups):
        assert isinstance(g, np.ndarray) and g.dtype == np.int32
        assert g.tolist() == np.flatnonzero(data == c).tolist()


def test_groups_are_cpu_arrays_by_default_or_on_the_device_given():
    groups = graph_coloring_get_groups(cpu([2, 0, 2, 1]), 3)
    assert [g.numpy().tolist() for g in groups] == [[1], [3], [0, 2]]
    assert all(isinstance(g, wp.array) and g.dtype == wp.int32 and g.device.is_cpu for g in groups)
    assert graph_coloring_get_groups(cpu([0, 1]), 0) == ()
    groups = graph_coloring_get_groups(cpu([1, 1]), 2, device=wp.get_device("cpu"))
    assert [g.shape for g in groups] == [(0,), (2,)]


# -- errors -------------------------------------------------------------------------------------------------

BAD_ARRAYS = [
    # (edges, node_colors, exception, message)
    (cpu([[0, 1]]).numpy(), cpu([0, 1]), TypeError, "edges must be an array, got ndarray"),
    (cpu([[0, 1]]), [0, 1], TypeError, "node_colors must be an array, got list"),
    (wp.array([[0, 1]], dtype=wp.int64), cpu([0, 1]), RuntimeError, "edges array must have dtype int32, got int64"),
    (cpu([[0, 1]]), wp.array([0, 1], dtype=wp.float32), RuntimeError,
     "node_colors array must have dtype int32, got float32"),
    (cpu([0, 1]), cpu([0, 1]), RuntimeError, "edges array must be 2-dimensional, got 1 dimensions"),
    (cpu([[0, 1, 1]]), cpu([0, 1]), RuntimeError, r"edges array must have shape \(edge_count, 2\), got shape \(1, 3\)"),
    (cpu([[0, 1]]), cpu([[0, 1]]), RuntimeError, "node_colors array must be 1-dimensional, got 2 dimensions"),
    (cpu([[0, 2]]), cpu([0, 1]), RuntimeError,
     r"Graph edge 0 has endpoints \(0, 2\), but valid node indices are in the range \[0, 2\)\."),
    (cpu([[0, 1], [1, -1]]), cpu([0, 1]), RuntimeError,
     r"Graph edge 1 has endpoints \(1, -1\), but valid node indices are in the range \[0, 2\)\."),
]


def _unchanged(colors):
    return colors.numpy().copy() if isinstance(colors, wp.array) else None


@pytest.mark.parametrize("edges, colors, error, message", BAD_ARRAYS)
def test_assign_refuses_bad_arrays_and_writes_nothing(edges, colors, error, message):
    before = _unchanged(colors)
    with pytest.raises(error, match=message) as info:
        graph_coloring_assign(edges, colors)
    if "Graph edge" in message:
        assert str(info.value).startswith("Graph coloring failed: ")
    if before is not None:
        assert (colors.numpy() == before).all()


@pytest.mark.parametrize("edges, colors, error, message", BAD_ARRAYS)
def test_balance_refuses_bad_arrays_and_writes_nothing(edges, colors, error, message):
    before = _unchanged(colors)
    with pytest.raises(error, match=message) as info:
        graph_coloring_balance(edges, colors, 2, 1.1)
    if "Graph edge" in message:
        assert str(info.value).startswith("Graph coloring balance failed: ")
    if before is not None:
        assert (colors.numpy() == before).all()


def test_assign_refuses_an_empty_graph_and_unknown_algorithms():
    with pytest.raises(RuntimeError, match="^Cannot color an empty graph$"):
        graph_coloring_assign(cpu(np.zeros((0, 2))), cpu([]))
    colors = cpu([5, 5])
    with pytest.raises(RuntimeError, match="^Graph coloring failed: Unrecognized coloring algorithm number: 2!$"):
        graph_coloring_assign(cpu([[0, 1]]), colors, 2)
    for bad in ("MCS", 1.0, True, None):
        with pytest.raises(TypeError, match="algorithm must be a GraphColoringAlgorithm"):
            graph_coloring_assign(cpu([[0, 1]]), colors, bad)
    # a bad edge is reported before a bad algorithm, as Warp's native code checks them
    with pytest.raises(RuntimeError, match="Graph edge 0"):
        graph_coloring_assign(cpu([[0, 9]]), colors, 7)
    assert colors.numpy().tolist() == [5, 5]


@pytest.mark.parametrize("invalid", [-(2**31), -1, 2, 2**31 - 1])
def test_balance_refuses_colors_out_of_range(invalid):
    colors = cpu([0, invalid])
    with pytest.raises(RuntimeError) as info:
        graph_coloring_balance(cpu([[0, 1]]), colors, 2, 1.1)
    assert str(info.value) == (f"Graph coloring balance failed: Node 1 has color {invalid}, but valid colors are in "
                               f"the range [0, 2).")
    assert colors.numpy().tolist() == [0, invalid]


@pytest.mark.parametrize("kwargs, error, message", [
    ({"max_iterations": -1}, ValueError, "^max_iterations must be non-negative, got -1$"),
    ({"max_iterations": 2**31}, ValueError, f"^max_iterations must not exceed {2**31 - 1}, got {2**31}$"),
    ({"max_iterations": True}, TypeError, "^max_iterations must be an integer or None, got bool$"),
    ({"max_iterations": 1.5}, TypeError, "^max_iterations must be an integer or None, got float$"),
    ({"max_iterations": "1"}, TypeError, "^max_iterations must be an integer or None, got str$"),
    ({"color_count": 2.0}, TypeError, "color_count must be an integer, got float"),
    ({"color_count": 2**31}, ValueError, "color_count must not exceed"),
    ({"target_max_min_ratio": "1.1"}, TypeError, "target_max_min_ratio must be a number, got str"),
    ({"target_max_min_ratio": None}, TypeError, "target_max_min_ratio must be a number, got NoneType"),
])
def test_balance_refuses_bad_numbers_and_writes_nothing(kwargs, error, message):
    colors = cpu([0, 0, 0, 0, 1])
    args = {"color_count": 2, "target_max_min_ratio": 1.1, **kwargs}
    with pytest.raises(error, match=message):
        graph_coloring_balance(cpu(np.zeros((0, 2))), colors, **args)
    assert colors.numpy().tolist() == [0, 0, 0, 0, 1]


def test_groups_refuse_bad_arguments():
    with pytest.raises(RuntimeError, match="^color_count must be non-negative$"):
        graph_coloring_get_groups(cpu([0]), -1)
    with pytest.raises(TypeError, match="color_count must be an integer, got float"):
        graph_coloring_get_groups(cpu([0]), 1.0)
    with pytest.raises(TypeError, match="node_colors must be an array, got list"):
        graph_coloring_get_groups([0], 1)
    with pytest.raises(RuntimeError, match="^node_colors array must have dtype int32, got int64$"):
        graph_coloring_get_groups(wp.array([0], dtype=wp.int64), 1)
    with pytest.raises(RuntimeError, match="^node_colors array must be 1-dimensional, got 2 dimensions$"):
        graph_coloring_get_groups(cpu([[0]]), 1)
    with pytest.raises(RuntimeError, match=r"^Node 2 has color 3, but valid colors are in the range \[0, 3\)\.$"):
        graph_coloring_get_groups(cpu([0, 2, 3]), 3)


def test_edge_count_limit_is_checked(monkeypatch):
    # the adjacency of 2**30 edges overflows int32 offsets; checked here with the limit lowered to 3 entries
    from brickwork.runtime import graph_coloring

    monkeypatch.setattr(graph_coloring, "_INT32_MAX", 3)
    colors = cpu([7, 7, 7])
    with pytest.raises(ValueError, match="edges array has 2 edges; at most 1 are supported"):
        graph_coloring_assign(cpu([[0, 1], [1, 2]]), colors)
    assert colors.numpy().tolist() == [7, 7, 7]


# -- arrays on a CUDA device (the fake driver: device memory is host memory) ---------------------------------


def test_cuda_arrays_go_through_the_host_and_back():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from runtime.cuda_fake import FakeDriver, installed

    n, edges = GRAPHS["cloth6"]
    count, expected, ratio, balanced = WARP[("cloth6", "MCS")]
    with installed(FakeDriver()):
        d_edges = wp.array(edges, dtype=wp.int32, device="cuda:0")
        d_colors = wp.zeros(n, dtype=wp.int32, device="cuda:0")
        assert graph_coloring_assign(d_edges, d_colors) == count
        assert d_colors.numpy().tolist() == expected
        assert graph_coloring_balance(d_edges, d_colors, count, 1.1) == ratio
        assert d_colors.numpy().tolist() == balanced
        groups = graph_coloring_get_groups(d_colors, count, device="cuda:0")
        assert all(g.device == d_colors.device for g in groups)
        assert [g.numpy().tolist() for g in groups] == [np.flatnonzero(np.array(balanced) == c).tolist()
                                                        for c in range(count)]

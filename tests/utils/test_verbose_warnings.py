"""``wp.config.verbose_warnings`` (Warp's flag): a warning written in Warp's form names the caller's file and
line, and shows the line, only while the flag is set (output checked against Warp 1.19's)."""

import inspect

import numpy as np

import brickwork as wp
import brickwork.utils as U


def _unbalanced_coloring():
    rng = np.random.default_rng(0)
    edges = np.unique(np.sort(rng.integers(0, 200, size=(1500, 2)), axis=1), axis=0)
    edges = wp.array(edges[edges[:, 0] != edges[:, 1]].astype(np.int32), dtype=wp.int32)
    colors = wp.zeros(200, dtype=wp.int32)
    return edges, colors, U.graph_coloring_assign(edges, colors)


MESSAGE = ("Warp UserWarning: Graph coloring stopped because it reached the 1-iteration limit (achieved ratio 13, "
           "target 1).")


def test_verbose_warnings_is_off_by_default_and_adds_the_callers_location(capsys):
    assert wp.config.verbose_warnings is False
    edges, colors, count = _unbalanced_coloring()
    U.graph_coloring_balance(edges, colors, count, target_max_min_ratio=1.0, max_iterations=1)
    assert capsys.readouterr().err == MESSAGE + "\n"

    edges, colors, count = _unbalanced_coloring()
    with wp.config.override(verbose_warnings=True):
        line = inspect.currentframe().f_lineno + 1
        U.graph_coloring_balance(edges, colors, count, target_max_min_ratio=1.0, max_iterations=1)
    assert capsys.readouterr().err == (
        f"{MESSAGE} ({__file__}:{line})\n"
        "  U.graph_coloring_balance(edges, colors, count, target_max_min_ratio=1.0, max_iterations=1)\n")

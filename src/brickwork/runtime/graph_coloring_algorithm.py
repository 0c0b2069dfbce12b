"""``GraphColoringAlgorithm``, in a module of its own: ``brickwork.utils`` names it at import, and the kernels of
``graph_coloring.py`` are defined (their sources read) only when a coloring is first asked for."""

from __future__ import annotations

import enum


class GraphColoringAlgorithm(enum.IntEnum):
    """The node order of ``graph_coloring_assign``'s greedy coloring."""

    MCS = 0
    """Maximum cardinality search: each next node is the one with the most colored neighbours."""

    GREEDY = 1
    """Decreasing degree."""

"""A problem's own history columns, ``HISTORY`` (Athena++'s user history outputs, Parthenon's
``HistoryOutputVar``): a dict of column names to ``fn(density, v1, v2, v3, pressure, params, gamma)``, or
to ``(operation, fn)`` with the operation ``"sum"`` (the default: the values' total times the cell volume,
as the shipped columns), ``"min"`` or ``"max"`` (over the cells). Each function gets a rank's blocks'
primitive variables, float64 arrays ``(nblocks, nk, nj, ni)``, and returns values that broadcast to them
(or the arguments it names, the cell centres ``x1, x2, x3`` and ``volume`` among them: ``user_arguments``).

Each block is reduced alone, then the blocks in global order (gathered from every rank), so a column is the
same bits on any number of ranks. A function that fails, on any rank, stops every rank with one line naming
it (``agree``)."""

from __future__ import annotations

import numpy as np

from . import user_arguments
from .custom_problem import call_user, host_function, kernel_note, primitives
from .rank_errors import agree
from .schema import HISTORY_COLUMNS, VARIABLE_NAME, ConfigError

OPERATIONS = ("sum", "min", "max")


def entries(problem) -> dict:
    """``HISTORY`` of a checked problem as ``{name: (operation, fn)}`` ({} without one)."""
    return {name: (value if isinstance(value, tuple) else ("sum", value))
            for name, value in getattr(problem, "HISTORY", {}).items()}


def describe_mistakes(problem) -> list[str]:
    """What ``problem``'s ``HISTORY`` gets wrong, one phrase each (for ``custom_problem.describe_mistakes``)."""
    columns = getattr(problem, "HISTORY", {})
    if not isinstance(columns, dict):
        return [f"HISTORY must be a dict of column names to functions or (operation, function), got {columns!r}"]
    mistakes = []
    for name, value in columns.items():
        if not isinstance(name, str) or not VARIABLE_NAME.fullmatch(name) or name in HISTORY_COLUMNS:
            mistakes.append(f"HISTORY has the name {name!r}: a history column is named with letters, digits and "
                            f"'_' (not first a digit), and not as one of {', '.join(HISTORY_COLUMNS)}")
            continue
        operation, function = value if isinstance(value, tuple) and len(value) == 2 else ("sum", value)
        if operation not in OPERATIONS or not host_function(function):
            mistakes.append(f"HISTORY[{name!r}] must be a function fn(density, v1, v2, v3, pressure, params, gamma) "
                            f"or (operation, function) with the operation one of {', '.join(map(repr, OPERATIONS))}, "
                            f"got {value!r}{kernel_note(function)}")
        else:
            mistakes += user_arguments.describe_mistake(function, "HISTORY", f"HISTORY[{name!r}]")
    return mistakes


def check_names(problem, scalar_names: list[str]) -> None:
    """``ConfigError`` when a ``HISTORY`` column takes a passive scalar's name (its history column)."""
    for name in entries(problem):
        if name in scalar_names:
            raise ConfigError(f"problem {problem.NAME!r}: HISTORY[{name!r}] takes the history column of the passive "
                              f"scalar {name!r} (hydro.nscalars, hydro.scalar_names); give the column another name")


def block_values(sim) -> list[list[float]]:
    """This rank's blocks' reductions: one row per block, one value per ``HISTORY`` column (not collective).
    ``ConfigError`` naming the column when its function raises or returns another shape."""
    columns = entries(sim.cfg.problem)
    if not columns:
        return []
    arguments = primitives(sim)
    reduced = []
    for name, (operation, function) in columns.items():
        value = call_user(sim, f"HISTORY[{name!r}]", function, arguments, np.float64)
        try:
            value = np.broadcast_to(value, arguments[0].shape)
        except ValueError:
            raise ConfigError(f"problem {sim.cfg.problem.NAME!r}: HISTORY[{name!r}] must return values that "
                              f"broadcast to the blocks' cells {arguments[0].shape} (the shape of its arguments), "
                              f"got shape {value.shape}") from None
        reduce = {"sum": np.sum, "min": np.min, "max": np.max}[operation]
        reduced.append([float(reduce(value[b])) for b in range(value.shape[0])])
    return [list(row) for row in zip(*reduced)]


def values(sim) -> list[float]:
    """The ``HISTORY`` columns of the current state, the same on every rank (collective)."""
    columns = entries(sim.cfg.problem)
    if not columns:
        return []
    rows: list = []
    agree(sim.mesh.comm, lambda: rows.extend(block_values(sim)))
    ordered = sim.rows_in_block_order(rows)
    volume = sim.mesh.blocks[0].coords.cell_volume
    out = []
    for c, (operation, _) in enumerate(columns.values()):
        column = [row[c] for row in ordered]
        if operation == "sum":
            total = 0.0
            for v in column:  # in global block order, as the shipped totals
                total += v
            out.append(total * volume)
        else:
            out.append(float(np.min(column) if operation == "min" else np.max(column)))  # NaN wins, as in a sum
    return out

"""Typing rules of hash-grid queries in kernels (the builtins are in ``builtins/hash_grid.py``).

``hash_grid_query_next(query, index)`` writes both of its arguments, so both must be local variables
(the IR passes them by reference: ``ir.analysis.REFERENCE_ARGUMENTS``); ``index`` must already hold an
int32, as in Warp (``index = int(0)``). ``for index in wp.hash_grid_query(...)`` and ``for index in query``
become ``while hash_grid_query_next(query, index): body``.
"""

from __future__ import annotations

import ast

from .. import ir
from ..builtins import FUNCTIONS
from ..builtins.param_names import BindError, bind_keywords
from ..errors import KernelSyntaxError, KernelTypeError
from ..types.arrays import type_name
from ..types.hash_grid_query import is_hash_grid_query_type
from ..types.scalars import bool_, int32
from .intrinsics import INTRINSICS

_NEXT = "hash_grid_query_next"


def _query_next(typer, f, node) -> ir.IRExpr:
    try:  # the argument nodes in parameter order, keywords by Warp's names (query, index)
        nodes = bind_keywords(_NEXT, list(node.args), [(k.arg, k.value) for k in node.keywords], None)
    except BindError as e:
        raise typer.error(KernelTypeError, str(e), node) from None
    if len(nodes) != 2:
        raise typer.error(KernelTypeError, f"{_NEXT}(query, index) takes 2 arguments, got {len(nodes)}", node)
    args = []
    for what, arg in zip(("query", "index"), nodes):
        if not isinstance(arg, ast.Name):
            raise typer.error(KernelTypeError, f"{_NEXT}() writes its {what} argument, which must be a local "
                              f"variable, got '{ast.unparse(arg)}'", node)
        if typer.symbols.type_of(typer.symbols.unique(arg.id)) is None and what == "index":
            raise typer.error(KernelTypeError, f"{_NEXT}() stores the index in '{arg.id}', which must be a variable "
                              f"that already holds an int32 (for example {arg.id} = int(0))", node)
        value = typer.value(arg)
        if not isinstance(value, ir.IRLocal):
            raise typer.error(KernelTypeError, f"{_NEXT}() writes its {what} argument, which must be a local "
                              f"variable, got '{arg.id}'", node)
        args.append(value)
    query, index = args
    if not is_hash_grid_query_type(query.type):
        raise typer.error(KernelTypeError, f"{_NEXT}(): the query must come from hash_grid_query(), got "
                          f"{type_name(query.type)}", node)
    if index.type is not int32:
        raise typer.error(KernelTypeError, f"{_NEXT}(): the index variable '{nodes[1].id}' holds a "
                          f"{type_name(index.type)}; it must hold an int32 (for example {nodes[1].id} = int(0))", node)
    for a in args:  # the call changes them: no value known at compile time any more
        typer.symbols.known.pop(a.name, None)
    return ir.IRCall(_NEXT, args, bool_)


def _loop(typer, query: ir.IRLocal, node, out) -> None:
    """``for index in <query>``: ``while hash_grid_query_next(query, index): body``."""
    if not isinstance(node.target, ast.Name):
        raise typer.error(KernelSyntaxError, "the loop variable must be a single name", node)
    index = typer.declare(typer.symbols.unique(node.target.id), int32, node)
    typer.symbols.known.pop(index.name, None)
    typer._forget_assigned(node.body)  # a later iteration sees the values the body assigns
    typer.loop_depth += 1
    body = typer.block(node.body)
    typer.loop_depth -= 1
    out.append(ir.IRWhile(ir.IRCall(_NEXT, [query, index], bool_), body))


def _for_new_query(typer, f, node, out) -> None:
    """``for index in wp.hash_grid_query(grid, point, radius[, group])``: a fresh query."""
    query = typer.call(f, node.iter)
    out.append(ir.IRAssign(query_local := typer.new_temp(query.type), query))
    _loop(typer, query_local, node, out)


def _for_query_value(typer, value, node, out) -> None:
    """``for index in query``: advances the query variable itself, as Warp does."""
    if not isinstance(value, ir.IRLocal):
        value = typer.assign_temp(value, out)
    _loop(typer, value, node, out)


INTRINSICS.register(FUNCTIONS[_NEXT], call=_query_next)
INTRINSICS.register(FUNCTIONS["hash_grid_query"], for_iter=_for_new_query)
INTRINSICS.register_type(is_hash_grid_query_type, for_iter=_for_query_value)

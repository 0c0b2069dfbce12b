"""Queries that kernels advance one candidate at a time (hash grids, BVHs, meshes): the typing of their
``*_next(query, index)`` builtins and of ``for index in query`` loops, shared by ``frontend/hash_grid.py``
and ``frontend/bvh.py``.

A next builtin writes its query and its index (the IR passes them by reference:
``ir.analysis.REFERENCE_ARGUMENTS``), so both must be local variables, and the index must already hold an
int32, as in Warp (``index = int(0)``). ``for index in make_query(...)`` and ``for index in query`` become
``while next(query, index): body``; the second advances the variable ``query`` itself, as Warp does.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .. import ir
from ..builtins.param_names import BindError, bind_keywords
from ..errors import KernelSyntaxError, KernelTypeError
from ..types.arrays import type_name
from ..types.scalars import bool_, int32


def next_call_rule(name: str, accepts: Callable, makers: str, optional: Callable | None = None):
    """The call rule of the next builtin ``name``: ``accepts(t)`` says whether ``t`` is a query it advances
    (made by ``makers``, for messages); ``optional(typer, arg_node, node)`` types a third argument if the
    builtin takes one."""

    def rule(typer, f, node) -> ir.IRExpr:
        try:  # the argument nodes in parameter order, keywords by Warp's names (query, index, ...)
            nodes = bind_keywords(name, list(node.args), [(k.arg, k.value) for k in node.keywords], None)
        except BindError as e:
            raise typer.error(KernelTypeError, str(e), node) from None
        most = 2 if optional is None else 3
        if not 2 <= len(nodes) <= most:
            takes = "2" if optional is None else "2 or 3"
            raise typer.error(KernelTypeError, f"{name}() takes {takes} arguments, got {len(nodes)}", node)
        args = []
        for what, arg in zip(("query", "index"), nodes):
            if not isinstance(arg, ast.Name):
                raise typer.error(KernelTypeError, f"{name}() writes its {what} argument, which must be a local "
                                  f"variable, got '{ast.unparse(arg)}'", node)
            if typer.symbols.type_of(typer.symbols.unique(arg.id)) is None and what == "index":
                raise typer.error(KernelTypeError, f"{name}() stores the index in '{arg.id}', which must be a "
                                  f"variable that already holds an int32 (for example {arg.id} = int(0))", node)
            value = typer.value(arg)
            if not isinstance(value, ir.IRLocal):
                raise typer.error(KernelTypeError, f"{name}() writes its {what} argument, which must be a local "
                                  f"variable, got '{arg.id}'", node)
            args.append(value)
        query, index = args
        if not accepts(query.type):
            raise typer.error(KernelTypeError, f"{name}(): the query must come from {makers}, got "
                              f"{type_name(query.type)}", node)
        if index.type is not int32:
            raise typer.error(KernelTypeError, f"{name}(): the index variable '{nodes[1].id}' holds a "
                              f"{type_name(index.type)}; it must hold an int32 (for example {nodes[1].id} = int(0))",
                              node)
        if len(nodes) == 3:
            args.append(optional(typer, nodes[2], node))
        for a in (query, index):  # the call changes them: no value known at compile time any more
            typer.symbols.known.pop(a.name, None)
        return ir.IRCall(name, args, bool_)

    return rule


def loop_rules(next_of: Callable) -> tuple:
    """``(for_new_query, for_query_value)``: the ``for_iter`` rules of a query-making builtin and of a query
    value; ``next_of(query_type)`` names the next builtin of a query type."""

    def loop(typer, query: ir.IRLocal, node, out) -> None:
        if not isinstance(node.target, ast.Name):
            raise typer.error(KernelSyntaxError, "the loop variable must be a single name", node)
        index = typer.declare(typer.symbols.unique(node.target.id), int32, node)
        typer.symbols.known.pop(index.name, None)
        typer._forget_assigned(node.body)  # a later iteration sees the values the body assigns
        typer.loop_depth += 1
        body = typer.block(node.body)
        typer.loop_depth -= 1
        out.append(ir.IRWhile(ir.IRCall(next_of(query.type), [query, index], bool_), body))

    def for_new_query(typer, f, node, out) -> None:
        """``for index in make_query(...)``: a fresh query."""
        query = typer.call(f, node.iter)
        out.append(ir.IRAssign(local := typer.new_temp(query.type), query))
        loop(typer, local, node, out)

    def for_query_value(typer, value, node, out) -> None:
        """``for index in query``: advances the query variable itself."""
        if not isinstance(value, ir.IRLocal):
            value = typer.assign_temp(value, out)
        loop(typer, value, node, out)

    return for_new_query, for_query_value

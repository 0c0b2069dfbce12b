"""Typing rules of BVH and mesh box queries in kernels (the builtins are in ``builtins/bvh.py``).

``bvh_query_next(query, index[, max_dist])`` and ``mesh_query_aabb_next(query, index)`` write their first
two arguments, so those must be local variables (passed by reference: ``ir.analysis.REFERENCE_ARGUMENTS``);
``index`` must already hold an int32, as in Warp (``index = int(0)``). ``for index in query`` (and ``for
index in wp.bvh_query_aabb(...)``) becomes ``while <next>(query, index): body``.
"""

from __future__ import annotations

import ast

import numpy as np

from .. import ir
from ..builtins import FUNCTIONS
from ..builtins.param_names import BindError, bind_keywords
from ..errors import KernelSyntaxError, KernelTypeError
from ..types.arrays import type_name
from ..types.geometry_queries import BvhQuery, MeshQueryAABB, is_geometry_query_type
from ..types.scalars import bool_, float32, int32
from .intrinsics import INTRINSICS

_NEXT = {BvhQuery: "bvh_query_next", MeshQueryAABB: "mesh_query_aabb_next"}
_MAKERS = {"bvh_query_next": "bvh_query_aabb/ray/sphere()", "mesh_query_aabb_next": "mesh_query_aabb()"}


def _query_next(name: str):
    want = next(t for t, n in _NEXT.items() if n == name)

    def rule(typer, f, node) -> ir.IRExpr:
        try:  # the argument nodes in parameter order, keywords by Warp's names
            nodes = bind_keywords(name, list(node.args), [(k.arg, k.value) for k in node.keywords], None)
        except BindError as e:
            raise typer.error(KernelTypeError, str(e), node) from None
        most = 3 if name == "bvh_query_next" else 2
        if not 2 <= len(nodes) <= most:
            raise typer.error(KernelTypeError, f"{name}() takes {'2 or 3' if most == 3 else '2'} arguments, got "
                              f"{len(nodes)}", node)
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
        if query.type is not want:
            raise typer.error(KernelTypeError, f"{name}(): the query must come from {_MAKERS[name]}, got "
                              f"{type_name(query.type)}", node)
        if index.type is not int32:
            raise typer.error(KernelTypeError, f"{name}(): the index variable '{nodes[1].id}' holds a "
                              f"{type_name(index.type)}; it must hold an int32 (for example {nodes[1].id} = int(0))",
                              node)
        if len(nodes) == 3:
            limit = typer.value(nodes[2])
            if isinstance(limit, ir.IRConst) and isinstance(limit.value, (int, float)) and limit.type is not bool_:
                limit = ir.IRConst(float(np.float32(limit.value)), float32)  # a literal: 1.0, 1
            if getattr(limit, "type", None) is not float32:
                raise typer.error(KernelTypeError, f"{name}(): max_dist must be a float32, got "
                                  f"{type_name(getattr(limit, 'type', None))}", node)
            args.append(limit)
        for a in (query, index):  # the call changes them: no value known at compile time any more
            typer.symbols.known.pop(a.name, None)
        return ir.IRCall(name, args, bool_)

    return rule


def _loop(typer, query: ir.IRLocal, node, out) -> None:
    """``for index in <query>``: ``while <next>(query, index): body``."""
    if not isinstance(node.target, ast.Name):
        raise typer.error(KernelSyntaxError, "the loop variable must be a single name", node)
    index = typer.declare(typer.symbols.unique(node.target.id), int32, node)
    typer.symbols.known.pop(index.name, None)
    typer._forget_assigned(node.body)  # a later iteration sees the values the body assigns
    typer.loop_depth += 1
    body = typer.block(node.body)
    typer.loop_depth -= 1
    out.append(ir.IRWhile(ir.IRCall(_NEXT[query.type], [query, index], bool_), body))


def _for_new_query(typer, f, node, out) -> None:
    """``for index in wp.bvh_query_aabb(...)``: a fresh query."""
    query = typer.call(f, node.iter)
    out.append(ir.IRAssign(query_local := typer.new_temp(query.type), query))
    _loop(typer, query_local, node, out)


def _for_query_value(typer, value, node, out) -> None:
    """``for index in query``: advances the query variable itself, as Warp does."""
    if not isinstance(value, ir.IRLocal):
        value = typer.assign_temp(value, out)
    _loop(typer, value, node, out)


for _name in _NEXT.values():
    INTRINSICS.register(FUNCTIONS[_name], call=_query_next(_name))
for _name in ("bvh_query_aabb", "bvh_query_ray", "bvh_query_sphere", "mesh_query_aabb"):
    INTRINSICS.register(FUNCTIONS[_name], for_iter=_for_new_query)
INTRINSICS.register_type(is_geometry_query_type, for_iter=_for_query_value)

"""Typing rules of the steps of Warp's tiled BVH and mesh queries (the builtins are in
``builtins/tile_queries.py``): ``tile_bvh_query_next(query)`` and ``tile_mesh_query_aabb_next(query)`` (and
their older names ``bvh_query_next_tiled``, ``mesh_query_aabb_next_tiled``) advance the local variable
``query`` and give the thread's next index as an int32 tile of shape (1,), the block's one thread here
(-1 when none is left), which ``wp.untile`` turns back into the index."""

from __future__ import annotations

import ast

from .. import ir
from ..builtins import FUNCTIONS
from ..builtins.param_names import BindError, bind_keywords
from ..errors import KernelTypeError
from ..types.arrays import type_name
from ..types.geometry_queries import BvhQueryTiled, MeshQueryAABBTiled
from ..types.scalars import int32
from .intrinsics import INTRINSICS
from .tile_build import atom, fill


def _next_rule(name: str, kind, makers: str):
    def rule(typer, f, node) -> ir.IRExpr:
        try:
            nodes = bind_keywords(name, list(node.args), [(k.arg, k.value) for k in node.keywords], None)
        except BindError as e:
            raise typer.error(KernelTypeError, str(e), node) from None
        if len(nodes) != 1:
            raise typer.error(KernelTypeError, f"{name}() takes 1 argument (query), got {len(nodes)}", node)
        refused = typer.hoisting_refused()
        if refused is not None:  # the step and its tile are computed before the statement
            raise typer.error(KernelTypeError, f"{name}() cannot be called in {refused}: a tile operation runs "
                              f"before its statement; assign its result to a variable first", node)
        arg = nodes[0]
        query = typer.value(arg) if isinstance(arg, ast.Name) else None
        if not isinstance(query, ir.IRLocal):
            raise typer.error(KernelTypeError, f"{name}() advances its query, which must be a local variable, got "
                              f"'{ast.unparse(arg)}'", node)
        if query.type is not kind:
            raise typer.error(KernelTypeError, f"{name}(): the query must come from {makers}, got "
                              f"{type_name(query.type)}", node)
        typer.symbols.known.pop(query.name, None)  # the call changes it
        index = atom(typer, ir.IRCall("tile_query_next", [query], int32))
        return fill(typer, (1,), lambda idx: index, int32)

    return rule


for _name in ("tile_bvh_query_next", "bvh_query_next_tiled"):
    INTRINSICS.register(FUNCTIONS[_name], call=_next_rule(_name, BvhQueryTiled, "tile_bvh_query_aabb/ray()"))
for _name in ("tile_mesh_query_aabb_next", "mesh_query_aabb_next_tiled"):
    INTRINSICS.register(FUNCTIONS[_name], call=_next_rule(_name, MeshQueryAABBTiled, "tile_mesh_query_aabb()"))

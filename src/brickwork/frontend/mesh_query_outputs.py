"""Warp's older forms of the mesh point and ray queries, which return whether they found a point and write the
other results into local variables:

    found = wp.mesh_query_point(mesh, p, max_dist, inside, face, u, v)
    hit = wp.mesh_query_ray(mesh, start, dir, max_t, t, u, v, sign, normal, face[, root])

Each is typed as the struct form (``q = wp.mesh_query_point(mesh, p, max_dist)``, ahead of its statement,
then ``inside = q.sign``, ``face = q.face``, ...), and its value is ``q.result``. As with Warp, the variables
must already hold values of the results' types (``face = int(0)``), and the struct form's optional inputs
(``epsilon``, ``root``, ...) follow the outputs.
"""

from __future__ import annotations

import ast

from .. import ir
from ..builtins import FUNCTIONS
from ..errors import KernelTypeError
from ..types.scalars import bool_
from .intrinsics import INTRINSICS
from .output_arguments import check_output_target

_POINT = (3, ("sign", "face", "u", "v"))
_NO_SIGN = (3, ("face", "u", "v"))
#: builtin -> (inputs before the output arguments, the result fields they receive, in order)
FORMS = {"mesh_query_point": _POINT, "mesh_query_point_no_sign": _NO_SIGN,
         "mesh_query_furthest_point_no_sign": _NO_SIGN, "mesh_query_point_sign_normal": _POINT,
         "mesh_query_point_sign_winding_number": _POINT, "mesh_query_point_sign_parity": _POINT,
         "mesh_query_ray": (4, ("t", "u", "v", "sign", "normal", "face"))}


def _rule(typer, f, node) -> ir.IRExpr:
    inputs, fields = FORMS[f.name]
    if len(node.args) < inputs + len(fields):  # the struct form
        return typer.call_builtin_function(f.name, node)
    refused = typer.hoisting_refused()
    if refused is not None:
        raise typer.error(KernelTypeError, f"{f.name}() with output arguments cannot be called in {refused}: it "
                          f"runs before its statement; call it in a statement of its own", node)
    targets = node.args[inputs:inputs + len(fields)]
    struct_call = ast.copy_location(ast.Call(func=node.func, args=node.args[:inputs] + node.args[inputs + len(fields):],
                                             keywords=node.keywords), node)
    result = typer.call_builtin_function(f.name, struct_call)
    field_types = dict(result.type._fields)  # a MeshQueryPoint or a MeshQueryRay
    for i, (field, target) in enumerate(zip(fields, targets)):
        check_output_target(typer, f.name, inputs + i, target, field_types[field], node)
    query = typer.new_temp(result.type)
    typer.pending.append(ir.IRAssign(query, result))
    for field, target in zip(fields, targets):
        typer.assign(target, ir.IRField(query, field, field_types[field]), node, typer.pending)
    return ir.IRField(query, "result", bool_)


for _name in FORMS:
    INTRINSICS.register(FUNCTIONS[_name], call=_rule)

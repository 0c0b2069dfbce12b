"""Warp's output arguments: ``wp.svd3(A, U, sigma, V)`` as a statement stores the results in U, sigma, V;
``wp.transform_set_translation(t, p)``/``transform_set_rotation(t, q)`` change ``t`` in place.

Such a call is typed as the tuple form ``U, sigma, V = wp.svd3(A)``: the builtin returns a tuple
(``builtins/decompositions.py``) and each output argument, a local variable that already holds a
value of the result's type (as Warp needs it declared, ``U = wp.mat33()``), is assigned its part.
"""

from __future__ import annotations

import ast

from .. import ir
from ..builtins import BuiltinFunction
from ..builtins.decompositions import OUTPUT_ARGUMENTS
from ..errors import KernelTypeError
from ..types.arrays import type_name
from ..types.composite import is_transform_type
from .slice_assign import assign_transform_part

#: Builtins that change their first argument in place: the part of the transform each sets.
IN_PLACE = {"transform_set_translation": "p", "transform_set_rotation": "q"}


def output_argument_call(typer, node: ast.Call, out: list) -> bool:
    """Type ``node`` (a call statement) if it is a builtin call with output arguments; False if it is not."""
    name = _output_builtin(typer, node)
    if name in IN_PLACE:
        _set_in_place(typer, name, node, out)
        return True
    if name is None or len(node.args) <= OUTPUT_ARGUMENTS[name] or node.keywords:
        return False
    inputs = OUTPUT_ARGUMENTS[name]
    targets = node.args[inputs:]
    args = [typer.value(a) for a in node.args[:inputs]]
    result = typer.builtin_call(name, args, node)
    parts = result.type.types
    if len(targets) != len(parts):
        raise typer.error(KernelTypeError, f"{name}() takes {inputs} input and {len(parts)} output arguments, got "
                          f"{len(node.args)} arguments", node)
    for i, (target, t) in enumerate(zip(targets, parts)):
        check_output_target(typer, name, i, target, t, node)
    tmp = typer.new_temp(result.type)
    out.append(ir.IRAssign(tmp, result))
    for i, (target, t) in enumerate(zip(targets, parts)):
        typer.assign(target, ir.IRTupleGet(tmp, i, t), node, out)
    return True


def check_output_target(typer, name: str, i: int, target, t, node) -> None:
    """Refuse output argument ``i`` (an ast node) of builtin ``name`` unless it is a local variable that already
    holds a value of type ``t``."""
    if not isinstance(target, ast.Name):
        raise typer.error(KernelTypeError, f"output argument {i + 1} of {name}() must be a local variable, got "
                          f"'{ast.unparse(target)}'", node)
    held = typer.symbols.type_of(typer.symbols.unique(target.id))
    if held is None:
        raise typer.error(KernelTypeError, f"output argument '{target.id}' of {name}() must be a variable that "
                          f"already holds a {type_name(t)} (for example {target.id} = {type_name(t)}())", node)
    if held is not t:
        raise typer.error(KernelTypeError, f"output argument '{target.id}' of {name}() holds a "
                          f"{type_name(held)}; {name}() stores a {type_name(t)} there", node)


def _output_builtin(typer, node: ast.Call):
    """The name of the called builtin when it has output arguments, else None."""
    if not isinstance(node.func, (ast.Attribute, ast.Name)):
        return None
    name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
    if name not in OUTPUT_ARGUMENTS and name not in IN_PLACE:
        return None
    func = typer.try_static(node.func)
    if not isinstance(func, BuiltinFunction) or func.name not in OUTPUT_ARGUMENTS and func.name not in IN_PLACE:
        return None
    return func.name


def _set_in_place(typer, name, node, out) -> None:
    if len(node.args) != 2 or node.keywords:
        raise typer.error(KernelTypeError, f"{name}() takes 2 arguments (xform, {IN_PLACE[name]}), got "
                          f"{len(node.args) + len(node.keywords)}", node)
    target, value = node.args[0], typer.value(node.args[1])
    xform = typer.value(target)
    if not is_transform_type(xform.type):
        raise typer.error(KernelTypeError, f"{name}() needs a transform as its first argument, got "
                          f"{type_name(xform.type)}", node)
    if not isinstance(xform, (ir.IRLocal, ir.IRField, ir.IRComponent)) or _in_array(xform):
        # Warp passes an array element (or any other expression) by value: the copy changes, the array does not
        copy = typer.assign_temp(xform, out)
        target = ast.Name(id=copy.name, ctx=ast.Load())
    assign_transform_part(typer, ast.Attribute(value=target, attr=IN_PLACE[name], ctx=ast.Store()), value, node, out)


def _in_array(place) -> bool:
    while isinstance(place, (ir.IRField, ir.IRComponent)):
        place = place.base
    return not isinstance(place, ir.IRLocal)

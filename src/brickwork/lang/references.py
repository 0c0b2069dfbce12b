"""``@func`` parameters passed by reference (``dst: wp.ref[float]``), by copy-in/copy-out.

The function receives the value, as for any parameter, and returns the final values of its reference
parameters after its own result (``reference_result`` of its IR says so). At a call, the call is computed
ahead of its statement into a temporary, each place passed by reference (a local variable, an array
element, a struct field, a component of one of these) is assigned its final value, and the call's value
is the function's own result. The places are evaluated twice (read, then written), so they must not have
effects. Each write-back is marked an update in place (``IRAssign.updates``): the backward kernel moves an
array element's adjoint to the final value rather than counting it again for the value read before.
"""

from __future__ import annotations

import ast
import dataclasses

from .. import ir
from ..errors import KernelTypeError
from ..frontend.places import bound_constant, names_a_place
from ..frontend.static_value import Static
from ..ir.analysis import reference_locals
from ..ir.walk import Rewriter
from ..types.arrays import type_name
from ..types.opaque import TupleType
from ..types.references import RefType
from ..types.tile_stacks import is_tile_stack_type
from ..types.tiles import is_tile_type

_PLACES = "local variable, array element, struct field, or wp.ref[T] parameter"


def reference_params(overload) -> list:
    """The names of the parameters of a ``FunctionOverload`` annotated ``wp.ref[T]``."""
    return [name for name, t in overload.params if isinstance(t, RefType)]


def written_tiles(fn: ir.IRFunction) -> list:
    """The tile and tile-stack parameters of ``fn`` that its body assigns, stores into or pushes to, in
    parameter order."""
    tiles = {n for n, t in fn.params if is_tile_type(t) or is_tile_stack_type(t)}
    written = set()
    for n in ir.walk(fn.body) if tiles else ():
        if isinstance(n, ir.IRCall):  # a builtin that updates a local passed to it (a stack's push)
            written.update(a.name for a in reference_locals(n) if a.name in tiles)
        if isinstance(n, ir.IRAssign):
            target = n.target
            while isinstance(target, (ir.IRComponent, ir.IRField, ir.IRTupleGet, ir.IRArrayElem)):
                target = target.array if isinstance(target, ir.IRArrayElem) else target.base
            if isinstance(target, ir.IRLocal) and target.name in tiles:
                written.add(target.name)
    return [n for n, _ in fn.params if n in written]


class _ReturnReferences(Rewriter):
    def __init__(self, refs: list, result: TupleType):
        self.refs, self.result = refs, result

    def r_IRReturn(self, s):
        values = ([] if s.value is None else [self.expr(s.value)]) + [ir.IRLocal(n, t) for n, t in self.refs]
        return ir.IRReturn(ir.IRConstruct(values, self.result))

    def r_IRInlineBody(self, s):  # a local function's return ends its own application
        return s


def with_reference_results(fn: ir.IRFunction, names: list) -> ir.IRFunction:
    """``fn`` returning its result (if any), then the final values of parameters ``names``."""
    refs = [(n, t) for n, t in fn.params if n in names]
    own = fn.return_type
    result = TupleType(((own,) if own is not None else ()) + tuple(t for _, t in refs))
    body = _ReturnReferences(refs, result).stmts(fn.body)
    if own is None:  # falling off the end returns the references too
        body.append(ir.IRReturn(ir.IRConstruct([ir.IRLocal(n, t) for n, t in refs], result)))
    return dataclasses.replace(fn, body=body, return_type=result, reference_result=(own, tuple(n for n, _ in refs)))


def store_references(typer, call: ir.IRFuncCall, arg_nodes: dict, node):
    """The value of ``call`` (a function with reference parameters), with each place passed by reference
    assigned its final value: the statements run ahead of the call's statement (``typer.pending``).
    ``arg_nodes`` maps parameter names to the argument expressions (None: a default)."""
    own, names = call.func.reference_result
    params = dict(call.func.params)
    args = dict(zip(params, call.args))
    for name in names:
        source, value, t = arg_nodes.get(name), args[name], params[name]
        if not names_a_place(source, value):
            shown = "its default" if source is None else f"'{ast.unparse(source)}'"
            raise typer.error(KernelTypeError, f"{call.func.label}: wp.ref[{type_name(t)}] parameter '{name}' got "
                              f"{shown}; a wp.ref[{type_name(t)}] parameter requires an addressable expression "
                              f"({_PLACES})", node)
        known = bound_constant(typer, source, value)
        if known is not None:  # as in Warp: a constant is no place
            raise typer.error(KernelTypeError, f"{call.func.label}: wp.ref[{type_name(t)}] parameter '{name}' got "
                              f"'{source.id}', a local bound to the constant {known!r}; declare it as a variable "
                              f"to pass it by reference: {source.id} = wp.{type_name(t)}({known!r})", node)
        if ir.has_effect(value):
            raise typer.error(KernelTypeError, f"'{ast.unparse(source)}' passed by reference to '{name}' has an "
                              f"effect and would run twice (read and written back); compute it into a variable "
                              f"first", node)
    where = typer.hoisting_refused()
    if where is not None:
        raise typer.error(KernelTypeError, f"a call of {call.func.label}, which takes wp.ref parameters, cannot be "
                          f"in {where}: it runs as a statement of its own before its statement (call it in "
                          f"a statement or an assignment)", node)
    tmp = typer.new_temp(call.type)
    typer.pending.append(ir.IRAssign(tmp, call))
    first = 0 if own is None else 1
    for k, name in enumerate(names):
        part = ir.IRTupleGet(tmp, first + k, call.type.types[first + k])
        start = len(typer.pending)
        typer.assign(arg_nodes[name], part, node, typer.pending)
        for s in typer.pending[start:]:  # the final value replaces what the place held (its adjoint moves)
            if isinstance(s, ir.IRAssign):
                s.updates = True
    return Static(None) if own is None else ir.IRTupleGet(tmp, 0, own)

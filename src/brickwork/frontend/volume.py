"""Typing of the volume builtins that the builtin table cannot type from argument types alone
(``builtins/volume.py`` has the rest):

- the generic forms with a value type, ``volume_sample(id, uvw, mode, dtype=T)`` and
  ``volume_lookup(id, i, j, k, dtype=T)``: typed as ``volume_sample_typed``/``volume_lookup_typed`` given a zero
  of ``T`` (the C++ templates deduce ``T`` from it);
- the forms that write the gradient into a variable, ``volume_sample_grad(id, uvw, mode, grad, dtype=T)``,
  ``volume_sample_grad_f(id, uvw, mode, grad)`` and ``volume_sample_grad_index(id, uvw, mode, data, bg,
  grad)``: typed as the pair (value, gradient) ahead of the statement, ``grad`` assigned its part, the call's
  value the pair's first (as Warp's older mesh queries, ``mesh_query_outputs``).

As in Warp, ``grad`` must be a variable that already holds the gradient's type (vec3 of the value's scalar
for a scalar, the N x 3 Jacobian for an N-vector).
"""

from __future__ import annotations

from .. import ir
from ..builtins import FUNCTIONS
from ..errors import KernelTypeError, KernelUnsupportedTypeError
from ..types.arrays import type_name
from ..types.composite import is_vector_type
from ..types.opaque import TupleType
from ..types.scalars import float32, python_annotation_type
from .intrinsics import INTRINSICS
from .output_arguments import check_output_target

#: scalar suffixes of Warp's short type names (mat43f, vec3d)
_SUFFIX = {"float16": "h", "float32": "f", "float64": "d", "int8": "b", "uint8": "ub", "int16": "s", "uint16": "us",
           "int32": "i", "uint32": "ui", "int64": "l", "uint64": "ul"}


def _short_name(t) -> str:
    """A vector or matrix type named as Warp's messages name it (``mat43f`` for any 4 x 3 float32 matrix,
    predefined or not)."""
    shape, scalar = getattr(t, "_shape", None), getattr(t, "_dtype", None)
    suffix = _SUFFIX.get(type_name(scalar)) if scalar is not None else None
    if suffix and shape is not None and len(shape) == 2 and max(shape) <= 4:
        return f"mat{shape[0]}{shape[1]}{suffix}"
    if suffix and shape is not None and len(shape) == 1 and shape[0] <= 4:
        return f"vec{shape[0]}{suffix}"
    return type_name(t)


def _zero(t) -> ir.IRExpr:
    if is_vector_type(t):
        return ir.IRConstruct([ir.IRConst(0, t._dtype) for _ in range(t._length)], t)
    return ir.IRConst(0, t)


def _args(typer, node, name: str, form: str, count: int, keywords: tuple = ()) -> tuple:
    """The positional argument nodes and the keyword nodes of a call of ``name`` taking ``count`` positional
    arguments and the ``keywords`` given (a missing one as positional after them)."""
    given = {k.arg: k.value for k in node.keywords}
    unknown = set(given) - set(keywords)
    positional = list(node.args)
    for kw in keywords:  # dtype may be passed by position too
        if kw not in given and len(positional) > count:
            given[kw] = positional.pop(count)
    if unknown or len(positional) != count or set(given) != set(keywords):
        raise typer.error(KernelTypeError, f"{name}() is called as {form}", node)
    return positional, given


def _dtype(typer, node, name: str, value_node):
    t = python_annotation_type(typer.static_value(value_node))
    from ..builtins.volume import VALUE_TYPES

    if t not in VALUE_TYPES:
        raise typer.error(KernelUnsupportedTypeError, f"{name}(): unsupported volume type `{type_name(t)}`", node)
    return t


def _typed(name: str, internal: str, form: str, count: int):
    def rule(typer, f, node) -> ir.IRExpr:
        positional, given = _args(typer, node, name, form, count, ("dtype",))
        t = _dtype(typer, node, name, given["dtype"])
        args = [typer.value(a) for a in positional]
        return typer.builtin_call(internal, [*args, _zero(t)], node, label=f"{name}()")

    INTRINSICS.register(FUNCTIONS[name], call=rule)


_typed("volume_sample", "volume_sample_typed", "volume_sample(id, uvw, sampling_mode, dtype=T)", 3)
_typed("volume_lookup", "volume_lookup_typed", "volume_lookup(id, i, j, k, dtype=T)", 4)


def _with_gradient(name: str, internal: str, form: str, inputs: int, dtype_keyword: bool, value_type=None):
    def rule(typer, f, node) -> ir.IRExpr:
        positional, given = _args(typer, node, name, form, inputs + 1, ("dtype",) if dtype_keyword else ())
        args = [typer.value(a) for a in positional[:inputs]]
        if dtype_keyword:
            args.append(_zero(_dtype(typer, node, name, given["dtype"])))
        elif value_type is not None:
            args.append(_zero(value_type))
        refused = typer.hoisting_refused()
        if refused is not None:
            raise typer.error(KernelTypeError, f"{name}() writes its gradient argument and cannot be called in "
                              f"{refused}: call it in a statement of its own", node)
        pair = typer.builtin_call(internal, args, node, label=f"{name}()")
        value_t, grad_t = pair.type.types
        target = positional[inputs]
        held = typer.symbols.type_of(typer.symbols.unique(target.id)) if hasattr(target, "id") else None
        if held is not None and held is not grad_t:  # Warp's words for a gradient of the wrong shape
            raise typer.error(KernelUnsupportedTypeError, f"{name}(): Incompatible gradient type, expected "
                              f"{_short_name(grad_t)}, got {_short_name(held)}", node)
        check_output_target(typer, name, inputs, target, grad_t, node)
        tmp = typer.new_temp(TupleType((value_t, grad_t)))
        typer.pending.append(ir.IRAssign(tmp, pair))
        typer.assign(target, ir.IRTupleGet(tmp, 1, grad_t), node, typer.pending)
        return ir.IRTupleGet(tmp, 0, value_t)

    INTRINSICS.register(FUNCTIONS[name], call=rule)


_with_gradient("volume_sample_grad", "volume_sample_grad_pair",
               "volume_sample_grad(id, uvw, sampling_mode, grad, dtype=T)", 3, True)
_with_gradient("volume_sample_grad_f", "volume_sample_grad_pair", "volume_sample_grad_f(id, uvw, sampling_mode, grad)",
               3, False, float32)
_with_gradient("volume_sample_grad_index", "volume_sample_grad_index_pair",
               "volume_sample_grad_index(id, uvw, sampling_mode, voxel_data, background, grad)", 5, False)

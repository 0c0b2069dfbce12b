"""The typing rules of ``wp.grad(f)(args)`` (``grad.py``): the gradient of a builtin or a straight-line
``@func`` at given arguments, differentiated while the kernel is typed through the builtins' adjoint
rules. Loaded with the compiler on the first kernel that calls ``wp.grad``."""

from __future__ import annotations

import ast

from .. import ir
from ..builtins import BuiltinFunction
from ..builtins.adjoints import ADJOINTS, EXPANSIONS, NOT_DIFFERENTIABLE, ArrayAdjoint
from ..errors import KernelTypeError
from ..frontend.expressions import Static
from ..passes.adjoint_values import E, zero
from ..types.arrays import type_name
from ..types.composite import is_composite_type, is_matrix_type
from ..types.function_values import FunctionValueType
from ..types.opaque import TupleType
from ..types.scalars import int32, is_scalar_type
from .function import Function, function_argument
from .grad import GradFunction


class _NotDifferentiable(Exception):
    pass


def make_grad(typer, obj, node):
    if len(node.args) != 1 or node.keywords:
        raise typer.error(KernelTypeError, "wp.grad() takes one function", node)
    f = typer.static_value(node.args[0])
    if not isinstance(f, (BuiltinFunction, Function)):
        raise typer.error(KernelTypeError, f"wp.grad() takes a builtin or a @wp.func function, got "
                          f"'{ast.unparse(node.args[0])}'", node)
    return Static(GradFunction(f))


def call_grad(typer, g: GradFunction, node):
    if node.keywords:
        raise typer.error(KernelTypeError, f"{g!r}() takes positional arguments only", node)
    # a function passed to a Function parameter is part of the code differentiated, not a variable
    passed = [function_argument(typer, a) for a in node.args]
    args = [a for a in passed if not isinstance(a.type, FunctionValueType)]
    locals_ = iter(ir.IRLocal(f"_bw_grad_param{i}", a.type) for i, a in enumerate(args))
    passed = [a if isinstance(a.type, FunctionValueType) else next(locals_) for a in passed]
    params = [p for p in passed if not isinstance(p.type, FunctionValueType)]
    try:
        body = _body(typer, g.func, passed, node)
        if not (is_scalar_type(body.type) and body.type.is_float):
            raise typer.error(KernelTypeError, f"{g!r}(): the function must return one floating-point scalar, "
                              f"it returns {type_name(body.type)}", node)
        grads: dict = {}
        _backprop(body, ir.IRConst(1.0, body.type), grads)
    except _NotDifferentiable as e:
        raise typer.error(KernelTypeError, f"{g!r}(): {e}", node) from None
    # one adjoint per value argument (a function passed has none)
    values = [_substitute(grads.get(p.name) or zero(p.type), params, args) for p in params]
    if len(values) == 1:
        return values[0]
    return ir.IRConstruct(values, TupleType([v.type for v in values]))


def _body(typer, f, params, node) -> ir.IRExpr:
    """The value ``f`` returns, as one expression of ``params``."""
    if isinstance(f, BuiltinFunction):
        return typer.builtin_call(f.name, list(params), node)
    fn = typer.call_function(f, list(params), node).func
    return _inline(fn, [p for p in params if not isinstance(p.type, FunctionValueType)])


def _inline(fn, args) -> ir.IRExpr:
    """The return value of straight-line function ``fn`` applied to ``args``, with its locals substituted."""
    values = {name: a for (name, _), a in zip(fn.params, args)}
    for s in fn.body:
        if isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal):
            values[s.target.name] = _Substitute(values).expr(s.value)
        elif isinstance(s, ir.IRReturn) and s.value is not None:
            return _Substitute(values).expr(s.value)
        else:
            raise _NotDifferentiable(f"{fn.label or fn.name} is not straight-line code (an assignment to a "
                                     f"local, then 'return value'); wp.grad() differentiates such functions only")
    raise _NotDifferentiable(f"{fn.label or fn.name} returns no value")


class _Substitute:
    """Rebuild an expression with locals replaced by expressions, and calls of straight-line ``@func``s
    expanded."""

    def __init__(self, values):
        self.values = values

    def expr(self, e):
        if isinstance(e, ir.IRLocal):
            return self.values.get(e.name, e)
        if isinstance(e, ir.IRFuncCall):
            return _inline(e.func, [self.expr(a) for a in e.args])
        if isinstance(e, ir.IRCall):
            return ir.IRCall(e.op, [self.expr(a) for a in e.args], e.type)
        if isinstance(e, ir.IRCast):
            return ir.IRCast(self.expr(e.arg), e.type)
        if isinstance(e, ir.IRConstruct):
            return ir.IRConstruct([None if a is None else self.expr(a) for a in e.args], e.type)
        if isinstance(e, ir.IRComponent):
            return ir.IRComponent(self.expr(e.base), [self.expr(i) for i in e.indices], e.type)
        if isinstance(e, ir.IRSelect):
            return ir.IRSelect(self.expr(e.cond), self.expr(e.if_true), self.expr(e.if_false), e.type)
        if isinstance(e, ir.IRConst):
            return e
        raise _NotDifferentiable(f"cannot differentiate {e!r}")


def _substitute(e, params, args):
    return _Substitute({p.name: a for p, a in zip(params, args)}).expr(e)


def _add(grads, name, value):
    old = grads.get(name)
    grads[name] = value if old is None else E.add(old, value)


def _backprop(e, g, grads) -> None:
    """Add ``g`` (the adjoint of ``e``) into the adjoints of the parameters ``e`` depends on."""
    if isinstance(e, ir.IRLocal):
        _add(grads, e.name, g)
    elif isinstance(e, ir.IRConst):
        return
    elif isinstance(e, ir.IRCall):
        if e.op in NOT_DIFFERENTIABLE:
            return
        expanded = EXPANSIONS[e.op](E, e.args) if e.op in EXPANSIONS else None  # None: not for these types
        if expanded is not None:
            _backprop(expanded, g, grads)
            return
        rule = ADJOINTS.get(e.op)
        if rule is None:
            raise _NotDifferentiable(f"the builtin {e.op}() has no adjoint rule")
        for arg, contribution in zip(e.args, rule(E, e.args, e, g)):
            if contribution is not None and not isinstance(contribution, ArrayAdjoint):  # arrays: no parameter
                _backprop(arg, contribution, grads)
    elif isinstance(e, ir.IRCast):
        if is_scalar_type(e.arg.type) and e.arg.type.is_float:
            _backprop(e.arg, ir.IRCast(g, e.arg.type), grads)
    elif isinstance(e, ir.IRSelect):
        _backprop(e.if_true, ir.IRSelect(e.cond, g, zero(g.type), g.type), grads)
        _backprop(e.if_false, ir.IRSelect(e.cond, zero(g.type), g, g.type), grads)
    elif isinstance(e, ir.IRConstruct) and is_composite_type(e.type):
        if any(a is None for a in e.args):
            return
        n = len(e.args)
        for k, a in enumerate(e.args):
            if len(e.args) == n and is_scalar_type(a.type):
                _backprop(a, _flat(g, k), grads)
            else:
                raise _NotDifferentiable(f"cannot differentiate building {type_name(e.type)} from parts")
    elif isinstance(e, ir.IRComponent) and all(isinstance(i, ir.IRConst) for i in e.indices):
        t = e.base.type
        flat = [i.value for i in e.indices]
        size = 1
        for d in t._shape:
            size *= d
        if is_matrix_type(t) and len(flat) == 1:
            cols = t._shape[1]
            comps = [E.comp(g, k % cols) if k // cols == flat[0] else ir.IRConst(0, t._dtype) for k in range(size)]
        else:
            at = flat[0] * t._shape[1] + flat[1] if len(flat) == 2 else flat[0]
            comps = [g if k == at else ir.IRConst(0, t._dtype) for k in range(size)]
        _backprop(e.base, ir.IRConstruct(comps, t), grads)
    else:
        raise _NotDifferentiable(f"cannot differentiate {e!r}")


def _flat(v, k):
    t = v.type
    if is_matrix_type(t):
        cols = t._shape[1]
        return ir.IRComponent(v, [ir.IRConst(k // cols, int32), ir.IRConst(k % cols, int32)], t._dtype)
    return ir.IRComponent(v, [ir.IRConst(k, int32)], t._dtype)

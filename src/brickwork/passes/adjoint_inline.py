"""``@func`` calls in the adjoint's normal form: inlined with fresh names and their exits as flags; a call of a
function with ``@func_grad`` or ``@func_replay`` becomes an ``IRCustomAdjoint``, a ``wp.func_native`` call stays a
call."""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..types.fixed_arrays import FixedArrayType
from .adjoint_exits import ExitsToFlags
from .adjoint_refusals import not_differentiable
from .adjoint_values import carries_adjoint
from .inline_local_functions import InlineLocalFunctions


@dataclass(eq=False)
class IRCustomAdjoint(ir.IRStmt):
    """A call of a ``@func`` with ``@func_grad``: ``forward`` computes ``result`` (not differentiated);
    the reverse sweep binds ``params`` to ``args`` and ``result_adjoints`` to the result's adjoint, runs
    ``grad`` and adds each of ``adjoints`` (``wp.adjoint[p]``) to its argument's adjoint."""

    forward: list
    grad: list
    args: list
    result: object
    params: list
    result_adjoints: list
    adjoints: list  # per parameter: its wp.adjoint local after the gradient function, or None
    adjoint_inits: list  # per parameter: the wp.adjoint local the gradient function starts from
    # @func_replay without @func_grad: the function's own body (normal form) and its result, replayed
    # and reversed in the reverse sweep (the replay only computes the result in the forward replay)
    original: list | None = None
    original_result: object = None
    # the function takes wp.ref parameters: ``result`` is (its own result, their final values), and the
    # gradient function takes the adjoint of the own result only
    own_result: bool = False


class FunctionInlining:
    """The ``@func`` calls of the normal form's flattener (its base class: these methods use its ``atom``,
    ``block``, ``locals``, ``types``, ``fn``, ``label`` and ``inlined``)."""

    def inline(self, call: ir.IRFuncCall, env, out):
        """A ``@func`` call: its body (its ``@func_replay`` if any), with fresh names, returns as flags;
        the result local. With a ``@func_grad`` the call becomes an ``IRCustomAdjoint``."""
        callee = call.func
        args = [self.atom(a, env, out) for a in call.args]
        if callee.body and isinstance(callee.body[0], ir.IRNative):  # wp.func_native: called, never inlined
            native = callee.custom_replay or callee  # its replay snippet, if any, is what the backward runs
            if callee.return_type is None:
                out.append(ir.IRExprStmt(ir.IRFuncCall(native, args, None)))
                return None
            result = self.locals.new(self.next_prefix(callee) + "ret", callee.return_type)
            self.types[result.name] = result.type
            out.append(ir.IRAssign(result, ir.IRFuncCall(native, args, callee.return_type)))
            return result
        body_fn = callee.custom_replay or callee
        if callee.custom_grad is None and callee.custom_replay is None:
            return self.inline_body(body_fn, args, env, out)
        forward: list = []
        result = self.inline_body(body_fn, args, env, forward)
        if callee.custom_grad is None:  # replay only: the reverse sweep differentiates the body itself
            original: list = []
            original_result = self.inline_body(callee, args, dict(env), original)
            out.append(IRCustomAdjoint(forward, [], args, result, [], [], [], [], original, original_result))
            return result
        grad_fn = callee.custom_grad
        n = len(callee.params)
        own_result = callee.reference_result is not None
        if own_result:
            params_of = dict(callee.params)
            written = [p for p in callee.reference_result[1] if carries_adjoint(params_of[p])]
            if written:
                raise not_differentiable(self.label, f"{callee.label} has a custom gradient (@func_grad) and stores "
                                          f"into wp.ref parameters ({', '.join(written)}) whose gradient it cannot "
                                          f"give; pass those values and return them instead, or launch the kernel "
                                          f"with enable_backward=False")
        grad_out: list = []
        prefix = self.next_prefix(grad_fn)
        rename = self.declare_renamed(grad_fn, prefix)
        grad_env = dict(env)
        params = [rename[pn] for pn, _ in grad_fn.params]
        for p in params:
            grad_env[p.name] = p
        body = _Renamer(rename).stmts(InlineLocalFunctions().run(grad_fn).body)
        structured = ExitsToFlags(self.locals, self.label, None).function_body(body)
        grad_out.extend(self.block(structured, grad_env))
        inits = [rename.get(f"_adjoint_{pn}") for pn, _ in grad_fn.params[:n]]
        adjoints = [grad_env.get(a.name, a) if a is not None else None for a in inits]
        out.append(IRCustomAdjoint(forward, grad_out, args, result, params[:n], params[n:], adjoints, inits,
                                   own_result=own_result))
        return result

    def next_prefix(self, callee) -> str:
        self.inlined += 1
        return f"_f{self.inlined}_{callee.name[:24]}_"

    def declare_renamed(self, callee, prefix) -> dict:
        rename = {n: ir.IRLocal(prefix + n, t) for n, t in [*callee.params, *callee.locals.items()]}
        for n, t in [*callee.params, *callee.locals.items()]:
            self.fn.locals[prefix + n] = t
            self.types[prefix + n] = t
        return rename

    def inline_body(self, callee, args, env, out):
        prefix = self.next_prefix(callee)
        rename = self.declare_renamed(callee, prefix)
        body = _Renamer(rename).stmts(InlineLocalFunctions().run(callee).body)
        result = self.locals.new(prefix + "ret", callee.return_type) if callee.return_type is not None else None
        structured = ExitsToFlags(self.locals, self.label, result).function_body(body)
        callee_env = dict(env)
        for (n, _), a in zip(callee.params, args):
            p = rename[n]
            if isinstance(a.type, FixedArrayType) and not isinstance(p.type, FixedArrayType):
                a = ir.IRSubarray(a, [], p.type)  # a local array bound to an array parameter: a view of it
            out.append(ir.IRAssign(p, a))
            callee_env[p.name] = p
        if result is not None:
            self.types[result.name] = result.type
        out.extend(self.block(structured, callee_env))
        env.update(callee_env)  # a callee assigns only its own (renamed) locals and flags
        if result is None:
            return None
        return env.get(result.name, result)


class _Renamer(ir.Rewriter):
    def __init__(self, rename: dict):
        self.rename = rename

    def r_IRLocal(self, e):
        return self.rename.get(e.name, ir.IRLocal(e.name, e.type))

"""Nested parallelism in kernel code: local functions inlined as loop bodies, teams and scratch.

``par_for_inner(member, lo, hi, fn)`` runs ``fn(i)`` for ``lo <= i <= hi`` as a simd loop inside
one team; ``fn`` is a nested ``def`` or a ``lambda``, inlined where it is called. Names it assigns
are renamed so they never clobber the enclosing function's variables (Python's scoping), and its
``return`` ends the iteration. A team's ``ScratchPad1D/2D/3D`` are contiguous arrays cut from the
team's arena; ``team_barrier()`` orders producer and consumer loops (a no-op on the CPU, where a
team is one thread).
"""

from __future__ import annotations

import ast

from ..errors import KernelSyntaxError, KernelTypeError
from ..types.arrays import ArrayType, type_name
from ..types.opaque import TEAM_MEMBER
from ..types.scalars import int32, is_scalar_type, python_annotation_type
from . import ir


class LocalFunction:
    """A nested ``def`` or ``lambda`` of kernel code, kept as syntax until it is inlined."""

    def __init__(self, node):
        self.node = node
        self.name = getattr(node, "name", "<lambda>")
        self.params = [a.arg for a in node.args.args]


class MemberMethod:
    """``member.team_barrier`` / ``member.team_scratch`` before the call."""

    def __init__(self, member, name):
        self.member = member
        self.name = name


SCRATCH_PADS = {"ScratchPad1D": 1, "ScratchPad2D": 2, "ScratchPad3D": 3}


class NestedMixin:
    """Mixin of ``Builder``: inlining of local functions, team members and scratch pads."""

    def stmt_FunctionDef(self, node, out):
        if node.decorator_list:
            raise self.error(KernelSyntaxError, "nested functions in kernels cannot have decorators", node)
        self.static_locals[self.renames.get(node.name, node.name)] = LocalFunction(node)

    def expr_Lambda(self, node):
        from .expressions import Static

        return Static(LocalFunction(node))

    def member_attribute(self, base, attr, node):
        from .expressions import Static

        if attr in ("team_barrier", "team_scratch"):
            return Static(MemberMethod(base, attr))
        raise self.error(KernelTypeError, f"a team member has no attribute '{attr}' (it has team_barrier, "
                         f"team_scratch)", node)

    def call_member_method(self, method: MemberMethod, node):
        from .expressions import Static

        if method.name == "team_scratch":
            return method.member  # one arena per team; the scratch level only matters on GPUs
        if node.args or node.keywords:
            raise self.error(KernelTypeError, "team_barrier() takes no arguments", node)
        return Static(None)

    def scratch_pad(self, name, node):
        ndim = SCRATCH_PADS[name]
        if len(node.args) != ndim + 2 or node.keywords:
            raise self.error(KernelTypeError, f"{name}(member, dtype, {', '.join(f'n{d}' for d in range(ndim))}) "
                             f"takes {ndim + 2} arguments", node)
        member = self.value(node.args[0])
        if member.type is not TEAM_MEMBER:
            raise self.error(KernelTypeError, f"{name}: the first argument must be the team member, got "
                             f"{type_name(member.type)}", node)
        dtype = python_annotation_type(self.static_value(node.args[1]))
        sizes = [self.value(a) for a in node.args[2:]]
        for s in sizes:
            if not getattr(s.type, "is_int", False):
                raise self.error(KernelTypeError, f"{name}: sizes must be integers, got {type_name(s.type)}", node)
        t = ArrayType(dtype, ndim)
        self.context.note_type(t)
        from ..codegen.ctypes_names import c_type

        spelling = f"bw::team_alloc<{c_type(dtype)}, {ndim}>({{args}})"
        return ir.IRCall("team_alloc", [member, *sizes], t, spelling)

    def par_for_inner(self, node) -> ir.IRStmt:
        """``par_for_inner(member, lo, hi, fn)``: an inclusive simd loop with ``fn`` inlined."""
        if len(node.args) != 4 or node.keywords:
            raise self.error(KernelTypeError, "par_for_inner(member, lo, hi, fn) takes 4 arguments", node)
        member = self.value(node.args[0])
        if member.type is not TEAM_MEMBER:
            raise self.error(KernelTypeError, f"par_for_inner: the first argument must be the team member, got "
                             f"{type_name(member.type)}", node)
        lo, hi = self.value(node.args[1]), self.value(node.args[2])
        for bound in (lo, hi):
            if bound.type is not int32:
                raise self.error(KernelTypeError, f"par_for_inner: bounds must be int32, got "
                                 f"{type_name(bound.type)}", node)
        fn = self.static_value(node.args[3])
        if not isinstance(fn, LocalFunction) or len(fn.params) != 1:
            raise self.error(KernelTypeError, "par_for_inner: the body must be a nested def or lambda taking "
                             "one index", node)
        var, body = self.inline(fn, [int32], node)
        stop = self.builtin_call("add", [hi, ir.IRConst(1, int32)], node)
        return ir.IRFor(var[0], lo, stop, ir.IRConst(1, int32), body, 1, simd=True)

    def inline(self, fn: LocalFunction, param_types: list, node, fold: bool = False) -> tuple[list, list]:
        """Inline ``fn`` for parameters of ``param_types``: (parameter locals, statements)."""
        self._inlines = getattr(self, "_inlines", 0) + 1
        suffix = f"__inl{self._inlines}"
        assigned = set(fn.params)
        body_nodes = fn.node.body if isinstance(fn.node.body, list) else [fn.node.body]
        for n in ast.walk(ast.Module(body=body_nodes, type_ignores=[])):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                assigned.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.Lambda)) and n is not fn.node:
                if isinstance(n, ast.FunctionDef):
                    assigned.add(n.name)
        saved = (dict(self.renames), self.loop_depth, getattr(self, "_return_label", None),
                 getattr(self, "_fold_returns", False))
        self._fold_returns = fold  # inner_reduce: `return value` folds value into the accumulator
        for name in assigned:
            self.renames[name] = name + suffix
        label = f"end{suffix}"
        self._return_label = label
        self.loop_depth = 0
        try:
            params = []
            for name, t in zip(fn.params, param_types):
                local = name + suffix
                self.locals[local] = t
                self.var_types[local] = t
                params.append(ir.IRLocal(local, t))
            if isinstance(fn.node, ast.Lambda):
                value = self.expr(fn.node.body)
                if fold:
                    stmts = self.la_fold(self.to_value(value, fn.node.body), fn.node)
                else:
                    stmts = [] if not isinstance(value, ir.IRExpr) else [ir.IRExprStmt(value)]
            else:
                stmts = self.block(fn.node.body)
        finally:
            self.renames, self.loop_depth, self._return_label, self._fold_returns = saved
        return params, stmts + [ir.IRLabel(label)]

    def inlined_return(self, node, out) -> bool:
        """Inside an inlined body, ``return`` ends the iteration; True when handled here."""
        label = getattr(self, "_return_label", None)
        if label is None:
            return False
        if node.value is not None:
            if not getattr(self, "_fold_returns", False):
                raise self.error(KernelSyntaxError, "a loop body cannot return a value", node)
            out.extend(self.la_fold(self.value(node.value), node))
        elif getattr(self, "_fold_returns", False):
            raise self.error(KernelSyntaxError, "an inner_reduce body must return the value to fold", node)
        out.append(ir.IRGoto(label))
        return True

    def bind_team_member(self, name, scratch_param) -> ir.IRStmt:
        """Declare the team member parameter of a ``par_for_outer`` body, fresh for every team."""
        self.locals[name] = TEAM_MEMBER
        self.var_types[name] = TEAM_MEMBER
        call = ir.IRCall("team_begin", [scratch_param], TEAM_MEMBER, "bw::team_begin({args})")
        return ir.IRAssign(ir.IRLocal(name, TEAM_MEMBER), call)


_ = is_scalar_type

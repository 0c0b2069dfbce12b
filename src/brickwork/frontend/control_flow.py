"""Typing of control flow: ``if`` (a compile-time condition compiles one branch), ``while``, ``for`` over
``range``/``reversed(range)`` (or an extension's iterator), loops unrolled where ``wp.static`` reads their
variable, ``break`` and ``continue``. A mixin of ``Typer`` (``typer.py``).
"""

from __future__ import annotations

import ast
import builtins as py_builtins

from .. import ir
from ..builtins.static import static
from ..errors import KernelSyntaxError, KernelTypeError
from ..types.arrays import type_name
from ..types.opaque import TupleType
from .intrinsics import INTRINSICS
from .static_value import Static


class ControlFlowTyper:
    """Mixin of ``Typer``: the control-flow statements."""

    def stmt_If(self, node, out):
        test = self.expr(node.test)
        if isinstance(test, Static) and isinstance(test.value, (bool, int, float)):
            # A compile-time condition (Python constants): only the branch taken is compiled.
            out.extend(self.block(node.body if test.value else node.orelse))
            return
        cond = self.condition(node.test)
        out.append(ir.IRIf(cond, self.block(node.body), self.block(node.orelse)))
        self._forget_assigned(node.body + node.orelse)  # either branch's value, known only at run time

    def stmt_While(self, node, out):
        if node.orelse:
            raise self.error(KernelSyntaxError, "'while ... else' is not supported", node)
        self._forget_assigned(node.body)  # a later iteration sees the values the body assigns
        with self.no_hoisting("a while condition"):  # evaluated before every iteration
            cond = self.condition(node.test)
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        out.append(ir.IRWhile(cond, body))

    def stmt_For(self, node, out):
        if node.orelse:
            raise self.error(KernelSyntaxError, "'for ... else' is not supported", node)
        it = node.iter
        if isinstance(it, ast.Call):
            callee = self.try_static(it.func)
            if callee is static:  # Warp 1.19 refuses it too: a range is no value of a kernel
                raise self.error(KernelSyntaxError, "a for loop cannot iterate over wp.static(range(...)); write "
                                 "'for i in range(...)': a loop over a range with constant bounds is unrolled when its "
                                 "body reads i in wp.static(), and on the CPU when it has at most max_unroll "
                                 "iterations (a module option, default 16)", node)
            rule = None if callee is None else INTRINSICS.rule(callee, "for_iter")
            if rule is not None:
                rule(self, callee, node, out)
                return
        elif isinstance(it, (ast.Name, ast.Attribute, ast.Subscript)):  # a value that iterates (a query)
            value = self.expr(it)
            rule = None if isinstance(value, Static) else INTRINSICS.type_rule(value.type, "for_iter")
            if rule is not None:
                rule(self, value, node, out)
                return
        backwards = self._is_python_builtin(it, "reversed")
        if backwards:
            if len(it.args) != 1 or it.keywords:
                raise self.error(KernelTypeError, "reversed() takes one range(...)", node)
            it = it.args[0]
        if not self._is_python_builtin(it, "range"):
            raise self.error(KernelSyntaxError, "for loops must iterate over range(...) or reversed(range(...))"
                             + _array_loop_hint(self, it), node)
        if not 1 <= len(it.args) <= 3 or it.keywords:
            raise self.error(KernelTypeError, "range() takes 1 to 3 positional arguments", node)
        args = [self._range_bound(a) for a in it.args]
        types = {a.type for a in args}
        if len(types) != 1 or not getattr(args[0].type, "is_int", False):
            raise self.error(KernelTypeError, "range() arguments must be integers of one type, got "
                             + ", ".join(type_name(a.type) for a in args) + _range_float_hint(it, args), node)
        t = args[0].type
        one = ir.IRConst(1, t)
        start, stop, step = (ir.IRConst(0, t), args[0], one) if len(args) == 1 else (
            (args[0], args[1], one) if len(args) == 2 else args)
        sign = 0
        if isinstance(step, ir.IRConst):
            if step.value == 0:
                raise self.error(KernelTypeError, "range() step must not be zero", node)
            sign = 1 if step.value > 0 else -1
        if backwards:
            if sign:
                start, stop, step, sign = self._reversed_range(start, stop, step, sign, node, out)
            else:
                start, stop, step = self._reversed_runtime_range(start, stop, step, node, out)
        if not isinstance(node.target, ast.Name):
            raise self.error(KernelSyntaxError, "the loop variable must be a single name", node)
        name = self.symbols.unique(node.target.id)
        known = self.symbols.type_of(name)
        if known is not None and known is not t:
            raise self.error(KernelTypeError, f"loop variable '{name}' has type {type_name(known)}, but range() "
                             f"yields {type_name(t)}", node)
        self.symbols.declare(name, t)
        values = None
        if all(isinstance(a, ir.IRConst) for a in (start, stop, step)):
            values = range(start.value, stop.value, step.value)
        if values is not None and self._static_uses(node, node.target.id):
            self._unroll(node, name, t, values, out)
            return
        self.symbols.known.pop(name, None)
        self._forget_assigned(node.body)  # a later iteration sees the values the body assigns
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        unit = isinstance(step, ir.IRConst) and abs(step.value) == 1
        out.append(ir.IRFor(ir.IRLocal(name, t), start, stop, step, body, sign, wide=not unit))
        if values and not _exits_or_assigns(node, node.target.id):  # Python's value after the loop is known
            self.symbols.known[name] = values[-1]

    def _forget_assigned(self, stmts) -> None:
        """Names ``stmts`` assign no longer have a value known at compile time."""
        for stmt in stmts:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    self.symbols.known.pop(self.symbols.unique(n.id), None)

    def _range_bound(self, node) -> ir.IRExpr:
        value = self.expr(node)
        if isinstance(value, Static) and isinstance(value.value, bool):  # a Python bool is an int: range(True)
            value = Static(int(value.value))
        return self.to_value(value, node)

    def _static_uses(self, node, var: str) -> bool:
        """The body of loop ``node`` has a ``wp.static`` expression, or an index of a tuple, that reads the loop
        variable (so the loop is unrolled, as in Warp: each copy of the body sees the variable's value) and no
        break of its own (a continue ends one copy of the body)."""
        if _has_own(node, ast.Break):
            return False

        def reads_var(expr) -> bool:
            return any(isinstance(n, ast.Name) and n.id == var for n in ast.walk(expr))

        for n in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(n, ast.Call) and n.args and self.try_static(n.func) is static and reads_var(n.args[0]):
                return True
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and reads_var(n.slice) and (
                    isinstance(self.symbols.type_of(self.symbols.unique(n.value.id)), TupleType)
                    or isinstance(self.try_static(n.value), tuple)):  # a kernel's tuple, or one it captures
                return True
        return False

    def _unroll(self, node, name: str, t, values: range, out) -> None:
        if len(values) > _MAX_UNROLL:
            raise self.error(KernelTypeError, f"a loop whose variable '{node.target.id}' is read by wp.static() is "
                             f"unrolled; this one has {len(values)} iterations (at most {_MAX_UNROLL})", node)
        skips = _has_own(node, ast.Continue)
        for v in values:
            self.symbols.known[name] = v
            if skips:  # each copy is a loop of one iteration, so that its continue skips the rest of the copy
                self.loop_depth += 1
                body = self.block(node.body)
                self.loop_depth -= 1
                out.append(ir.IRFor(ir.IRLocal(name, t), ir.IRConst(v, t), ir.IRConst(v + 1, t),
                                    ir.IRConst(1, t), body, 1))
            else:
                out.append(ir.IRAssign(ir.IRLocal(name, t), ir.IRConst(v, t)))
                out.extend(self.block(node.body))
            if self.symbols.known.get(name) != v:  # the body assigns the loop variable: only its copy saw v
                self.symbols.known.pop(name, None)

    def _is_python_builtin(self, call, name: str) -> bool:
        """``call`` calls Python's own ``name`` (not shadowed by a local or a global)."""
        return (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == name
                and self.source.lookup(name) is getattr(py_builtins, name) and self.symbols.type_of(name) is None)

    def _reversed_range(self, start, stop, step, sign, node, out):
        """The range visiting the same values backwards: from the last value of range(start, stop,
        step) down to start (computed once, before the loop)."""
        t = start.type
        one = ir.IRConst(1, t)
        s = ir.IRConst(abs(step.value), t)
        if sign > 0:  # last = start + ((stop - start - 1) // s) * s
            span = self.binary("sub", self.binary("sub", stop, start, node), one, node)
            count = self.builtin_call("floordiv", [span, s], node)
            last = self.binary("add", start, self.binary("mul", count, s, node), node)
            end = self.binary("sub", start, one, node)
        else:  # last = start - ((start - stop - 1) // s) * s
            span = self.binary("sub", self.binary("sub", start, stop, node), one, node)
            count = self.builtin_call("floordiv", [span, s], node)
            last = self.binary("sub", start, self.binary("mul", count, s, node), node)
            end = self.binary("add", start, one, node)
        first = self.assign_temp(last, out)
        end = self.assign_temp(end, out)
        return first, end, ir.IRConst(-step.value, t), -sign

    def _reversed_runtime_range(self, start, stop, step, node, out):
        """``reversed(range(start, stop, step))`` for a step known only at run time: the loop from the last value
        ``start + (n - 1) * step`` (n values) back to ``start - step``, by ``-step`` (bounds computed once, before
        the loop; a zero step gives no iteration)."""
        t = start.type
        zero, one = ir.IRConst(0, t), ir.IRConst(1, t)
        start, stop, step = (v if isinstance(v, (ir.IRConst, ir.IRLocal)) else self.assign_temp(v, out)
                             for v in (start, stop, step))
        rising = self.builtin_call("gt", [step, zero], node)
        span = ir.IRSelect(rising, self.binary("sub", stop, start, node), self.binary("sub", start, stop, node), t)
        span = self.assign_temp(span, out)
        size = self.builtin_call("abs", [step], node)
        nonempty = self.builtin_call("logical_and", [self.builtin_call("gt", [span, zero], node),
                                                     self.builtin_call("gt", [size, zero], node)], node)
        safe_size = ir.IRSelect(nonempty, size, one, t)  # no division by zero on the branch not taken
        count = self.builtin_call("div", [self.binary("sub", self.binary("add", span, size, node), one, node),
                                          safe_size], node)
        count = self.assign_temp(ir.IRSelect(nonempty, count, zero, t), out)
        last = self.binary("add", start, self.binary("mul", self.binary("sub", count, one, node), step, node), node)
        first = self.assign_temp(last, out)
        end = self.assign_temp(self.binary("sub", start, step, node), out)
        back = self.assign_temp(self.builtin_call("neg", [step], node), out)
        return first, end, back

    def stmt_Break(self, node, out):
        if not self.loop_depth:
            raise self.error(KernelSyntaxError, "'break' outside a loop", node)
        out.append(ir.IRBreak())

    def stmt_Continue(self, node, out):
        if not self.loop_depth:
            raise self.error(KernelSyntaxError, "'continue' outside a loop", node)
        out.append(ir.IRContinue())


_MAX_UNROLL = 1024


def _has_own(loop, kind) -> bool:
    """The body of ``loop`` has a statement of ``kind`` (ast.Break or ast.Continue) that belongs to ``loop``."""
    stack = list(loop.body)
    while stack:
        n = stack.pop()
        if isinstance(n, kind):
            return True
        if not isinstance(n, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(n))
    return False


def _exits_or_assigns(loop, var) -> bool:
    """The body of ``loop`` has a break or continue of its own, or (``var`` given) assigns ``var``."""
    stack = list(loop.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Break, ast.Continue)):
            return True
        if var is not None and isinstance(n, ast.Name) and n.id == var and isinstance(n.ctx, ast.Store):
            return True
        if isinstance(n, (ast.For, ast.While)):  # their own break and continue do not leave this loop
            stack.extend(c for c in ast.walk(n) if var is not None and isinstance(c, ast.Name))
            continue
        if isinstance(n, (ast.FunctionDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def _range_float_hint(call, args) -> str:
    """The fix for a float bound of ``range`` (a numpy habit, ``range(n / 2)``): the bounds converted to int."""
    if not any(getattr(a.type, "is_float", False) for a in args):
        return ""
    bounds = ", ".join(f"int({ast.unparse(src)})" if getattr(a.type, "is_float", False) else ast.unparse(src)
                       for src, a in zip(call.args, args))
    return f" (a loop counts in integers, as Python's range does: write range({bounds}))"


def _array_loop_hint(typer, it) -> str:
    """The loop a numpy habit means by ``for v in a`` over a 1-D array: its elements by index."""
    value = typer.try_static(it) if isinstance(it, (ast.Name, ast.Attribute)) else None
    if value is not None or not isinstance(it, (ast.Name, ast.Attribute)):
        return ""
    t = getattr(typer.expr(it), "type", None)
    if getattr(t, "ndim", None) != 1 or not hasattr(t, "dtype"):
        return ""
    a = ast.unparse(it)
    return f" (over the elements of array '{a}': for j in range({a}.shape[0]): ... {a}[j])"

"""Statements: from a function's Python AST to the typed tree (``IRFunction``).

The pipeline of one concrete kernel or function is: parse (``FunctionSource``), then this
builder walks the statements, typing each expression (``ExpressionTyper``) under the strict
rules, and records locals, callees and structs for codegen. It knows nothing of C++.
"""

from __future__ import annotations

import ast

from ..errors import KernelError, KernelSyntaxError, KernelTypeError
from ..types.arrays import ArrayType, type_name
from ..types.composite import is_composite_type
from ..types.scalars import bool_, int32, is_scalar_type, python_annotation_type
from ..types.structs import is_struct_type
from . import ir
from .expressions import _SYMBOL, TID, ExpressionTyper, Static
from .la_lowering import LAMixin
from .la_reduce import LAReduceMixin
from .la_views import LAViewsMixin
from .nested import NestedMixin
from .packs import PackMixin

_AUG_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
            ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "bit_and", ast.BitOr: "bit_or",
            ast.BitXor: "bit_xor", ast.LShift: "lshift", ast.RShift: "rshift", ast.MatMult: "matmul"}


class InstantiationContext:
    """State shared by all functions built for one kernel instance: function instances (deduplicated),
    the call stack (to reject recursion) and the struct types reached."""

    def __init__(self):
        self.functions: dict = {}  # (overload id, arg types) -> IRFunction
        self.order: list = []  # IRFunction in dependency order (callees first)
        self.stack: list = []
        self.structs: list = []

    def note_type(self, t):
        """Record the struct and tuple types ``t`` reaches, dependencies first (C++ declaration order)."""
        if is_struct_type(t) and t not in self.structs:
            for _, ft in t._fields:
                self.note_type(ft)
            self.structs.append(t)
        elif isinstance(t, ArrayType):
            self.note_type(t.dtype)
        elif isinstance(t, ir.TupleType) and t not in self.structs:
            for x in t.types:
                self.note_type(x)
            self.structs.append(t)  # codegen declares a C++ struct per tuple type, like a struct


class Builder(LAReduceMixin, LAViewsMixin, LAMixin, NestedMixin, PackMixin, ExpressionTyper):
    """Builds the typed tree of one function or kernel for concrete parameter types."""

    def __init__(self, source, param_types: dict, *, is_kernel: bool, context: InstantiationContext,
                 c_name: str, label: str, bindings: list | None = None, simd_innermost: bool = True):
        self.source = source
        self.is_kernel = is_kernel
        self.context = context
        self.params = list(param_types.items())
        self.locals: dict = {}  # runtime variables (params excluded) -> type
        self.var_types: dict = dict(param_types)  # every runtime name -> type
        self.static_locals: dict = {}  # names bound to compile-time values (type variables)
        self.return_types: list = []
        self.tid_dims = 0
        self.loop_depth = 0
        self.c_name = c_name
        self.label = label
        self._tmp = 0
        self.renames: dict = {}  # names of an inlined local function -> their unique locals
        self._pending_stmts: list = []
        # (name, kind, dim) for the parameters of a loop body (par_for, loop abstraction): "index"
        # binds tid(dim) plus the hidden lower bound _bw_lo<dim>; "member" binds a fresh team.
        self.bindings = bindings or []
        self.simd_innermost = simd_innermost
        for t in param_types.values():
            context.note_type(t)

    # -- entry --------------------------------------------------------------------------------------
    def build(self) -> ir.IRFunction:
        prologue = self.bind_parameters()
        if self.la_reducer() is not None:  # outer_reduce: returns end the slice, then the partial is stored
            self._return_label = "_la_end"
            body = self.la_wrap(prologue, self.block(self.source.tree.body))
        else:
            body = prologue + self.block(self.source.tree.body)
        return_type = None
        if self.return_types:
            return_type = self.return_types[0]
        return ir.IRFunction(name=self.c_name, params=self.params, locals=self.locals, body=body,
                             return_type=return_type, is_kernel=self.is_kernel,
                             tid_dims=max(self.tid_dims, 1), label=self.label,
                             simd_innermost=self.simd_innermost)

    def bind_parameters(self) -> list:
        stmts = []
        for name, kind, dim in self.bindings:
            if kind == "la_block":
                self._block_name = name
                self.locals[name] = int32
                self.var_types[name] = int32
                stmts.append(ir.IRAssign(ir.IRLocal(name, int32), ir.IRTid(0, int32)))
                continue
            if kind == "la_range":
                self.tid_dims = {"bvoi": 1, "bovi": 2, "boiv": 3 if dim.get("reducer") else 4}[dim["loop"]]
                self.bind_la_slice(name, dim, stmts)
                if dim["loop"] != "boiv" and "get_per_point_scratch" in ast.dump(self.source.tree):
                    self._la_member = self._new_team(stmts)
                continue
            if kind == "member":
                stmts.append(self.bind_team_member(name, ir.IRLocal("_bw_scratch", self.var_types["_bw_scratch"])))
                continue
            lo = ir.IRLocal(f"_bw_lo{dim}", int32)
            self.locals[name] = int32
            self.var_types[name] = int32
            value = ir.IRCall("add", [ir.IRTid(dim, int32), lo], int32, "bw::add({args})")
            stmts.append(ir.IRAssign(ir.IRLocal(name, int32), value))
            self.tid_dims = max(self.tid_dims, dim + 1)
        return stmts

    def error(self, cls, message: str, node) -> KernelError:
        return cls(message, self.source.location(node))

    def set_tid_dims(self, n: int, node):
        if self.tid_dims and self.tid_dims != n:
            raise self.error(KernelTypeError, f"tid() is unpacked into {n} indices here but into "
                             f"{self.tid_dims} elsewhere in this kernel", node)
        if n > 4:
            raise self.error(KernelTypeError, f"tid() gives at most 4 indices, got {n} names", node)
        self.tid_dims = n

    def new_temp(self, t) -> ir.IRLocal:
        self._tmp += 1
        name = f"_tmp{self._tmp}"
        self.locals[name] = t
        self.var_types[name] = t
        self.context.note_type(t)
        return ir.IRLocal(name, t)

    # -- statements ---------------------------------------------------------------------------------
    def block(self, stmts) -> list:
        out: list = []
        for stmt in stmts:
            method = getattr(self, "stmt_" + type(stmt).__name__, None)
            if method is None:
                raise self.error(KernelSyntaxError, f"'{_describe(stmt)}' statements are not supported in kernels",
                                 stmt)
            # Statements an expression needs first (a scratch allocation) collect in _pending_stmts.
            saved, self._pending_stmts = self._pending_stmts, []
            produced: list = []
            method(stmt, produced)
            out.extend(self._pending_stmts)
            out.extend(produced)
            self._pending_stmts = saved
        return out

    def stmt_Pass(self, node, out):
        pass

    def stmt_Expr(self, node, out):
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return  # docstring or comment string
        if isinstance(value, ast.Call):
            stmt = self.call_statement(value)
            if stmt is not None:
                out.append(stmt)
                return
        expr = self.expr(value)
        if isinstance(expr, Static):
            return
        out.append(ir.IRExprStmt(expr))

    def stmt_Assign(self, node, out):
        if len(node.targets) > 1:
            value = self.value(node.value)
            tmp = self.new_temp(value.type)
            out.append(ir.IRAssign(tmp, value))
            for target in node.targets:
                self.assign(target, tmp, node, out)
            return
        target = node.targets[0]
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Call):
            value = self.expr(node.value)
            if isinstance(value, Static) and value.value is TID:
                self.set_tid_dims(len(target.elts), node)
                for d, elt in enumerate(target.elts):
                    self.assign(elt, ir.IRTid(d, int32), node, out)
                return
            self.assign(target, self.to_value(value, node.value), node, out)
            return
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
            if len(target.elts) != len(node.value.elts):
                raise self.error(KernelTypeError, f"cannot unpack {len(node.value.elts)} values into "
                                 f"{len(target.elts)} names", node)
            temps = []
            for elt in node.value.elts:  # evaluate every right-hand side first: a, b = b, a
                value = self.value(elt)
                tmp = self.new_temp(value.type)
                out.append(ir.IRAssign(tmp, value))
                temps.append(tmp)
            for t, tmp in zip(target.elts, temps):
                self.assign(t, tmp, node, out)
            return
        if isinstance(target, ast.Name) and not isinstance(node.value, ast.Tuple):
            value = self.expr(node.value)
            if isinstance(value, Static) and not value.is_number():
                if target.id in self.var_types:
                    raise self.error(KernelTypeError, f"variable '{target.id}' holds a value of type "
                                     f"{type_name(self.var_types[target.id])} and cannot be rebound to "
                                     f"{value.describe()}", node)
                self.static_locals[self.renames.get(target.id, target.id)] = value.value
                return
            self.assign(target, self.to_value(value, node.value), node, out)
            return
        self.assign(target, self.value(node.value), node, out)

    def stmt_AnnAssign(self, node, out):
        if not isinstance(node.target, ast.Name) or node.value is None:
            raise self.error(KernelSyntaxError, "annotated assignments need a name and a value", node)
        declared = python_annotation_type(self.static_value(node.annotation))
        value = self.value(node.value)
        if value.type is not declared:
            raise self.error(KernelTypeError, f"'{node.target.id}' is declared {type_name(declared)} but "
                             f"assigned {type_name(value.type)}", node)
        self.assign(node.target, value, node, out)

    def assign(self, target, value: ir.IRExpr, node, out):
        """Store ``value`` into an assignment target (name, element, component, field or tuple)."""
        if isinstance(target, ast.Tuple):
            t = value.type
            if not isinstance(t, ir.TupleType):
                raise self.error(KernelTypeError, f"cannot unpack a value of type {type_name(t)} into "
                                 f"{len(target.elts)} names", node)
            if len(t.types) != len(target.elts):
                raise self.error(KernelTypeError, f"cannot unpack {len(t.types)} values into "
                                 f"{len(target.elts)} names", node)
            if not isinstance(value, ir.IRLocal):
                tmp = self.new_temp(t)
                out.append(ir.IRAssign(tmp, value))
                value = tmp
            for i, elt in enumerate(target.elts):
                self.assign(elt, ir.IRTupleGet(value, i, t.types[i]), node, out)
            return
        if isinstance(value.type, ir.TupleType) and not isinstance(target, ast.Name):
            raise self.error(KernelTypeError, "cannot store several values in one place", node)
        if isinstance(target, ast.Name):
            name = self.renames.get(target.id, target.id)
            if name in self.static_locals:
                raise self.error(KernelTypeError, f"'{name}' is a type variable and cannot be assigned a value", node)
            known = self.var_types.get(name)
            if known is None:
                self.locals[name] = value.type
                self.var_types[name] = value.type
                self.context.note_type(value.type)
            elif known != value.type:
                raise self.error(KernelTypeError, f"variable '{name}' has type {type_name(known)} and cannot be "
                                 f"assigned a value of type {type_name(value.type)} (a variable keeps its "
                                 f"first type)", node)
            out.append(ir.IRAssign(ir.IRLocal(name, known or value.type), value))
            return
        lvalue = self.expr(target)
        if isinstance(lvalue, Static) or not isinstance(
                lvalue, (ir.IRArrayElem, ir.IRComponent, ir.IRField, ir.IRRawElem)):
            raise self.error(KernelSyntaxError, f"cannot assign to '{ast.unparse(target)}'", node)
        if value.type is not lvalue.type:
            what = "array element" if isinstance(lvalue, ir.IRArrayElem) else "component"
            if isinstance(lvalue, ir.IRArrayElem):
                raise self.error(KernelTypeError, f"cannot store a value of type {type_name(value.type)} in an "
                                 f"{what} of an array of {type_name(lvalue.type)}", node)
            raise self.error(KernelTypeError, f"cannot assign a value of type {type_name(value.type)} to a "
                             f"{what} of type {type_name(lvalue.type)}", node)
        out.append(ir.IRAssign(lvalue, value))

    def stmt_AugAssign(self, node, out):
        op = _AUG_OPS.get(type(node.op))
        if op is None:
            raise self.error(KernelSyntaxError, f"operator {type(node.op).__name__} is not supported", node)
        target = node.target
        if isinstance(target, ast.Subscript):
            lvalue = self.expr(target)
            if isinstance(lvalue, ir.IRArrayElem) and op in ("add", "sub"):
                value = self.value(node.value)
                if value.type is not lvalue.type:
                    raise self.error(KernelTypeError, f"atomic_{op}: cannot add a value of type "
                                     f"{type_name(value.type)} to an array of {type_name(lvalue.type)}", node)
                call = self.builtin_call(f"atomic_{op}", [lvalue.array, *lvalue.indices, value], node,
                                         label=f"'{ast.unparse(node.target)} {_SYMBOL[op]}=' (atomic_{op})")
                out.append(ir.IRExprStmt(call))
                return
        current = self.value(target)
        value = self.binary(op, current, self.value(node.value), node)
        self.assign(target, value, node, out)

    def stmt_If(self, node, out):
        test = self.expr(node.test)
        if isinstance(test, Static) and isinstance(test.value, (bool, int, float)):
            # A compile-time condition (Python constants): only the branch taken is compiled.
            out.extend(self.block(node.body if test.value else node.orelse))
            return
        cond = self.condition(node.test)
        out.append(ir.IRIf(cond, self.block(node.body), self.block(node.orelse)))

    def stmt_While(self, node, out):
        if node.orelse:
            raise self.error(KernelSyntaxError, "'while ... else' is not supported", node)
        cond = self.condition(node.test)
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        out.append(ir.IRWhile(cond, body))

    def stmt_For(self, node, out):
        if node.orelse:
            raise self.error(KernelSyntaxError, "'for ... else' is not supported", node)
        it = node.iter
        if isinstance(it, ast.Call) and self.is_la_function(it.func, "inner"):
            self.la_inner_for(node, out)
            return
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and self.source.lookup("range") is range and "range" not in self.var_types):
            raise self.error(KernelSyntaxError, "for loops must iterate over range(...)", node)
        if not 1 <= len(it.args) <= 3 or it.keywords:
            raise self.error(KernelTypeError, "range() takes 1 to 3 positional arguments", node)
        args = [self.value(a) for a in it.args]
        types = {a.type for a in args}
        if len(types) != 1 or not getattr(args[0].type, "is_int", False):
            raise self.error(KernelTypeError, "range() arguments must be integers of one type, got "
                             + ", ".join(type_name(a.type) for a in args), node)
        t = args[0].type
        one = ir.IRConst(1, t)
        start, stop, step = (ir.IRConst(0, t), args[0], one) if len(args) == 1 else (
            (args[0], args[1], one) if len(args) == 2 else args)
        sign = 0
        if isinstance(step, ir.IRConst):
            if step.value == 0:
                raise self.error(KernelTypeError, "range() step must not be zero", node)
            sign = 1 if step.value > 0 else -1
        if not isinstance(node.target, ast.Name):
            raise self.error(KernelSyntaxError, "the loop variable must be a single name", node)
        name = self.renames.get(node.target.id, node.target.id)
        known = self.var_types.get(name)
        if known is not None and known is not t:
            raise self.error(KernelTypeError, f"loop variable '{name}' has type {type_name(known)}, but range() "
                             f"yields {type_name(t)}", node)
        self.locals.setdefault(name, t)
        self.var_types[name] = t
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        out.append(ir.IRFor(ir.IRLocal(name, t), start, stop, step, body, sign))

    def stmt_Break(self, node, out):
        if not self.loop_depth:
            raise self.error(KernelSyntaxError, "'break' outside a loop", node)
        out.append(ir.IRBreak())

    def stmt_Continue(self, node, out):
        if not self.loop_depth:
            raise self.error(KernelSyntaxError, "'continue' outside a loop", node)
        out.append(ir.IRContinue())

    def stmt_Return(self, node, out):
        if self.inlined_return(node, out):
            return
        if node.value is None:
            value = None
        elif isinstance(node.value, ast.Tuple):
            items = [self.value(e) for e in node.value.elts]
            t = ir.TupleType(tuple(i.type for i in items))
            self.context.note_type(t)
            value = ir.IRConstruct(items, t)
        else:
            value = self.value(node.value)
        if self.is_kernel and value is not None:
            raise self.error(KernelSyntaxError, "kernels cannot return a value", node)
        t = None if value is None else value.type
        if self.return_types and self.return_types[0] != t:
            raise self.error(KernelTypeError, f"return types differ: {_tname(self.return_types[0])} and "
                             f"{_tname(t)}", node)
        self.return_types.append(t)
        out.append(ir.IRReturn(value))

    def condition(self, node) -> ir.IRExpr:
        cond = self.value(node)
        if not is_scalar_type(cond.type):
            raise self.error(KernelTypeError, f"a condition must be a bool or a number, got {type_name(cond.type)}",
                             node)
        return cond



def _describe(stmt) -> str:
    return {"With": "with", "Try": "try", "Raise": "raise", "Import": "import", "ImportFrom": "import",
            "Global": "global", "Nonlocal": "nonlocal", "Delete": "del", "ClassDef": "class",
            "AsyncFunctionDef": "async def", "Assert": "assert", "Match": "match"}.get(
        type(stmt).__name__, type(stmt).__name__)


def _tname(t) -> str:
    return "nothing" if t is None else type_name(t)


__all__ = ["Builder", "InstantiationContext", "ArrayType", "bool_", "is_composite_type"]

"""Typing: from a function's Python AST to the target-neutral IR (``IRFunction``).

One concrete kernel or function is typed by one ``Typer``: it walks the statements (this module;
assignments in ``assignments.py``, control flow in ``control_flow.py``) and the expressions
(``ExpressionTyper``) under the strict rules, keeps names in a ``SymbolTable``, and asks the
``INTRINSICS`` registry about everything an extension adds. It produces IR and nothing else: no
lowering, no target text.
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import KernelError, KernelSyntaxError, KernelTypeError
from ..types.arrays import type_name
from ..types.function_values import FunctionValueType
from ..types.opaque import TupleType
from ..types.scalars import int32, is_scalar_type
from . import (
    addresses,  # noqa: F401 - registers wp.address_of
    array_pointers,  # noqa: F401 - registers a.ptr and array(ptr=...)
    bit_casts,  # noqa: F401 - registers wp.cast
    bvh,  # noqa: F401 - registers BVH and mesh box queries (bvh_query_next, for index in query)
    fixed_arrays,  # noqa: F401 - registers zeros(shape=..., dtype=...) in kernels
    hash_grid,  # noqa: F401 - registers hash-grid queries (hash_grid_query_next, for index in query)
    mesh_query_outputs,  # noqa: F401 - registers Warp's older mesh queries with output arguments
    nested,  # noqa: F401 - registers the typing rules of nested parallelism
    static_expr,  # noqa: F401 - registers wp.static
    texture,  # noqa: F401 - registers texture_sample (dtype=, the coordinate forms)
    tiles,  # noqa: F401 - registers the tile functions (wp.tile_load, ...) and tile arithmetic
    volume,  # noqa: F401 - registers the volume builtins taking dtype= or a gradient output argument
)
from .array_truth import truth_value
from .asserts import assert_statement
from .assignments import AssignmentTyper
from .control_flow import ControlFlowTyper
from .expressions import ExpressionTyper, LocalFunction, Static
from .intrinsics import INTRINSICS
from .limits import INDEX_LIMIT, KERNEL_RETURN
from .output_arguments import output_argument_call
from .return_annotation import check_return
from .stack_frame import STACK_CHECK_FROM, argument_bytes, check_frame
from .symbols import SymbolTable, conflict
from .tile_aliases import sync_views

#: Every index of a loop body or an index space lies within this range: ``par_for`` ranges and index
#: spaces are checked at launch (``runtime/parallel.py``, ``la/outer.py``), so index arithmetic
#: with small offsets provably cannot overflow int32 (``INDEX_LIMIT``, in ``limits.py``).
INDEX_RANGE = (-INDEX_LIMIT, INDEX_LIMIT)
#: An index bound when its loop visits a cell (no assignment in the typed IR): (lo, hi, assignments)
LOOP_INDEX = (*INDEX_RANGE, 0)


class InstantiationContext:
    """State shared by all functions typed for one kernel instance: function instances
    (deduplicated, in dependency order) and the call stack (to reject recursion)."""

    def __init__(self, backward: bool = True):
        self.functions: dict = {}  # (overload id, arg types) -> IRFunction
        self.order: list = []  # IRFunction in dependency order (callees first)
        self.stack: list = []
        self.names: dict = {}  # key of the stack -> the function's name
        self.deepest: list = []  # the names of the deepest chain of calls typed (errors name it)
        # whether the kernel has a backward pass (its enable_backward option): a few operations refuse
        # dtypes whose gradients they could not accumulate well (tile_matmul's bfloat16 operands)
        self.backward = backward


class InlineScope:
    """The local function being inlined: its ``return`` ends one application (``fold``: folds a value)."""

    def __init__(self, fold_check=None):
        self.fold_check = fold_check  # inner_reduce: check(typer, value, node) of the folded value


class Typer(AssignmentTyper, ControlFlowTyper, ExpressionTyper):
    """Types one function or kernel for concrete parameter types."""

    def __init__(self, source, param_types: dict, *, is_kernel: bool, context: InstantiationContext,
                 name: str, label: str, bindings: list | None = None, simd_innermost: bool = True,
                 form: str = "kernel"):
        self.source = source
        self.is_kernel = is_kernel
        self.context = context
        # a function passed to a Function parameter is a compile-time name of the body, not a runtime parameter
        functions = {n: t.target for n, t in param_types.items() if isinstance(t, FunctionValueType)}
        param_types = {n: t for n, t in param_types.items() if n not in functions}
        self.params = list(param_types.items())
        self.symbols = SymbolTable(param_types)
        self.symbols.statics.update(functions)
        self.return_types: list = []
        self.tid_dims = 0
        self.loop_depth = 0
        self.block_depth = 0  # 1 in the function's own body, more inside if/for/while bodies
        self.name = name
        self.label = label
        self.form = form
        self.inline: InlineScope | None = None
        self.pending: list = []  # statements an expression needs first (a scratch allocation)
        # (name, kind, option) for the parameters of a loop body (par_for, loop abstraction):
        # "index" binds tid(option) plus the hidden lower bound _bw_lo<option>; other kinds are
        # extensions' (INTRINSICS.bindings).
        self.bindings = bindings or []
        self.simd_innermost = simd_innermost
        self.ext: dict = {}  # per-extension typing state (the loop abstraction's slice, ...)
        self.index_ranges: dict = {}  # int32 locals the launch keeps within a range (IRFunction.index_ranges)
        self.callee_stack = (0, "")  # (bytes, name) of the called function whose frames take the most stack

    # -- entry --------------------------------------------------------------------------------------
    def build(self) -> ir.IRFunction:
        prologue = self.bind_parameters()
        if self.is_kernel:  # by-value arguments are copied onto the stack of the thread that runs a point
            self.symbols.frame_bytes += argument_bytes(self.params)
            if self.symbols.frame_bytes >= STACK_CHECK_FROM:
                check_frame(self, self.source.tree)
        body = self.block(self.source.tree.body)
        wrap = INTRINSICS.body_wrappers.get(self.form)
        body = wrap(self, prologue, body) if wrap is not None else prologue + body
        return_type = self.return_types[0] if self.return_types else None
        fn = ir.IRFunction(name=self.name, params=self.params, locals=self.symbols.locals, body=body,
                           return_type=return_type, is_kernel=self.is_kernel,
                           tid_dims=max(self.tid_dims, 1), label=self.label,
                           simd_innermost=self.simd_innermost, index_ranges=self.index_ranges)
        fn.stack_bytes = self.symbols.frame_bytes + self.callee_stack[0]  # its callers add theirs (stack_frame.py)
        return fn

    def bind_parameters(self) -> list:
        stmts: list = []
        for name, kind, option in self.bindings:
            if kind != "index":
                INTRINSICS.bindings[kind](self, name, option, stmts)
                continue
            lo = ir.IRLocal(f"_bw_lo{option}", int32)
            value = ir.IRCall("add", [ir.IRTid(option, int32), lo], int32, no_wrap=True)  # an index of the range
            stmts.append(ir.IRAssign(self.declare(name, int32, self.source.tree), value))
            self.index_ranges[name] = (*INDEX_RANGE, 1)  # bound by the one assignment above
            self.tid_dims = max(self.tid_dims, option + 1)
        return stmts

    # -- names --------------------------------------------------------------------------------------
    def declare(self, name: str, t, node) -> ir.IRLocal:
        """The local ``name`` of type ``t``, declared on first use; a second type is an error."""
        known = self.symbols.declare(name, t)
        if known is not None and known != t:
            raise self.error(KernelTypeError, conflict(name, known, t, name in self.symbols.params), node)
        return ir.IRLocal(name, t)

    def new_temp(self, t) -> ir.IRLocal:
        return ir.IRLocal(self.symbols.temp(t), t)

    def assign_temp(self, value, out) -> ir.IRLocal:
        tmp = self.new_temp(value.type)
        out.append(ir.IRAssign(tmp, value))
        return tmp

    def where(self, node) -> str:
        """``file:line`` of a node, for messages reported while the kernel runs (bounds checks)."""
        loc = self.source.location(node)
        return f"{loc.filename}:{loc.lineno}"

    def error(self, cls, message: str, node) -> KernelError:
        return cls(message, self.source.location(node))

    def set_tid_dims(self, n: int, node):
        if self.tid_dims and self.tid_dims != n:
            raise self.error(KernelTypeError, f"tid() is unpacked into {n} indices here but into "
                             f"{self.tid_dims} elsewhere in this kernel", node)
        if n > 4:
            raise self.error(KernelTypeError, f"tid() gives at most 4 indices, got {n} names", node)
        self.tid_dims = n

    # -- statements ---------------------------------------------------------------------------------
    def block(self, stmts) -> list:
        self.block_depth += 1
        try:
            return self._block(stmts)
        finally:
            self.block_depth -= 1

    def _block(self, stmts) -> list:
        out: list = []
        for stmt in stmts:
            method = getattr(self, "stmt_" + type(stmt).__name__, None)
            if method is None:
                raise self.error(KernelSyntaxError, f"'{_describe(stmt)}' statements are not supported in kernels",
                                 stmt)
            # Statements an expression needs first (a scratch allocation) collect in ``pending``.
            saved, self.pending = self.pending, []
            produced: list = []
            method(stmt, produced)
            # a tile view named here is read from its tile first, and stored back when written
            out.extend(sync_views(self, stmt, self.pending + produced))
            self.pending = saved
            if self.symbols.frame_bytes + self.callee_stack[0] >= STACK_CHECK_FROM:
                check_frame(self, stmt)
        return out

    def stmt_Pass(self, node, out):
        pass

    def stmt_Assert(self, node, out):
        out.append(assert_statement(self, node))

    def stmt_Expr(self, node, out):
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return  # docstring or comment string
        if isinstance(value, ast.Call):
            if output_argument_call(self, value, out):
                return
            stmt = self.call_statement(value)
            if stmt is not None:
                out.append(stmt)
                return
        expr = self.expr(value)
        if isinstance(expr, Static):
            return
        out.append(ir.IRExprStmt(expr))

    def stmt_Return(self, node, out):
        if self.inline is not None:  # a local function's return: ends this application
            fold = self.inline.fold_check
            if node.value is not None and fold is None:
                raise self.error(KernelSyntaxError, "a loop body cannot return a value", node)
            if node.value is None and fold is not None:
                raise self.error(KernelSyntaxError, "an inner_reduce body must return the value to fold", node)
            value = None if node.value is None else self.value(node.value)
            if value is not None:
                fold(self, value, node)
            out.append(ir.IRReturn(value))
            return
        if self.is_kernel and node.value is not None:  # `return None` too, as in Warp
            raise self.error(KernelTypeError, f"kernels cannot return a value ({KERNEL_RETURN})", node)
        if node.value is None:
            value = None
        elif isinstance(node.value, ast.Tuple):
            items = [self.value(e) for e in node.value.elts]
            value = ir.IRConstruct(items, TupleType(tuple(i.type for i in items)))
        else:
            value = self.value(node.value)
        t = None if value is None else value.type
        check_return(self, t, node)
        if self.return_types and self.return_types[0] != t:
            raise self.error(KernelTypeError, f"return types differ: {_tname(self.return_types[0])} and "
                             f"{_tname(t)}", node)
        self.return_types.append(t)
        out.append(ir.IRReturn(value))

    def condition(self, node) -> ir.IRExpr:
        cond = truth_value(self.value(node))  # `if a:` of an array: "has data"
        if not is_scalar_type(cond.type):
            raise self.error(KernelTypeError, f"a condition must be a bool or a number, got {type_name(cond.type)}",
                             node)
        return cond


    # -- local functions ----------------------------------------------------------------------------
    def stmt_FunctionDef(self, node, out):
        if node.decorator_list:
            raise self.error(KernelSyntaxError, "nested functions in kernels cannot have decorators", node)
        self.symbols.statics[self.symbols.unique(node.name)] = LocalFunction(node)

    def inline_local(self, fn: "LocalFunction", param_types: list, node, fold_check=None) -> ir.IRInlineBody:
        """``fn`` typed for ``param_types`` in a scope of its own, as an application to fresh
        argument locals (the caller binds them): the names ``fn`` assigns stay its own."""
        name = self.symbols.fresh("_inl")
        suffix = "__" + name[1:]
        assigned = set(fn.params)
        body_nodes = fn.node.body if isinstance(fn.node.body, list) else [fn.node.body]
        for n in ast.walk(ast.Module(body=body_nodes, type_ignores=[])):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                assigned.add(n.id)
            elif isinstance(n, ast.FunctionDef):
                assigned.add(n.name)
        saved = self.loop_depth, self.inline
        self.symbols.push_scope(assigned, suffix)
        self.loop_depth, self.inline = 0, InlineScope(fold_check)
        try:
            params = [self.declare(self.symbols.unique(p), t, node) for p, t in zip(fn.params, param_types)]
            if isinstance(fn.node, ast.Lambda):
                value = self.expr(fn.node.body)
                if fold_check is not None:
                    value = self.to_value(value, fn.node.body)
                    fold_check(self, value, fn.node)
                    stmts = [ir.IRReturn(value)]
                else:
                    stmts = [] if not isinstance(value, ir.IRExpr) else [ir.IRExprStmt(value)]
            else:
                stmts = self.block(fn.node.body)
        finally:
            self.symbols.pop_scope()
            self.loop_depth, self.inline = saved
        args = [ir.IRLocal(self.symbols.temp(p.type, f"_arg{name}_"), p.type) for p in params]
        return ir.IRInlineBody(name, params, args, stmts, fold=fold_check is not None)


def _describe(stmt) -> str:
    return {"With": "with", "Try": "try", "Raise": "raise", "Import": "import", "ImportFrom": "import",
            "Global": "global", "Nonlocal": "nonlocal", "Delete": "del", "ClassDef": "class",
            "AsyncFunctionDef": "async def", "Assert": "assert", "Match": "match"}.get(
        type(stmt).__name__, type(stmt).__name__)


def _tname(t) -> str:
    return "nothing" if t is None else type_name(t)



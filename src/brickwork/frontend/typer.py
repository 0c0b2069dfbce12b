"""Typing: from a function's Python AST to the target-neutral IR (``IRFunction``).

One concrete kernel or function is typed by one ``Typer``: it walks the statements (this module)
and the expressions (``ExpressionTyper``) under the strict rules, keeps names in a
``SymbolTable``, and asks the ``INTRINSICS`` registry about everything an extension adds. It
produces IR and nothing else: no lowering, no target text.
"""

from __future__ import annotations

import ast
import builtins as py_builtins

from .. import ir
from ..builtins.atomics import has_atomic_add, has_atomic_bits
from ..builtins.static import static
from ..errors import KernelError, KernelSyntaxError, KernelTypeError
from ..types.arrays import ArrayType, type_name
from ..types.function_values import FunctionValueType
from ..types.opaque import TupleType
from ..types.references import RefType
from ..types.scalars import int32, is_scalar_type, python_annotation_type
from ..types.tiles import is_tile_type
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
from .expressions import _SYMBOL, TID, ExpressionTyper, LocalFunction, Static, _python_number_hint
from .intrinsics import INTRINSICS
from .limits import INDEX_LIMIT, KERNEL_RETURN
from .output_arguments import output_argument_call
from .return_annotation import check_return
from .slice_assign import (
    assign_slice,
    assign_transform_part,
    is_composite_slice,
    is_slice_target,
    is_transform_part,
)
from .symbols import SymbolTable, conflict
from .tile_aliases import bind_view, sync_views
from .tile_subscripts import assign_tile_part, is_tile_part

#: Every index of a loop body or an index space lies within this range: ``par_for`` ranges and index
#: spaces are checked at launch (``runtime/parallel.py``, ``la/outer.py``), so index arithmetic
#: with small offsets provably cannot overflow int32 (``INDEX_LIMIT``, in ``limits.py``).
INDEX_RANGE = (-INDEX_LIMIT, INDEX_LIMIT)
#: An index bound when its loop visits a cell (no assignment in the typed IR): (lo, hi, assignments)
LOOP_INDEX = (*INDEX_RANGE, 0)

#: augmented bitwise operators on array elements and the atomics they are (as Warp's)
_ATOMIC_BITS = {"bit_and": "atomic_and", "bit_or": "atomic_or", "bit_xor": "atomic_xor"}
_AUG_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
            ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "bit_and", ast.BitOr: "bit_or",
            ast.BitXor: "bit_xor", ast.LShift: "lshift", ast.RShift: "rshift", ast.MatMult: "matmul"}


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


class Typer(ExpressionTyper):
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

    # -- entry --------------------------------------------------------------------------------------
    def build(self) -> ir.IRFunction:
        prologue = self.bind_parameters()
        body = self.block(self.source.tree.body)
        wrap = INTRINSICS.body_wrappers.get(self.form)
        body = wrap(self, prologue, body) if wrap is not None else prologue + body
        return_type = self.return_types[0] if self.return_types else None
        return ir.IRFunction(name=self.name, params=self.params, locals=self.symbols.locals, body=body,
                             return_type=return_type, is_kernel=self.is_kernel,
                             tid_dims=max(self.tid_dims, 1), label=self.label,
                             simd_innermost=self.simd_innermost, index_ranges=self.index_ranges)

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
            raise self.error(KernelTypeError, conflict(name, known, t), node)
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
            if bind_view(self, target, node.value, node, out):  # a name for a part of a tile (row = t[i])
                return
            value = self.expr(node.value)
            if isinstance(value, Static) and not value.is_number():
                known = self.symbols.type_of(self.symbols.unique(target.id))
                if known is not None:
                    raise self.error(KernelTypeError, f"variable '{target.id}' holds a value of type "
                                     f"{type_name(known)} and cannot be rebound to {value.describe()}", node)
                unique = self.symbols.unique(target.id)
                old = self.symbols.statics.get(unique, value.value)
                if old is not value.value and _is_function(old):  # one name, two functions: which depends on the path
                    raise self.error(KernelTypeError, f"rebinding function-valued local '{target.id}' to another "
                                     f"value is not supported (a local bound to a function keeps it; use another "
                                     f"name)", node)
                self.symbols.statics[unique] = value.value
                return
            self.assign(target, self.to_value(value, node.value), node, out)
            if isinstance(value, Static) and type(value.value) in (int, float, bool):
                # a Python constant: wp.static() may read it until the name is assigned again (as in Warp)
                self.symbols.known[self.symbols.unique(target.id)] = value.value
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
            if not isinstance(t, TupleType):
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
        if isinstance(value.type, TupleType) and not isinstance(target, ast.Name):
            raise self.error(KernelTypeError, "cannot store several values in one place", node)
        if isinstance(target, ast.Name):
            name = self.symbols.unique(target.id)
            if name in self.symbols.statics:
                self._check_rebind(target.id, name, node)
                if _is_function(self.symbols.statics[name]):
                    raise self.error(KernelTypeError, f"rebinding function-valued local '{target.id}' to a "
                                     f"non-function value is not supported", node)
                raise self.error(KernelTypeError, f"'{name}' is a type variable and cannot be assigned a value", node)
            known = self.symbols.type_of(name)
            if isinstance(known, ArrayType) and isinstance(value.type, ArrayType) and known != value.type \
                    and self.block_depth == 1 and name not in self.symbols.params:
                # Warp rebinds a name to a view of another shape (sub = a[:2]; sub = a[:2, 1]); outside
                # any branch or loop the name simply stands for a new local from here on.
                name = self.symbols.rebind(target.id)
            self.symbols.known.pop(name, None)  # its value is no longer the one an unrolled loop gave it
            out.append(ir.IRAssign(self.declare(name, value.type, node), value))
            return
        if is_tile_part(self, target):
            assign_tile_part(self, target, value, node, out)
            return
        if is_slice_target(target) and is_composite_slice(self, target):
            assign_slice(self, target, value, node, out)
            return
        if is_transform_part(self, target):
            assign_transform_part(self, target, value, node, out)
            return
        lvalue = self.place(target)
        if isinstance(lvalue, ir.IRSubarray):  # b[i] of a 2-D array is a view, not an element
            ndim = lvalue.type.ndim + len(lvalue.indices)
            raise self.error(KernelTypeError, f"cannot store into '{ast.unparse(target)}': an array of {ndim} "
                             f"dimensions needs {ndim} indices, got {len(lvalue.indices)} (fewer give a view)", node)
        if isinstance(lvalue, Static) or not isinstance(
                lvalue, (ir.IRArrayElem, ir.IRComponent, ir.IRField, ir.IRPackElem, ir.IRLAViewElem,
                         ir.IRLAScratchElem, ir.IRLocal)):  # a local: wp.adjoint[x] of a gradient function
            raise self.error(KernelSyntaxError, f"cannot assign to '{ast.unparse(target)}'", node)
        if value.type is not lvalue.type:
            what = "array element" if isinstance(lvalue, ir.IRArrayElem) else "component"
            if isinstance(lvalue, ir.IRArrayElem):
                raise self.error(KernelTypeError, f"cannot store a value of type {type_name(value.type)} in an "
                                 f"{what} of an array of {type_name(lvalue.type)}", node)
            raise self.error(KernelTypeError, f"cannot assign a value of type {type_name(value.type)} to a "
                             f"{what} of type {type_name(lvalue.type)} (Composite slot assignment expects value of "
                             f"type {type_name(lvalue.type)}, got {type_name(value.type)})", node)
        out.append(ir.IRAssign(lvalue, value))

    def place(self, target):
        """The place an assignment stores into (``expr`` of the target; a component or field of an array
        element is a slot write, whose index errors say so)."""
        inner = target.value if isinstance(target, (ast.Attribute, ast.Subscript)) else None
        self.slot_subscript = inner if isinstance(inner, ast.Subscript) else None
        try:
            return self.expr(target)
        finally:
            self.slot_subscript = None

    def _number_hint(self, value_node, other) -> str:
        """The hint of ``_python_number_hint`` for the right side of an augmented assignment: only a literal
        or a name is looked at again (typing them twice has no effect)."""
        if not isinstance(value_node, (ast.Constant, ast.Name)):
            return ""
        return _python_number_hint([(value_node, self.expr(value_node), other)])

    def _augmented(self, op, current, node):
        """``current op value`` of ``x op= value``, whose type error says how to write a Python number."""
        try:
            return self.binary(op, current, self.value(node.value), node)
        except KernelTypeError as e:
            hint = self._number_hint(node.value, current)
            if not hint:
                raise
            raise type(e)(e.message + hint, e.location) from None

    def stmt_AugAssign(self, node, out):
        op = _AUG_OPS.get(type(node.op))
        if op is None:
            raise self.error(KernelSyntaxError, f"operator {type(node.op).__name__} is not supported", node)
        target = node.target
        if isinstance(target, ast.Subscript):
            lvalue = self.expr(target)
            # atomically where the element type has atomics; 8/16-bit integers: read, add, store (as Warp)
            # (and &=, |=, ^= on 32- and 64-bit integers and their vectors and matrices)
            # (a tile's elements are its thread's own: read, combine, store)
            if isinstance(lvalue, ir.IRArrayElem) and not is_tile_type(lvalue.array.type) and (
                    op in ("add", "sub") and has_atomic_add(lvalue.type) or
                    op in _ATOMIC_BITS and has_atomic_bits(lvalue.type)):
                value = self.value(node.value)
                atomic = _ATOMIC_BITS.get(op, f"atomic_{op}")
                if value.type is not lvalue.type:
                    verb = "add" if op in ("add", "sub") else "combine"
                    raise self.error(KernelTypeError, f"{atomic}: cannot {verb} a value of type "
                                     f"{type_name(value.type)} to an array of {type_name(lvalue.type)}"
                                     f"{self._number_hint(node.value, lvalue)}", node)
                call = self.builtin_call(atomic, [lvalue.array, *lvalue.indices, value], node,
                                         label=f"'{ast.unparse(node.target)} {_SYMBOL[op]}=' ({atomic})")
                out.append(ir.IRExprStmt(call))
                return
        if isinstance(target, ast.Name):
            self._check_rebind(target.id, self.symbols.unique(target.id), node)
            current = self.value(target)
            value = self._augmented(op, current, node)
            if value.type is not current.type and self._is_reference_param(target.id):
                # a user-defined operator may give another type; the caller's place keeps its own (as Warp says)
                raise self.error(KernelTypeError, f"augmented assignment to ref parameter '{target.id}' "
                                 f"(wp.ref[{type_name(current.type)}]) gives a value of type "
                                 f"{type_name(value.type)}", node)
            self.assign(target, value, node, out)
            return
        if is_slice_target(target) and is_composite_slice(self, target):
            assign_slice(self, target, self.value(node.value), node, out, op)
            return
        if is_transform_part(self, target):
            assign_transform_part(self, target, self.value(node.value), node, out, op)
            return
        # An element, component or field: its indices are evaluated once, before the right-hand side
        # (as Warp does), then read, combined and stored through the same place.
        lvalue = self.place(target)
        if isinstance(lvalue, Static) or not isinstance(lvalue, (ir.IRArrayElem, ir.IRComponent, ir.IRField)):
            current = self.value(target)
            self.assign(target, self.binary(op, current, self.value(node.value), node), node, out)
            return
        lvalue = self._evaluate_once(lvalue, out)
        rhs = self.value(node.value)
        # a container of an extension (a tile) may combine its elements in its own way (structs: by field)
        rule = INTRINSICS.type_rule(lvalue.array.type, "element_update") \
            if isinstance(lvalue, ir.IRArrayElem) else None
        value = rule(self, op, lvalue, rhs, node) if rule is not None else None
        if value is None:
            value = self.binary(op, lvalue, rhs, node)
        if value.type != lvalue.type:
            raise self.error(KernelTypeError, f"'{ast.unparse(target)} {_SYMBOL[op]}=' gives a value of type "
                             f"{type_name(value.type)} for a place of type {type_name(lvalue.type)}", node)
        # updates: the backward kernel moves the place's adjoint to the value computed from it (an array
        # slot's adjoint is not counted twice: ``a[0].x += r`` leaves the gradient of a[0].x as it was)
        out.append(ir.IRAssign(lvalue, value, updates=True))

    def _is_reference_param(self, name: str) -> bool:
        """Whether ``name`` is a parameter annotated ``wp.ref[T]``."""
        return name in self.symbols.params and isinstance(self.source.annotations().get(name), RefType)

    def _check_rebind(self, source_name, name, node):
        """A local bound to a compile-time object that refuses other values (``g = wp.grad(f)``) says why."""
        message = getattr(self.symbols.statics.get(name), "rebind_message", None)
        if message is not None:
            raise self.error(KernelTypeError, message(source_name), node)

    def _evaluate_once(self, place, out):
        """``place`` with every index that is not a constant or a local computed into a temporary."""
        def index(e):
            return e if isinstance(e, (ir.IRConst, ir.IRLocal)) else self.assign_temp(e, out)

        if isinstance(place, ir.IRArrayElem):
            return ir.IRArrayElem(self._evaluate_once(place.array, out), [index(i) for i in place.indices],
                                  place.type, place.where)
        if isinstance(place, ir.IRComponent):
            return ir.IRComponent(self._evaluate_once(place.base, out), [index(i) for i in place.indices], place.type)
        if isinstance(place, ir.IRField):
            return ir.IRField(self._evaluate_once(place.base, out), place.name, place.type)
        return place

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
            raise self.error(KernelSyntaxError, "for loops must iterate over range(...) or reversed(range(...))", node)
        if not 1 <= len(it.args) <= 3 or it.keywords:
            raise self.error(KernelTypeError, "range() takes 1 to 3 positional arguments", node)
        args = [self._range_bound(a) for a in it.args]
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


_MAX_UNROLL = 1024


def _is_function(value) -> bool:
    """A compile-time value that is a function (not a type, which is callable too)."""
    return callable(value) and not isinstance(value, (type, ArrayType))


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


def _describe(stmt) -> str:
    return {"With": "with", "Try": "try", "Raise": "raise", "Import": "import", "ImportFrom": "import",
            "Global": "global", "Nonlocal": "nonlocal", "Delete": "del", "ClassDef": "class",
            "AsyncFunctionDef": "async def", "Assert": "assert", "Match": "match"}.get(
        type(stmt).__name__, type(stmt).__name__)


def _tname(t) -> str:
    return "nothing" if t is None else type_name(t)



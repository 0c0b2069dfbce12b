"""Calls in kernel code: builtins, ``@func`` functions, types and compile-time objects, and the calls
that are statements (``print``, ``printf``, ``expect_eq``/``expect_neq``/``expect_near``).

``CallRules`` is the call half of ``ExpressionTyper`` (a mixin of the ``Typer``): it relies on the
typer's ``expr``/``value``/``static_value``/``error`` and on ``ConstructionRules``' constructors.
"""

from __future__ import annotations

import ast
import builtins as py
import math
import types as pytypes

from .. import ir
from ..builtins import BuiltinFunction
from ..builtins.param_names import BindError, bind_keywords
from ..builtins.registry import BUILTINS, Unsupported
from ..builtins.static import static
from ..builtins.table import Mismatch, resolve
from ..errors import KernelAttributeError, KernelSyntaxError, KernelTypeError, KernelUnsupportedTypeError
from ..types.arrays import ArrayType, _ArrayNd, type_name
from ..types.composite import (
    is_composite_type,
    is_matrix_type,
    is_quat_type,
    is_transform_type,
    is_vector_type,
    matrix,
    quaternion,
    transformation,
    vector,
)
from ..types.function_values import FunctionValueType
from ..types.kernel_params import is_pack_type
from ..types.opaque import TupleType
from ..types.scalars import bool_, float32, int32, is_scalar_type, python_annotation_type
from ..types.structs import is_struct_type
from .array_truth import truth_arguments
from .construction import _scalar_of
from .intrinsics import INTRINSICS
from .operators import _python_number_hint
from .printf_format import PRINTF_SPEC, check_printf
from .printing import UNPRINTABLE, composite_print
from .recursion import DEEP_CALLS, RecursiveCall, nesting_message, recursion_message
from .starred import expand_starred
from .static_value import TID, Static


def _value_kind(t) -> str:
    """Scalar, vector, matrix, quaternion or transform: Warp says 'Input types must be the same' of values of one."""
    if is_scalar_type(t):
        return "scalar"
    return ("vector" if is_vector_type(t) else "matrix" if is_matrix_type(t) else
            "quaternion" if is_quat_type(t) else "transform")


class CallRules:
    """Mixin of ``ExpressionTyper``: typing of calls."""

    def mismatch(self, message: str, args, node, builtin: str | None = None, operator: str | None = None):
        """The error of a builtin or operator (``operator``: its builtin's name) that does not take ``args``, in
        Warp's words where its values are numbers, vectors or matrices of different types: values of one kind
        (scalars, vectors, ...) that the rule wants equal 'must be the same'; otherwise, as when the kinds differ
        (``t * p``) or the rule wants other types (a mesh id and a float face), no overload took them."""
        types = [a.type for a in args]
        listed = ", ".join(type_name(t) for t in types)
        if len(set(types)) < 2 or not all(is_scalar_type(t) or is_composite_type(t) for t in types):
            if builtin is not None:
                return self.error(KernelUnsupportedTypeError, f"{message} (Couldn't find function overload for "
                                  f"'{builtin}' that matched inputs with types: [{listed}])", node)
            return self.error(KernelTypeError, message, node)
        if len({_value_kind(t) for t in types}) > 1 or "must match" not in message:  # equal types would not do
            return self.error(KernelUnsupportedTypeError, f"{message} (Couldn't find function overload for "
                              f"'{builtin or operator}' that matched inputs with types: [{listed}])", node)
        exactly = "" if all(is_scalar_type(t) for t in types) else "exactly "
        return self.error(KernelUnsupportedTypeError, f"{message} (Input types must be {exactly}the same, got "
                          f"{[type_name(t) for t in types]})", node)

    def builtin_call(self, name, args, node, label=None) -> ir.IRExpr:
        args = truth_arguments(name, args)  # `a and b`, where(a, ..) of arrays: "has data"
        try:
            _, result = resolve(name, [a.type for a in args])
        except Unsupported as e:  # the message names the builtin
            raise self.error(KernelUnsupportedTypeError, str(e), node) from None
        except Mismatch as e:
            raise self.mismatch(f"{label or name + '()'}: {e}", args, node, None if label else name,
                                operator=name) from None
        return ir.IRCall(name, args, result, where=self.where(node) if name.startswith("atomic_") else "")

    def callee(self, node):
        """The typed callee of call ``node``; a missing function of a module is named as Warp names it."""
        if node in self.source.static_results:  # a wp.static(...) evaluated at declaration, whatever names it now
            return Static(static)
        try:
            return self.expr(node.func)
        except KernelAttributeError as e:
            if getattr(e, "missing_module_attribute", None) is not node.func:
                raise
            raise self.error(KernelAttributeError, f"Could not find function {ast.unparse(node.func)} "
                             f"({e.message})", node) from None

    def expr_Call(self, node):
        func = self.callee(node)
        if not isinstance(func, Static):
            raise self.error(KernelTypeError, _not_callable(node, func.type), node)
        return self.call(func.value, expand_starred(self, node))

    def call_statement(self, node):
        """Calls that are statements (print, printf, expect_eq/neq); None for ordinary calls."""
        func = self.callee(node)
        if not isinstance(func, Static):
            return None
        f = func.value
        node = expand_starred(self, node)
        rule = INTRINSICS.rule(f, "statement")
        if rule is not None:
            return rule(self, f, node)
        name = f.name if isinstance(f, BuiltinFunction) else ("print" if f is py.print else None)
        if name == "print":
            if node.keywords:
                raise self.error(KernelSyntaxError, "print() keywords are not supported in kernels", node)
            parts = [self._print_part(a) for a in node.args]
            if len(parts) == 1 and not isinstance(parts[0], str) and is_composite_type(parts[0].type):
                return composite_print(self, parts[0])  # as Warp prints one vector or matrix
            return ir.IRPrint(parts)
        if name == "printf":
            if not node.args:
                raise self.error(KernelTypeError, "printf() needs a format string", node)
            fmt = self.static_value(node.args[0])
            if not isinstance(fmt, str):
                raise self.error(KernelTypeError, "printf() format must be a string constant", node)
            fmt, values = self._printf_text_arguments(fmt, node.args[1:], node)
            if len(values) > _PRINTF_MAX_VALUES:  # Warp's limit (and words), so code runs on both
                raise self.error(KernelUnsupportedTypeError, f"printf() got {len(values)} values: the maximum "
                                 f"number of variadic arguments that can be passed to `printf` is "
                                 f"{_PRINTF_MAX_VALUES}", node)
            for v in values:
                if not is_scalar_type(v.type):
                    raise self.error(KernelTypeError, f"printf() prints scalars, got {type_name(v.type)}", node)
            values = check_printf(self, fmt, values, node)
            return ir.IRPrint([ir.Format(fmt), *values], sep="", newline=False)
        if name in ("expect_eq", "expect_neq"):
            if len(node.args) != 2:
                raise self.error(KernelTypeError, f"{name}() takes two arguments", node)
            a, b = self.value(node.args[0]), self.value(node.args[1])
            if a.type is not b.type:  # a RuntimeError too, with Warp's words at the end
                raise self.error(KernelUnsupportedTypeError, f"{name}() got {type_name(a.type)} and "
                                 f"{type_name(b.type)}: Can't test equality for objects with different types", node)
            loc = self.source.location(node)
            message = f"{name}({ast.unparse(node.args[0])}, {ast.unparse(node.args[1])}) failed at " \
                      f"{loc.filename}:{loc.lineno}"
            return ir.IRExpect(name == "expect_eq", a, b, message)
        if name == "expect_near":  # prints when some component of |a - b| exceeds tol (default 1e-6)
            tol_nodes = [k.value for k in node.keywords if k.arg == "tolerance"]
            if len(node.args) + len(tol_nodes) not in (2, 3) or len(node.args) < 2 \
                    or len(tol_nodes) != len(node.keywords):
                raise self.error(KernelTypeError, "expect_near() takes a, b and an optional tolerance", node)
            a, b = self.value(node.args[0]), self.value(node.args[1])
            tol_node = (node.args[2:] + tol_nodes)[:1]
            tol = self.value(tol_node[0]) if tol_node else ir.IRConst(1e-6, _scalar_of(a.type))
            if is_composite_type(a.type) and not is_vector_type(a.type) and a.type is b.type:
                # matrix, quaternion, transform: the largest |a - b| over the components
                shape, dtype = tuple(a.type._shape), a.type._dtype
                index_sets = [[r, c] for r in range(shape[0]) for c in range(shape[1])] if len(shape) == 2 \
                    else [[k] for k in range(shape[0])]
                diff = None
                for ix in index_sets:
                    ca, cb = (ir.IRComponent(v, [ir.IRConst(i, int32) for i in ix], dtype) for v in (a, b))
                    part = self.builtin_call("abs", [self.builtin_call("sub", [ca, cb], node)], node)
                    diff = part if diff is None else self.builtin_call("max", [diff, part], node)
            else:
                diff = self.builtin_call("abs", [self.builtin_call("sub", [a, b], node)], node)
                if is_vector_type(diff.type):
                    diff = self.builtin_call("max", [diff], node)
            ok = self.builtin_call("le", [diff, tol], node, label="expect_near()")
            loc = self.source.location(node)
            shown = [ast.unparse(n) for n in node.args] + [f"tolerance={ast.unparse(n)}" for n in tol_nodes]
            message = f"expect_near({', '.join(shown)}) failed at " \
                      f"{loc.filename}:{loc.lineno}"
            return ir.IRExpect(True, ok, ir.IRConst(True, bool_), message)
        return None

    def _printf_text_arguments(self, fmt: str, arg_nodes, node) -> tuple:
        """String constants given for ``%s`` conversions are written into the format (as Warp prints them);
        returns that format and the kernel values left for the other conversions."""
        parts = [self.expr(a) for a in arg_nodes]
        if not any(isinstance(p, Static) and isinstance(p.value, str) for p in parts):
            return fmt, [self.to_value(p, a) for p, a in zip(parts, arg_nodes)]
        out, values, at, pos = [], [], 0, 0
        for m in PRINTF_SPEC.finditer(fmt):
            spec = m.group()
            out.append(fmt[pos:m.start()])
            pos = m.end()
            if spec == "%%":
                out.append(spec)
                continue
            taken = parts[at:at + 1 + spec.count("*")]
            at += 1 + spec.count("*")
            text = taken[-1].value if taken and isinstance(taken[-1], Static) and isinstance(taken[-1].value, str) \
                else None
            if spec[-1] == "s" and text is not None and "*" not in spec:
                out.append((spec % text).replace("%", "%%"))
                continue
            if text is not None:
                raise self.error(KernelTypeError, f"printf(): conversion {spec!r} got the string {text!r} (a string "
                                 f"constant prints with %s)", node)
            out.append(spec)
            values.extend(self.to_value(p, a) for p, a in zip(taken, arg_nodes[at - len(taken):at]))
        out.append(fmt[pos:])
        values.extend(self.to_value(p, a) for p, a in zip(parts[at:], arg_nodes[at:]))
        return "".join(out), values

    def _print_part(self, node):
        value = self.expr(node)
        if isinstance(value, Static) and isinstance(value.value, str):
            return value.value
        value = self.to_value(value, node)
        if isinstance(value.type, ArrayType) or is_struct_type(value.type):
            return UNPRINTABLE  # as Warp prints them
        if isinstance(value.type, ir.TupleType):
            raise self.error(KernelTypeError, f"print() cannot print a value of type {type_name(value.type)}", node)
        return value

    def call(self, f, node):
        rule = INTRINSICS.rule(f, "call")
        if rule is not None:
            return rule(self, f, node)
        if isinstance(f, BuiltinFunction):
            return self.call_builtin_function(f.name, node)
        py_name = _PY_BUILTINS.get(f) if isinstance(f, pytypes.BuiltinFunctionType) or f in (int, float, bool) \
            else None
        if py_name is not None:
            return self.call_builtin_function(py_name, node)
        if f is vector or f is matrix or f is quaternion or f is transformation or isinstance(f, _ArrayNd):
            return self.call_type_factory(f, node)
        t = python_annotation_type(f)
        if is_scalar_type(t) or is_composite_type(t) or is_struct_type(t):
            return self.construct(t, node)
        if f is type:
            if len(node.args) != 1 or node.keywords:
                raise self.error(KernelTypeError, "type() takes exactly one argument", node)
            arg = self.expr(node.args[0])
            return Static(arg.value if isinstance(arg, Static) and not arg.is_number()
                          else self.to_value(arg, node).type)
        label = getattr(f, "__qualname__", None) or repr(f)
        module = getattr(f, "__module__", None) or ""
        if isinstance(f, pytypes.BuiltinFunctionType) or module == "brickwork" or module.startswith("brickwork."):
            # a library's host function (brickwork's own, math.gamma): decorating it is not the user's fix
            raise self.error(KernelTypeError, f"'{module + '.' if module else ''}{label}' is a host function with no "
                             f"kernel version; call it outside the kernel and use its result inside", node)
        if module == "numpy" or module.startswith("numpy."):
            what = "type" if isinstance(f, type) else "function"
            raise self.error(KernelTypeError, f"'{module}.{label}' is a numpy {what}, which kernels cannot call"
                             f"{_numpy_alternative(label)}", node)
        if isinstance(f, pytypes.FunctionType):
            raise self.error(KernelTypeError, f"'{label}' is a Python function, not a kernel function; "
                             f"decorate it with @func to call it from a kernel", node)
        raise self.error(KernelTypeError, f"'{label}' is not callable in kernels", node)

    def static_call(self, f, node):
        """Call a compile-time object (a variable tag: ``rho()``, ``rho(2)``) with constant arguments;
        a runtime component becomes an expression carried with the result."""
        args, runtime = [], None
        for a in node.args:
            value = self.expr(a)
            if isinstance(value, Static) and not isinstance(value.value, ShapeOf):
                args.append(value.value)
            else:
                runtime = self.to_value(value, node)
                args.append(0)
        kwargs = {k.arg: self.static_value(k.value) for k in node.keywords}
        try:
            result = f(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the object's own message names the problem
            raise self.error(KernelTypeError, f"{static_label(f)}: {e}", node) from None
        if runtime is not None:
            result = RuntimeComponent(result, runtime)
        return Static(result)

    def positional(self, node) -> list:
        if node.keywords:
            raise self.error(KernelTypeError, "keyword arguments are not supported here", node)
        return [self.value(a) for a in node.args]

    def call_function(self, f, args, node):
        """A call of a ``@func`` (``f.instantiate`` types the chosen overload for these arguments)."""
        try:
            func_ir = f.instantiate([a.type for a in args], self.context)
        except Mismatch as e:
            raise self.error(KernelTypeError, f"{f.name}(): {e}", node) from None
        except RecursiveCall as e:
            raise self.error(KernelTypeError, recursion_message(e.names), node) from None
        except RecursionError:  # Python's stack: named once unwound to the kernel's call, if calls nest deeply
            if self.context.stack or len(self.context.deepest) < DEEP_CALLS:
                raise
            raise self.error(KernelTypeError, nesting_message(self.context.deepest), node) from None
        args = [a for a in args if not isinstance(a.type, FunctionValueType)]  # named in the instance's body
        callee_stack = getattr(func_ir, "stack_bytes", 0)  # its frame and its callees' on top of this function's
        if callee_stack > self.callee_stack[0]:
            self.callee_stack = (callee_stack, f.name)
        return ir.IRFuncCall(func_ir, args, func_ir.return_type)

    def call_builtin_function(self, name, node):
        if name == "tid":
            if not self.is_kernel:
                raise self.error(KernelTypeError, "tid() can only be called in a kernel", node)
            if node.args or node.keywords:
                raise self.error(KernelTypeError, "tid() takes no arguments", node)
            return Static(TID)
        if name in ("print", "printf", "expect_eq", "expect_neq", "expect_near"):
            raise self.error(KernelSyntaxError, f"{name}() is a statement and has no value", node)
        if name == "len":
            if len(node.args) == 1 and not node.keywords and isinstance(self.try_static(node.args[0]), tuple):
                return Static(len(self.try_static(node.args[0])))  # a captured tuple: a compile-time length
            (arg,) = self.positional(node)
            if isinstance(arg.type, ArrayType):
                return ir.IRArrayShape(arg, 0, int32)
            if is_vector_type(arg.type) or is_matrix_type(arg.type) or is_quat_type(arg.type) or \
                    is_transform_type(arg.type):  # a transform: its 7 components, as Warp counts them
                return ir.IRConst(arg.type._shape[0], int32)
            if isinstance(arg.type, TupleType):
                return ir.IRConst(len(arg.type.types), int32)
            raise self.error(KernelTypeError, f"len() of a value of type {type_name(arg.type)}", node)
        if name == "identity":
            return self.identity(node)
        if name in ("quat_identity", "transform_identity"):
            kw = {k.arg: self.static_value(k.value) for k in node.keywords}
            dtype = python_annotation_type(kw.get("dtype", self.static_value(node.args[0]) if node.args else float32))
            if not is_scalar_type(dtype) or not dtype.is_float:
                raise self.error(KernelTypeError, f"{name}() needs a floating-point dtype, got {dtype!r}", node)
            if name == "quat_identity":
                return ir.IRConstruct([ir.IRConst(v, dtype) for v in (0, 0, 0, 1)], quaternion(dtype))
            return ir.IRConstruct([ir.IRConst(v, dtype) for v in (0, 0, 0, 0, 0, 0, 1)], transformation(dtype))
        if name in ("int", "float", "bool"):
            return self.construct({"int": int32, "float": float32, "bool": bool_}[name], node)
        if name == "unot":  # Warp's name of `not`
            name = "logical_not"
        args = self.builtin_arguments(name, node)
        try:
            return self.builtin_call(name, args, node)
        except KernelTypeError as e:
            hint = self._number_argument_hint(name, node, args)
            if not hint:
                raise
            raise type(e)(e.message + hint, e.location) from None

    def _number_argument_hint(self, name, node, args) -> str:
        """How to write a Python number argument (``wp.max(x, 0)`` of a float32 ``x``: ``write 0.0``) when the
        call resolves with that number in another argument's scalar type; ``""`` where none does (an index
        that is rightly an int32, say), or where arguments go by keyword."""
        if node.keywords or len(node.args) != len(args):
            return ""
        types = [a.type for a in args]
        for position, src in enumerate(node.args):
            if not isinstance(src, (ast.Constant, ast.Name)):
                continue
            for other in args:
                scalar = other.type if is_scalar_type(other.type) else getattr(other.type, "_dtype", None)
                if other is args[position] or not is_scalar_type(scalar) or scalar is types[position]:
                    continue
                try:
                    resolve(name, types[:position] + [scalar] + types[position + 1:])
                except (Mismatch, Unsupported):
                    continue
                return _python_number_hint([(src, self.expr(src), other)])
        return ""

    def builtin_arguments(self, name, node) -> list:
        """The arguments of a builtin call in order; keywords by Warp's parameter names (wp.pow(x=2.0, y=4.0))."""
        if not node.keywords:
            return self.positional(node)
        positional = [self.value(a) for a in node.args]
        keywords = [(kw.arg, self.value(kw.value)) for kw in node.keywords]
        try:
            return bind_keywords(name, positional, keywords, ir.IRConst)
        except BindError as e:
            raise self.error(KernelTypeError, str(e), node) from None

    def identity(self, node):
        kw = {k.arg: self.static_value(k.value) for k in node.keywords}
        args = [self.static_value(a) for a in node.args]
        n = kw.get("n", args[0] if args else None)
        dtype = python_annotation_type(kw.get("dtype", args[1] if len(args) > 1 else float32))
        if not isinstance(n, int) or not is_scalar_type(dtype):
            raise self.error(KernelTypeError, "identity() needs n=<int> and dtype=<scalar type>", node)
        comps = [ir.IRConst(1 if r == c else 0, dtype) for r in range(n) for c in range(n)]
        return ir.IRConstruct(comps, matrix((n, n), dtype))

    def tid_value(self, node, count):
        if count == 1:
            self.set_tid_dims(1, node)
            return ir.IRTid(0, int32)
        raise self.error(KernelTypeError, "tid() with several indices must be unpacked: i, j = tid()", node)


class RuntimeComponent:
    """A variable reference whose component is known only at run time (``rho(c)``)."""

    def __init__(self, ref, component_expr):
        self.tag = ref.tag
        self.component = 0
        self.component_expr = component_expr


class ShapeOf:
    """``a.shape`` of a runtime array: only subscripting with a constant is meaningful."""

    def __init__(self, array):
        self.array = array


def static_label(obj) -> str:
    if isinstance(obj, pytypes.ModuleType):
        return f"module '{obj.__name__}'"
    if isinstance(obj, (type, ArrayType)):
        return f"type {type_name(obj)}"
    return f"{type(obj).__name__} {getattr(obj, '__name__', '')!r}".strip()


_PRINTF_MAX_VALUES = 32

_PY_BUILTINS = {py.abs: "abs", py.min: "min", py.max: "max", py.len: "len", py.round: "round", py.pow: "pow",
                py.int: "int", py.float: "float", py.bool: "bool", py.print: "print", math.sqrt: "sqrt",
                math.floor: "floor", math.ceil: "ceil", math.sin: "sin", math.cos: "cos", math.exp: "exp",
                math.log: "log"}


def _not_callable(node: ast.Call, t) -> str:
    """Why call ``node`` of a value of type ``t`` is refused; an array or a pack called as Parthenon and
    Kokkos index theirs (``pack(b, var, k, j, i)``) is told to take square brackets."""
    if not (isinstance(t, ArrayType) or is_pack_type(t)):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name is not None and (hasattr(py, name) or name in BUILTINS):  # min = x[i], then min(a, b)
            return f"'{name}' is a variable of type {type_name(t)} here, which hides the builtin {name}(): rename " \
                   f"the variable (Warp 1.19 calls the builtin; Python would fail as here)"
        return f"a value of type {type_name(t)} is not callable"
    text = ast.unparse(node.func)
    indexed = f"{text}[{', '.join(ast.unparse(a) for a in node.args)}]"
    if is_pack_type(t):
        return f"'{text}' is a pack, not a function: index it with square brackets, {indexed} (Parthenon's " \
               f"pack(b, var, k, j, i) is pack[b, var, k, j, i] here: Python cannot assign to a call)"
    return f"'{text}' is an array, not a function: index it with square brackets, {indexed}"


#: numpy's names of functions whose kernel builtin has another name (np.fmod and wp.mod both keep the
#: dividend's sign; np.mod and np.remainder do not, so they have no entry).
_NUMPY_SPELLINGS = {"absolute": "abs", "clip": "clamp", "minimum": "min", "maximum": "max", "arcsin": "asin",
                    "arccos": "acos", "arctan": "atan", "arctan2": "atan2", "power": "pow", "fmod": "mod",
                    "norm": "length"}


def _numpy_alternative(name: str) -> str:
    """``": use wp.clamp"`` for a numpy function (``np.clip``) or type (``np.float32``) that kernels spell
    with brickwork's builtin or type; ``""`` where there is none."""
    from ..builtins import FUNCTIONS
    from ..types.scalars import SCALAR_TYPES

    spelled = _NUMPY_SPELLINGS.get(name, name)
    if spelled in FUNCTIONS or spelled in {t.__name__ for t in SCALAR_TYPES}:
        return f": use wp.{spelled}"
    if name in _NUMPY_REDUCTIONS:  # a whole-array habit: each thread sees its own elements
        return (f": a kernel thread reads elements, not whole arrays; reduce an array on the host "
                f"(wp.utils.array_sum(a), or numpy.{name}(a.numpy())), or add each thread's element into one with "
                f"wp.atomic_add(total, 0, a[i])")
    return ""


_NUMPY_REDUCTIONS = frozenset({"sum", "mean", "prod", "amax", "amin", "average", "cumsum", "nansum", "std", "var"})

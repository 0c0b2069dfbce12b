"""Expressions: typing each Python expression under the kernel language's strict rules.

``ExpressionTyper`` is the expression half of the ``Typer``. An expression evaluates either to an
IR node (a runtime value) or to ``Static`` (a compile-time value: a type, a function, a module, a
Python number, a string). What extensions add is typed by their rules in ``INTRINSICS``.
"""

from __future__ import annotations

import ast
import builtins as py
import contextlib
import functools
import operator
import types as pytypes
import typing

import numpy as np

from .. import ir
from ..builtins import FUNCTIONS
from ..builtins.constants import CONSTANTS
from ..builtins.static import static
from ..builtins.table import Mismatch, resolve
from ..errors import (
    KernelAttributeError,
    KernelSyntaxError,
    KernelTypeError,
    KernelUndefinedNameError,
    KernelUnsupportedSyntaxError,
    KernelUnsupportedTypeError,
)
from ..types.arrays import ArrayType, array, type_name
from ..types.composite import (
    CompositeBase,
    family_namespace,
    is_composite_type,
    is_matrix_type,
    is_quat_type,
    is_transform_type,
    is_vector_type,
    matrix,
    vector,
)
from ..types.fabric_arrays import FABRIC_TYPES
from ..types.fixed_arrays import view_type
from ..types.opaque import TupleType
from ..types.promotion import comparison_type
from ..types.scalars import ScalarBase, bool_, float32, int32, int64, is_scalar_type
from ..types.structs import is_struct_type
from .array_slices import array_slice
from .array_truth import truth_arguments
from .calls import CallRules, ShapeOf, static_label
from .construction import ConstructionRules
from .intrinsics import INTRINSICS
from .operand_hints import conversion_hint, generic_parameters
from .places import part_component
from .resolve import MISSING, static_attribute
from .starred import TYPED_COMPONENT
from .static_value import TID as _TID
from .static_value import Static

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "bit_and", ast.BitOr: "bit_or", ast.BitXor: "bit_xor",
           ast.LShift: "lshift", ast.RShift: "rshift", ast.MatMult: "matmul"}
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%", "pow": "**",
           "bit_and": "&", "bit_or": "|", "bit_xor": "^", "lshift": "<<", "rshift": ">>", "matmul": "@",
           "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "neg": "unary -",
           "pos": "unary +", "invert": "~", "logical_not": "not"}
_PY_CMP = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
           ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
           ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}


class ExpressionTyper(CallRules, ConstructionRules):
    """Mixin of ``Builder``: typing of expressions (calls: ``CallRules``)."""

    #: The array subscript of the component or field being assigned (``a[i].x = v``): its indices' error
    #: names a slot write, in Warp's words
    slot_subscript = None

    # -- entry points -------------------------------------------------------------------------
    def expr(self, node):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            kind = type(node).__name__
            if kind in _DISPLAYS:  # a RuntimeError too, with Warp's words
                raise self.error(KernelUnsupportedSyntaxError, f"{_DISPLAYS[kind]}: {ast.unparse(node)}", node)
            raise self.error(KernelSyntaxError, f"'{kind}' expressions are not supported in "
                             f"kernels: {ast.unparse(node)}", node)
        return method(node)

    def value(self, node) -> ir.IRExpr:
        return self.to_value(self.expr(node), node)

    def to_value(self, value, node) -> ir.IRExpr:
        """A runtime value from an expression result; Python numbers become typed constants."""
        if not isinstance(value, Static):
            return value
        v = value.value
        if v is _TID:
            return self.tid_value(node, 1)
        if isinstance(v, bool):
            return ir.IRConst(v, bool_)
        if isinstance(v, int):
            v = int(v)  # an IntEnum or IntFlag member: its number
            if not -2**63 <= v < 2**63:
                raise self.error(KernelTypeError, f"integer literal {v} does not fit in int64 (a kernel's widest "
                                 f"signed integer); for uint64 write wp.uint64({v})", node)
            return ir.IRConst(v, int32 if -2**31 <= v < 2**31 else int64)
        if isinstance(v, float):
            with np.errstate(over="ignore"):  # 1e40 is inf in float32, as in Warp; no numpy warning on stderr
                return ir.IRConst(float(np.float32(v)), float32)
        if isinstance(v, ScalarBase):
            return ir.IRConst(v.value, type(v))
        if isinstance(v, CompositeBase):
            comps = [ir.IRConst(c, v._dtype) for c in v.flat_values()]
            return ir.IRConstruct(comps, type(v))
        if is_struct_type(type(v)):  # a struct built on the host (by wp.static): its fields as constants
            return ir.IRConstruct([self._struct_field_constant(getattr(v, n), t, node) for n, t in v._fields], type(v))
        # a name of the host: Warp's words first ("Invalid external reference type: <class ...>"), then ours
        named = isinstance(node, (ast.Name, ast.Attribute))
        warp_words = f"Invalid external reference type: {type(v)}: " if named else ""
        raise self.error(KernelTypeError, f"{warp_words}{value.describe()} is not a value usable in a kernel", node)

    def _struct_field_constant(self, v, t, node) -> ir.IRExpr:
        if is_scalar_type(t):
            return ir.IRConst(t(v.value if isinstance(v, ScalarBase) else v).value, t)
        if isinstance(t, ArrayType):
            raise self.error(KernelTypeError, f"a struct with an array field ({type_name(t)}) cannot be a constant "
                             f"of a kernel", node)
        return self.to_value(Static(v), node)

    def try_static(self, node):
        """The compile-time value of ``node``, or None when it is not one (or does not type)."""
        try:
            value = self.expr(node)
        except Exception:  # noqa: BLE001 - not resolvable here: not a compile-time callee
            return None
        return value.value if isinstance(value, Static) else None

    def static_value(self, node):
        if isinstance(node, ast.Tuple):  # shape=(2, 3): a tuple of constants, not a runtime tuple
            return tuple(self.static_value(e) for e in node.elts)
        value = self.expr(node)
        if isinstance(value, ir.IRLocal) and type(self.symbols.known.get(value.name)) in (int, float):
            return self.symbols.known[value.name]  # a local still bound to a Python number (n = 3)
        if not isinstance(value, Static):
            raise self.error(KernelTypeError, f"'{ast.unparse(node)}' must be known at compile time", node)
        return value.value

    # -- leaves ------------------------------------------------------------------------------------
    def expr_Lambda(self, node):
        return Static(LocalFunction(node))

    def expr_Constant(self, node):
        if node.value is None or isinstance(node.value, (bytes, complex)):
            raise self.error(KernelTypeError, f"constant {node.value!r} is not supported in kernels", node)
        return Static(node.value)

    def expr_Name(self, node):
        name = self.symbols.unique(node.id)
        t = self.symbols.type_of(name)
        if t is not None:
            return ir.IRLocal(name, t)
        if name in self.symbols.statics:
            return Static(self.symbols.statics[name])
        value = self.source.lookup(name)
        if value is MISSING:
            value = _language_names().get(name, MISSING)
        if value is MISSING:  # a KeyError too, with Warp's words
            raise self.error(KernelUndefinedNameError, f"Referencing undefined symbol: {name} (name '{name}' is "
                             f"not defined)", node)
        return Static(value)

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        attr = node.attr
        if _captured_composite(base, "attribute"):
            base = self.to_value(base, node.value)  # a captured vector or transform: its components keep their type
        if isinstance(base, Static):
            obj = base.value
            rule = INTRINSICS.rule(obj, "attribute")
            if rule is not None:
                return rule(self, obj, attr, node)
            try:
                return Static(static_attribute(obj, attr))
            except AttributeError:
                if attr in _KERNEL_ONLY_NAMES and _is_facade(obj):  # wp.float(x) is float(x), as in Warp's kernels
                    return Static(_KERNEL_ONLY_NAMES[attr])
                label = (f"{type(obj).__module__}.{type(obj).__qualname__}" if is_struct_type(type(obj))
                         else static_label(obj))
                # Warp's words first
                message = f"`{attr}` is not an attribute of '{ast.unparse(node.value)}' ({label} has no attribute " \
                          f"'{attr}')"
                error = self.error(KernelAttributeError, message, node)
                error.missing_module_attribute = node if isinstance(obj, pytypes.ModuleType) else None
                raise error from None
        t = base.type
        rule = INTRINSICS.type_rule(t, "value_attribute")
        if rule is not None:
            found = rule(self, base, attr, node)
            if found is not None:
                return found
        if isinstance(t, ArrayType):
            if attr == "shape":
                return Static(ShapeOf(base))
            if attr == "dtype":
                return Static(t.dtype)
            if attr == "ndim":
                return Static(t.ndim)
        elif (is_vector_type(t) or is_quat_type(t)) and attr in _COMPONENTS:
            index = _COMPONENTS[attr]
            if index < t._length:
                return part_component(base, ir.IRConst(index, int32), t._dtype)
        if is_composite_type(t) and attr in ("dtype", "length", "shape"):  # the type's, as Warp's kernels read them
            if attr == "dtype":
                return Static(t._dtype)
            if attr == "shape":
                return Static(tuple(t._shape))
            if not is_matrix_type(t):
                return Static(t._length)
        elif is_transform_type(t) and attr in ("p", "q"):  # translation and rotation, as in Warp
            getter = "transform_get_translation" if attr == "p" else "transform_get_rotation"
            return self.builtin_call(getter, [base], node)
        elif is_struct_type(t):
            ft = t._field_types.get(attr)
            if ft is not None:
                return ir.IRField(base, attr, ft)
        # Warp's words last: `attr` is not an attribute of 'name' (module.Type)
        full = f"{t.__module__}.{t.__qualname__}" if is_struct_type(t) else type_name(t)
        raise self.error(KernelAttributeError, f"a value of type {type_name(t)} has no attribute '{attr}': `{attr}` "
                         f"is not an attribute of '{ast.unparse(node.value)}' ({full})", node)

    def expr_Subscript(self, node):
        unpacked = getattr(node, TYPED_COMPONENT, None)
        if unpacked is not None:  # a component of a starred argument, typed already
            return unpacked
        base = self.expr(node.value)
        if _captured_composite(base, "subscript"):
            base = self.to_value(base, node.value)  # a captured vector: indexed as a value (v[i] in a loop)
        index_nodes = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(i, ast.Slice) for i in index_nodes):
            rule = None if isinstance(base, Static) else INTRINSICS.type_rule(base.type, "value_subscript")
            if rule is not None:  # an extension's parts (a tile's rows and blocks)
                return rule(self, base, index_nodes, node)
            if not isinstance(base, Static) and isinstance(base.type, ArrayType):
                return array_slice(self, base, index_nodes, node)  # a view, as in Warp
            if isinstance(base, Static) or not is_composite_type(base.type):
                what = "compile-time values" if isinstance(base, Static) else type_name(base.type)
                raise self.error(KernelSyntaxError, f"slices are not supported on {what} (only on vectors, "
                                 f"matrices, quaternions and transforms)", node)
            return self._slice(base, index_nodes, node)
        if isinstance(base, Static):
            obj = base.value
            rule = INTRINSICS.rule(obj, "subscript")
            if rule is not None:
                return rule(self, obj, index_nodes, node)
            if isinstance(obj, (array, np.ndarray)):  # a global or captured array: not a compile-time value
                name = ast.unparse(node.value)
                hint = (f" (a loop body may capture a brickwork array: {name}_wp = wp.array({name}, copy=False) "
                        f"shares its memory)" if isinstance(obj, np.ndarray) else "")
                raise self.error(KernelTypeError, f"Invalid external reference type: {type(obj)}: '{name}' is "
                                 f"{'a numpy' if hint else 'an'} array defined outside the kernel; pass arrays to "
                                 f"kernels as arguments{hint}", node)
            if isinstance(obj, ShapeOf):
                dim = self.static_value(node.slice)
                if not isinstance(dim, int) or not 0 <= dim < 4:
                    raise self.error(KernelTypeError, f"shape index must be a constant in [0, 4), got {dim!r}", node)
                if dim >= obj.array.type.ndim:  # Warp's shapes have four entries, 0 past the last dimension
                    return ir.IRConst(0, int32)
                return ir.IRArrayShape(obj.array, dim, int32)
            key = tuple(self.static_value(i) for i in index_nodes)
            try:
                return Static(obj[key if len(key) > 1 else key[0]])
            except Exception as e:
                raise self.error(KernelTypeError, f"cannot index {static_label(obj)}: {e}", node) from None
        rule = INTRINSICS.type_rule(base.type, "value_subscript")
        found = rule(self, base, index_nodes, node) if rule is not None else None
        if found is not None:  # None: the rule leaves this subscript to the core (a tile's element)
            return found
        indices = [self.value(i) for i in index_nodes]
        for i in indices:
            if not getattr(i.type, "is_int", False):
                slot = node is self.slot_subscript and isinstance(base.type, ArrayType)
                what = "Array slot write indices" if slot else "indices"
                raise self.error(KernelTypeError, f"{what} must be integers, got {type_name(i.type)}", node)
        t = base.type
        if isinstance(t, TupleType):
            return self._tuple_item(base, indices, node)
        if isinstance(t, ArrayType):
            indices = _from_the_end(base, indices)
            if len(indices) < t.ndim:  # a2d[i]: the sub-array (a view), as in Warp
                # a fixed-size array's view is a plain array of its elements; a fabric array of arrays' element
                # is an array
                view = ArrayType if isinstance(t, FABRIC_TYPES) else type(view_type(t))
                return ir.IRSubarray(base, indices, view(t.dtype, t.ndim - len(indices)), self.where(node))
            if len(indices) != t.ndim:
                raise self.error(KernelTypeError, f"Incorrect number of indices specified for array indexing: an "
                                 f"array of {t.ndim} dimensions needs {t.ndim} indices, got {len(indices)}", node)
            return ir.IRArrayElem(base, indices, t.dtype, self.where(node))
        if is_vector_type(t) or is_quat_type(t) or is_transform_type(t):
            if len(indices) != 1:
                raise self.error(KernelTypeError, f"{type_name(t)} takes one index, got {len(indices)}", node)
            return part_component(base, self._const_index(indices[0], t._length, t, node), t._dtype)
        if is_matrix_type(t):
            if len(indices) == 1:
                row = self._const_index(indices[0], t._shape[0], t, node)
                return ir.IRComponent(base, [row], vector(t._shape[1], t._dtype))
            if len(indices) == 2:
                rc = [self._const_index(indices[0], t._shape[0], t, node),
                      self._const_index(indices[1], t._shape[1], t, node)]
                return ir.IRComponent(base, rc, t._dtype)
            raise self.error(KernelTypeError, f"{type_name(t)} takes 1 or 2 indices, got {len(indices)}", node)
        raise self.error(KernelTypeError, f"a value of type {type_name(t)} cannot be indexed", node)

    def _tuple_item(self, base, indices, node):
        """``t[i]`` of a tuple: the index must be a constant (a loop over ``range(len(t))`` is unrolled, so its
        variable is one), negative indices count from the end."""
        t = base.type
        if len(indices) != 1:
            raise self.error(KernelTypeError, f"{type_name(t)} takes one index, got {len(indices)}", node)
        index = indices[0]
        known = self.symbols.known.get(index.name) if isinstance(index, ir.IRLocal) else None
        if isinstance(known, int) and not isinstance(known, bool):  # the variable of an unrolled loop
            index = ir.IRConst(known, index.type)
        if not isinstance(index, ir.IRConst):  # a RuntimeError too, with Warp's words first
            raise self.error(KernelUnsupportedTypeError, f"Tuple index must be a compile time expression: "
                             f"'{ast.unparse(node.slice)}' of {type_name(t)} is not (a constant, or the variable of "
                             f"a loop over a constant range, is)", node)
        size = len(t.types)
        i = index.value + size if index.value < 0 else index.value
        if not 0 <= i < size:
            raise self.error(KernelUnsupportedTypeError, f"Tuple index out of bounds, {index.value} >= {size} "
                             f"({type_name(t)})", node)
        return ir.IRTupleGet(base, i, t.types[i])

    def _slice(self, base, index_nodes, node):
        """``v[a:b]``, ``m[a:b]``, ``m[i, a:b]``, ``m[a:b, c:d]``: a new value of the selected components
        (slice bounds must be compile-time constants, as in Warp)."""
        t = base.type
        dims, picks = self.slice_picks(t, index_nodes, node)
        kept = [p for p in picks if isinstance(p, list)]
        if any(not p for p in kept):  # an empty slice (v[5:] of a vec4): an empty vector or (0, 0) matrix, as Warp
            return ir.IRConstruct([], matrix((0, 0), t._dtype) if len(kept) == 2 else vector(0, t._dtype))

        def comp(*ix):
            return ir.IRComponent(base, [i if isinstance(i, ir.IRExpr) else ir.IRConst(i, int32) for i in ix],
                                  t._dtype)

        if len(dims) == 1:
            return ir.IRConstruct([comp(i) for i in picks[0]], vector(len(picks[0]), t._dtype))
        rows, cols = picks
        if isinstance(rows, list) and isinstance(cols, list):
            return ir.IRConstruct([comp(r, c) for r in rows for c in cols], matrix((len(rows), len(cols)), t._dtype))
        if isinstance(rows, list):
            return ir.IRConstruct([comp(r, cols) for r in rows], vector(len(rows), t._dtype))
        return ir.IRConstruct([comp(rows, c) for c in cols], vector(len(cols), t._dtype))

    def slice_picks(self, t, index_nodes, node) -> tuple[list, list]:
        """The dimensions of composite type ``t`` and, per dimension, the component indices a subscript with
        slices selects (a list), or the one index of a dimension it drops (an IR expression)."""
        dims = [t._shape[0], t._shape[1]] if is_matrix_type(t) else [t._length]
        if len(index_nodes) > len(dims):
            raise self.error(KernelTypeError, f"{type_name(t)} takes at most {len(dims)} indices", node)
        picks = []
        for d, inode in enumerate(index_nodes):
            if isinstance(inode, ast.Slice):
                bounds = [None if b is None else self.static_value(b) for b in (inode.lower, inode.upper, inode.step)]
                if any(b is not None and not isinstance(b, int) for b in bounds):
                    raise self.error(KernelTypeError, "slice bounds must be integer constants", node)
                picks.append(list(range(dims[d]))[slice(*bounds)])
            else:
                picks.append(self._const_index(self.value(inode), dims[d], t, node))
        picks += [list(range(n)) for n in dims[len(index_nodes):]]
        return dims, picks

    def _const_index(self, index, size, t, node):
        """A component index; a negative one counts from the end (v[-1]). A constant one is checked here, one
        computed at run time counts from the end at run time (and is checked in debug mode)."""
        if isinstance(index, ir.IRConst):
            value = index.value + size if index.value < 0 else index.value
            if not 0 <= value < size:
                raise self.error(KernelTypeError, f"index {index.value} is out of range for {type_name(t)}", node)
            return ir.IRConst(value, index.type)
        return ir.IRCall("component_index", [index, ir.IRConst(size, index.type)], index.type, where=self.where(node))

    # -- operators ---------------------------------------------------------------------------------
    def expr_BinOp(self, node):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.error(KernelSyntaxError, f"operator {type(node.op).__name__} is not supported", node)
        left, right = self.expr(node.left), self.expr(node.right)
        if isinstance(left, Static) and isinstance(right, Static) and (
                INTRINSICS.rule(left.value, "adapt") or INTRINSICS.rule(right.value, "adapt")):
            fn = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}.get(op)
            if fn is None:
                raise self.error(KernelTypeError, f"'{_SYMBOL.get(op, op)}' is not defined for index offsets", node)
            return Static(fn(left.value, right.value))  # host arithmetic on compile-time offsets
        left, right = self._adapt_static(left, right, node), self._adapt_static(right, left, node)
        a, b = self.to_value(left, node.left), self.to_value(right, node.right)
        try:
            return self.binary(op, a, b, node)
        except KernelTypeError as e:
            hint = _python_number_hint([(node.left, left, b), (node.right, right, a)]) or \
                conversion_hint(node.left, a, node.right, b, generic_parameters(self.source))
            if not hint:
                raise
            raise type(e)(e.message + hint, e.location) from None

    def _adapt_static(self, value, other, node):
        """A host value that takes the type of what it meets (an la MemoryOffset or Index3)."""
        adapt = INTRINSICS.rule(value.value, "adapt") if isinstance(value, Static) else None
        if adapt is not None and isinstance(other, ir.IRExpr):
            try:
                return Static(adapt(value.value, other.type))
            except TypeError as e:
                raise self.error(KernelTypeError, str(e), node) from None
        return value

    def binary(self, op, a, b, node) -> ir.IRExpr:
        return self.operator_call(op, [a, b], node)

    def operator_call(self, op, args, node) -> ir.IRExpr:
        """An operator: a user function of the operator's name that the kernel sees, when it takes the
        operand types (``@wp.func def add(a: S, b: S)`` makes ``+`` and ``+=`` work on structs ``S``; one
        taking floats replaces ``+`` on floats, as in Warp), else the builtin."""
        args = truth_arguments(op, args)  # `not a` of an array: "has no data"
        user = self.source.lookup(op)
        rule = INTRINSICS.rule(user, "operator") if user is not MISSING else None
        if rule is not None:
            found = rule(self, user, args, node)
            if found is not None:
                return found
        for a in args:  # an extension's values (tiles): elementwise rules of their own
            value_rule = INTRINSICS.type_rule(a.type, "value_operator")
            if value_rule is not None:
                found = value_rule(self, op, args, node)
                if found is not None:
                    return found
        try:
            _, result = resolve(op, [a.type for a in args])
        except Mismatch as e:
            raise self.mismatch(f"'{_SYMBOL.get(op, op)}' ({op}): {e}", args, node) from None
        return ir.IRCall(op, args, result)

    def expr_UnaryOp(self, node):
        op = {ast.USub: "neg", ast.UAdd: "pos", ast.Not: "logical_not", ast.Invert: "invert"}[type(node.op)]
        operand = self.expr(node.operand)
        if isinstance(operand, Static) and op == "neg" and isinstance(operand.value, (int, float)):
            return Static(-operand.value)  # keep -2**31 and the like literal
        if isinstance(operand, Static) and op == "logical_not" and isinstance(operand.value, (bool, int, float)):
            return Static(not operand.value)
        return self.operator_call(op, [self.to_value(operand, node)], node)

    def _static_numbers(self, nodes):
        """The Python values of ``nodes`` if every one is a compile-time number, else None."""
        values = []
        for n in nodes:
            v = self.expr(n)
            if not (isinstance(v, Static) and isinstance(v.value, (bool, int, float))):
                return None
            values.append(v.value)
        return values

    def _static_constants(self, nodes):
        """The Python values of ``nodes`` if every one is a compile-time number, string or tuple, else None."""
        values = []
        for n in nodes:
            if isinstance(n, ast.Tuple):  # a tuple written in the kernel: (2, 3)
                items = self._static_constants(n.elts)
                if items is None:
                    return None
                values.append(tuple(items))
                continue
            v = self.expr(n)
            if not (isinstance(v, Static) and isinstance(v.value, (bool, int, float, str, tuple))):
                return None
            values.append(v.value)
        return values

    def expr_Compare(self, node):
        static = self._static_constants([node.left, *node.comparators])
        if static is not None and all(type(op) in _PY_CMP for op in node.ops):
            # compile-time constants (a captured MODE == "upwind", N in (2, 3)): decided here, as Python would
            try:
                return Static(all(_PY_CMP[type(op)](a, b) for op, a, b in zip(node.ops, static, static[1:])))
            except TypeError as e:
                raise self.error(KernelTypeError, f"'{ast.unparse(node)}' compares constants Python cannot "
                                 f"compare: {e}", node) from None
        if static is not None:
            shown = ", ".join(repr(v) for v in static)
            raise self.error(KernelTypeError, f"'{ast.unparse(node)}': compile-time constants ({shown}) compare "
                             f"with <, <=, >, >=, ==, !=, in and not in only", node)
        left = self.value(node.left)
        result = None
        for op_node, right_node in zip(node.ops, node.comparators):
            op = _CMPOPS.get(type(op_node))
            if op is None:
                raise self.error(KernelSyntaxError, f"comparison {type(op_node).__name__} is not supported", node)
            right = self.value(right_node)
            if right_node is not node.comparators[-1] and ir.has_effect(right):
                # the operand is both comparisons' (a < f() < b), and the IR has no expression-level
                # temporary: it would run twice
                raise self.error(KernelUnsupportedSyntaxError, "the middle operand of a chained comparison has an "
                                 "effect (an atomic, a random draw, a function that writes an array) and would run "
                                 "twice; assign it to a variable first", right_node)
            term = self.builtin_call(op, self._compared(left, right, op, node), node,
                                     label=f"'{_SYMBOL[op]}' ({op})")
            result = term if result is None else ir.IRCall("logical_and", [result, term], bool_)
            left = right
        return result

    def _compared(self, left, right, op, node) -> list:
        """The operands of one comparison: scalars of different types are converted to the type C++ compares
        them in (Warp compares ``float32 == int32`` and the like as C++ does); a chain needs one type."""
        common = comparison_type(left.type, right.type)
        if common is None or left.type is right.type:
            return [left, right]
        if len(node.ops) > 1:
            raise self.error(KernelTypeError, f"cannot chain comparisons of unequal types: {type_name(left.type)} "
                             f"{_SYMBOL[op]} {type_name(right.type)}", node)
        return [v if v.type is common else ir.IRCast(v, common) for v in (left, right)]

    def expr_BoolOp(self, node):
        static = self._static_numbers(node.values)
        if static is not None:
            return Static(all(static) if isinstance(node.op, ast.And) else any(static))
        op = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
        values = [self.value(v) for v in node.values]
        result = values[0]
        for v in values[1:]:
            result = self.builtin_call(op, [result, v], node, label=f"'{'and' if op == 'logical_and' else 'or'}'")
        return result

    def expr_IfExp(self, node):
        test = self.expr(node.test)
        if isinstance(test, Static) and isinstance(test.value, (bool, int, float)):
            # a compile-time condition: only the branch taken is typed (the other may not type-check)
            return self.expr(node.body if test.value else node.orelse)
        cond = self.condition(node.test)
        with self.no_hoisting("a branch of a conditional expression"):  # only the branch taken runs
            a, b = self.value(node.body), self.value(node.orelse)
        if a.type is not b.type:
            raise self.error(KernelTypeError, f"both branches of a conditional expression must have one type, "
                             f"got {type_name(a.type)} and {type_name(b.type)}", node)
        return ir.IRSelect(cond, a, b, a.type)

    @contextlib.contextmanager
    def no_hoisting(self, where: str):
        """While typing a part of a statement that runs conditionally or repeatedly (``where``), nothing may be
        computed ahead of the statement (``pending``): ``hoisting_refused()`` names the part."""
        saved = self.ext.get(_NO_HOISTING)
        self.ext[_NO_HOISTING] = where
        try:
            yield
        finally:
            self.ext[_NO_HOISTING] = saved

    def hoisting_refused(self) -> str | None:
        """The part of a statement being typed that must not be computed ahead of it, or None."""
        return self.ext.get(_NO_HOISTING)

    def expr_Tuple(self, node):
        items = [self.value(e) for e in node.elts]
        return ir.IRConstruct(items, TupleType(tuple(i.type for i in items)))

_NO_HOISTING = "no_hoisting"  # the key of ``ext`` that ``no_hoisting`` sets

#: Names of the kernel language's builtins that the facade does not define (Python's own would shadow them there)
#: but that Warp's kernels resolve through the ``wp.`` prefix.
_KERNEL_ONLY_NAMES = {"float": py.float, "int": py.int}


def _captured_composite(value, kind: str) -> bool:
    """``value`` is a vector, matrix, quaternion or transform from the host (a global, a closure variable,
    ``wp.static(...)``) with no rule of its own for ``kind``: typed as a runtime value of its type."""
    return isinstance(value, Static) and isinstance(value.value, CompositeBase) and \
        INTRINSICS.rule(value.value, kind) is None


def _from_the_end(array, indices: list) -> list:
    """Constant negative array indices count from the end of their dimension, as in Python and Warp
    (``a[-1]`` is the last element); other indices stay as they are."""
    return [ir.IRCall("add", [ir.IRArrayShape(array, d, int32), ir.IRConst(i.value, int32)], int32)
            if isinstance(i, ir.IRConst) and not isinstance(i.value, bool) and i.value < 0 else i
            for d, i in enumerate(indices)]


def _is_facade(module) -> bool:
    """``module`` is brickwork's facade, or a module that re-exports it (``import brickwork as wp`` or an alias)."""
    return getattr(module, "static", None) is static and getattr(module, "kernel", None) is not None


@functools.cache
def _language_names() -> dict:
    """Builtins, types and constants a kernel may name without the ``wp.`` prefix, as in Warp, whose
    code generator resolves a free name it does not find in the function's scope among its builtins."""
    from ..types import scalars

    names = {t.__name__: t for t in scalars.SCALAR_TYPES}
    names.update(family_namespace())
    names.update(CONSTANTS)
    names.update(FUNCTIONS)
    return names


class LocalFunction:
    """A nested ``def`` or ``lambda`` of kernel code, kept as syntax until a call site types it."""

    def __init__(self, node):
        self.node = node
        self.name = getattr(node, "name", "<lambda>")
        self.params = [a.arg for a in node.args.args]


_DISPLAYS = {
    "List": "List constructs are not supported in kernels. Use vectors like `wp.vec3()` for small fixed-size "
            "collections, or `wp.zeros(shape=N, dtype=...)` for stack-allocated arrays.",
    "Dict": "Construct `ast.Dict` not supported in kernels.",
    "Set": "Construct `ast.Set` not supported in kernels.",
}

TID = _TID
__all__ = ["ExpressionTyper", "Static", "typing"]


def _python_number_hint(operands) -> str:
    """What to add to an operator's type error when an operand is a Python number (``2.0``, ``2``, or a name
    the kernel captured) and the other is of another type: kernels take Python floats as float32 and Python
    ints as int32, so ``x * 2`` of a float32 ``x`` or ``n + 1`` of an int64 ``n`` needs the number written in
    the other operand's type."""
    for src, value, other in operands:
        number = value.value if isinstance(value, Static) else None
        if type(number) not in (int, float):  # bool is no number here
            continue
        scalar = other.type if is_scalar_type(other.type) else getattr(other.type, "dtype", None)
        taken_type = float32 if type(number) is float else int32
        if scalar is None or not is_scalar_type(scalar) or scalar is bool_ or scalar is taken_type:
            continue
        if type(number) is float and not getattr(scalar, "is_float", False):
            continue  # an integer operand and a float: the float is not the one to change
        text, name = ast.unparse(src), type_name(scalar)
        kind = "float" if type(number) is float else "int"
        what = f"'{text}' is a Python {kind} captured by the kernel" if isinstance(src, ast.Name) else \
            f"{text} is a Python {kind}"
        if scalar is float32 and isinstance(src, ast.Constant):
            fix = f"{number}.0" if type(number) is int else text
        else:
            fix = f"wp.{name}({text})"
        return f"; {what}, which kernels take as {type_name(taken_type)}: write {fix}"
    return ""

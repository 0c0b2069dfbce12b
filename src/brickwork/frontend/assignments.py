"""Typing of assignments: ``=`` (names, tuples, elements, components, fields, slices, tile parts),
annotated assignments and augmented assignments (``+=`` on an array element is an atomic where the
element type has one). A mixin of ``Typer`` (``typer.py``).
"""

from __future__ import annotations

import ast

from .. import ir
from ..builtins.atomics import has_atomic_add, has_atomic_bits
from ..errors import KernelSyntaxError, KernelTypeError
from ..types.arrays import ArrayType, type_name
from ..types.opaque import TupleType
from ..types.references import RefType
from ..types.scalars import int32, python_annotation_type
from ..types.tiles import is_tile_type
from .intrinsics import INTRINSICS
from .operand_hints import generic_parameters, store_hint, variable_hint
from .operators import _SYMBOL, _python_number_hint
from .slice_assign import (
    assign_slice,
    assign_transform_part,
    is_composite_slice,
    is_slice_target,
    is_transform_part,
)
from .static_value import TID, Static
from .tile_aliases import bind_view
from .tile_subscripts import assign_tile_part, is_tile_part

#: augmented bitwise operators on array elements and the atomics they are (as Warp's)
_ATOMIC_BITS = {"bit_and": "atomic_and", "bit_or": "atomic_or", "bit_xor": "atomic_xor"}
_AUG_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
            ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "bit_and", ast.BitOr: "bit_or",
            ast.BitXor: "bit_xor", ast.LShift: "lshift", ast.RShift: "rshift", ast.MatMult: "matmul"}


class AssignmentTyper:
    """Mixin of ``Typer``: the assignment statements."""

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
            raise self.error(KernelSyntaxError, f"cannot assign to '{ast.unparse(target)}'"
                             f"{_whole_array_store_hint(target, getattr(node, 'value', None))}", node)
        if value.type is not lvalue.type:
            what = "array element" if isinstance(lvalue, ir.IRArrayElem) else "component"
            if isinstance(lvalue, ir.IRArrayElem):
                raise self.error(KernelTypeError, f"cannot store a value of type {type_name(value.type)} in an "
                                 f"{what} of an array of {type_name(lvalue.type)}"
                                 f"{self._store_hint(target, lvalue, node, value)}", node)
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

    def _store_hint(self, target, place, node, value) -> str:
        """How to convert the value of ``target = value`` to the place's scalar type ("" for other statements)."""
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and node.targets[0] is target):
            return ""
        if isinstance(value, ir.IRSubarray):  # x[i] of a 2-D array: numpy's row, a view in kernels
            ndim = value.type.ndim + len(value.indices)
            return (f"; '{ast.unparse(node.value)}' indexes {len(value.indices)} of the {ndim} dimensions of its "
                    f"array, which gives a view: an element takes {ndim} indices, such as "
                    f"{ast.unparse(node.value.value) if isinstance(node.value, ast.Subscript) else 'a'}"
                    f"[{', '.join('ijkl'[:ndim])}]")
        return self._number_hint(node.value, place) or \
            store_hint(target, place, node.value, value, generic_parameters(self.source))

    def _update_hint(self, node, place, value) -> str:
        """How to write the right side of ``place op= value`` in the place's type: a Python number's spelling, or
        the conversion (or, in a generic kernel, the argument to pass in another type)."""
        return self._number_hint(node.value, place) or \
            store_hint(node.target, place, node.value, value, generic_parameters(self.source))

    def _augmented(self, op, current, node):
        """``current op value`` of ``x op= value``, whose type error says how to write a Python number, or where
        the variable ``x`` gets its type."""
        value = self.value(node.value)
        try:
            return self.binary(op, current, value, node)
        except KernelTypeError as e:
            hint = self._number_hint(node.value, current) or \
                variable_hint(node.target.id, current, node.value, value, generic_parameters(self.source))
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
                                     f"{self._update_hint(node, lvalue, value)}", node)
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
            try:
                value = self.binary(op, lvalue, rhs, node)
            except KernelTypeError as e:
                hint = self._update_hint(node, lvalue, rhs)
                if not hint:
                    raise
                raise type(e)(e.message + hint, e.location) from None
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


def _is_function(value) -> bool:
    """A compile-time value that is a function (not a type, which is callable too)."""
    return callable(value) and not isinstance(value, (type, ArrayType))


def _whole_array_store_hint(target, value_src) -> str:
    """The element-wise form of ``y[:] = x`` (numpy's whole-array store): one element per thread."""
    if not (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice)
            and isinstance(target.value, ast.Name)):
        return ""
    y = target.value.id
    x = value_src.id if isinstance(value_src, ast.Name) else "src"
    return (f": a kernel thread writes elements, {y}[i] = ... with i = wp.tid() (a whole array is copied on the "
            f"host: {y}.assign({x}) or wp.copy({y}, {x}))")

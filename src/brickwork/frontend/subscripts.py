"""Subscripts in kernels: elements and views of arrays (negative constant indices count from the end),
components of vectors, matrices, quaternions and transforms, their slices (new values of the selected
components), items of tuples, compile-time values' items and ``a.shape[d]``. A mixin of
``ExpressionTyper`` (``expressions.py``).
"""

from __future__ import annotations

import ast

import numpy as np

from .. import ir
from ..errors import KernelIndexError, KernelSyntaxError, KernelTypeError, KernelUnsupportedTypeError
from ..types.arrays import ArrayType, array, type_name
from ..types.composite import (
    CompositeBase,
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
from ..types.scalars import int32
from .array_slices import array_slice
from .calls import ShapeOf, static_label
from .intrinsics import INTRINSICS
from .places import part_component
from .starred import TYPED_COMPONENT
from .static_value import Static


class SubscriptRules:
    """Mixin of ``ExpressionTyper``: subscripts and slices."""

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
                raise self.error(KernelIndexError, f"index {index.value} is out of range for {type_name(t)}", node)
            return ir.IRConst(value, index.type)
        return ir.IRCall("component_index", [index, ir.IRConst(size, index.type)], index.type, where=self.where(node))


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

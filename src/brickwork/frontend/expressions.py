"""Expressions: typing each Python expression under the kernel language's strict rules.

``ExpressionTyper`` is the expression half of the ``Typer``: names, constants, attributes, conditional
expressions and tuples here; operators in ``operators.py``, subscripts in ``subscripts.py``, calls in
``calls.py``. An expression evaluates either to an IR node (a runtime value) or to ``Static`` (a
compile-time value: a type, a function, a module, a Python number, a string). What extensions add is
typed by their rules in ``INTRINSICS``.
"""

from __future__ import annotations

import ast
import builtins as py
import contextlib
import functools
import types as pytypes
import typing

import numpy as np

from .. import ir
from ..builtins import FUNCTIONS
from ..builtins.constants import CONSTANTS
from ..builtins.static import static
from ..errors import (
    KernelAttributeError,
    KernelSyntaxError,
    KernelTypeError,
    KernelUndefinedNameError,
    KernelUnsupportedSyntaxError,
)
from ..types.arrays import ArrayType, type_name
from ..types.composite import (
    CompositeBase,
    family_namespace,
    is_composite_type,
    is_matrix_type,
    is_quat_type,
    is_transform_type,
    is_vector_type,
)
from ..types.opaque import TupleType
from ..types.scalars import ScalarBase, bool_, float32, int32, int64, is_scalar_type
from ..types.structs import is_struct_type
from .calls import CallRules, ShapeOf, static_label
from .construction import ConstructionRules
from .intrinsics import INTRINSICS
from .operators import OperatorRules
from .places import part_component
from .resolve import MISSING, static_attribute
from .static_value import TID as _TID
from .static_value import Static
from .subscripts import SubscriptRules, _captured_composite

_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}


class ExpressionTyper(OperatorRules, SubscriptRules, CallRules, ConstructionRules):
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
                raise self.error(KernelUnsupportedSyntaxError, f"{_DISPLAYS[kind]}: {ast.unparse(node)}"
                                 f"{_DISPLAY_HINTS.get(kind, '')}", node)
            if kind in _SPELLED:  # a Python user knows the construct by its name, not its ast class
                what, hint = _SPELLED[kind]
                raise self.error(KernelSyntaxError, f"{what} are not supported in kernels: {ast.unparse(node)}; "
                                 f"{hint}", node)
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
                         f"is not an attribute of '{ast.unparse(node.value)}' ({full})"
                         f"{_numpy_method_hint(t, attr, ast.unparse(node.value))}", node)

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

#: brickwork's words after Warp's: what a Python user writes in a kernel instead of a dict
_DISPLAY_HINTS = {
    "Dict": "; named values are the fields of a @wp.struct (passed as an argument), and a dict made outside the "
            "kernel may be read with constant keys (CONFIG['dt'] is a constant of the compiled code)",
}

_LOOP_HINT = "write a for loop, into a vector or a local array (wp.zeros(shape=N, dtype=...))"
#: ast classes of expressions kernels do not take, by the names Python's documentation gives them, and what to write
_SPELLED = {
    "JoinedStr": ("f-strings", 'print the values themselves, print("x =", x), or format them with '
                               'wp.printf("x = %f\\n", x)'),
    "ListComp": ("list comprehensions", _LOOP_HINT),
    "SetComp": ("set comprehensions", _LOOP_HINT),
    "DictComp": ("dict comprehensions", _LOOP_HINT),
    "GeneratorExp": ("generator expressions", _LOOP_HINT),
    "NamedExpr": ("assignment expressions (:=)", "assign the value on a line of its own"),
}

TID = _TID
__all__ = ["ExpressionTyper", "Static", "typing"]


def _numpy_method_hint(t, attr: str, name: str) -> str:
    """What a numpy array's method (``a.sum()``, ``a.size``) is in a kernel, where a thread reads elements."""
    if not isinstance(t, ArrayType):
        return ""
    if attr in ("sum", "mean", "max", "min", "prod", "std", "var", "cumsum", "argmax", "argmin"):
        atomic = "atomic_min" if "min" in attr else "atomic_max" if "max" in attr else "atomic_add"
        return (f"; a kernel thread reads elements, not whole arrays: reduce on the host "
                f"(numpy.{attr}({name}.numpy()), or wp.utils.array_sum({name}) for a sum), or combine each "
                f"thread's {name}[i] into one element with wp.{atomic}")
    if attr == "size":
        return f"; its number of elements is len({name}) for a 1-D array, or the product of {name}.shape"
    return ""

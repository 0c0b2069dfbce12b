"""Constructing values of kernel types while typing: ``vector(...)``/``matrix(...)``/``quat(...)``/
``transform(...)`` calls and type factories, casts between scalar types, struct construction and
typed default arguments. ``ExpressionTyper`` inherits these rules; they use its ``value``,
``static_value`` and ``error``."""

from __future__ import annotations

import numpy as np

from .. import ir
from ..errors import KernelTypeError, KernelUnsupportedTypeError
from ..types.arrays import type_name
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
from ..types.scalars import bool_, float32, int32, int64, is_scalar_type, python_annotation_type
from ..types.structs import is_struct_type
from .static_value import Static

#: the most bytes a vector or matrix built in a kernel may hold (1 MiB: 262144 float32 components)
LARGEST_VALUE = 1 << 20


def _scalar_of(t):
    return t if is_scalar_type(t) else getattr(t, "_dtype", float32)


def _beyond_floats(v: int) -> bool:
    """Whether the integer ``v`` rounds beyond float64's range (``float(v)`` raises OverflowError)."""
    try:
        float(v)
    except OverflowError:
        return True
    return False


class ConstructionRules:
    """Typing of calls that build values of kernel types (a base of ``ExpressionTyper``)."""

    def call_type_factory(self, f, node):
        """``vector(a, b, c)`` or ``vector(length=3, dtype=T)`` (a zero vector, as Warp's builtin; likewise
        ``matrix(shape=..., dtype=...)``) as a value; ``quaternion(dtype=T)`` as a type."""
        if f is transformation and any(k.arg in ("p", "q") for k in node.keywords):
            # transformation(p=..., q=..., dtype=...): p and q are values; the dtype defaults to theirs
            parts = {k.arg: self.value(k.value) for k in node.keywords if k.arg in ("p", "q")}
            dtype = next((self.static_value(k.value) for k in node.keywords if k.arg == "dtype"), None)
            first = parts.get("p", parts.get("q"))
            t = transformation(python_annotation_type(dtype) if dtype is not None else _scalar_of(first.type))
            return self.construct_transform(t, [self.value(a) for a in node.args], node, **parts)
        kw = {k.arg: self.static_value(k.value) for k in node.keywords}
        if f is not vector and f is not matrix and f is not quaternion and f is not transformation:
            return Static(f(**kw))
        if not node.args:
            if (f is vector and "length" not in kw) or (f is matrix and "shape" not in kw):
                size = "length" if f is vector else "shape"
                raise self.error(KernelUnsupportedTypeError, f"the `{size}` argument must be specified when "
                                 f"zero-initializing a {f.__name__}", node)
            try:
                t = f(**kw)
            except TypeError as e:
                raise self.error(KernelTypeError, str(e), node) from None
            return self.construct_from(t, [], node) if f is vector or f is matrix else Static(t)
        args = [self.value(a) for a in node.args]
        dtype = python_annotation_type(kw.get("dtype", _scalar_of(args[0].type)))
        if f in (vector, matrix) and all(is_scalar_type(a.type) for a in args):
            self._check_factory_values(f.__name__, args, dtype if "dtype" in kw else None, node)
        if f is quaternion:
            return self.construct_from(quaternion(dtype), args, node)
        if f is transformation:
            return self.construct_transform(transformation(dtype), args, node)
        size = "length" if f is vector else "shape"
        source = args[0].type if len(args) == 1 and (is_vector_type if f is vector else is_matrix_type)(
            args[0].type) else None
        # the size of a copy comes from its source, a vector's from its values; else it is needed
        if size not in kw and source is None and (f is matrix or len(args) == 1):
            how = "filling a {} with a value" if len(args) == 1 else "initializing a {} by value"
            raise self.error(KernelUnsupportedTypeError, f"the `{size}` argument must be specified when "
                             + how.format(f.__name__), node)
        try:
            if f is vector:
                t = vector(kw.get("length", source._length if source is not None else len(args)), dtype)
            else:
                t = matrix(kw.get("shape", source._shape if source is not None else None), dtype)
        except TypeError as e:
            raise self.error(KernelTypeError, str(e), node) from None
        return self.construct_from(t, args, node)

    def _check_factory_values(self, kind: str, args: list, dtype, node) -> None:
        """``vector(...)``/``matrix(...)`` from scalars, as Warp types them: with ``dtype=`` every variable has
        that type (a number written in the kernel is converted); without, all values have one type."""
        got = ", ".join(type_name(a.type) for a in args)
        if dtype is not None:
            loose = [a for a in args if a.type is not dtype and not self._is_number(a)]
            if loose:
                what = (f"the value used to fill this {kind} is" if len(args) == 1
                        else f"all values used to initialize this {kind} are")
                raise self.error(KernelUnsupportedTypeError, f"wp.{kind}({got}, dtype={type_name(dtype)}): convert "
                                 f"with wp.{type_name(dtype)}(x): {what} expected to be of the type "
                                 f"`{type_name(dtype)}`", node)
        elif len({a.type for a in args}) > 1:
            raise self.error(KernelUnsupportedTypeError, f"wp.{kind}({got}): convert them to one type, or pass "
                             f"dtype=: all values given when constructing a {kind} must have the same type", node)

    def _is_number(self, value) -> bool:
        """A number written in the kernel: a literal or constant, or a local still bound to one (``_literal``)."""
        return isinstance(value, ir.IRConst) or isinstance(self._literal(value), Static)

    def construct(self, t, node):
        if is_struct_type(t):
            return self.construct_struct(t, node)
        if is_transform_type(t) and (node.keywords or len(node.args) in (0, 2)):
            kw = {k.arg: self.value(k.value) for k in node.keywords}
            unknown = set(kw) - {"p", "q"}
            if unknown:
                raise self.error(KernelTypeError, f"{type_name(t)}() takes keywords p and q, got {sorted(unknown)}",
                                 node)
            return self.construct_transform(t, [self.value(a) for a in node.args], node, **kw)
        if node.keywords:
            self._check_own_keywords(t, node)
        if is_scalar_type(t) and len(node.args) == 1:
            exact = self._typed_constant(self._literal(self.expr(node.args[0])), t, node)
            if exact is not None:  # wp.float64(0.3): the float64 nearest 0.3, not a float32 widened
                return exact
        if is_composite_type(t) and not is_transform_type(t):
            return self.construct_from(t, self._components(t, node), node)
        args = [self.value(a) for a in node.args]
        if is_transform_type(t):
            self._check_transform_values(t, args, node)
        return self.construct_from(t, args, node)

    def _literal(self, value):
        """A local still bound to the Python number it was assigned (``x = 0.1``) as that number, so a
        conversion starts from Python's float (64-bit), as Warp's does; any other value unchanged."""
        if isinstance(value, ir.IRLocal) and value.type in (float32, int32, int64):
            known = self.symbols.known.get(value.name)
            if type(known) in (int, float):
                return Static(known)
        return value

    def _components(self, t, node):
        """The arguments of a vector, matrix or quaternion constructor ``t(...)`` given as scalars: a number
        written in the kernel (a literal, a constant, a local still holding one) becomes the nearest value of
        the element type, converted once from Python's float (so float64 keeps every digit); any other
        scalar must already have the element type (as in Warp: no silent conversion of a variable)."""
        dtype = t._dtype
        args = []
        for a in node.args:
            value = self._literal(self.expr(a))
            args.append(self._typed_constant(value, dtype, a) or self.to_value(value, a))
        scalars = [x for x in args if is_scalar_type(x.type)]
        if len(scalars) == len(args) and any(x.type is not dtype for x in scalars):
            kind = "vector" if is_vector_type(t) else "matrix" if is_matrix_type(t) else "quaternion"
            got = ", ".join(type_name(x.type) for x in args)
            what = (f"the value used to fill this {kind} is" if len(args) == 1 and np.prod(t._shape) > 1
                    else f"all values used to initialize this {kind} are")
            raise self.error(KernelUnsupportedTypeError, f"{type_name(t)}({got}): convert a variable with "
                             f"wp.{type_name(dtype)}(x): {what} expected to be of the type `{type_name(dtype)}`", node)
        return args

    def _check_own_keywords(self, t, node):
        """A vector, matrix or quaternion type called with ``length=``/``shape=``/``dtype=``: accepted when
        they are the type's own (as Warp's constructors accept them), refused otherwise."""
        own = {"dtype": t._dtype}
        if is_vector_type(t):
            own["length"] = t._length
        elif is_matrix_type(t):
            own["shape"] = t._shape
        elif not is_quat_type(t):
            raise self.error(KernelTypeError, f"{type_name(t)}() takes no keyword arguments", node)
        generic = t._wp_generic_type_str_
        for k in node.keywords:
            if k.arg not in own:
                raise self.error(KernelTypeError, f"{type_name(t)}() got an unexpected keyword argument "
                                 f"'{k.arg}'", k)
            value = self.static_value(k.value)
            if k.arg == "dtype":
                value = python_annotation_type(value)
            elif k.arg == "shape" and isinstance(value, (tuple, list)):
                value = tuple(value)
            if value != own[k.arg]:
                raise self.error(KernelUnsupportedTypeError, f"Remove the extraneous `{k.arg}` parameter when "
                                 f"calling the templated version of `wp.{generic}()`", k)

    def default_value(self, value, annotation):
        """A ``@func`` parameter's default as a typed constant: of the parameter's type when that
        is a concrete scalar, else as a literal would be."""
        t = python_annotation_type(annotation)
        if is_scalar_type(t):
            typed = self._typed_constant(Static(value), t, self.source.tree)
            if typed is not None:
                return typed
        return self.to_value(Static(value), self.source.tree)

    def _typed_constant(self, value, t, node):
        """A Python number converted to scalar type ``t`` at compile time (None if not one); an integer
        beyond every float's range (``wp.float64(10**400)``) is an error at ``node``."""
        if not isinstance(value, Static) or isinstance(value.value, bool) or \
                not isinstance(value.value, (int, float)) or t is bool_:
            return None
        v = value.value
        if t.is_float:
            if isinstance(v, int) and v.bit_length() >= 1024 and _beyond_floats(v):
                raise self.error(KernelTypeError, f"{type_name(t)}() of an integer of {v.bit_length()} bits: it is "
                                 f"too large for any float (float64 holds at most about 1.8e308)", node)
            with np.errstate(over="ignore"):
                return ir.IRConst(t._convert(v), t)  # the nearest value of t (float16: nearest half)
        info = np.iinfo(t._np)
        if isinstance(v, int):
            if info.min <= v <= info.max:
                return ir.IRConst(v, t)
            return None
        # wp.int64(1e18): from Python's float, not a float32 of it; truncated toward zero, saturated out of
        # range and NaN to 0, as the conversion at run time (brickwork.h, float_to_int)
        if v != v:
            return ir.IRConst(0, t)
        return ir.IRConst(info.max if v >= info.max else info.min if v <= info.min else int(v), t)

    def construct_transform(self, t, args, node, p=None, q=None):
        """``transform(p, q)`` (either may be a keyword; a missing one: zero translation, identity rotation),
        or the seven components; ``transform()`` is all zeros."""
        self._check_transform_values(t, args, node)
        if len(args) not in (0, 2) or (len(args) == 2 and (p is not None or q is not None)) or \
                (not args and p is None and q is None):
            return self.construct_from(t, args, node)  # transform() in a kernel is zero, as Warp's (q too)
        if len(args) == 2:
            p, q = args
        dtype = t._dtype
        for part in (p, q):  # as in Warp: no silent conversion of p and q
            if part is not None and getattr(part.type, "_dtype", None) is not dtype:
                raise self.error(KernelTypeError, f"{type_name(t)}(p, q) needs p and q of dtype {type_name(dtype)}, "
                                 f"got {type_name(part.type)}", node)
        if p is not None and not (is_vector_type(p.type) and p.type._length == 3):
            raise self.error(KernelTypeError, f"{type_name(t)}(p, q) needs a 3-vector p, got {type_name(p.type)}",
                             node)
        if q is not None and not is_quat_type(q.type):
            raise self.error(KernelTypeError, f"{type_name(t)}(p, q) needs a quaternion q, got {type_name(q.type)}",
                             node)
        comps = [ir.IRConst(0, dtype)] * 3 if p is None else [
            self._cast(ir.IRComponent(p, [ir.IRConst(i, int32)], p.type._dtype), dtype, t, node) for i in range(3)]
        comps += [ir.IRConst(v, dtype) for v in (0, 0, 0, 1)] if q is None else [
            self._cast(ir.IRComponent(q, [ir.IRConst(i, int32)], q.type._dtype), dtype, t, node) for i in range(4)]
        return ir.IRConstruct(comps, t)

    def _check_transform_values(self, t, args, node):
        """Warp's errors for transform constructions it has no overload for (RuntimeErrors there)."""
        if all(is_scalar_type(a.type) for a in args) and len(args) not in (0, 1, 7):
            raise self.error(KernelUnsupportedTypeError, f"incompatible number of values given ({len(args)}) when "
                             f"constructing a transform; expected 0, 1, or 7", node)
        if len(args) == 1 and is_transform_type(args[0].type) and args[0].type._dtype is not t._dtype:
            raise self.error(KernelUnsupportedTypeError, f"copy constructing a transform requires matching source "
                             f"and target dtypes, got `{type_name(args[0].type._dtype)}` and "
                             f"`{type_name(t._dtype)}`", node)

    def construct_from(self, t, args, node):
        if is_scalar_type(t):
            if len(args) == 0:
                return ir.IRConst(0, t)
            if len(args) != 1 or not is_scalar_type(args[0].type):
                got = ", ".join(type_name(a.type) for a in args)
                raise self.error(KernelTypeError, f"{type_name(t)}() converts one scalar, got ({got})", node)
            return args[0] if args[0].type is t else ir.IRCast(args[0], t)
        size = int(np.prod(t._shape))
        dtype = t._dtype
        nbytes = size * np.dtype(dtype._np).itemsize
        if nbytes > LARGEST_VALUE:  # a value is a local on its thread's stack (8 MiB, less for OpenMP's workers)
            raise self.error(KernelTypeError, f"{type_name(t)} has {size} components ({nbytes} bytes): a kernel's "
                             f"values live on its thread's stack, where one over {LARGEST_VALUE} bytes may overflow "
                             f"it (and takes the compiler minutes); keep so many values in an array", node)
        if len(args) == 0:
            return ir.IRConstruct([ir.IRConst(0, dtype)] * size, t)
        if len(args) == 1 and is_scalar_type(args[0].type):
            return ir.IRConstruct([self._cast(args[0], dtype, t, node)] * size, t)
        if len(args) == 1 and is_composite_type(args[0].type):
            src = args[0].type
            if src._shape != t._shape:
                if (is_vector_type(t) and is_vector_type(src)) or (is_matrix_type(t) and is_matrix_type(src)):
                    kind, size_of = ("vector", "length") if is_vector_type(t) else ("matrix", "shape")
                    sizes = [x._length if kind == "vector" else x._shape for x in (t, src)]
                    raise self.error(KernelUnsupportedTypeError, f"incompatible {kind} of {size_of} {sizes[0]} given "
                                     f"when copy constructing a {kind} of {size_of} {sizes[1]}", node)
                raise self.error(KernelTypeError, f"cannot convert {type_name(src)} to {type_name(t)}", node)
            return args[0] if src is t else ir.IRCast(args[0], t)
        if len(args) == size and all(is_scalar_type(a.type) for a in args):
            return ir.IRConstruct([self._cast(a, dtype, t, node) for a in args], t)
        if (is_vector_type(t) or is_matrix_type(t)) and all(is_scalar_type(a.type) for a in args):
            what = f"a vector of length {t._length}" if is_vector_type(t) else f"a matrix of shape {t._shape}"
            raise self.error(KernelUnsupportedTypeError, f"incompatible number of values given ({len(args)}) when "
                             f"constructing {what}", node)
        if is_quat_type(t) and len(args) == 2 and is_vector_type(args[0].type) and args[0].type._length == 3 \
                and is_scalar_type(args[1].type):  # quat(v, w): imaginary part, real part
            v = args[0]
            return ir.IRConstruct([self._cast(ir.IRComponent(v, [ir.IRConst(i, int32)], v.type._dtype), dtype, t, node)
                                   for i in range(3)] + [self._cast(args[1], dtype, t, node)], t)
        if is_vector_type(t) and t._length == 6 and len(args) == 2 and all(
                is_vector_type(a.type) and a.type._length == 3 and a.type._dtype is dtype for a in args):
            # Warp's spatial_vector(w, v): the angular part, then the linear part
            return ir.IRConstruct([ir.IRComponent(a, [ir.IRConst(i, int32)], dtype) for a in args for i in range(3)], t)
        if is_matrix_type(t) and len(args) == t._shape[0] and all(
                is_vector_type(a.type) and a.type._length == t._shape[1] for a in args):
            comps = []
            for row in args:
                for c in range(t._shape[1]):
                    comps.append(self._cast(ir.IRComponent(row, [ir.IRConst(c, int32)], row.type._dtype),
                                            dtype, t, node))
            return ir.IRConstruct(comps, t)
        got = ", ".join(type_name(a.type) for a in args)
        raise self.error(KernelTypeError, f"cannot build {type_name(t)} from ({got})", node)

    def _cast(self, value, dtype, t, node):
        if not is_scalar_type(value.type):
            raise self.error(KernelTypeError, f"{type_name(t)} components must be scalars, got "
                             f"{type_name(value.type)}", node)
        return value if value.type is dtype else ir.IRCast(value, dtype)

    def construct_struct(self, t, node):
        fields = dict(t._fields)
        values = {}
        for (name, _), arg in zip(t._fields, node.args):
            values[name] = self.value(arg)
        for kw in node.keywords:
            if kw.arg not in fields:
                raise self.error(KernelTypeError, f"struct {type_name(t)} has no field '{kw.arg}'", kw)
            values[kw.arg] = self.value(kw.value)
        if len(node.args) > len(fields):
            raise self.error(KernelTypeError, f"struct {type_name(t)} has {len(fields)} fields, got "
                             f"{len(node.args)} values", node)
        args = []
        for name, ft in t._fields:
            v = values.get(name)
            if v is not None and v.type is not ft:
                raise self.error(KernelTypeError, f"field '{name}' of {type_name(t)} has type {type_name(ft)}, "
                                 f"got {type_name(v.type)}", node)
            args.append(v)
        return ir.IRConstruct(args, t)

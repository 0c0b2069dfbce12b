"""``wp.static(expr)``: an expression evaluated by Python while the kernel is compiled, as in Warp.

The expression sees the kernel's globals and closure and the compile-time names of the body (type
variables, local functions); a name bound to a runtime value of the kernel cannot be used. The
result enters the kernel as a constant (a number, a type, a function to call, ...).
"""

from __future__ import annotations

import ast
import builtins
import types as pytypes
from collections.abc import Mapping

from ..builtins.static import static
from ..errors import KernelTypeError
from ..types.arrays import ArrayType, array
from ..types.composite import CompositeBase
from ..types.fixed_arrays import FixedArrayType
from ..types.opaque import TupleType
from ..types.scalars import ScalarBase, python_annotation_type
from ..types.structs import is_struct_type
from .expressions import Static
from .intrinsics import INTRINSICS, KINDS
from .source import MISSING


class _RuntimeName(Exception):
    def __init__(self, name):
        self.name = name


class _KnownByType:
    """A runtime value of the kernel inside wp.static: only what its type tells is available (len(v))."""

    def __init__(self, name, t):
        self._name, self._type = name, t

    def __len__(self):
        if isinstance(self._type, TupleType):
            return len(self._type.types)
        # a vector's or matrix's _shape; a tile's or fixed-size array's shape (len is its first extent, as Warp's)
        shape = getattr(self._type, "_shape", None) or (self._type.shape if isinstance(self._type, FixedArrayType)
                                                        else None)
        if not shape:
            raise _RuntimeName(self._name)
        return shape[0]

    def __getattr__(self, attr):
        if attr in ("dtype", "ndim") and isinstance(self._type, ArrayType):  # an array's type tells both
            return getattr(self._type, attr)
        raise _RuntimeName(self._name)

    def _runtime(self, *args, **kwargs):
        raise _RuntimeName(self._name)

    __getitem__ = __iter__ = __bool__ = __index__ = __int__ = __float__ = __add__ = __radd__ = __sub__ = _runtime
    __rsub__ = __mul__ = __rmul__ = __truediv__ = __eq__ = __lt__ = __gt__ = __le__ = __ge__ = __neg__ = _runtime
    __str__ = __repr__ = __format__ = __contains__ = _runtime  # no text of a runtime value in a constant
    __hash__ = None


def _static_type(*args):
    """Python's ``type`` inside wp.static: a runtime value of the kernel gives its kernel type (as ``type(x)``
    in the kernel body does), not the placeholder's class."""
    if len(args) == 1 and isinstance(args[0], _KnownByType):
        return args[0]._type
    return builtins.type(*args)


def _static_isinstance(value, classinfo):
    """Python's ``isinstance`` inside wp.static, answered for runtime values from their kernel type."""
    if not isinstance(value, _KnownByType):
        return builtins.isinstance(value, classinfo)
    options = classinfo if isinstance(classinfo, tuple) else (classinfo,)
    t = value._type
    return any(t is python_annotation_type(c) or (isinstance(t, type) and isinstance(c, type) and issubclass(t, c))
               for c in options)


# Python builtins that would answer about the placeholder instead of the runtime value it stands for
_BY_TYPE = {id(builtins.type): _static_type, id(builtins.isinstance): _static_isinstance}


class _CompileTimeNames(Mapping):
    """The names an expression under wp.static may use: compile-time names of the body, then globals/closure."""

    def __init__(self, builder):
        self.builder = builder

    def __getitem__(self, name):
        symbols = self.builder.symbols
        unique = symbols.unique(name)
        if unique in symbols.known:
            return symbols.known[unique]
        t = symbols.type_of(unique)
        if t is not None:
            return _KnownByType(name, t)
        if unique in symbols.statics:
            return symbols.statics[unique]
        value = self.builder.source.lookup(name)
        if value is MISSING:
            raise KeyError(name)
        return _BY_TYPE.get(id(value), value)

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0


def _call_static(builder, f, node):
    if len(node.args) != 1 or node.keywords:
        raise builder.error(KernelTypeError, "wp.static() takes exactly one expression", node)
    source = ast.unparse(node.args[0])
    if node in builder.source.static_results:  # evaluated when the kernel or function was declared
        return _checked(builder, builder.source.static_results[node], source, node)
    code = compile(ast.Expression(body=node.args[0]), "<wp.static>", "eval")
    try:
        value = eval(code, {"__builtins__": builtins}, _CompileTimeNames(builder))  # noqa: S307
        if isinstance(value, _KnownByType):  # the expression is a runtime value itself
            raise _RuntimeName(value._name)
    except _RuntimeName as e:  # Warp's words first, then why
        raise builder.error(KernelTypeError, f"Error evaluating static expression: name '{e.name}' is not "
                            f"defined. Make sure all variables used in the static expression are constant. "
                            f"(wp.static({source}): '{e.name}' is a runtime value of the kernel; the expression "
                            f"must be computable at compile time)", node) from None
    except Exception as e:  # the expression's own error, reported at its place in the kernel
        raise builder.error(KernelTypeError, f"Error evaluating static expression: {e} (wp.static({source}) "
                            f"failed: {type(e).__name__}: {e})", node) from None
    return _checked(builder, value, source, node)


def _checked(builder, value, source: str, node) -> Static:
    problem = _unsupported(value)
    if problem is not None:
        raise builder.error(KernelTypeError, f"Static expression returns an unsupported value: {problem} "
                            f"(wp.static({source}))", node)
    return Static(value)


_ARRAY_PROBLEM = "a Warp array cannot be created inside Warp kernels"


def _unsupported(value) -> str | None:
    """Why the result of a static expression cannot enter a kernel, or None when it can."""
    if value is None:
        return "None is returned"
    if isinstance(value, array):
        return _ARRAY_PROBLEM
    if is_struct_type(type(value)):
        path = _array_field(value, type(value).__name__)
        if path is not None:
            return (f"the returned Warp struct contains a data type that cannot be constructed inside Warp kernels: "
                    f"{_ARRAY_PROBLEM} at {path}")
        return None
    # int and float subclasses (IntEnum and IntFlag members) are numbers too
    if (isinstance(value, (type, pytypes.ModuleType, ScalarBase, CompositeBase, ArrayType, int, float))
            or callable(value)
            or type(value).__module__ == "builtins" or any(INTRINSICS.rule(value, k) for k in KINDS)):
        return None
    return f"value of type {type(value).__module__}.{type(value).__qualname__}"


def _array_field(value, path: str) -> str | None:
    """The dotted path of the first array inside struct ``value``, or None."""
    for name, t in type(value)._fields:
        field = getattr(value, name)
        if isinstance(t, ArrayType):
            return f"{path}.{name}"
        if is_struct_type(t):
            found = _array_field(field, f"{path}.{name}")
            if found is not None:
                return found
    return None


INTRINSICS.register(static, call=_call_static)

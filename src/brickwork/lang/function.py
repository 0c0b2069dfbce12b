"""``@func``: kernel functions, with concrete and generic overloads chosen by argument types."""

from __future__ import annotations

import functools
import hashlib
import inspect
import sys
import typing
from collections.abc import Callable

from ..builtins import BuiltinFunction, Mismatch
from ..errors import AmbiguousOverloadError, KernelSyntaxError, KernelTypeError, KernelUnsupportedTypeError
from ..frontend.fingerprint import function_fingerprint, value_fingerprint
from ..frontend.intrinsics import INTRINSICS
from ..frontend.recursion import RecursiveCall
from ..frontend.source import FunctionSource
from ..frontend.static_value import Static
from ..types.arrays import ArrayType, type_name
from ..types.fixed_arrays import view_type
from ..types.function_values import FunctionValueType, StringValueType, accepts_function_values
from ..types.generic import is_generic, matches, type_of_value
from ..types.opaque import TupleType
from ..types.references import RefType
from ..types.scalars import python_annotation_type
from ..types.tiles import is_tile_type
from .by_reference import reduce_by_reference


class FunctionOverload:
    """One definition of a function name: its source and parameter annotations."""

    def __init__(self, pyfunc, owner: "Function", custom_of: str | None = None, inline: bool | None = None):
        self.pyfunc = pyfunc
        self.owner = owner
        self.custom_of = custom_of  # "grad" or "replay" for @func_grad / @func_replay functions of owner
        self.inline = inline  # @func(inline=...): the hint its compiled instances carry
        self.source = FunctionSource(pyfunc)
        self.source.evaluate_statics()
        ann = self.source.annotations()
        self.params = []
        for name in self.source.param_names:
            if name not in ann:
                raise KernelSyntaxError(f"parameter '{name}' of function '{self.source.qualname}' needs a type "
                                      f"annotation (use typing.Any for a generic parameter)",
                                      self.source.location(self.source.tree))
            self.params.append((name, python_annotation_type(ann[name])))
        self.generic = any(is_generic(t) for _, t in self.params)
        self.signature = tuple(t for _, t in self.params)
        defaults = pyfunc.__defaults__ or ()
        positional = [n for n, _ in self.params][:pyfunc.__code__.co_argcount]
        #: parameter name -> default value (Python), for the trailing parameters that have one (keyword-only ones too)
        self.defaults = dict(zip(positional[len(positional) - len(defaults):], defaults))
        self.defaults.update(pyfunc.__kwdefaults__ or {})

    @property
    def key(self) -> str:
        """The function's name (Warp's ``Function.key``)."""
        return self.owner.name

    def __repr__(self):
        shown = ", ".join(f"{n}: {type_name(t)}" for n, t in self.params)
        return f"<brickwork func {self.source.qualname}({shown})>"

    def bind_python(self, args, kwargs) -> list | None:
        """The value of every parameter for a call from Python (``defaults`` fill the rest); None when the
        arguments do not bind."""
        try:
            bound = inspect.signature(self.pyfunc).bind(*args, **kwargs).arguments
        except TypeError:
            return None
        if any(n not in bound and n not in self.defaults for n, _ in self.params):
            return None
        return [bound[n] if n in bound else self.defaults[n] for n, _ in self.params]

    def call_python(self, values: list):
        """The Python body run with one value per parameter (keyword-only parameters passed by keyword)."""
        n = self.pyfunc.__code__.co_argcount
        return self.pyfunc(*values[:n], **{name: v for (name, _), v in zip(self.params[n:], values[n:])})

    def __call__(self, *args, **kwargs):
        """Call this definition from Python: its Python body, with its ``defaults``."""
        values = self.bind_python(args, kwargs)
        if values is None:
            raise TypeError(f"{self!r}: the arguments {args!r}, {kwargs!r} do not bind to its parameters")
        return self.call_python(values)

    def accepts(self, arg_types) -> bool:
        return len(arg_types) == len(self.params) and all(
            matches(t, a) for (_, t), a in zip(self.params, arg_types))

    def takes_types(self, arg_types, kwarg_types) -> bool:
        """Whether a call with arguments of these types (positional, then keywords by name) binds to this
        definition, the parameters left out taking their defaults."""
        names = [n for n, _ in self.params]
        if len(arg_types) > len(names) or set(kwarg_types) - set(names[len(arg_types):]):
            return False
        given = dict(zip(names, arg_types), **kwarg_types)
        for name, annotation in self.params:
            if name not in given:
                if name not in self.defaults:
                    return False
                continue
            t = given[name]
            if accepts_function_values(annotation):
                if isinstance(t, StringValueType) or not (isinstance(t, FunctionValueType) or is_function_target(t)
                                                          or accepts_function_values(t)):
                    return False
            elif not matches(annotation, python_annotation_type(t)):
                return False
        return True

    def instantiate(self, arg_types: list, context):
        """The IR of this overload for concrete ``arg_types`` (typed once per context)."""
        from .references import reference_params, with_reference_results, written_tiles  # compiler's side: lazy
        # a fixed-size local array argument binds as a view of its elements (writes reach the caller's)
        # (a tile binds as a tile: its operations need its shape)
        arg_types = [view_type(t) if (isinstance(p, ArrayType) or p is typing.Any) and not is_tile_type(t) else t
                     for (_, p), t in zip(self.params, arg_types)]
        key = (id(self), tuple(arg_types))
        found = context.functions.get(key)
        if found is not None:
            return found
        if (self.owner.custom_grads or self.owner.custom_replays) and any(
                isinstance(t, FunctionValueType) for t in arg_types):
            raise Mismatch("Function parameters are not supported by functions with custom gradients or replay "
                           "functions (their adjoint would depend on the function passed)")
        if key in context.stack:
            cycle = context.stack[context.stack.index(key):]
            raise RecursiveCall([context.names[k] for k in cycle] + [self.source.name])
        context.stack.append(key)
        context.names[key] = self.source.name
        if len(context.stack) > len(context.deepest):
            context.deepest = [context.names[k] for k in context.stack]
        try:
            label = f"{self.source.name}[{', '.join(type_name(t) for t in arg_types)}]"
            # the fingerprint covers the values the body captures: two definitions of one text made by a
            # factory (closures over other constants) get different names in one translation unit
            digest = hashlib.sha1((self.source.qualname + label + function_fingerprint(self.source)).encode()
                                  ).hexdigest()[:10]
            from ..targets.cpu.cnames import ascii_label  # with the compiler: only on a cache miss

            name = f"f_{ascii_label(self.source.name)}_{digest}"
            param_types = {pname: t for (pname, _), t in zip(self.params, arg_types)}
            from .. import pipeline  # typing runs inside the compiler, which is imported on first use

            fn_ir = pipeline.type_function(self.source, param_types, context, name, label)
            # wp.ref[T] parameters: their final values are returned too (not by a gradient function: the
            # backward kernel binds its parameters to the forward call's arguments, wp.adjoint[p] are its results)
            references = reference_params(self) if self.custom_of != "grad" else []
            # a tile the function writes reaches the caller's tile, as in Warp (copy-in/copy-out, as wp.ref)
            references += [n for n in written_tiles(fn_ir) if n not in references] if self.custom_of is None else []
            if references:
                fn_ir = with_reference_results(fn_ir, references)
            # a custom gradient or replay takes the hint of the function it belongs to, as in Warp
            fn_ir.inline = self.inline if self.custom_of is None else self.owner.inline
        finally:
            context.stack.pop()
        context.functions[key] = fn_ir
        context.order.append(fn_ir)
        self._attach_custom(fn_ir, list(arg_types), context)
        return fn_ir

    def _attach_custom(self, fn_ir, arg_types: list, context) -> None:
        """Type the ``@func_grad``/``@func_replay`` functions matching this instance (outside the kernel's
        own function list: forward code never contains them)."""
        owner = self.owner
        if self.custom_of is not None or not (owner.custom_grads or owner.custom_replays):
            return
        # the gradient function takes the adjoints of the function's own result (with wp.ref parameters the
        # IR returns their final values after it; those have no adjoint parameters, as in Warp)
        rt = fn_ir.return_type if fn_ir.reference_result is None else fn_ir.reference_result[0]
        returns = [] if rt is None else list(rt.types) if isinstance(rt, TupleType) else [rt]
        for found, candidates, types in (("custom_grad", owner.custom_grads, arg_types + returns),
                                         ("custom_replay", owner.custom_replays, arg_types)):
            match = next((o for o in reversed(candidates) if o.accepts(types)), None)
            if match is not None and (id(match), tuple(types)) not in _TYPING_CUSTOM:
                # a gradient function may call its own forward function: that call is plain code (the
                # gradient runs as written), so the forward's custom functions are not typed again there
                _TYPING_CUSTOM.add((id(match), tuple(types)))
                try:
                    fresh = type(context)()
                    setattr(fn_ir, found, match.instantiate(types, fresh))
                finally:
                    _TYPING_CUSTOM.discard((id(match), tuple(types)))


#: (custom function overload id, types) being typed now (see ``_attach_custom``)
_TYPING_CUSTOM: set = set()


class Function:
    """A kernel function: every ``@func`` definition of one name in one module, as overloads.

    As an annotation (``g: wp.Function``) it makes a parameter that takes a function: a ``@func`` or a
    builtin, known at compile time (each function passed gives an instance of its own).
    """

    accepts_function_values = True

    def __init__(self, name: str, qualname: str, module: str):
        self.name = name
        self.qualname = qualname
        self.module = module
        self.overloads: list[FunctionOverload] = []
        self.custom_grads: list[FunctionOverload] = []  # @func_grad(self): parameters, then the result adjoints
        self.custom_replays: list[FunctionOverload] = []  # @func_replay(self): same parameters as self
        self.__name__ = name
        self.__qualname__ = qualname
        self.__doc__ = None
        self.inline: bool | None = None  # the latest definition's @func(inline=...)

    @property
    def key(self) -> str:
        """The function's name (Warp's ``Function.key``)."""
        return self.name

    @property
    def func(self):
        """The Python function of the latest definition (Warp's ``Function.func``)."""
        return self.__wrapped__

    @property
    def inline_hint(self) -> str | None:
        """Warp's spelling of the inline hint: "forceinline", "noinline" or None."""
        return None if self.inline is None else "forceinline" if self.inline else "noinline"

    def __reduce__(self):  # pickled by module and name, as a Python function is
        code = self.__wrapped__.__code__
        return reduce_by_reference(self, "function", self.module, self.qualname,
                                   f"{code.co_filename}:{code.co_firstlineno}")

    def __copy__(self):  # one function, its overloads shared by every kernel that calls it
        return self

    def __deepcopy__(self, memo):
        return self

    def add_overload(self, pyfunc, inline: bool | None = None) -> None:
        overload = FunctionOverload(pyfunc, self, inline=inline)
        _refuse_refness_only(self, overload)
        self.inline = inline
        # A redefinition with the same signature (re-run notebook cell) replaces the old one in its place:
        # calls try the overloads in the order they were first defined, as Warp does.
        same = [i for i, o in enumerate(self.overloads) if o.signature == overload.signature]
        if same:
            replaced, self.overloads[same[0]] = self.overloads[same[0]], overload
            if replaced.source.digest != overload.source.digest:  # a new body: kernels built on the old one rebuild
                from .kernel import rebuild_program_kernels  # kernel.py imports this module

                rebuild_program_kernels()
        else:
            self.overloads.append(overload)
        self.__doc__ = pyfunc.__doc__
        self.__wrapped__ = pyfunc  # inspect.signature() shows the latest definition's parameters

    @property
    def defaults(self) -> dict:
        """The default values of the first definition's parameters, by name (Warp's ``Function.defaults``).
        The dict may be changed: kernels compiled afterwards, and calls from Python, use its values (the
        other definitions' are ``get_overload(...).defaults``)."""
        return self.overloads[0].defaults

    @defaults.setter
    def defaults(self, values) -> None:
        if not isinstance(values, dict):
            raise TypeError(f"defaults of function '{self.name}' must be a dict (parameter name -> value), got "
                            f"{type(values).__name__}")
        self.overloads[0].defaults = dict(values)

    def get_overload(self, arg_types, kwarg_types=None) -> FunctionOverload | None:
        """The definition a call with arguments of these types uses (Warp's ``Function.get_overload``):
        ``arg_types`` lists the positional arguments' types (``float`` is float32, ``int`` int32; a function
        argument's type is ``wp.Function`` or the function itself), ``kwarg_types`` maps keyword names to
        types, and parameters left out take their defaults. None when no definition takes them."""
        kwarg_types = dict(kwarg_types or {})
        candidates = [o for o in self.overloads if o.takes_types(list(arg_types), kwarg_types)]
        concrete = [o for o in candidates if not o.generic]
        return (concrete or candidates or [None])[0]

    def select(self, arg_types) -> FunctionOverload:
        """The overload for ``arg_types``: the first concrete match, else the first generic one (in the order
        the overloads were defined, as Warp); Mismatch if none."""
        candidates = [o for o in self.overloads if o.accepts(arg_types)]
        concrete = [o for o in candidates if not o.generic]
        if concrete:
            return concrete[0]
        if candidates:
            return candidates[0]
        got = ", ".join(type_name(t) for t in arg_types)
        options = "; ".join("(" + ", ".join(type_name(t) for t in o.signature) + ")" for o in self.overloads)
        raise Mismatch(f"no overload accepts arguments ({got}); overloads: {options}")

    def instantiate(self, arg_types, context):
        return self.select(arg_types).instantiate(arg_types, context)

    def fingerprint_sources(self) -> list:
        return [o.source for o in self.overloads]

    def __call__(self, *args, **kwargs):
        """Call from Python: the first overload whose parameters take the arguments' kernel types (Python ints
        are int32, floats float32), with defaults and keywords bound as Python binds them."""
        for overload in self.overloads:
            values = overload.bind_python(args, kwargs)
            if values is not None and all(_python_value_matches(t, v) for (_, t), v in zip(overload.params, values)):
                return overload.call_python(values)
        shown = args if not kwargs else (*args, kwargs)
        raise KernelUnsupportedTypeError(f"Error calling function '{self.name}', no overload found for arguments "
                                         f"{shown!r}")

    def __repr__(self):
        return f"<brickwork func {self.qualname}>"


_REGISTRY: dict = {}


_P = typing.ParamSpec("_P")
_R = typing.TypeVar("_R")


@typing.overload
def func(f: Callable[_P, _R]) -> Callable[_P, _R]: ...


@typing.overload
def func(f: None = None, *, module=None, inline: bool | None = None,
         **options) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]: ...


def func(f=None, *, module=None, inline: bool | None = None, **options):
    """Decorator: a function callable from kernels. Several definitions of one name are overloads.

    ``@func`` and ``@func(...)`` (Warp's spelling with options such as ``module``) are the same, as every
    function is compiled into the kernels that call it. ``inline`` is a hint for the native compiler:
    None (the default: the target chooses; brickwork inlines), True (force inlining) or False (keep the
    function out of line, one copy called from every site).
    """
    if inline is not None and not isinstance(inline, bool):
        raise TypeError(f"inline must be a bool or None, got {type(inline).__name__}: {inline!r}")
    if f is None:  # @func(...): a decorator with these options (@func() is @func)
        return functools.partial(func, module=module, inline=inline, **options) if inline is not None else func
    # A definition overloads the function of its name in the scope it is made in (as in Warp): at module
    # level the module's, in a function body that call's own, so that each call of a factory makes a
    # function of its own (closures over other values are other functions).
    scope = sys._getframe(1).f_locals
    function = scope.get(f.__name__)
    if not (isinstance(function, Function) and function.qualname == f.__qualname__
            and function.module == f.__module__):
        function = Function(f.__name__, f.__qualname__, f.__module__)
    _REGISTRY[(f.__module__, f.__qualname__)] = function
    function.add_overload(f, inline=inline)
    return function


def _python_value_matches(annotation, value) -> bool:
    if accepts_function_values(annotation):
        return is_function_target(value)
    t = type_of_value(value)
    return annotation is typing.Any if t is None else matches(annotation, t)


def _refuse_refness_only(f: Function, new: FunctionOverload) -> None:
    """A call could not choose between two overloads whose parameters differ only in being wp.ref[T]."""
    def values(o):
        return tuple(t.type if isinstance(t, RefType) else t for t in o.signature)

    def shown(o):
        return "(" + ", ".join(f"{n}: {type_name(t)}" for n, t in o.params) + ")"

    for old in f.overloads:
        if old.signature != new.signature and values(old) == values(new):
            raise AmbiguousOverloadError(
                f"overloads of function '{f.name}' differ only in wp.ref[T] parameters: {shown(old)} and "
                f"{shown(new)} (a call cannot choose between them; give them different names)")


def _call(typer, f: Function, node):
    """``f(a, b, c=...)``: positional and keyword arguments bound to the parameters of the first
    overload that takes them (defaults fill the rest, typed as their parameters), then typed."""
    positional = [function_argument(typer, a) for a in node.args]
    keywords = {k.arg: function_argument(typer, k.value) for k in node.keywords}
    if not keywords and all(len(positional) == len(o.params) for o in f.overloads):
        return _stored_back(typer, f, typer.call_function(f, positional, node), node, positional)
    problems = []
    for overload in f.overloads:
        args = _bind(typer, overload, positional, keywords, problems)
        if args is not None and overload.accepts([a.type for a in args]):
            return _stored_back(typer, f, typer.call_function(f, args, node), node, args, overload)
    reason = "; ".join(dict.fromkeys(problems)) or "no overload takes these arguments"
    if len(f.overloads) > 1:  # which one was meant is the reader's guess: name them all
        reason += "; overloads: " + "; ".join(
            "(" + ", ".join(f"{n}: {type_name(t)}" for n, t in o.params) + ")" for o in f.overloads)
    raise typer.error(KernelTypeError, f"{f.name}(): {reason}", node)


def _stored_back(typer, f: Function, call, node, args: list, overload=None):
    """The value of a call; a function with wp.ref parameters also stores their values into the places passed."""
    from .. import ir  # the compiler's side: lazy (import brickwork stays light)
    from .references import store_references
    if not isinstance(call, ir.IRFuncCall) or call.func.reference_result is None:
        return call
    if overload is None:
        overload = f.select([a.type for a in args])
    names = [n for n, _ in overload.params]
    arg_nodes = dict(zip(names, node.args))
    arg_nodes.update({k.arg: k.value for k in node.keywords})
    return store_references(typer, call, arg_nodes, node)


def _bind(typer, overload, positional, keywords, problems):
    names = [n for n, _ in overload.params]
    if len(positional) > len(names):
        problems.append(f"takes {len(names)} argument{'s' if len(names) != 1 else ''}, got {len(positional)}")
        return None
    unknown = set(keywords) - set(names)
    if unknown:
        problems.append(f"has no parameter {sorted(unknown)[0]!r}")
        return None
    args = list(positional)
    for name, annotation in overload.params[len(positional):]:
        if name in keywords:
            args.append(keywords[name])
        elif name in overload.defaults:
            default = overload.defaults[name]
            args.append(_FunctionArgument(default) if is_function_target(default)
                        else _StringArgument(default) if isinstance(default, str) and annotation is str
                        else typer.default_value(default, annotation))
        else:
            problems.append(f"missing argument '{name}'")
            return None
    if set(keywords) & set(names[:len(positional)]):
        problems.append(f"got several values for '{sorted(set(keywords) & set(names[:len(positional)]))[0]}'")
        return None
    return args


class _FunctionArgument:
    """A function passed to a ``@func``: typed as itself, with no runtime value (the instance names it)."""

    __slots__ = ("type",)

    def __init__(self, target):
        self.type = FunctionValueType(target)


class _StringArgument:
    """A string literal passed to a ``str`` parameter: typed as itself, with no runtime value (the instance
    names it: ``wp.printf(fmt, ...)`` in the body reads it as a literal)."""

    __slots__ = ("type",)

    def __init__(self, text: str):
        self.type = StringValueType(text)


def is_function_target(value) -> bool:
    """Whether ``value`` can be passed to a ``Function`` parameter: a ``@func`` or a builtin."""
    return isinstance(value, (Function, BuiltinFunction))


#: Builtins typed by rules of their own (statements, compile-time arguments): no Function parameter takes them.
_SPECIAL_BUILTINS = frozenset({"tid", "print", "printf", "expect_eq", "expect_neq", "expect_near", "len", "identity",
                               "quat_identity", "transform_identity", "int", "float", "bool", "static"})


def function_argument(typer, node):
    """An argument of a ``@func`` call: a runtime value, or a function passed by name."""
    value = typer.expr(node)
    if isinstance(value, Static) and is_function_target(value.value):
        f = value.value
        if isinstance(f, BuiltinFunction) and (f.name in _SPECIAL_BUILTINS or any(
                INTRINSICS.rule(f, kind) for kind in ("call", "statement"))):
            raise typer.error(KernelTypeError, f"a Function parameter cannot take the unsupported built-in "
                              f"function '{f.name}' (it is typed by special rules; pass a @func that calls it)",
                              node)
        return _FunctionArgument(f)
    if isinstance(value, Static) and isinstance(value.value, str):  # for a parameter annotated str
        return _StringArgument(value.value)
    return typer.to_value(value, node)


def _fingerprint(f: Function, seen: set) -> str:
    if id(f) in seen:
        return f"{f.qualname} (cycle)"
    seen.add(id(f))
    overloads = [*f.overloads, *f.custom_grads, *f.custom_replays]
    # the defaults as they are now: a changed entry of ``defaults`` (a Function default) changes the code
    return f"{f.qualname}(" + ",".join(
        f"{function_fingerprint(o.source, seen)}:{o.inline}:"
        + ";".join(f"{n}={value_fingerprint(v, seen)}" for n, v in o.defaults.items())
        for o in overloads) + ")"


def _operator(typer, f: Function, args, node):
    """``a + b`` (``a += b``) where the kernel sees a ``@func`` named ``add``: its call when an overload takes
    the operand types, else None (the builtin operator). In the body of that function itself the operator is
    the builtin: ``def neg(x): return -x`` means the builtin negation, not a call of itself (recursion)."""
    if any(o.source is typer.source for o in f.overloads):
        return None
    try:
        f.select([a.type for a in args])
    except Mismatch:
        return None
    return typer.call_function(f, args, node)


INTRINSICS.register(Function, call=_call, fingerprint=_fingerprint, operator=_operator)


def func_grad(forward):
    """Decorator (Warp's ``@wp.func_grad(f)``): the custom adjoint of the ``@func`` ``forward``.

    The gradient function takes ``forward``'s parameters, then the adjoint of each result, and adds
    to ``wp.adjoint[p]`` for each parameter ``p`` that gets a gradient; backward kernels call it
    instead of differentiating ``forward``'s body.
    """
    if not isinstance(forward, Function):
        raise TypeError(f"func_grad takes a @wp.func function, got {type(forward).__name__}")

    def record(grad):
        forward.custom_grads.append(FunctionOverload(grad, forward, "grad"))
        return grad

    return record


def func_replay(forward):
    """Decorator (Warp's ``@wp.func_replay(f)``): what backward kernels run in place of ``forward`` when
    they replay the forward pass (same parameters and results)."""
    if not isinstance(forward, Function):
        raise TypeError(f"func_replay takes a @wp.func function, got {type(forward).__name__}")

    def record(replay):
        forward.custom_replays.append(FunctionOverload(replay, forward, "replay"))
        return replay

    return record


class AdjointAccess:
    """``wp.adjoint[p]``: in a ``@wp.func_grad`` function, the adjoint of its parameter ``p`` (add to it)."""

    def __repr__(self):
        return "wp.adjoint"


#: ``wp.adjoint``
adjoint = AdjointAccess()


def _adjoint_subscript(typer, obj, index_nodes, node):
    """``wp.adjoint[p]``, or ``wp.adjoint[p.field.field]`` for a field of a struct parameter (then indexed like
    the field: ``wp.adjoint[p.vec][0] += ...``)."""
    import ast

    from .. import ir

    fields = []
    root = index_nodes[0] if len(index_nodes) == 1 else None
    while isinstance(root, ast.Attribute):
        fields.append(root.attr)
        root = root.value
    if not isinstance(root, ast.Name):
        raise typer.error(KernelSyntaxError, "wp.adjoint[...] takes the name of a parameter of the gradient "
                          "function, or a field of one (wp.adjoint[p.field])", node)
    name = root.id
    t = typer.symbols.type_of(name)
    if t is None:
        raise typer.error(KernelTypeError, f"wp.adjoint[{name}]: '{name}' is not a parameter of the gradient "
                          "function", node)
    place = typer.declare(f"_adjoint_{name}", t, node)
    for field in reversed(fields):
        types = dict(getattr(place.type, "_fields", ()))
        if field not in types:
            raise typer.error(KernelTypeError, f"wp.adjoint[...]: {type_name(place.type)} has no field '{field}'",
                              node)
        place = ir.IRField(place, field, types[field])
    return place


INTRINSICS.register(adjoint, subscript=_adjoint_subscript, fingerprint=lambda obj, seen: "wp.adjoint")

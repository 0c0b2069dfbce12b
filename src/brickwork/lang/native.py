"""``@wp.func_native(snippet, adj_snippet=None)``: a function whose body is C++ text.

The decorated Python function gives the name and the typed signature (its body is not used). Kernels
and functions call it as a ``@func``; the snippet is the body of a C++ function of those parameters
(``return`` gives the result). ``adj_snippet`` is its backward code: it reads the parameters and
``adj_ret`` (the result's adjoint) and adds to ``adj_<param>`` for each floating-point parameter;
without it no gradient flows through the call. ``replay_snippet`` (optional) is what backward kernels
run in place of ``snippet`` when they replay the forward pass. The snippet is brickwork's C++ (the ``bw::`` runtime
of ``include/brickwork.h``), compiled for the CPU target as it is written.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import typing

from ..errors import KernelTypeError
from ..frontend.intrinsics import INTRINSICS
from ..types.arrays import ArrayType, type_name
from ..types.generic import is_generic
from ..types.opaque import TupleType
from ..types.references import RefType
from ..types.scalars import is_scalar_type, python_annotation_type

if typing.TYPE_CHECKING:
    from .. import ir


class NativeFunction:
    """A ``wp.func_native`` function: ``snippet`` (and ``adj_snippet``) as the body of a C++ function with
    the Python function's typed parameters and result."""

    def __init__(self, pyfunc, snippet: str, adj_snippet: str | None = None, replay_snippet: str | None = None):
        for what, text in (("snippet", snippet), ("adj_snippet", adj_snippet), ("replay_snippet", replay_snippet)):
            if text is not None and not isinstance(text, str):
                raise TypeError(f"wp.func_native: {what} must be a string of C++ code, got {type(text).__name__}")
        self.func = pyfunc
        self.key = self.__name__ = pyfunc.__name__
        self.__qualname__ = pyfunc.__qualname__
        self.__doc__ = pyfunc.__doc__
        self.__module__ = pyfunc.__module__
        self.snippet, self.adj_snippet, self.replay_snippet = snippet, adj_snippet, replay_snippet
        code = getattr(pyfunc, "__code__", None)
        where = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else "unknown file"
        self.origin = f"{pyfunc.__qualname__} ({where})"  # named above its C++, for the compiler's errors
        hints = inspect.get_annotations(pyfunc, eval_str=True)
        self.params = []
        for name, p in inspect.signature(pyfunc).parameters.items():
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or name not in hints:
                raise TypeError(f"wp.func_native {pyfunc.__qualname__}: parameter '{name}' needs a type annotation "
                                f"(and no *, ** or keyword-only parameters)")
            t = python_annotation_type(hints[name])
            if is_generic(t):
                raise TypeError(f"wp.func_native {pyfunc.__qualname__}: parameter '{name}' must have a concrete type, "
                                f"got {type_name(t)}")
            self.params.append((name, t))
        ret = hints.get("return")
        self.return_type = None if ret is None else python_annotation_type(ret)
        # wp.ref[T] parameters: the snippet assigns them; their final values are stored back at the call
        self.references = [n for n, t in self.params if isinstance(t, RefType)]
        self.value_params = [(n, t.type if isinstance(t, RefType) else t) for n, t in self.params]
        digest = hashlib.sha1("\0".join([pyfunc.__qualname__, snippet, adj_snippet or "", replay_snippet or "",
                                         self.signature()])
                              .encode()).hexdigest()[:10]
        self.c_name = f"native_{''.join(c if c.isalnum() else '_' for c in pyfunc.__name__)}_{digest}"

    def signature(self) -> str:
        params = ", ".join(f"{n}: {type_name(t)}" for n, t in self.params)
        return f"({params}) -> {type_name(self.return_type) if self.return_type is not None else 'None'}"

    def __repr__(self):
        return f"<wp.func_native {self.__qualname__}{self.signature()}>"

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.__qualname__} is a wp.func_native function: its body is C++, so it can be "
                        f"called in kernels and functions only")

    def instantiate(self, context) -> ir.IRFunction:
        """The IRFunction of the snippet (and of the adjoint snippet) for one kernel instance."""
        key = ("native", id(self))
        found = context.functions.get(key)
        if found is not None:
            return found
        fn = self._forward_function(self.c_name, self.snippet, f"{self.__name__} (wp.func_native)")
        if self.adj_snippet is not None:
            fn.native_adjoint = self._adjoint_function()
        if self.replay_snippet is not None:  # what backward kernels run when they replay the call
            fn.custom_replay = self._forward_function(f"replay_{self.c_name}", self.replay_snippet,
                                                      f"replay of {self.__name__} (wp.func_native)")
            fn.custom_replay.native_adjoint = fn.native_adjoint
        context.functions[key] = fn
        context.order.append(fn)
        return fn

    def _results_type(self) -> TupleType:
        """With wp.ref parameters: the function's result (if any), then the final values of those parameters."""
        refs = tuple(t for n, t in self.value_params if n in self.references)
        return TupleType(((self.return_type,) if self.return_type is not None else ()) + refs)

    def _forward_function(self, c_name: str, snippet: str, label: str) -> ir.IRFunction:
        from .. import ir  # the compiler's side: lazy (import brickwork stays light)
        names = [n for n, _ in self.params]
        if not self.references:
            return ir.IRFunction(c_name, list(self.value_params), {}, [ir.IRNative(snippet, names, self.origin)],
                                 self.return_type, label=label)
        # The snippet runs in a lambda (its return ends the snippet, not the function), then the function
        # returns its result and the final values of the reference parameters (as a @func with wp.ref does).
        own, result = self.return_type, self._results_type()
        values = [ir.IRLocal(n, t) for n, t in self.value_params if n in self.references]
        if own is None:
            body = [ir.IRNative(f"[&]() {{\n{snippet}\n}}();", names, self.origin)]
            local_types = {}
        else:
            body = [ir.IRNative(f"native_result_ = [&]() {{\n{snippet}\n}}();", [*names, "native_result_"],
                                 self.origin)]
            local_types = {"native_result_": own}
            values.insert(0, ir.IRLocal("native_result_", own))
        body.append(ir.IRReturn(ir.IRConstruct(values, result)))
        return ir.IRFunction(c_name, list(self.value_params), local_types, body, result, label=label,
                             reference_result=(own, tuple(self.references)))

    def _adjoint_function(self) -> ir.IRFunction:
        from .. import ir  # the compiler's side: lazy (import brickwork stays light)
        from ..passes.adjoint_values import carries_adjoint, zero  # the compiler is loaded when this runs

        differentiable = [(n, t) for n, t in self.value_params if carries_adjoint(t)]
        params = list(self.value_params)
        adj_locals = {f"adj_{n}": t for n, t in differentiable}
        body = [ir.IRAssign(ir.IRLocal(n, t), zero(t)) for n, t in adj_locals.items()]
        names = [n for n, _ in params]
        if self.references:
            # the adjoint of the (result, final reference values) tuple: adj_ret is the result's part, and
            # adj_<ref> starts as its final value's adjoint (the snippet turns it into the initial value's)
            result = self._results_type()
            params.append(("adj_results_", result))
            whole = ir.IRLocal("adj_results_", result)
            # the snippet reads the references as the forward call left them (Warp's adjoint sees the places
            # after the call), so the forward (or replay) snippet runs first on this function's copies
            forward = self._forward_function("", self.replay_snippet or self.snippet, "")
            body[:0] = forward.body[:-1]
            adj_locals.update(forward.locals)
            first = 0
            if self.return_type is not None:
                adj_locals["adj_ret"] = self.return_type
                body.append(ir.IRAssign(ir.IRLocal("adj_ret", self.return_type),
                                        ir.IRTupleGet(whole, 0, self.return_type)))
                first = 1
            for k, n in enumerate(self.references):
                t = result.types[first + k]
                if f"adj_{n}" in adj_locals:
                    body.append(ir.IRAssign(ir.IRLocal(f"adj_{n}", t), ir.IRTupleGet(whole, first + k, t)))
        elif self.return_type is not None:
            params.append(("adj_ret", self.return_type))
            names.append("adj_ret")
        body.append(ir.IRNative(self.adj_snippet, names + list(adj_locals), self.origin))
        results = [ir.IRLocal(n, t) for n, t in adj_locals.items() if n[len("adj_"):] in dict(self.params)]
        if len(results) == 1:
            ret, value = results[0].type, results[0]
        else:
            ret = TupleType(tuple(r.type for r in results)) if results else None
            value = ir.IRConstruct(results, ret) if results else None
        body.append(ir.IRReturn(value))
        # its locals adj_<p> of parameters p are the adjoints it returns, in order (passes/adjoint.py)
        return ir.IRFunction(f"adj_{self.c_name}", params, dict(adj_locals), body, ret,
                             label=f"adjoint of {self.__name__} (wp.func_native)")


def func_native(snippet: str, adj_snippet: str | None = None, replay_snippet: str | None = None):
    """Decorator (Warp's ``@wp.func_native``): a function whose body is the C++ text ``snippet``, with the
    decorated function's typed parameters (used by name in the snippet) and result (``return`` in the
    snippet); ``adj_snippet`` adds to ``adj_<param>`` from ``adj_ret`` in backward kernels."""

    def decorate(pyfunc):
        return NativeFunction(pyfunc, snippet, adj_snippet, replay_snippet)

    return decorate


def _call(typer, f: NativeFunction, node):
    if node.keywords:
        raise typer.error(KernelTypeError, f"{f.__name__}(): a wp.func_native function takes positional arguments "
                          f"only", node)
    if len(node.args) != len(f.params):
        raise typer.error(KernelTypeError, f"{f.__name__}() takes {len(f.params)} arguments {f.signature()}, got "
                          f"{len(node.args)}", node)
    return call_with_values(typer, f, node, [typer.value(arg_node) for arg_node in node.args])


def argument_fit(declared, value, arg_node) -> str | None:
    """How a kernel value fits a parameter of type ``declared``: ``"exact"``, ``"literal"`` (a number literal
    that takes the parameter's scalar type) or None (it does not)."""
    t = declared.type if isinstance(declared, RefType) else declared
    if value.type is t or (isinstance(t, ArrayType) and isinstance(value.type, ArrayType) and value.type == t):
        return "exact"
    from .. import ir  # the compiler's side: lazy (import brickwork stays light)
    if not isinstance(declared, RefType) and isinstance(value, ir.IRConst) and is_scalar_type(t) \
            and is_scalar_type(value.type) and not isinstance(arg_node, ast.Name):
        return "literal"
    return None


def call_with_values(typer, f: NativeFunction, node, values: list):
    """The call of ``f`` with its arguments' kernel ``values`` (evaluated once by the caller)."""
    from .. import ir  # the compiler's side: lazy (import brickwork stays light)
    args = []
    for (name, declared), (_, t), arg_node, value in zip(f.params, f.value_params, node.args, values):
        fit = argument_fit(declared, value, arg_node)
        if isinstance(declared, RefType) and fit is None:  # no conversion: the place itself is assigned
            raise typer.error(KernelTypeError, f"{f.__name__}(): wp.ref[{type_name(t)}] argument '{name}' must be "
                              f"a place of type {type_name(t)}, got {type_name(value.type)}", node)
        if fit is None:
            raise typer.error(KernelTypeError, f"{f.__name__}(): argument '{name}' must be {type_name(t)}, got "
                              f"{type_name(value.type)}", node)
        args.append(ir.IRConst(value.value, t) if fit == "literal" else value)
    fn = f.instantiate(typer.context)
    call = ir.IRFuncCall(fn, args, fn.return_type)
    if not f.references:
        return call
    from .references import store_references
    return store_references(typer, call, dict(zip([n for n, _ in f.params], node.args)), node)


def _fingerprint(f: NativeFunction, seen: set) -> str:
    return f"func_native {f.__qualname__}{f.signature()}:{f.c_name}:{len(f.snippet)}:{len(f.adj_snippet or '')}"


INTRINSICS.register(NativeFunction, call=_call, fingerprint=_fingerprint)

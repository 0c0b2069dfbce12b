"""Kernel functions made from plain Python functions and lambdas (Warp's ``warp.utils.create_warp_function``).

The function's source (a lambda's expression, or a ``def``'s body) becomes a ``@func`` named
``func_<16 hex digits of a hash of that source>``, so that the same code gives the same name in every
process. Its source text is registered with ``linecache`` under a name of its own, so kernels that call
it have source lines to report, and its free names resolve as the original function's did (its module's
globals, then its closure).
"""

from __future__ import annotations

import ast
import hashlib
import linecache
import textwrap
import typing

from ..frontend.source import file_lines
from .function import _REGISTRY, Function, func
from .modules import Module, get_module


def _lambda_node(pyfunc) -> ast.Lambda:
    """The ``lambda`` expression that made ``pyfunc``: on its first line, with its parameter names."""
    code = pyfunc.__code__
    lines = file_lines(code.co_filename, pyfunc.__globals__.get("__spec__"))  # a reloaded module's new text
    if not lines:
        raise ValueError(f"cannot find the source of {pyfunc!r}: functions must be defined in a file")
    params = list(code.co_varnames[:code.co_argcount])
    start = code.co_firstlineno - 1
    # the statement holding the lambda may span several lines: parse growing blocks until one parses
    for end in range(start + 1, len(lines) + 1):
        text = textwrap.dedent("".join(lines[start:end]))
        for candidate in (text, f"({text.strip()}\n)"):
            try:
                tree = ast.parse(candidate)
            except SyntaxError:
                continue
            found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == 1
                     and [a.arg for a in n.args.args] == params]
            if len({ast.dump(n) for n in found}) > 1:  # the code object does not say which: the first was taken
                raise ValueError(f"cannot tell which of the {len(found)} lambdas with parameters ({', '.join(params)}) "
                                 f"on {code.co_filename}:{code.co_firstlineno} is {pyfunc!r}; put each on a line of "
                                 f"its own, or use a def")
            if found:
                return found[0]
    raise ValueError(f"cannot find the lambda of {pyfunc!r} in {code.co_filename}:{code.co_firstlineno}")


def _definition(pyfunc) -> tuple[list[str], list[ast.stmt]]:
    """Parameter names and body statements of a Python function or lambda."""
    if pyfunc.__name__ == "<lambda>":
        node = _lambda_node(pyfunc)
        return [a.arg for a in node.args.args], [ast.Return(value=node.body)]
    import inspect

    tree = ast.parse(textwrap.dedent(inspect.getsource(pyfunc)))
    node = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return [a.arg for a in node.args.args], node.body


def _annotations(pyfunc, params) -> dict:
    given = dict(getattr(pyfunc, "__annotations__", {}))
    return {p: given.get(p, typing.Any) for p in params}


def create_warp_function(pyfunc) -> tuple[Function, Module]:
    """A kernel function (``@func``) with the behaviour of the Python function or lambda ``pyfunc``, and its
    module. Parameters without annotations are generic (``typing.Any``). A kernel function is returned as
    it is."""
    if isinstance(pyfunc, Function):
        return pyfunc, get_module(pyfunc.module)
    if not callable(pyfunc) or not hasattr(pyfunc, "__code__"):
        raise TypeError(f"create_warp_function() takes a Python function or lambda, got {type(pyfunc).__name__}")
    if pyfunc.__code__.co_flags & 0x0C:  # *args / **kwargs
        raise TypeError(f"create_warp_function(): {pyfunc.__name__} takes *args or **kwargs, which kernel "
                        f"functions cannot")
    params, body = _definition(pyfunc)
    fields = dict(name="_f", args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                                                kwonlyargs=[], kw_defaults=[], defaults=[]),
                  body=body, decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:  # Python 3.12+
        fields["type_params"] = []
    fn_def = ast.FunctionDef(**fields)
    body_text = ast.unparse(ast.fix_missing_locations(ast.Module(body=[fn_def], type_ignores=[])))
    name = "func_" + hashlib.sha256(body_text.encode()).hexdigest()[:16]
    module = pyfunc.__module__ or "__main__"
    found = _REGISTRY.get((module, name))
    if found is not None:
        return found, get_module(module)
    text = body_text.replace("def _f(", f"def {name}(", 1) + "\n"
    filename = f"<brickwork function {name} of {module}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    namespace = dict(pyfunc.__globals__)
    for var, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__ or ()):
        try:
            namespace[var] = cell.cell_contents
        except ValueError:  # a closure cell not yet assigned
            pass
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - the function's own code, reassembled
    made = namespace[name]
    made.__module__ = module
    made.__annotations__ = _annotations(pyfunc, params)
    return func(made), get_module(module)

"""Source of a kernel or function: parsed once, with its file, lines and name environment."""

from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import linecache
import textwrap

from ..errors import KernelSyntaxError, SourceLocation

_MISSING = object()


class FunctionSource:
    """The parsed definition of one Python function used as a kernel or function."""

    def __init__(self, func):
        self.func = func
        self.name = func.__name__
        self.qualname = getattr(func, "__qualname__", self.name)
        self.module = getattr(func, "__module__", None) or "__main__"
        code = func.__code__
        self.filename = code.co_filename
        try:
            lines, first = inspect.getsourcelines(func)
        except (OSError, TypeError):
            lines, first = _lines_from_cache(code)
        self.first_line = first
        self.text = textwrap.dedent("".join(lines))
        self.file_lines = [ln.rstrip("\n") for ln in lines]
        try:
            module = ast.parse(self.text)
        except SyntaxError as e:
            raise KernelSyntaxError(f"cannot parse {self.name}: {e.msg}") from None
        node = module.body[0]
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise KernelSyntaxError(f"{self.name} is not defined with 'def'")
        self.tree: ast.FunctionDef = node
        self.param_names = [a.arg for a in node.args.args]
        self.digest = hashlib.sha256(self.text.encode()).hexdigest()

    # -- locations --------------------------------------------------------------------------------
    def location(self, node) -> SourceLocation:
        """File, absolute line and the source line of an AST node of this function."""
        rel = getattr(node, "lineno", 1) - 1
        lineno = self.first_line + rel
        line = self.file_lines[rel] if 0 <= rel < len(self.file_lines) else ""
        return SourceLocation(self.filename, lineno, line, self.qualname)

    # -- names ------------------------------------------------------------------------------------
    def lookup(self, name: str):
        """Value of a free name: closure, then module globals, then Python builtins; _MISSING if none."""
        code = self.func.__code__
        if self.func.__closure__ and name in code.co_freevars:
            cell = self.func.__closure__[code.co_freevars.index(name)]
            try:
                return cell.cell_contents
            except ValueError:
                return _MISSING
        value = self.func.__globals__.get(name, _MISSING)
        if value is _MISSING:
            value = getattr(builtins, name, _MISSING)
        return value

    def annotations(self) -> dict:
        """Evaluated annotations of the parameters (in order) and of the return, if any."""
        ann = dict(getattr(self.func, "__annotations__", {}))
        for name, value in list(ann.items()):
            if isinstance(value, str):  # from __future__ import annotations
                try:
                    ann[name] = eval(value, self.func.__globals__, self._closure_dict())  # noqa: S307
                except Exception as e:
                    raise KernelSyntaxError(f"cannot evaluate annotation {value!r} of {self.name}: {e}") from None
        return ann

    def _closure_dict(self) -> dict:
        code = self.func.__code__
        out = {}
        for name, cell in zip(code.co_freevars, self.func.__closure__ or ()):
            try:
                out[name] = cell.cell_contents
            except ValueError:
                pass
        return out


def _lines_from_cache(code):
    lines = linecache.getlines(code.co_filename)
    if not lines:
        raise KernelSyntaxError(f"cannot find the source of {code.co_name} (defined in {code.co_filename})")
    start = code.co_firstlineno - 1
    block = inspect.getblock(lines[start:])
    return block, code.co_firstlineno


MISSING = _MISSING

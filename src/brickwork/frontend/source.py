"""Source of a kernel or function: parsed once, with its file, lines and name environment."""

from __future__ import annotations

import ast
import builtins
import copy
import hashlib
import linecache
import textwrap

from ..builtins.functions import BuiltinFunction
from ..errors import KernelSyntaxError, SourceLocation
from .shallow import bound_depth

_MISSING = object()
_PRINTING = frozenset({"print", "printf", "expect_eq", "expect_neq", "expect_near", "breakpoint"})


class FunctionSource:
    """The parsed definition of one Python function used as a kernel or function."""

    def __init__(self, func, transformers=()):
        self.func = func
        self.name = func.__name__
        self.qualname = getattr(func, "__qualname__", self.name)
        self.module = getattr(func, "__module__", None) or "__main__"
        code = func.__code__
        self.filename = code.co_filename
        if code.co_name == "<lambda>":
            self._init_lambda(code)
            return
        lines, first, text, module = _source_lines(code, getattr(func, "__globals__", {}).get("__spec__"))
        self.first_line = first
        self.text = text
        try:
            if module is None:
                module = ast.parse(self.text)
        except SyntaxError as e:
            raise KernelSyntaxError(f"cannot parse {self.name}: {e.msg}") from None
        except RecursionError:  # Python's own parser gives up on expressions thousands of levels deep
            raise KernelSyntaxError(f"cannot parse {self.name} ({self.filename}:{first}): an expression is nested "
                                    f"too deeply for Python's parser; split it into several statements") from None
        if transformers:
            module = _transformed(module, transformers, self.name)
        node = module.body[0] if module.body else None
        if node is None or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name != code.co_name:
            raise KernelSyntaxError(_changed_file(code, "nothing" if node is None else f"'def {node.name}'"))
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise KernelSyntaxError(f"{self.name} is not defined with 'def'")
        self.file_lines = [ln.rstrip("\n") for ln in lines]
        _check_signature(node, self.qualname, self.location)
        #: the root of the deepest expression that could not be split (``frontend/shallow.py``), or None
        self.deepest = bound_depth(node, self._pure_call)
        self.tree: ast.FunctionDef = node
        # as in Warp, parameters before '/' and after '*' are parameters like the others (passed by position too)
        self.param_names = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        # a transformed tree is not its text: the key covers the tree the body is typed from
        seen = self.text + (ast.dump(module, include_attributes=True) if transformers else "")
        self.digest = hashlib.sha256(seen.encode()).hexdigest()

    def _init_lambda(self, code) -> None:
        """A lambda: found in its file's syntax tree and seen as ``def <lambda>(args): <expr>``."""
        lines = file_lines(self.filename, getattr(self.func, "__globals__", {}).get("__spec__"))
        try:
            module = ast.parse("".join(lines))
        except SyntaxError:
            module = None
        params = list(code.co_varnames[: code.co_argcount])
        found = [n for n in ast.walk(module) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
                 and [a.arg for a in n.args.args] == params] if module is not None else []
        if len(found) != 1:
            raise KernelSyntaxError(f"cannot find the source of the lambda at {self.filename}:{code.co_firstlineno}"
                                    f"{' (several lambdas with these parameters on one line)' if found else ''}; "
                                    f"use a def")
        node = found[0]
        self.first_line = 1
        self.deepest = None
        self.file_lines = [ln.rstrip("\n") for ln in lines]
        self.text = ast.unparse(node)
        body = ast.Expr(node.body, lineno=node.body.lineno, col_offset=node.body.col_offset)
        self.tree = ast.FunctionDef(name="<lambda>", args=node.args, body=[body], decorator_list=[],
                                    returns=None, lineno=node.lineno, col_offset=node.col_offset)
        self.param_names = params
        self.digest = hashlib.sha256(self.text.encode()).hexdigest()

    def rebound(self, func) -> FunctionSource:
        """This source for ``func``, another function object of the same code (a closure made again): the
        parse is shared, names are looked up in ``func``'s closure."""
        other = object.__new__(FunctionSource)
        other.__dict__.update(self.__dict__)
        other.func = func
        return other

    #: ``wp.static`` calls evaluated at declaration (call node -> value); see ``evaluate_statics``
    static_results: dict = {}

    def evaluate_statics(self) -> None:
        """Evaluate the ``wp.static`` expressions that need no name of the function itself, once (the decorator
        calls this, as Warp evaluates them when the kernel or function is declared)."""
        from .static_eager import evaluate_eagerly

        self.static_results = evaluate_eagerly(self)

    def resolve_dotted(self, node):
        """The value a name or a chain of module attributes (``wp.sin``, ``np.pi``) names here, by this
        function's closure, globals and builtins; ``MISSING`` for anything else."""
        chain = []
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return _MISSING
        value = self.lookup(node.id)
        for attr in reversed(chain):
            value = getattr(value, attr, _MISSING) if type(value).__name__ == "module" else _MISSING
        return value

    def _pure_call(self, node: ast.Call) -> bool:
        """Whether ``node`` calls a builtin without an effect or a type (``wp.sin(x)``, ``wp.vec3(...)``,
        ``float(i)``), by the names of this function's module; user functions may have effects."""
        value = self.resolve_dotted(node.func)
        if isinstance(value, type):
            return True
        from ..ir.analysis import EFFECT_PREFIXES  # only for deep expressions: the IR stays out of imports

        name = getattr(value, "name", None) if isinstance(value, BuiltinFunction) else None
        return name is not None and not name.startswith(EFFECT_PREFIXES) and name not in _PRINTING

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

    def reader(self, name: str):
        """A function of no arguments that returns what ``lookup(name)`` returns at the time of the
        call, with the closure cell or globals dictionary found once (for launch paths)."""
        code = self.func.__code__
        if self.func.__closure__ and name in code.co_freevars:
            cell = self.func.__closure__[code.co_freevars.index(name)]

            def read_cell():
                try:
                    return cell.cell_contents
                except ValueError:
                    return _MISSING

            return read_cell
        namespace = self.func.__globals__

        def read_global():
            value = namespace.get(name, _MISSING)
            return getattr(builtins, name, _MISSING) if value is _MISSING else value

        return read_global

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


def _transformed(module: ast.Module, transformers, name: str) -> ast.Module:
    """``module`` rewritten by each ``ast.NodeTransformer`` in turn (Warp's ``code_transformers``), every node
    object appearing once: a node a transformer put at two places is copied, so that each place keeps its own
    ``wp.static`` value and type."""
    for transformer in transformers:
        module = transformer.visit(module)
    if not isinstance(module, ast.Module) or not module.body:
        raise KernelSyntaxError(f"a code transformer of {name} did not return a module holding its definition")
    seen = {id(module)}
    stack = [module]  # a stack, not recursion: expressions may be deep
    while stack:
        node = stack.pop()
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                if not isinstance(item, ast.AST):
                    continue
                if id(item) in seen:
                    item = copy.deepcopy(item)
                    if isinstance(value, list):
                        value[i] = item
                    else:
                        setattr(node, field, item)
                seen.add(id(item))
                stack.append(item)
    return ast.fix_missing_locations(module)


def _check_signature(node, qualname: str, location) -> None:
    """Refuse what a kernel's or function's ``def`` line may hold in Python but a kernel cannot take (Python
    would bind arguments the compiled code never sees): ``async``, ``*args`` and ``**kwargs``."""
    args = node.args
    what = None
    if isinstance(node, ast.AsyncFunctionDef):
        what = "'async def' cannot define a kernel or function"
    elif args.vararg is not None:
        what = f"parameter '*{args.vararg.arg}': a variable number of arguments is not supported in kernels"
    elif args.kwarg is not None:
        what = f"parameter '**{args.kwarg.arg}': keyword arguments collected in a dict are not supported in kernels"
    if what is not None:
        raise KernelSyntaxError(f"{qualname}: {what}", location(node))


#: file name -> the module spec its text was last read for (``file_lines``)
_READ_FOR: dict = {}


def file_lines(filename: str, spec) -> list:
    """The lines of ``filename`` as linecache holds them, read again when ``spec``, the module spec of the function
    being declared, is not the one the file was last read for: the module was reloaded (``importlib.reload``,
    IPython's autoreload), maybe after an edit, and linecache would give the old text. A file edited while
    its module runs on unreloaded keeps the text it was first read with, as its code does."""
    if spec is not None and _READ_FOR.get(filename, spec) is not spec:
        linecache.checkcache(filename)
    if spec is not None:
        _READ_FOR[filename] = spec
    return linecache.getlines(filename)


def _changed_file(code, found: str) -> str:
    """The message for a file that no longer holds the definition its code was compiled from (``found``: what
    stands at the code's first line): edited since it was run, or given as the file name of other text."""
    return (f"cannot find the source of {code.co_name}: its code starts at {code.co_filename}:{code.co_firstlineno}, "
            f"where the file now has {found}; the file changed after this code was compiled from it: run or "
            f"reload it again")


def _source_lines(code, spec=None) -> tuple:
    """Lines of a function's definition (decorators included), the number of the first one, their text dedented,
    and its syntax tree (None where it did not parse here: the caller's parse says why).

    The block ends before the first non-blank line indented no deeper than the definition, without the blank and
    comment lines before that line (a comment about the next definition is no part of this one's text, and so of
    no cache key); the (slower) tokenizer-based ``inspect`` is the fallback when that block does not parse.
    """
    lines = file_lines(code.co_filename, spec)
    if not lines:
        raise KernelSyntaxError(f"cannot find the source of {code.co_name} (defined in {code.co_filename}); "
                                f"kernels must be defined in a file")
    start = code.co_firstlineno - 1
    if start >= len(lines):
        raise KernelSyntaxError(_changed_file(code, f"the end of its {len(lines)} lines"))
    head = lines[start]
    indent = len(head) - len(head.lstrip())
    end = start + 1
    in_body = False
    while end < len(lines):
        text = lines[end]
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            depth = len(text) - len(text.lstrip())
            if in_body and depth <= indent:
                break
            if text.lstrip().startswith("def ") and depth == indent:
                in_body = True  # past the decorators: the body starts after this line
                end += 1
                continue
            if depth > indent:
                in_body = True
        end += 1
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    block = lines[start:end]
    text = textwrap.dedent("".join(block))
    try:
        return block, code.co_firstlineno, text, ast.parse(text)  # the tree is the declaration's: parsed once
    except RecursionError:  # too deep to parse here too: the caller's parse says so
        return block, code.co_firstlineno, text, None
    except SyntaxError:
        import inspect

        block = inspect.getblock(lines[start:])
        return block, code.co_firstlineno, textwrap.dedent("".join(block)), None


MISSING = _MISSING

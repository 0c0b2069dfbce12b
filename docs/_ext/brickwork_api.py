"""The API reference, generated from each package's public names.

``.. brickwork-api:: brickwork.la`` lists every public name of the package, grouped by kind, each
with its docstring: functions and classes through autodoc, kernel builtins with their signature,
data (tags, constants) with its own text. The public names are ``__all__`` where the package
defines it, else every attribute whose name does not start with ``_`` (sub-modules excluded), so a
name added to a package appears here without editing the docs. tests/docs/test_api_reference.py
checks that every one of them has a docstring.
"""

from __future__ import annotations

import importlib
import inspect
import types
import typing

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

#: The packages whose public names the reference covers, in the order of the reference.
PACKAGES = ["brickwork", "brickwork.utils", "brickwork.autograd", "brickwork.sparse", "brickwork.optim.linear",
            "brickwork.geometry", "brickwork.la", "brickwork.mesh", "brickwork.io", "brickwork.apps.hydro"]

#: Text for public values that cannot carry a docstring of their own (plain numbers, typing forms).
DATA_DOCS = {
    "X1DIR": "The direction index of x1 (1); ``X2DIR`` (2) and ``X3DIR`` (3) name the other two, as in Parthenon.",
    "X2DIR": "The direction index of x2 (2).",
    "X3DIR": "The direction index of x3 (3).",
    "BSR_STATUS_SUCCESS": "The status of a sparse operation that succeeded (0): ``BsrMatrix.status_sync()``.",
    "BSR_STATUS_ROW_CAPACITY_EXCEEDED": "The status of a padded sparse operation whose rows lacked capacity (1).",
    "LOG_DEBUG": "Warp's name of the debug log level: the ``logging`` module's number (10).",
    "LOG_INFO": "Warp's name of the info log level: the ``logging`` module's number (20).",
    "LOG_WARNING": "Warp's name of the warning log level: the ``logging`` module's number (30).",
    "LOG_ERROR": "Warp's name of the error log level: the ``logging`` module's number (40).",
    "TIMING_KERNEL": "Activity timing flag (1): kernels the program launches (``wp.timing_begin``).",
    "TIMING_KERNEL_BUILTIN": "Activity timing flag (2): brickwork's own kernels (``wp.utils``, tree and grid builds).",
    "TIMING_MEMCPY": "Activity timing flag (4): copies (``wp.copy``, ``assign``, a device array's ``numpy()``).",
    "TIMING_MEMSET": "Activity timing flag (8): memsets (``zero_``, ``fill_``).",
    "TIMING_GRAPH": "Activity timing flag (16): graph launches (``wp.capture_launch``).",
    "TIMING_ALL": "Activity timing flag selecting every activity (0xFFFFFFFF).",
    "DeviceLike": "Warp's annotation of a device argument: a ``Device``, a device name such as ``\"cuda:0\"``, or "
                  "None (the current device).",
    "Any": "``typing.Any``: annotating a kernel argument with it makes the kernel generic (one instance per "
           "argument type).",
}

_PLAIN = (int, float, str, bool, tuple, type(None))


def public_names(module: types.ModuleType) -> list[str]:
    """The public names of ``module``: its ``__all__``, else its attributes not starting with ``_`` that are
    not modules (sub-modules are documented as packages of their own, or are internal)."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    # a program's wp.build_experimental.add_builtin registrations are its own names, not brickwork's
    from brickwork.lang.build_experimental import _REGISTERED

    added = _REGISTERED if module.__name__ == "brickwork" else {}
    return sorted(n for n in dir(module)
                  if not n.startswith("_") and n not in added and not inspect.ismodule(getattr(module, n)))


def kind_of(obj) -> str:
    """One of ``module``, ``builtin``, ``exception``, ``scalar``, ``composite``, ``class``, ``function``,
    ``data``: the section of the reference a public object goes in."""
    from brickwork.builtins.functions import BuiltinFunction
    from brickwork.types.composite import CompositeBase
    from brickwork.types.scalars import ScalarBase

    if inspect.ismodule(obj):
        return "module"
    if _is_plain(obj):
        return "data"  # typing.Any is a class since Python 3.11, but documented as a value
    if isinstance(obj, BuiltinFunction):
        return "builtin"
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return "exception"
        if issubclass(obj, ScalarBase):
            return "scalar"
        if issubclass(obj, CompositeBase):
            return "composite"
        return "class"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.ismethod(obj):
        return "function"
    if callable(obj) and _own_doc(obj) and not _is_plain(obj):
        return "function"  # a callable object (a decorator instance, say) documented as a function
    return "data"


def _is_plain(obj) -> bool:
    if inspect.isclass(obj) and obj.__module__.startswith("brickwork"):
        return False  # a class of brickwork's own, a typing.Protocol's (wp.Allocator) included
    return isinstance(obj, _PLAIN) or obj is typing.Any or type(obj).__module__ in ("typing", "types")


def _own_doc(obj) -> str | None:
    """The docstring brickwork wrote for ``obj``; never one inherited from Python's own types."""
    if inspect.isclass(obj):
        for cls in obj.__mro__:
            doc = cls.__dict__.get("__doc__")
            if doc and doc.strip():
                return inspect.cleandoc(doc) if cls.__module__.startswith("brickwork") else None
        return None
    if _is_plain(obj):
        return None
    doc = getattr(obj, "__doc__", None)
    if not doc or not doc.strip():
        return None
    if not (inspect.isfunction(obj) or inspect.ismodule(obj)) and not type(obj).__module__.startswith("brickwork"):
        return None
    return inspect.cleandoc(doc)


def docstring(module: types.ModuleType, name: str) -> str | None:
    """The text the reference shows for ``module.name``, or None where there is none."""
    obj = getattr(module, name)
    if kind_of(obj) == "builtin":
        from brickwork.builtins.docs import BUILTIN_DOCS

        return obj.doc if obj.name in BUILTIN_DOCS else None
    if _is_plain(obj):
        from brickwork.builtins.constants import CONSTANT_DOCS

        return DATA_DOCS.get(name) or (CONSTANT_DOCS.get(name) if module.__name__ == "brickwork" else None)
    return _own_doc(obj)


_SECTIONS = [
    ("function", "Functions"),
    ("class", "Classes"),
    ("exception", "Exceptions"),
    ("scalar", "Scalar types"),
    ("composite", "Vector, matrix and quaternion types"),
    ("builtin", "Kernel builtins"),
    ("data", "Tags, constants and annotations"),
    ("module", "Modules"),
]


def _indent(text: str, by: str = "   ") -> list[str]:
    return [by + line if line else "" for line in text.splitlines()]


def _entry(modname: str, name: str, obj, kind: str, doc: str | None) -> list[str]:
    full = f"{modname}.{name}"
    if kind == "function":
        return [f".. autofunction:: {full}", ""]
    if kind in ("class", "exception"):
        return [f".. autoclass:: {full}", "   :members:", ""]  # autodoc says "alias of" for a second name
    if kind == "module":
        return [f".. py:module:: {full}", "   :no-index:", "", *(_indent(doc or "")), ""]
    if kind == "builtin":
        from brickwork.builtins.docs import BUILTIN_DOCS

        arguments = BUILTIN_DOCS.get(obj.name, ("", ""))[0]
        return [f".. py:function:: {full}({arguments})", "", *_indent(doc or ""), ""]
    return [f".. py:data:: {full}", "", *_indent(doc or ""), ""]


def _scalar_table(modname: str, names: list[tuple[str, object]]) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", "", "   * - name", "     - what it is"]
    for name, obj in names:
        lines += [f"   * - ``{modname}.{name}``", f"     - {_first_line(_own_doc(obj))}"]
    return lines + [""]


def _composite_table(modname: str, names: list[tuple[str, object]]) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", "", "   * - name", "     - shape", "     - component type"]
    for name, obj in names:
        dtype = getattr(obj, "_dtype", None)
        lines += [f"   * - ``{modname}.{name}``", f"     - {getattr(obj, '_shape', '')}",
                  f"     - ``{getattr(dtype, '__name__', dtype)}``"]
    return lines + [""]


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().split("\n\n")[0].replace("\n", " ")


def reference_lines(modname: str) -> list[str]:
    """reStructuredText for the reference of ``modname``: its docstring, then one section per kind."""
    module = importlib.import_module(modname)
    by_kind: dict[str, list] = {}
    for name in public_names(module):
        obj = getattr(module, name)
        by_kind.setdefault(kind_of(obj), []).append((name, obj))
    lines = [f".. py:module:: {modname}", "", *(inspect.cleandoc(module.__doc__ or "").splitlines()), ""]
    for kind, title in _SECTIONS:
        entries = by_kind.get(kind)
        if not entries:
            continue
        lines += [title, "-" * len(title), ""]
        if kind == "scalar":
            lines += _scalar_table(modname, entries)
            continue
        if kind == "composite":
            lines += _composite_intro(entries) + _composite_table(modname, entries)
            continue
        if kind == "builtin":
            lines += ["Called inside a ``@kernel`` or ``@func``; from ordinary Python the scalar math ones "
                      "compute on the host and the others raise ``RuntimeError``.", ""]
        for name, obj in entries:
            lines += _entry(modname, name, obj, kind, docstring(module, name))
    return lines


def _composite_intro(entries) -> list[str]:
    bases = []
    for _, obj in entries:
        for cls in obj.__mro__:
            if "__doc__" in cls.__dict__ and cls.__module__.startswith("brickwork") and cls not in bases:
                bases.append(cls)
                break
    text = [f"- ``{cls.__name__}``: {_first_line(_own_doc(cls))}" for cls in bases]
    return ["Each name is a type made by ``vector(length, dtype)``, ``matrix(shape, dtype)`` or "
            "``quaternion(dtype)``; the suffix names the component type (``h`` float16, ``f`` float32, "
            "``d`` float64, ``i`` int32, ...), no suffix means float32.", "", *text, ""]


def source_files(modname: str) -> set[str]:
    """The files that define ``modname`` and its public objects."""
    module = importlib.import_module(modname)
    files = {inspect.getfile(module)}
    for name in public_names(module):
        obj = getattr(module, name)
        try:
            files.add(inspect.getfile(obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)))
        except TypeError:  # a builtin type, or an object of one
            pass
    return files


class BrickworkApi(SphinxDirective):
    """``.. brickwork-api:: MODULE``: the reference of one package."""

    required_arguments = 1
    has_content = False

    def run(self):
        modname = self.arguments[0]
        for path in {__file__, *source_files(modname)}:  # rebuilt when a docstring changes
            self.env.note_dependency(path)
        content = StringList(reference_lines(modname), source=f"<brickwork-api {modname}>")
        node = nodes.section()
        node.document = self.state.document
        nested_parse_with_titles(self.state, content, node)
        return node.children


def setup(app):
    app.add_directive("brickwork-api", BrickworkApi)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

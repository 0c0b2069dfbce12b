"""The API and command-line references of the docs site: complete, and every public name documented.

The references are made by docs/_ext (``make docs``); these tests call the same functions, so they
fail when a public name has no docstring or when a name or option would be missing from a page.
"""

import importlib
import sys
import types
import typing
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[2] / "docs" / "_ext"
sys.path.insert(0, str(EXT))

import brickwork_api as api  # noqa: E402 - needs the path above
import brickwork_cli as cli_ref  # noqa: E402

PUBLIC = [(m, n) for m in api.PACKAGES for n in api.public_names(importlib.import_module(m))]


def test_the_packages_have_public_names():
    counts = {m: sum(1 for mod, _ in PUBLIC if mod == m) for m in api.PACKAGES}
    assert all(c > 0 for c in counts.values()), counts
    names = {n for m, n in PUBLIC if m == "brickwork"}
    assert {"kernel", "launch", "array", "zeros", "float32", "vec3f", "sin", "tid", "Any"} <= names
    assert not {n for n in names if n.startswith("_")}
    assert "lang" not in names and "jit" not in names, "sub-modules are not public names of brickwork"


@pytest.mark.parametrize("module, name", PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_every_public_name_has_a_docstring(module, name):
    doc = api.docstring(importlib.import_module(module), name)
    assert doc and len(doc.split()) >= 3, f"{module}.{name} has no docstring (or one of fewer than three words)"


@pytest.mark.parametrize("module", api.PACKAGES)
def test_the_reference_shows_every_public_name_with_its_docstring(module):
    text = "\n".join(api.reference_lines(module))
    mod = importlib.import_module(module)
    for name in api.public_names(mod):
        assert f"{module}.{name}" in text, f"{module}.{name} is missing from the reference"
        kind = api.kind_of(getattr(mod, name))
        if kind in ("builtin", "data"):  # written into the page here; autodoc adds the others' docstrings
            assert api.docstring(mod, name).splitlines()[0] in text


def test_inherited_and_plain_values_do_not_count_as_docstrings():
    fake = types.ModuleType("fake")
    fake.__all__ = ["answer", "Plain", "documented", "X1DIR"]
    fake.answer = 42                     # int's own docstring is not a docstring of `answer`

    class Plain(dict):                   # only Python's dict docstring
        pass

    def documented():
        """Says what it does."""

    fake.Plain, fake.documented, fake.X1DIR = Plain, documented, 1
    assert api.docstring(fake, "answer") is None
    assert api.docstring(fake, "Plain") is None
    assert api.docstring(fake, "documented") == "Says what it does."
    assert api.docstring(fake, "X1DIR") == api.DATA_DOCS["X1DIR"]
    assert [api.kind_of(getattr(fake, n)) for n in fake.__all__] == ["data", "class", "function", "data"]
    assert api.kind_of(typing.Any) == "data", "typing.Any is documented as a value, not as typing's class"


def test_public_names_without_all_skip_private_names_and_modules():
    fake = types.ModuleType("fake")
    fake.visible, fake._hidden, fake.sub = 1, 2, types.ModuleType("fake.sub")
    assert api.public_names(fake) == ["visible"]


def test_builtin_docs_name_only_real_builtins():
    from brickwork.builtins.docs import BUILTIN_DOCS
    from brickwork.builtins.functions import FUNCTIONS

    assert set(BUILTIN_DOCS) == set(FUNCTIONS), "a builtin without text, or text for a name that is not a builtin"
    import brickwork as wp

    assert wp.clamp.doc == BUILTIN_DOCS["clamp"][1]
    lines = "\n".join(api.reference_lines("brickwork"))
    assert ".. py:function:: brickwork.clamp(x, lo, hi)" in lines


def test_the_cli_reference_has_every_subcommand_and_option():
    parser = cli_ref.command_parser()
    subs = cli_ref.subcommands(parser)
    assert [name for name, _, _ in subs][:4] == ["info", "cache", "run", "demo"]
    text = "\n".join(cli_ref.cli_lines())
    for name, help_text, sub in subs:
        assert f"brickwork {name}\n" in text
        assert f"usage: brickwork {name}" in text
        for action in sub._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"``{option}" in text, f"brickwork {name} {option} is missing from the reference"
    assert "--restart FILE" in text and "One of ``dir``, ``list``, ``clear``." in text
    assert r"examples/\*.toml" in text, "help text is escaped for reStructuredText"


def test_capturing_the_parser_runs_no_command(capsys):
    cli_ref.command_parser()
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_every_rst_title_underline_is_as_long_as_its_title():
    # docutils warns on a short underline and the docs build (warnings are errors) fails on it
    short = []
    for page in sorted((EXT.parent).rglob("*.rst")):
        if "_build" in page.parts:
            continue
        lines = page.read_text().splitlines()
        for i in range(1, len(lines)):
            mark, title = lines[i].rstrip(), lines[i - 1].rstrip()
            if title and mark and set(mark) <= set("=-~^\"'`#*+") and len(set(mark)) == 1 \
                    and len(mark) >= 3 and len(mark) < len(title):
                short.append(f"{page.name}:{i + 1}")
    assert not short, f"title underlines shorter than their titles: {short}"


def _rst_problems(text: str) -> list[str]:
    """docutils' complaints about ``text`` as reStructuredText (what ``make docs`` turns into errors)."""
    import docutils.core
    import docutils.nodes

    settings = {"report_level": 2, "halt_level": 5, "warning_stream": False}
    tree = docutils.core.publish_doctree(text, settings_overrides=settings)
    return [m.astext() for m in tree.findall(docutils.nodes.system_message)
            if m["level"] >= 2 and "Unknown interpreted text role" not in m.astext()]


def _documented_texts(module, name):
    """The docstrings autodoc renders for a public name: its own and, for a class, its public methods'."""
    import inspect

    obj = getattr(module, name)
    texts = [(name, api.docstring(module, name))]
    if inspect.isclass(obj) and api.kind_of(obj) in ("class", "exception"):
        texts += [(f"{name}.{m}", inspect.getdoc(v)) for m, v in vars(obj).items()
                  if not m.startswith("_") and (callable(v) or isinstance(v, property))]
    return [(label, text) for label, text in texts if text]


@pytest.mark.parametrize("module", api.PACKAGES)
def test_docstrings_are_valid_restructured_text(module):
    # The site is built with warnings as errors; checking here finds a broken docstring in `make test`.
    mod = importlib.import_module(module)
    bad = [f"{module}.{label}: {problem}" for name in api.public_names(mod)
           for label, text in _documented_texts(mod, name) for problem in _rst_problems(text)]
    assert not bad, "\n".join(bad)


def test_the_docstring_check_finds_an_indented_argument_continuation():
    assert _rst_problems("Args:\n    a: first\n        continued\n    b: second")
    assert not _rst_problems("Args:\n\n- a: first\n  continued\n- b: second")

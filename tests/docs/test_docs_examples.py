"""Every code block of the documentation (docs/**/*.md and README.md) is tested as written.

- A ```python block runs from a file (kernel bodies compile from source), in the repository root as
  a reader would run it. A block that imports nothing from brickwork continues the page's previous
  blocks: it runs after them, in one script.
- A Python ``print(...)`` outside a function whose line ends in a comment that starts like output
  (``[``, ``(``, ``{``, a digit, a minus sign, ``True``, ``False``) must print what the comment starts
  with, spaces aside: ``print(a)  # [1. 0. 1.]: every other one`` checks ``[1. 0. 1.]``. Other comments
  (``# this rank's blocks``) are prose; prints inside kernels are not checked.
- A block that cannot run here (it needs MPI ranks, a GPU, or an hour) carries the line
  ``<!-- docs-test: skip REASON -->`` just before its fence: it is skipped with that reason, and later
  blocks do not continue it. The marker is invisible in the built page.
- A ```sh block is a list of commands. ``brickwork`` commands are parsed by the command's own
  parser and their input files and ``section.key=value`` overrides are checked by the hydro
  application's configuration loader; the quick ones (``info``, ``cache dir|list``, and runs of the
  1-D problems) are run, in a temporary directory (the README's by tests/apps/test_readme.py). ``make TARGET`` must name a target of the
  Makefile, ``NAME=value`` prefixes must be documented in docs/env.md, and ``python FILE`` must name
  an example that exists (``my_script.py`` stands for the reader's own script).

Blocks without a language (diagrams, signatures), ```text blocks (output) and ```cpp blocks (the
Parthenon code that docs/coming_from_parthenon.md sets beside brickwork's) are not brickwork code.
"""

from __future__ import annotations

import io
import os
import re
import runpy
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", flags=re.S | re.M)
SKIP = re.compile(r"<!-- docs-test: skip (.*?) -->\s*$")


def _pages() -> list[Path]:
    pages = [p for p in sorted(DOCS.rglob("*.md")) if not {"_build", "_generated"} & set(p.relative_to(DOCS).parts)]
    return [ROOT / "README.md", *pages]


def _skip_reason(text: str, start: int) -> str | None:
    """The reason of a ``<!-- docs-test: skip REASON -->`` line just before the fence at ``start``."""
    before = text[:start].rstrip("\n").rsplit("\n", 1)[-1]
    found = SKIP.search(before)
    return found.group(1).strip() if found else None


def _blocks(language: str) -> list[tuple[str, int, str]]:
    out = []
    for page in _pages():
        rel, text = str(page.relative_to(ROOT)), page.read_text()
        found = [m for m in FENCE.finditer(text) if m.group(1) == language]
        out += [(rel, i, m.group(2)) for i, m in enumerate(found)]
        SKIPPED.update({(rel, i): _skip_reason(text, m.start()) for i, m in enumerate(found) if _skip_reason(text, m.start())})
    return out


SKIPPED: dict[tuple[str, int], str] = {}  # (page, block index): why it cannot run here
PYTHON = _blocks("python")
SHELL = _blocks("sh")


def _standalone(block: str) -> bool:
    return "import brickwork" in block or "from brickwork" in block


def _script(page: str, index: int) -> str:
    """The block, after the page's earlier blocks it continues (back to the last one that imports brickwork)."""
    blocks = [b for p, i, b in PYTHON if p == page and i <= index and (p, i) not in SKIPPED]
    start = max((i for i, b in enumerate(blocks) if _standalone(b)), default=0)
    return "\n".join(blocks[start:])


PRINT = re.compile(r"^(\s*)print\((.*)\)\s*#\s*((?:[-\[({\d]|True|False).*)$")


def _checking_prints(script: str) -> str:
    """``script`` with each commented print outside a function replaced by a call that checks its output.

    One line for one line: kernels compile from their source lines, and errors keep their line numbers."""
    lines, function_indent = script.splitlines(), None
    for n, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if function_indent is not None and line.strip() and indent <= function_indent:
            function_indent = None
        if function_indent is None and re.match(r"\s*(async\s+)?def\s", line):
            function_indent = indent
        elif function_indent is None and (found := PRINT.match(line)):
            pad, args, comment = found.groups()
            lines[n] = f"{pad}__doc_print__({n + 1}, {comment!r}, {args})"
    return "\n".join(lines) + "\n"


def _spaced(text: str) -> str:
    """Output as a comment writes it: one space between words, none inside brackets' edges."""
    return re.sub(r"([\[(]) | ([\])])", r"\1\2", " ".join(text.split()))


def _doc_print(line: int, comment: str, *args, **kwargs) -> None:
    out = io.StringIO()
    print(*args, file=out, **kwargs)
    sys.stdout.write(out.getvalue())
    assert _spaced(comment).startswith(_spaced(out.getvalue())), (
        f"line {line} prints {out.getvalue().strip()!r}; its comment says {comment!r}")


@pytest.mark.parametrize("page, index, block", PYTHON, ids=[f"{p}:{i}" for p, i, _ in PYTHON])
def test_python_block_runs(page, index, block, tmp_path, monkeypatch):
    if (page, index) in SKIPPED:
        pytest.skip(SKIPPED[page, index])
    script = tmp_path / f"{Path(page).stem}_example{index}.py"
    script.write_text(_checking_prints(_script(page, index)))
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(script), init_globals={"__doc_print__": _doc_print}, run_name="__main__")


def test_commented_prints_are_checked():
    checked = _checking_prints("print(a)  # [1. 0.]: ones\ndef f():\n    print(b)  # [2]\nprint(c)  # prose\nprint(d)")
    assert checked.splitlines() == ["__doc_print__(1, '[1. 0.]: ones', a)", "def f():", "    print(b)  # [2]",
                                    "print(c)  # prose", "print(d)"]
    _doc_print(1, "[[ 0.  1.] [10. 11.]]: a matrix", "[[ 0.  1.]\n [10. 11.]]")
    with pytest.raises(AssertionError, match=r"line 7 prints '\[1\. 2\.\]'; its comment says '\[1\. 3\.\]'"):
        _doc_print(7, "[1. 3.]", "[1. 2.]")


def test_a_skip_marker_gives_its_reason():
    text = "<!-- docs-test: skip needs 2 MPI ranks -->\n```python\nx\n```\n"
    assert _skip_reason(text, text.index("```")) == "needs 2 MPI ranks"
    assert _skip_reason("text\n```python\n", 5) is None


def test_the_pages_have_code_blocks():
    pages = {p for p, _, _ in PYTHON}
    assert {"README.md", "docs/getting_started.md", "docs/kernel_language.md", "docs/loop_abstraction.md",
            "docs/hydro.md", "docs/coming_from_warp.md", "docs/coming_from_parthenon.md"} <= pages
    assert len(SHELL) >= 5
    readme = [b for p, _, b in PYTHON if p == "README.md"]
    assert _checking_prints(readme[0]).count("__doc_print__(") == 2  # its two prints say what they print


# -- shell blocks --------------------------------------------------------------------------------

QUICK_PROBLEMS = {"sod", "linear_wave"}  # 1-D: a run takes seconds


def _commands(block: str) -> list[list[str]]:
    """One token list per command line: comments, and continuation backslashes, removed."""
    text = re.sub(r"\$\([^)]*\)", "SUBSTITUTED", block.replace("\\\n", " "))  # $(mktemp -d) is one word
    return [shlex.split(line, comments=True) for line in text.splitlines() if shlex.split(line, comments=True)]


def _env_prefix(tokens: list[str]) -> tuple[dict, list[str]]:
    env = {}
    while tokens and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", tokens[0]):
        name, value = tokens[0].split("=", 1)
        env[name] = value
        tokens = tokens[1:]
    return env, tokens


def _documented_variables() -> set[str]:
    return set(re.findall(r"`([A-Z][A-Z0-9_]+)`", (DOCS / "env.md").read_text()))


def _make_targets() -> set[str]:
    return set(re.findall(r"^([\w.-]+):", (ROOT / "Makefile").read_text(), flags=re.M))


def _synopsis(args: list[str]) -> bool:
    """A usage line (``brickwork run FILE.toml [section.key=value ...]``), not a command to run."""
    return any(a.startswith("[") or re.fullmatch(r"[A-Z]+(\.\w+)?", a) for a in args)


def _check_brickwork(args: list[str], cwd: Path, run_it: bool) -> None:
    from brickwork import cli
    from brickwork.apps import hydro

    if _synopsis(args):
        argparse_subparser(args[0])  # KeyError for a sub-command that does not exist
        return
    if args[:1] in (["run"], ["demo"]):
        sub = argparse_subparser(args[0])
        ns = sub.parse_intermixed_args(args[1:])
        if args[0] == "run":
            path = ns.input if os.path.isabs(ns.input) else str(ROOT / ns.input)
            assert os.path.exists(path), f"no input file {ns.input}"
            if os.path.exists(path):
                cfg = hydro.load_config(path, ns.overrides)  # ConfigError on an unknown key or a bad value
                run_it = run_it and cfg["problem"]["name"] in QUICK_PROBLEMS and cfg["mesh"]["nx"][0] <= 1024
        else:
            run_it = False  # the demo takes about a minute
    elif args == ["--version"]:  # prints the version and exits
        with pytest.raises(SystemExit) as done:
            argparse_subparser(None).parse_args(args)
        assert done.value.code == 0
        return
    else:
        argparse_subparser(None).parse_args(args)
        run_it = run_it and args[:2] != ["cache", "clear"]
    if run_it:
        old = os.getcwd()
        os.chdir(cwd)
        try:
            if args[:1] == ["run"] and not os.path.isabs(args[1]):
                args = ["run", str(ROOT / args[1]), *args[2:], "--quiet"]
            assert cli.main(args) == 0, f"brickwork {' '.join(args)} failed"
        finally:
            os.chdir(old)


def argparse_subparser(name: str | None):
    import sys

    sys.path.insert(0, str(DOCS / "_ext"))
    import brickwork_cli

    parser = brickwork_cli.command_parser()
    if name is None:
        return parser
    return dict((n, p) for n, _, p in brickwork_cli.subcommands(parser))[name]


@pytest.mark.parametrize("page, index, block", SHELL, ids=[f"{p}:sh{i}" for p, i, _ in SHELL])
def test_shell_block_commands_are_valid(page, index, block, tmp_path):
    documented = _documented_variables()
    for tokens in _commands(block):
        env, tokens = _env_prefix(tokens)
        assert set(env) <= documented, f"{page}: {sorted(set(env) - documented)} not documented in docs/env.md"
        command, args = tokens[0], tokens[1:]
        if command in ("brickwork", ".venv/bin/brickwork"):
            # README's runs are run, and their files checked, by tests/apps/test_readme.py
            _check_brickwork(args, tmp_path, run_it=not env and page != "README.md")
        elif command == "make":
            assert set(args) <= _make_targets(), f"{page}: make {' '.join(args)}: no such target"
        elif command in ("python", "python3", ".venv/bin/python"):
            assert args[0] == "my_script.py" or (ROOT / args[0]).is_file(), f"{page}: no file {args[0]}"
        elif command in ("git", "cd", ".venv/bin/pip", "pip", "sed"):
            continue  # set-up steps of the reader's own
        else:
            pytest.fail(f"{page}: a command this test does not know how to check: {' '.join(tokens)}")

"""The command-line reference, generated from the ``brickwork`` command's own argument parser.

``.. brickwork-cli::`` renders every sub-command with its usage line and each argument's help,
choices and default. The parser is the one ``brickwork.cli.main`` builds: the directive calls
``main`` with parsing replaced by a capture, so a new sub-command or option appears here without
editing the docs (and nothing runs).
"""

from __future__ import annotations

import argparse
import os
from contextlib import contextmanager
from unittest import mock

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles


class _Captured(Exception):
    def __init__(self, parser):
        super().__init__("parser captured")
        self.parser = parser


def _capture(self, *args, **kwargs):
    raise _Captured(self)


@contextmanager
def _fixed_width(columns: int = 100):
    """argparse wraps to the terminal's width; the reference must not depend on where it is built."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(columns)
    try:
        yield
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def command_parser() -> argparse.ArgumentParser:
    """The top-level parser of ``brickwork``, as ``brickwork.cli.main`` builds it."""
    from brickwork import cli

    with mock.patch.object(argparse.ArgumentParser, "parse_args", _capture), \
            mock.patch.object(argparse.ArgumentParser, "parse_intermixed_args", _capture):
        try:
            cli.main(["--help"])
        except _Captured as captured:
            return captured.parser
    raise RuntimeError("brickwork.cli.main returned without parsing its arguments")


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """``(name, help, parser)`` of each sub-command, in the order the parser lists them."""
    for action in parser._actions:  # argparse keeps sub-parsers only here
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            return [(name, helps.get(name, ""), sub) for name, sub in action.choices.items()]
    return []


def _usage(parser: argparse.ArgumentParser) -> list[str]:
    return ["::", "", *["   " + line for line in parser.format_usage().splitlines()], ""]


def _sentence(text: str) -> str:
    """Plain help text as one reStructuredText sentence: capitalised, ending in a full stop, markup escaped."""
    text = text.strip()
    if not text:
        return ""
    for char in "\\*`|_":
        text = text.replace(char, "\\" + char)
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _argument_lines(parser: argparse.ArgumentParser) -> list[str]:
    lines = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        name = ", ".join(action.option_strings) if action.option_strings else (action.metavar or action.dest)
        if action.option_strings and action.nargs != 0:
            name += f" {action.metavar or action.dest.upper()}"
        text = _sentence(action.help or "")
        if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
            text += (" " if text else "") + "One of " + ", ".join(f"``{c}``" for c in action.choices) + "."
        if action.nargs in ("*", "+"):
            text += (" " if text else "") + "Any number may be given."
        lines += [f"``{name}``", f"   {text or 'See the usage line.'}", ""]
    return lines


def cli_lines() -> list[str]:
    """reStructuredText for the whole command: the top-level usage, then one section per sub-command."""
    with _fixed_width():
        parser = command_parser()
        lines = [_sentence(parser.description or ""), "", *_usage(parser)]
        for name, help_text, sub in subcommands(parser):
            title = f"brickwork {name}"
            lines += [title, "-" * len(title), "", _sentence(help_text),
                      "", *_usage(sub)]
            lines += _argument_lines(sub)
            if sub.epilog:  # what the help prints after the arguments (run: where the input keys are described)
                lines += [_sentence(sub.epilog), ""]
    return lines


class BrickworkCli(SphinxDirective):
    """``.. brickwork-cli::``: the reference of the ``brickwork`` command."""

    has_content = False

    def run(self):
        from brickwork import cli

        self.env.note_dependency(cli.__file__)
        self.env.note_dependency(__file__)
        node = nodes.section()
        node.document = self.state.document
        nested_parse_with_titles(self.state, StringList(cli_lines(), source="<brickwork-cli>"), node)
        return node.children


def setup(app):
    app.add_directive("brickwork-cli", BrickworkCli)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

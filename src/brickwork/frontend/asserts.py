"""``assert cond`` and ``assert cond, "message"`` in kernels and functions.

As in Warp, an assert is checked in debug mode only (``wp.config.mode = "debug"``): when its
condition is false the statement's text and line go to stderr and the process aborts (SIGABRT).
In release mode it compiles to nothing. The condition is typed in both modes, so an error in it
is reported whatever the mode; the message is text only and is not evaluated.
"""

from __future__ import annotations

import ast

from .. import ir
from ..types.scalars import bool_


def assert_statement(typer, node: ast.Assert) -> ir.IRExpect:
    cond = typer.condition(node.test)
    if cond.type is not bool_:
        cond = ir.IRCast(cond, bool_)
    loc = typer.source.location(node)
    text = loc.line.strip() if loc.line.strip().startswith("assert") else ast.unparse(node)  # as written
    message = f"Assertion failed: '{text}'\nAt '{loc.filename}:{loc.lineno}'"
    return ir.IRExpect(True, cond, ir.IRConst(True, bool_), message, aborts=True, enabled=False)

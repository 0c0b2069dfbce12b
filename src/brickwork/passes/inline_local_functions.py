"""inline_local_functions: an application of a local function becomes plain statements.

``IRInlineBody(params, args, body)`` -> ``params[i] = args[i]`` then the body; a ``return`` in the
body leaves the application (an ``IRRegion`` around the body and an ``IRExitRegion``), and in a
folding body (``inner_reduce``) ``return value`` first folds the value (``IRLAFold``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir


@dataclass(frozen=True)
class InlineLocalFunctions:
    name: str = "inline_local_functions"

    needs = ir.IRInlineBody  # (run_passes skips the pass without one)

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if not ir.contains(fn.body, ir.IRInlineBody):
            return fn  # no local function applied
        return _Inliner().function(fn)


class _Inliner(ir.Rewriter):
    def __init__(self):
        self.stack: list = []  # the applications being inlined, innermost last

    def r_IRInlineBody(self, s: ir.IRInlineBody):
        self.stack.append(s)
        body = self.stmts(s.body)
        self.stack.pop()
        binds = [ir.IRAssign(p, self.expr(a)) for p, a in zip(s.params, s.args)]
        if not _exits(body, s.name):  # no early return: no region needed
            return binds + body
        return binds + [ir.IRRegion(s.name, body)]

    def r_IRReturn(self, s: ir.IRReturn):
        if not self.stack:
            return self.copy(s)
        app = self.stack[-1]
        exit_ = ir.IRExitRegion(app.name)
        if s.value is None:
            return [exit_]
        return [ir.IRLAFold(self.expr(s.value)), exit_]


def _exits(body, name) -> bool:
    return any(isinstance(n, ir.IRExitRegion) and n.name == name for n in ir.walk(body))

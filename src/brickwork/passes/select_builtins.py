"""select_builtins: attach the target's implementation of each builtin call (the last pass).

A builtin the target does not implement is reported here, naming the builtin and the target,
before any source text is written.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import ir
from ..errors import KernelTypeError


@dataclass(frozen=True)
class SelectBuiltins:
    target: str
    table: dict = dataclasses.field(hash=False, compare=False, repr=False)
    name: str = "select_builtins"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        return _Select(self.target, self.table, fn).function(fn)


class _Select(ir.Rewriter):
    def __init__(self, target, table, fn):
        self.target, self.table, self.fn = target, table, fn

    def r_IRCall(self, e: ir.IRCall):
        impl = self.table.get(e.op)
        if impl is None:
            raise KernelTypeError(f"{self.fn.label or self.fn.name}: builtin {e.op}() is not available on the "
                                  f"{self.target} target")
        return dataclasses.replace(e, args=[self.expr(a) for a in e.args], impl=impl)

"""select_builtins: attach the target's implementation of each builtin call (the last pass).

A builtin the target does not implement is reported here, naming the builtin and the target,
before any source text is written. Signed int32/int64 arithmetic that is not ``no_wrap`` takes the
target's wrapping implementation (``wrapping``), when the target needs a different one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import ir
from ..errors import KernelTypeError
from ..types.scalars import is_scalar_type


@dataclass(frozen=True)
class SelectBuiltins:
    target: str
    table: dict = dataclasses.field(hash=False, compare=False, repr=False)
    wrapping: dict = dataclasses.field(default_factory=dict, hash=False, compare=False, repr=False)
    name: str = "select_builtins"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        return _Select(self, fn).function(fn)


def _wraps(e: ir.IRCall) -> bool:
    """Signed int32/int64 arithmetic that may overflow: scalars, and vectors and matrices added or
    shifted left elementwise."""
    scalar = is_scalar_type(e.type)
    dtype = e.type if scalar else getattr(e.type, "_dtype", None)
    if e.no_wrap or getattr(dtype, "__name__", None) not in ("int32", "int64"):
        return False
    return scalar or e.op in ("add", "sub", "neg", "lshift") and all(a.type == e.type for a in e.args)


class _Select(ir.Rewriter):
    def __init__(self, spec: SelectBuiltins, fn):
        self.target, self.table, self.wrapping, self.fn = spec.target, spec.table, spec.wrapping, fn

    def r_IRCall(self, e: ir.IRCall):
        impl = self.wrapping.get(e.op) if _wraps(e) else None
        impl = impl or self.table.get(e.op)
        if impl is None:
            raise KernelTypeError(f"{self.fn.label or self.fn.name}: builtin {e.op}() is not available on the "
                                  f"{self.target} target")
        return dataclasses.replace(e, args=[self.expr(a) for a in e.args], impl=impl)

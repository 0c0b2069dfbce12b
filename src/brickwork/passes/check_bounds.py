"""check_bounds (debug mode): every array element, atomic, pack-storage access and run-time component index
is bounds-checked.

The pass marks the accesses (``checked``); the target renders each as a test of every index
against its extent that, when one fails, records the access (its "file:line", the index and the
shape) and touches a dummy element instead of memory. After the launch the target raises
``BoundsError`` with the first record. It also enables the ``assert`` statements (typed disabled),
which abort the process when they fail. Release builds never run this pass.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import ir


@dataclass(frozen=True)
class CheckBounds:
    name: str = "check_bounds"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        return _Check().function(fn)


class _Check(ir.Rewriter):
    def r_IRArrayElem(self, e):
        return replace(self.copy(e), checked=True)

    def r_IRSubarray(self, e):
        return replace(self.copy(e), checked=True)

    def r_IRRawElem(self, e):
        out = self.copy(e)
        return replace(out, checked=bool(out.bounds))

    def r_IRCall(self, e):
        out = self.copy(e)
        if e.op == "component_index":  # v[i] with i computed at run time
            return replace(out, op="component_index_checked", checked=True)
        return replace(out, checked=True) if e.op.startswith("atomic_") else out

    def r_IRExpect(self, s):
        out = self.copy(s)
        return replace(out, enabled=True) if s.aborts else out

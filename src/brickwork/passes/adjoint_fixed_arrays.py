"""adjoint_fixed_arrays: fixed-size local arrays (``wp.zeros`` in a kernel) in a backward kernel.

Their elements live in the thread's frame, so the forward launch's values are gone when the backward
kernel runs: the replay stores (and applies atomics) into them again. As in Warp 1.19, no adjoint flows
through their elements (a value read from one is a constant to the reverse sweep), so the reverse sweep
skips their stores, reads and atomics.
"""

from __future__ import annotations

from .. import ir
from ..types.fixed_arrays import FixedArrayType
from .adjoint_normal_form import _path


class FixedStorage:
    """The locals that are, or are views of, fixed-size local arrays (part of the adjoint builder)."""

    def __init__(self):
        self.names: set = set()

    def holds(self, arr) -> bool:
        """True when array-typed ``arr`` is a fixed-size local array or a view of one."""
        if isinstance(arr.type, FixedArrayType):
            return True
        if isinstance(arr, ir.IRLocal):
            return arr.name in self.names
        if isinstance(arr, ir.IRSubarray):
            return self.holds(arr.array)
        if isinstance(arr, ir.IRCall) and arr.op == "array_slice":
            return self.holds(arr.args[0])
        return False

    def follow(self, target: ir.IRLocal, value) -> None:
        """``target = value``: the target is a view of fixed storage when the value is."""
        if self.holds(value):
            self.names.add(target.name)
        else:
            self.names.discard(target.name)

    def stores(self, s) -> bool:
        """True for a store or atomic into fixed storage (replayed, not reversed)."""
        call = s.expr if isinstance(s, ir.IRExprStmt) else s.value if isinstance(s, ir.IRAssign) else None
        if isinstance(call, ir.IRCall) and call.op.startswith("atomic_"):
            return self.holds(ir.atomic_parts(call)[0])
        if isinstance(s, ir.IRAssign) and not isinstance(s.target, ir.IRLocal):
            root = _path(s.target)[1]
            return isinstance(root, ir.IRArrayElem) and self.holds(root.array)
        return False

"""Two cells per trip of a team's loop over cells (``gpu_teams``): the loads of both in flight together.

A team's inner loop shares its cells out among the block's threads: thread t takes lo + t, lo + t + B, ...
(B = blockDim). Each trip of a short body loads its few values, waits for them, computes and stores, so a
warp has one cell's loads in flight at a time. ``cell_loop`` runs a short body for two cells per trip
instead, p and p + B, statement by statement (each statement for the first cell, then for the second): the
loads of both cells come before the first store, and a warp keeps twice the bytes in flight (as the plain
kernels' ``interleaved_points`` does for a launch's points). A thread with an odd count of cells runs its
last one alone after the pairs.

The threads of a team run its cells in no fixed order, so the two cells' statements interleaved are one of
the orders the loop already allows. Only a body whose cells are independent within the thread qualifies:
assignments, expression statements and branches (no loops, breaks, prints, asserts, atomics or local
arrays), where every local it assigns is assigned whole, at its top level, before the body reads it (so
no value passes from one cell to the next). The second cell uses the body's own locals and the first
cell copies of them, so after the loop they hold the thread's last cell, as they did.
"""

from __future__ import annotations

from .. import ir
from ..types.fixed_arrays import is_fixed_array_type
from ..types.scalars import int32
from .build import Locals, i32, op
from .gpu_grid import _assigned_root, _PointLocals, strided, thread

#: The largest body (IR nodes) run for two cells per trip: a short, memory-bound body gains the loads in
#: flight; a longer one has instructions enough between its loads, and its copies would take registers.
PAIR_NODES = 200
_STATEMENTS = (ir.IRAssign, ir.IRExprStmt, ir.IRIf)


def cell_loop(locals_: Locals, var: ir.IRLocal, lo, hi_incl, body: list) -> list:
    """``var`` over ``lo..hi_incl`` shared out among the block's threads, running ``body`` (as ``strided``),
    for two cells per trip where ``body`` qualifies (the module's docstring)."""
    if not pairs_allowed(var, body):
        return [strided(var, lo, hi_incl, body)]
    fn = locals_.fn
    block = ir.IRGpuDim("block", 0)
    assigned = sorted({n.target.name for n in ir.walk(body) if isinstance(n, ir.IRAssign)
                       and isinstance(n.target, ir.IRLocal)} | {var.name})
    names = {name: locals_.new(f"{name}_c0_", fn.locals[name]) for name in assigned}
    fn.index_ranges = dict(fn.index_ranges)  # the copies' entries are added: not into the typed kernel's
    for name, local in names.items():
        if name in fn.index_ranges:
            fn.index_ranges[local.name] = fn.index_ranges[name]
    first = _PointLocals(names).stmts(body)
    p = locals_.new("_la_p", int32)
    nxt = locals_.new("_la_n", int32)  # the thread's next cell after the pairs
    pair = [ir.IRAssign(names[var.name], p), ir.IRAssign(var, op("add", p, block))]
    second = _PointLocals({}).stmts(body)  # each statement once in the tree: the pairs and the tail copy it
    pair += [s for two in zip(first, second, strict=True) for s in two]
    pair.append(ir.IRAssign(nxt, op("add", p, op("mul", block, i32(2)))))
    return [ir.IRAssign(nxt, op("add", lo, thread())),
            ir.IRFor(p, nxt, op("sub", op("add", hi_incl, i32(1)), block), op("mul", block, i32(2)), pair, 1),
            ir.IRIf(op("le", nxt, hi_incl), [ir.IRAssign(var, nxt), *_PointLocals({}).stmts(body)], [])]


def pairs_allowed(var: ir.IRLocal, body: list) -> bool:
    """Whether ``body`` (one cell of a team loop over ``var``) may run for two cells per trip."""
    size = 0
    for node in ir.walk(body):
        size += 1
        if isinstance(node, ir.IRStmt) and not isinstance(node, _STATEMENTS):
            return False
        if isinstance(node, (ir.IRLocalArray, ir.IRAtomicAdd)) or \
                isinstance(node, ir.IRCall) and node.op.startswith("atomic"):
            return False
        if isinstance(node, ir.IRLocal) and is_fixed_array_type(node.type):
            return False
    if size > PAIR_NODES:
        return False
    roots = (_assigned_root(n.target) for n in ir.walk(body) if isinstance(n, ir.IRAssign))
    written = {r.name for r in roots if isinstance(r, ir.IRLocal)}  # whole or in part (a component, a field)
    defined = {var.name}
    for s in body:  # a local the body writes is first assigned whole, at the top level, before any use
        whole = isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal)
        used = {n.name for n in ir.walk(s.value if whole else s) if isinstance(n, ir.IRLocal)}
        if (used & written) - defined:
            return False
        if whole:
            defined.add(s.target.name)
    return True

"""Dead local values of a backward kernel, dropped before its C++ is written.

A backward kernel replays its forward code, and the reverse sweep of a loop replays each iteration again, so
both compute values that only the forward result needed: a linear tile operation's adjoint (tile_fft's
butterflies) reads its twiddles, never the elements the replay wrote into the pass buffers. g++ drops the
dead scalars, but not the loops that fill a local array nothing reads after them (the forward replay of
tile_fft's nine pass buffers: a third of its backward launch).

A mark-and-sweep over the function: the locals a statement with an effect reads (a store into a parameter
array, a condition, a loop bound, a tape push, a call, ...) are live, and so is whatever the assignment of a
live local reads; an assignment of a pure value to a local that is not live (or to an element of such a
local array) is removed. Functions with nodes outside the plain statement set (C++ text of a
``func_native``, loop abstractions, teams, ...) and debug builds (a read checked against its bounds is an
effect) are left as they are.
"""

from __future__ import annotations

from dataclasses import replace

from ... import ir
from ...types.fixed_arrays import FixedArrayType
from ...types.kernel_params import KEEP_PARAM

# builtins without effects whose value may be dropped (anything else is kept: atomics, random states, ...)
_PURE_OPS = frozenset({
    "add", "sub", "mul", "div", "mod", "neg", "pos", "ge", "gt", "le", "lt", "eq", "ne", "truth",
    "wrapping_add", "wrapping_sub", "wrapping_mul", "wrapping_neg", "bit_and", "bit_or", "bit_xor", "lshift",
    "rshift", "logical_and", "logical_or", "logical_not", "fixed_zeros", "fft_twiddle",
})
_PURE_EXPRS = (ir.IRCall, ir.IRConst, ir.IRLocal, ir.IRArrayElem, ir.IRComponent, ir.IRConstruct, ir.IRCast,
               ir.IRArrayShape, ir.IRField)
_PLAIN_STMTS = (ir.IRAssign, ir.IRBlock, ir.IRExprStmt, ir.IRIf, ir.IRFor, ir.IRWhile, ir.IRBreak, ir.IRContinue,
                ir.IRReturn, ir.IRPush, ir.IRAtomicAdd, ir.IRPrint)
_NESTED = ("body", "orelse")


def drop_dead_locals(fn: ir.IRFunction) -> ir.IRFunction:
    """``fn`` without the assignments whose values reach no effect (itself when none is found, when it is
    not a backward kernel whose loops save values, or when it has nodes this pass does not know)."""
    if all(name != KEEP_PARAM for name, _ in fn.params):
        return fn  # not a backward kernel (passes/adjoint.py gives each one this parameter): no tape push to find
    if not ir.contains(fn.body, ir.IRPush) or not _plain(fn.body):
        return fn
    params = {name for name, _ in fn.params}
    live, feeds = set(), {}
    for s in ir.walk(fn.body):
        if isinstance(s, ir.IRExpr):
            continue
        if _removable(s, fn, params):
            used = _names(s.value)
            if isinstance(s.target, ir.IRArrayElem):
                for index in s.target.indices:
                    used |= _names(index)
            feeds.setdefault(_target(s), set()).update(used)
            continue
        for name, value in vars(s).items():
            if name in _NESTED:
                continue
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, ir.IRExpr):
                    live |= _names(v)
    work = list(live)
    while work:
        for used in feeds.get(work.pop(), ()):
            if used not in live:
                live.add(used)
                work.append(used)
    dead = set(feeds) - live
    if not dead:
        return fn
    return replace(fn, body=_sweep(fn.body, fn, params, dead))


def _plain(body: list) -> bool:
    for n in ir.walk(body):
        if isinstance(n, ir.IRExpr):
            if getattr(n, "checked", False) or (isinstance(n, ir.IRCall) and n.op.endswith("_checked")):
                return False  # debug mode: a checked read reports its index
            continue
        if not isinstance(n, _PLAIN_STMTS):
            return False
    return True


def _names(e) -> set:
    return {n.name for n in ir.walk(e) if isinstance(n, ir.IRLocal)}


def _target(s) -> str | None:
    """The local an assignment writes: itself, or the local array whose element it stores."""
    t = s.target
    if isinstance(t, ir.IRLocal):
        return t.name
    if isinstance(t, ir.IRArrayElem) and isinstance(t.array, ir.IRLocal):
        return t.array.name
    return None


def _removable(s, fn: ir.IRFunction, params: set) -> bool:
    if not isinstance(s, ir.IRAssign):
        return False
    name = _target(s)
    if name is None or name in params or name not in fn.locals:
        return False
    if isinstance(s.target, ir.IRArrayElem) and not isinstance(fn.locals[name], FixedArrayType):
        return False  # a store through a local array view reaches memory
    return all(isinstance(n, _PURE_EXPRS) and (not isinstance(n, ir.IRCall) or n.op in _PURE_OPS)
               for n in ir.walk(s.value))


def _sweep(stmts: list, fn, params: set, dead: set) -> list:
    out = []
    for s in stmts:
        if _removable(s, fn, params) and _target(s) in dead:
            continue
        nested = {f: _sweep(getattr(s, f), fn, params, dead) for f in _NESTED if isinstance(getattr(s, f, None), list)}
        out.append(replace(s, **nested) if nested else s)
    return out

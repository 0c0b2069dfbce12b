"""Checks that an IR function is well formed; run after typing and after every pass in debug mode.

A failure is a brickwork bug (a pass broke an invariant), reported as ``IRVerifyError`` with the
pass that ran last and the offending node.
"""

from __future__ import annotations

import operator

from ..types.opaque import TEAM_MEMBER
from ..types.scalars import int64
from . import vocabulary as ir
from .printer import expr as show
from .walk import children, owned_fields


class IRVerifyError(AssertionError):
    """The IR broke an invariant (a compiler bug, never a user error)."""


_GPU_ONLY = (ir.IRGpuIndex, ir.IRGpuDim, ir.IRLaunchExtent, ir.IRSharedBuffer, ir.IRGpuArena)
_LA_ONLY = (ir.IRLAInner, ir.IRLAGetKJI, ir.IRLAScratch, ir.IRLAScratchElem, ir.IRLAScratchZero,
            ir.IRLAViewElem)


def verify(fn: ir.IRFunction, after: str = "typing", target_neutral: bool = True) -> None:
    """Raise ``IRVerifyError`` unless ``fn`` is consistent: every local declared with one type,
    assignments type-correct, regions exited from inside, barriers and loop-abstraction nodes only
    where a team or slice exists, builtin calls without a target implementation while neutral."""
    declared = dict(fn.params)
    declared.update(fn.locals)
    _Verifier(fn, declared, after, target_neutral).block(fn.body, regions=(), in_slice=False, in_inline=False)


class _Verifier:
    def __init__(self, fn, declared, after, neutral):
        self.fn, self.declared, self.after, self.neutral = fn, declared, after, neutral

    def fail(self, message, node):
        text = show(node) if isinstance(node, ir.IRExpr) else type(node).__name__
        raise IRVerifyError(f"IR of {self.fn.label or self.fn.name} after {self.after}: {message}: {text}")

    def block(self, stmts, regions, in_slice, in_inline):
        for s in stmts:
            self.stmt(s, regions, in_slice, in_inline)

    def stmt(self, s, regions, in_slice, in_inline):
        if not isinstance(s, ir.IRStmt):
            self.fail("a statement list holds a non-statement", s)
        if isinstance(s, ir.IRAssign):
            self.expr(s.target, in_slice)
            self.expr(s.value, in_slice)
            if s.target.type != s.value.type:
                self.fail(f"assignment of {s.value.type!r} to {s.target.type!r}", s.target)
        elif isinstance(s, ir.IRExitRegion):
            if s.name not in regions:
                self.fail(f"exit of region {s.name!r} outside it", s)
        elif isinstance(s, ir.IRTeamBarrier):
            if s.member is None and not in_slice:
                self.fail("a slice barrier outside an outer body", s)
            if s.member is not None and s.member.type is not TEAM_MEMBER:
                self.fail("a barrier of something that is not a team", s.member)
        elif isinstance(s, (_LA_ONLY + (ir.IRLAFold,))) and not in_slice:
            self.fail("a loop-abstraction construct outside an outer body", s)
        elif isinstance(s, ir.IRGpuBarrier) and not self.fn.is_kernel:
            self.fail("a block barrier outside a kernel", s)
        elif isinstance(s, ir.IRReturn) and s.value is not None and not in_inline:
            if s.value.type != self.fn.return_type:
                self.fail(f"return of {s.value.type!r} from a function returning {self.fn.return_type!r}", s.value)
        for child in _child_exprs(s):
            self.expr(child, in_slice)
        inner_regions = regions + ((s.name,) if isinstance(s, ir.IRRegion) else ())
        inner_slice = in_slice or isinstance(s, (ir.IRLAOuter, ir.IRSliceReduction))
        inner_inline = in_inline or isinstance(s, ir.IRInlineBody)
        for body in _child_blocks(s):
            self.block(body, inner_regions, inner_slice, inner_inline)

    def expr(self, root, in_slice):
        """Check ``root`` and every expression inside it (an explicit stack: the trees are deep
        and verification runs after every pass)."""
        checks = _EXPR_CHECKS
        stack = [root]
        push, expr, sequence = stack.append, ir.IRExpr, (list, tuple)
        while stack:
            e = stack.pop()
            cls = type(e)
            found = checks.get(cls)
            if found is None:
                found = checks[cls] = _expr_check(cls), _slots(cls)
            check, slots = found
            if check is not _no_check:
                check(self, e, in_slice)
            if slots is None:
                continue
            for value in slots(e):
                if isinstance(value, expr):
                    push(value)
                elif isinstance(value, sequence):
                    for item in value:
                        _push_exprs(item, stack)
                else:
                    _push_exprs(value, stack)

    # -- the checks of one expression class (``_expr_check`` picks one per class) --

    def check_non_expr(self, e, in_slice):
        self.fail("an expression slot holds a non-expression", e)

    def check_local(self, e, in_slice):
        known = self.declared.get(e.name)
        if known is None:
            self.fail("local used but never declared", e)
        if known != e.type:
            self.fail(f"local declared {known!r} but used as {e.type!r}", e)

    def check_call(self, e, in_slice):
        if self.neutral and e.impl is not None:
            self.fail("a builtin call carries a target implementation before select_builtins", e)

    def check_la_only(self, e, in_slice):
        if not in_slice:
            self.fail("a loop-abstraction construct outside an outer body", e)

    def check_gpu_only(self, e, in_slice):
        if not self.fn.is_kernel:
            self.fail("a GPU index, extent or buffer outside a kernel", e)
        elif isinstance(e, ir.IRGpuIndex) and (e.axis not in ("block", "thread") or e.dim not in (0, 1, 2)):
            self.fail("a GPU index of an unknown axis or dimension", e)
        elif isinstance(e, ir.IRGpuDim) and (e.axis not in ("grid", "block") or e.dim not in (0, 1, 2)):
            self.fail("a GPU extent of an unknown axis or dimension", e)
        elif isinstance(e, ir.IRSharedBuffer) and (e.count <= 0 or getattr(e.type, "ndim", 0) != 1):
            self.fail("a shared buffer without a positive count or not one-dimensional", e)
        elif isinstance(e, ir.IRGpuArena) and (e.type is not TEAM_MEMBER or e.size.type is not int64):
            self.fail("a GPU arena that is not a team arena of an int64 size", e)


def _no_check(verifier, e, in_slice):
    pass


#: Expression class -> (the check its nodes get (each class meets at most one of them), ``_slots``).
_EXPR_CHECKS: dict = {}


def _slots(cls):
    """A function giving the values of the child fields of a node of ``cls`` as a tuple (None: it has none), one
    call where a loop over the field names took a getattr per name for every expression of every check."""
    owned = owned_fields(cls)
    if not owned:
        return None
    get = operator.attrgetter(*owned)
    return get if len(owned) > 1 else lambda node: (get(node),)


def _expr_check(cls):
    if not issubclass(cls, ir.IRExpr):
        return _Verifier.check_non_expr
    if issubclass(cls, ir.IRLocal):
        return _Verifier.check_local
    if issubclass(cls, ir.IRCall):
        return _Verifier.check_call
    if issubclass(cls, _LA_ONLY):
        return _Verifier.check_la_only
    if issubclass(cls, _GPU_ONLY):
        return _Verifier.check_gpu_only
    return _no_check


def _push_exprs(value, stack) -> None:
    """Push the expressions that a child slot holding ``value`` contributes (a pack variable its
    offset, a view its pack and direction)."""
    if isinstance(value, ir.IRExpr):
        stack.append(value)
    elif isinstance(value, ir.PackVar):
        stack.append(value.offset)
    elif isinstance(value, ir.LAView):
        stack.append(value.pack)
        if value.direction is not None:
            stack.append(value.direction)


def _child_exprs(node) -> list:
    """The expressions directly inside ``node``, in field order (``_push_exprs`` of each child)."""
    out: list = []
    for c in children(node):
        _push_exprs(c, out)
    return out


def _child_blocks(s):
    for name in ("body", "orelse"):
        value = getattr(s, name, None)
        if isinstance(value, list):
            yield value

"""Exits as flags for the adjoint's normal form: ``break``, ``continue``, ``return`` and region exits become
boolean locals that guard the rest of their block (a loop keeps one ``if flag: break`` at the end of its body)."""

from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..types.scalars import bool_
from .adjoint_refusals import not_differentiable
from .build import Locals

TRUE = ir.IRConst(True, bool_)
FALSE = ir.IRConst(False, bool_)


class ExitsToFlags:
    """``break``, ``continue``, ``return`` and region exits become flags that guard what follows."""

    def __init__(self, locals_: Locals, label: str, result: ir.IRLocal | None = None):
        self.locals, self.label, self.result = locals_, label, result
        self.loops: list = []  # per enclosing loop: {"break": flag, "continue": flag}
        self.regions: dict = {}
        self.ret = None

    def function_body(self, body: list) -> list:
        out, _ = self.block(body)
        if self.ret is not None:
            out.insert(0, ir.IRAssign(self.ret, FALSE))
        return out

    def flag(self, prefix):
        return self.locals.new(prefix, bool_)

    def block(self, stmts: list) -> tuple[list, set]:
        out: list = []
        for n, s in enumerate(stmts):
            new, escapes = self.stmt(s)
            out.extend(new)
            if escapes:
                rest, more = self.block(stmts[n + 1:])
                if rest:
                    out.append(ir.IRIf(any_flag(escapes), [], rest))
                return out, escapes | more
        return out, set()

    def stmt(self, s) -> tuple[list, set]:
        if isinstance(s, ir.IRBreak):
            f = self._loop_flag("break")
            return [ir.IRAssign(f, TRUE)], {f.name}
        if isinstance(s, ir.IRContinue):
            f = self._loop_flag("continue")
            return [ir.IRAssign(f, TRUE)], {f.name}
        if isinstance(s, ir.IRReturn):
            if self.ret is None:
                self.ret = self.flag("_ad_ret")
            out = []
            if s.value is not None:
                if self.result is None:
                    raise not_differentiable(self.label, "a kernel returns a value")
                out.append(ir.IRAssign(self.result, s.value))
            return out + [ir.IRAssign(self.ret, TRUE)], {self.ret.name}
        if isinstance(s, ir.IRExitRegion):
            f = self.regions[s.name]
            return [ir.IRAssign(f, TRUE)], {f.name}
        if isinstance(s, ir.IRRegion):
            f = self.regions[s.name] = self.flag("_ad_exit")
            body, esc = self.block(s.body)
            return [ir.IRAssign(f, FALSE), *body], esc - {f.name}
        if isinstance(s, ir.IRIf):
            body, e1 = self.block(s.body)
            orelse, e2 = self.block(s.orelse)
            return [ir.IRIf(s.cond, body, orelse)], e1 | e2
        if isinstance(s, (ir.IRFor, ir.IRWhile)):
            return self.loop(s)
        if isinstance(s, ir.IRBlock):
            return self.block(s.body)
        if isinstance(s, (ir.IRLAOuter, ir.IRLAInner, ir.IRTeamLoop)):
            # a return in an outer body ends its slice, in an inner body (la.inner, par_for_inner) the
            # visit of its point: each body is a function body of its own
            return [replace(s, body=ExitsToFlags(self.locals, self.label).function_body(s.body))], set()
        return [s], set()

    def _loop_flag(self, kind):
        flags = self.loops[-1]
        if flags[kind] is None:
            flags[kind] = self.flag("_ad_brk" if kind == "break" else "_ad_cont")
        return flags[kind]

    def loop(self, s) -> tuple[list, set]:
        flags = {"break": None, "continue": None}
        self.loops.append(flags)
        body = list(s.body)
        if isinstance(s, ir.IRWhile):  # while c: B  ->  while True: (if not c: break); B
            body = [ir.IRIf(s.cond, [], [ir.IRBreak()]), *body]
        body, esc = self.block(body)
        self.loops.pop()
        cont, brk = flags["continue"], flags["break"]
        stops = esc - ({cont.name} if cont is not None else set())
        if cont is not None:
            body.insert(0, ir.IRAssign(cont, FALSE))
        if stops:
            body.append(ir.IRIf(any_flag(stops), [ir.IRBreak()], []))
        pre = [ir.IRAssign(brk, FALSE)] if brk is not None else []
        if isinstance(s, ir.IRWhile):
            new = ir.IRWhile(TRUE, body)
        else:
            new = ir.IRFor(s.var, s.start, s.stop, s.step, body, s.step_sign)
        outer = stops - ({brk.name} if brk is not None else set())
        return pre + [new], outer


def any_flag(names) -> ir.IRExpr:
    flags = [ir.IRLocal(n, bool_) for n in sorted(names)]
    cond = flags[0]
    for f in flags[1:]:
        cond = ir.IRCall("logical_or", [cond, f], bool_)
    return cond

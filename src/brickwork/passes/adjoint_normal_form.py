"""The form the adjoint pass differentiates: one flat, single-assignment body with structured exits.

``normal_form(fn)`` turns a typed kernel into statements of a few shapes only:

- ``x = op(atoms)``: one builtin call, cast, construction, read (array element, component, field,
  tuple item), ``tid()``, shape or copy, whose operands are constants or locals (*atoms*);
- ``x.path = atom`` on a fresh version of ``x``, and array stores ``a[i].path = atom``;
- ``IRIf(atom)``, ``IRFor`` over atoms, ``IRWhile(True)``; atomics as calls.

It inlines every ``@func`` call, makes ``break``/``continue``/``return`` and region exits into flags
that guard the rest of their block (a loop keeps one ``if flag: break`` at the end of its body), and
renames every assignment to a fresh local outside loops (single assignment: a branch's versions
meet in a merge local assigned on both sides). A loop's *carried* locals (those its body assigns)
get one header local each, read at the top of an iteration and updated at its end; ``LoopInfo``
lists them, so the adjoint pass saves exactly those per iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import ir
from ..builtins.adjoints import EXPANSIONS
from ..errors import KernelNotDifferentiableError
from ..ir.analysis import EFFECT_PREFIXES, REFERENCE_ARGUMENTS, reference_locals
from ..types.opaque import TupleType
from ..types.scalars import bool_, int32
from ..types.tiles import TileType
from .adjoint_dead_headers import drop_unread_headers
from .adjoint_values import carries_adjoint
from .adjoint_view_stores import ViewStores, is_forwarded_name
from .build import Locals
from .inline_local_functions import InlineLocalFunctions

_TRUE = ir.IRConst(True, bool_)
_FALSE = ir.IRConst(False, bool_)


@dataclass
class LoopInfo:
    """A loop of the normal form: its header locals, the statements that update them (the last of
    the body, before ``break_test``), and the trailing ``if flag: break`` (or None)."""

    headers: list = field(default_factory=list)
    updates: list = field(default_factory=list)
    break_test: object = None


@dataclass(eq=False)
class IRCustomAdjoint(ir.IRStmt):
    """A call of a ``@func`` with ``@func_grad``: ``forward`` computes ``result`` (not differentiated);
    the reverse sweep binds ``params`` to ``args`` and ``result_adjoints`` to the result's adjoint, runs
    ``grad`` and adds each of ``adjoints`` (``wp.adjoint[p]``) to its argument's adjoint."""

    forward: list
    grad: list
    args: list
    result: object
    params: list
    result_adjoints: list
    adjoints: list  # per parameter: its wp.adjoint local after the gradient function, or None
    adjoint_inits: list  # per parameter: the wp.adjoint local the gradient function starts from
    # @func_replay without @func_grad: the function's own body (normal form) and its result, replayed
    # and reversed in the reverse sweep (the replay only computes the result in the forward replay)
    original: list | None = None
    original_result: object = None
    # the function takes wp.ref parameters: ``result`` is (its own result, their final values), and the
    # gradient function takes the adjoint of the own result only
    own_result: bool = False


@dataclass
class NormalForm:
    fn: ir.IRFunction  # params as typed, locals of the normal form, flat body
    loops: dict  # id(loop statement) -> LoopInfo


def normal_form(fn: ir.IRFunction) -> NormalForm:
    fn = InlineLocalFunctions().run(fn)
    out_fn = ir.IRFunction(fn.name, list(fn.params), {}, [], fn.return_type, fn.is_kernel, fn.tid_dims,
                           label=fn.label)
    flat = _Flattener(out_fn, fn)
    body = _Exits(flat.locals, label=fn.label).function_body(fn.body)
    out_fn.body = drop_unread_headers(flat.block(body, {}), flat.loops)
    return NormalForm(out_fn, flat.loops)


_PACK_SUBSCRIPT = ("a pack subscript (pack[b, var, k, j, i] or pack.flux[...], as par_for and par_for_outer bodies "
                   "write them) has no adjoint; write the body with la.outer and la.make_pack_view / "
                   "la.make_flux_pack_view views, which differentiate")


def _not_differentiable(label: str, what: str) -> KernelNotDifferentiableError:
    return KernelNotDifferentiableError(f"kernel '{label}' cannot be differentiated: {what}")


def _check_slot_update(s: ir.IRAssign, label: str) -> None:
    """``a[i].x op= v``, a component or field of an array element updated in place, differentiates only for
    ``+=`` and ``-=`` of the builtins (the slot's adjoint passes through unchanged): another operator (``*=``,
    a user function named ``add``) needs the value the slot held, which the store overwrote before the
    backward kernel replays the statement (Warp refuses these too)."""
    path, root = _path(s.target)
    if not (s.updates and path and isinstance(root, ir.IRArrayElem) and carries_adjoint(s.value.type)):
        return
    value = s.value
    if isinstance(value, ir.IRCall) and value.op in ("add", "sub") and _same_place(value.args[0], s.target):
        return
    if not isinstance(value, (ir.IRCall, ir.IRFuncCall)):  # a wp.ref write-back: the callee's result
        return
    raise _not_differentiable(label, "Differentiable composite slot augmented assignments with this operator are "
                              "not supported with backward code generation enabled (the update needs the value "
                              "it overwrites). Write the result to a separate array, or use "
                              "enable_backward=False for forward-only code.")


def _same_place(a, b) -> bool:
    """Whether expressions ``a`` and ``b`` name the same place (the read and the store of ``x op= v``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ir.IRLocal):
        return a.name == b.name
    if isinstance(a, ir.IRConst):
        return a.value == b.value and a.type is b.type
    if isinstance(a, ir.IRArrayElem):
        return _same_place(a.array, b.array) and len(a.indices) == len(b.indices) and all(
            _same_place(x, y) for x, y in zip(a.indices, b.indices))
    if isinstance(a, ir.IRComponent):
        return _same_place(a.base, b.base) and len(a.indices) == len(b.indices) and all(
            _same_place(x, y) for x, y in zip(a.indices, b.indices))
    if isinstance(a, ir.IRField):
        return a.name == b.name and _same_place(a.base, b.base)
    if isinstance(a, ir.IRCall):  # a view made in place (``a[lo:hi:step][i].x += v``): the same pure call
        return (a.op == b.op and not a.op.startswith(EFFECT_PREFIXES) and len(a.args) == len(b.args)
                and all(_same_place(x, y) for x, y in zip(a.args, b.args)))
    return False


# -- exits -> flags ------------------------------------------------------------------------------------


class _Exits:
    """``break``, ``continue``, ``return`` and region exits become flags that guard what follows."""

    def __init__(self, locals_: Locals, label: str, result: ir.IRLocal | None = None):
        self.locals, self.label, self.result = locals_, label, result
        self.loops: list = []  # per enclosing loop: {"break": flag, "continue": flag}
        self.regions: dict = {}
        self.ret = None

    def function_body(self, body: list) -> list:
        out, _ = self.block(body)
        if self.ret is not None:
            out.insert(0, ir.IRAssign(self.ret, _FALSE))
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
                    out.append(ir.IRIf(_any(escapes), [], rest))
                return out, escapes | more
        return out, set()

    def stmt(self, s) -> tuple[list, set]:
        if isinstance(s, ir.IRBreak):
            f = self._loop_flag("break")
            return [ir.IRAssign(f, _TRUE)], {f.name}
        if isinstance(s, ir.IRContinue):
            f = self._loop_flag("continue")
            return [ir.IRAssign(f, _TRUE)], {f.name}
        if isinstance(s, ir.IRReturn):
            if self.ret is None:
                self.ret = self.flag("_ad_ret")
            out = []
            if s.value is not None:
                if self.result is None:
                    raise _not_differentiable(self.label, "a kernel returns a value")
                out.append(ir.IRAssign(self.result, s.value))
            return out + [ir.IRAssign(self.ret, _TRUE)], {self.ret.name}
        if isinstance(s, ir.IRExitRegion):
            f = self.regions[s.name]
            return [ir.IRAssign(f, _TRUE)], {f.name}
        if isinstance(s, ir.IRRegion):
            f = self.regions[s.name] = self.flag("_ad_exit")
            body, esc = self.block(s.body)
            return [ir.IRAssign(f, _FALSE), *body], esc - {f.name}
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
            return [replace(s, body=_Exits(self.locals, self.label).function_body(s.body))], set()
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
            body.insert(0, ir.IRAssign(cont, _FALSE))
        if stops:
            body.append(ir.IRIf(_any(stops), [ir.IRBreak()], []))
        pre = [ir.IRAssign(brk, _FALSE)] if brk is not None else []
        if isinstance(s, ir.IRWhile):
            new = ir.IRWhile(_TRUE, body)
        else:
            new = ir.IRFor(s.var, s.start, s.stop, s.step, body, s.step_sign)
        outer = stops - ({brk.name} if brk is not None else set())
        return pre + [new], outer


def _any(names) -> ir.IRExpr:
    flags = [ir.IRLocal(n, bool_) for n in sorted(names)]
    cond = flags[0]
    for f in flags[1:]:
        cond = ir.IRCall("logical_or", [cond, f], bool_)
    return cond


# -- flattening and single assignment ----------------------------------------------------------------


class _Flattener:
    def __init__(self, out_fn: ir.IRFunction, typed: ir.IRFunction):
        self.fn = out_fn
        self.typed = typed
        self.label = typed.label or typed.name
        self.locals = Locals(out_fn)
        self.types = dict(typed.locals)
        self.types.update(typed.params)
        self.loops: dict = {}
        self.inlined = 0
        # While an expansion is lowered: per enclosing branch, node id -> (node, its atom). An
        # expansion's value is a DAG (a node used twice is one object); each node gets one atom, not one
        # per use (svd3's and quat_from_matrix's backward kernels were many times their size).
        self.shared: list | None = None
        self.views = ViewStores(self.label)  # mesh-field reads after stores in the same launch
        # version name -> its parts, for a tuple holding tiles built from known parts (a @func's results, a
        # tile argument it changed in place): reading part k is that part's local, through which the tile's
        # adjoint flows (the tuple itself carries none)
        self.tuple_parts: dict = {}

    # -- names -----------------------------------------------------------------------------------
    def version(self, name: str, t) -> ir.IRLocal:
        return self.locals.new(f"{name}__", t)

    def keep(self, local: ir.IRLocal) -> None:
        """Declare ``local`` under its own name (bound by a loop-abstraction construct, never renamed)."""
        self.fn.locals[local.name] = local.type

    def read(self, e: ir.IRLocal, env: dict) -> ir.IRLocal:
        return env.get(e.name, e)

    # -- statements ------------------------------------------------------------------------------
    def block(self, stmts: list, env: dict) -> list:
        out: list = []
        for s in stmts:
            self.stmt(s, env, out)
        return out

    def stmt(self, s, env, out):
        if isinstance(s, ir.IRAssign):
            _check_slot_update(s, self.label)
            self.assign(s.target, s.value, env, out, s.updates)
        elif isinstance(s, ir.IRExprStmt):
            value = self.simple(s.expr, env, out)
            if value is not None and _has_effect(value):
                out.append(ir.IRExprStmt(value))
        elif isinstance(s, ir.IRIf):
            self.branch(s, env, out)
        elif isinstance(s, (ir.IRFor, ir.IRWhile)):
            self.loop(s, env, out)
        elif isinstance(s, ir.IRBreak):
            out.append(s)
        elif isinstance(s, ir.IRPrint):  # the backward kernel prints again, then the values' adjoints
            out.append(ir.IRPrint([self.print_part(p, env, out) for p in s.parts], s.sep, s.newline))
        elif isinstance(s, ir.IRExpect):
            pass  # the backward kernel does not check again
        elif isinstance(s, ir.IRLAOuter):
            self.keep(s.block)
            out.append(replace(s, body=self.block(s.body, dict(env))))
        elif isinstance(s, ir.IRLAInner):
            for p in s.params:
                self.keep(p)
            # the visits of an inner loop are independent: what one assigns is private to it
            visit = dict(env)
            with self.views.loop(s.body, True, visit):
                out.append(replace(s, body=self.block(s.body, visit)))
        elif isinstance(s, ir.IRLAScratch):
            self.keep(s.storage)
            out.append(s)
        elif isinstance(s, ir.IRLAScratchZero):
            out.append(s)
        elif isinstance(s, ir.IRTeamBarrier):
            out.append(ir.IRTeamBarrier(None if s.member is None else self.atom(s.member, env, out)))
        elif isinstance(s, ir.IRTeamLoop):
            self.team_loop(s, env, out)
        elif isinstance(s, ir.IRLAFold):
            out.append(ir.IRLAFold(self.atom(s.value, env, out)))
        else:
            raise _not_differentiable(self.label, f"{type(s).__name__[2:]} statements have no adjoint yet "
                                      "(the loop abstraction and mesh packs are differentiated only on the forward "
                                      "side for now)")

    def team_loop(self, s: ir.IRTeamLoop, env, out):
        """``par_for_inner``: like an inner loop of the loop abstraction, its iterations are independent and
        what one assigns is private to it."""
        member, lo, hi = (self.atom(x, env, out) for x in (s.member, s.lo, s.hi))
        if any(isinstance(n, ir.IRTeamScratch) for n in ir.walk(s.body)):
            raise _not_differentiable(self.label, "a team scratch pad allocated inside par_for_inner has no adjoint "
                                      "(allocate it in the par_for_outer body)")
        self.keep(s.var)
        visit = dict(env)
        with self.views.loop(s.body, True, visit):
            out.append(ir.IRTeamLoop(member, s.var, lo, hi, self.block(s.body, visit)))

    def assign(self, target, value, env, out, updates=False):
        if isinstance(target, ir.IRLocal):
            v = self.simple(value, env, out)
            new = self.version(target.name, target.type)
            out.append(ir.IRAssign(new, v))
            env[target.name] = new
            if isinstance(v, ir.IRConstruct) and holds_tiles(v.type):
                self.tuple_parts[new.name] = list(v.args)
            elif isinstance(v, ir.IRLocal) and v.name in self.tuple_parts:
                self.tuple_parts[new.name] = self.tuple_parts[v.name]
            return
        path, root = _path(target)
        if isinstance(root, ir.IRLocal):
            atom = self.atom(value, env, out)
            new = self.version(root.name, root.type)
            out.append(ir.IRAssign(new, self.read(root, env)))
            out.append(ir.IRAssign(self.rebuild(path, new, env, out), atom))
            env[root.name] = new
            return
        if isinstance(root, ir.IRArrayElem):
            atom = self.atom(value, env, out)
            arr = self.atom(root.array, env, out)
            idx = [self.atom(i, env, out) for i in root.indices]
            base = ir.IRArrayElem(arr, idx, root.type, root.where)
            out.append(ir.IRAssign(self.rebuild(path, base, env, out), atom, updates))
            return
        if isinstance(root, (ir.IRLAScratchElem, ir.IRLAViewElem)):
            atom = self.atom(value, env, out)
            base = self.scratch_elem(root, env, out) if isinstance(root, ir.IRLAScratchElem) else self.view_elem(
                root, env, out)
            out.append(ir.IRAssign(self.rebuild(path, base, env, out), atom))
            if isinstance(root, ir.IRLAViewElem):
                self.views.stored(root, base, atom, not path, env)
            return
        if isinstance(root, ir.IRPackElem):
            raise _not_differentiable(self.label, _PACK_SUBSCRIPT)
        raise _not_differentiable(self.label, f"stores into {type(root).__name__[2:]} have no adjoint yet")

    def rebuild(self, path, base, env, out):
        for node in path:
            if isinstance(node, ir.IRComponent):
                base = ir.IRComponent(base, [self.atom(i, env, out) for i in node.indices], node.type)
            elif isinstance(node, ir.IRField):
                base = ir.IRField(base, node.name, node.type)
            else:
                base = ir.IRTupleGet(base, node.index, node.type)
        return base

    def branch(self, s: ir.IRIf, env, out):
        cond = self.atom(s.cond, env, out)
        env_a, env_b = dict(env), dict(env)
        body = self.block(s.body, env_a)
        orelse = self.block(s.orelse, env_b)
        ViewStores.merge_branches(env, env_a, env_b)
        for name in sorted(n for n in set(env_a) | set(env_b) if not is_forwarded_name(n)):
            a, b = env_a.get(name), env_b.get(name)
            if a is b:
                continue
            t = (a or b).type
            merged = self.version(name, t)
            if a is not None:
                body.append(ir.IRAssign(merged, a))
            if b is not None:
                orelse.append(ir.IRAssign(merged, b))
            env[name] = merged
            self.merge_tuple_parts(merged, (a, body), (b, orelse))
        out.append(ir.IRIf(cond, body, orelse))

    def merge_tuple_parts(self, merged: ir.IRLocal, *sides) -> None:
        """The parts of a tuple of tiles that the branches (``(value, statements)`` each; a value of None: not
        assigned on that side, where the merged tuple is never read) built from parts: merged part by part."""
        parts = [self.tuple_parts.get(v.name) if v is not None else () for v, _ in sides]
        if any(p is None for p in parts) or not any(parts):
            return
        merged_parts = [self.version(f"{merged.name}{k}_", pt.type) for k, pt in enumerate(next(p for p in parts if p))]
        for side, (_, stmts) in zip(parts, sides):
            stmts.extend(ir.IRAssign(m, pt) for m, pt in zip(merged_parts, side))
        self.tuple_parts[merged.name] = merged_parts

    def loop(self, s, env, out):
        if any(isinstance(n, ir.IRTeamScratch) for n in ir.walk(s.body)):
            # each iteration would take a new pad from the team's arena: the reverse sweep would need the
            # pads of every iteration at once
            raise _not_differentiable(self.label, "a team scratch pad allocated inside a loop has no adjoint "
                                      "(allocate it once, before the loop)")
        if isinstance(s, ir.IRFor):
            start, stop, step = (self.atom(x, env, out) for x in (s.start, s.stop, s.step))
            var = self.version(s.var.name, s.var.type)
        info = LoopInfo()
        body_env = dict(env)
        carried = []  # (original name, header local)
        for name in sorted(_assigned(s.body)):
            t = self.type_of(name, env)
            if t is None:
                continue
            header = self.locals.new(f"{name}__L", t)
            carried.append((name, header))
            info.headers.append(header)
            if name in env or any(name == p for p, _ in self.fn.params):
                out.append(ir.IRAssign(header, self.read(ir.IRLocal(name, t), env)))
            body_env[name] = header
        stmts = list(s.body)
        test = stmts.pop() if stmts and _is_break_test(stmts[-1]) else None
        if isinstance(s, ir.IRFor):
            body_env[s.var.name] = var
        with self.views.loop(s.body, False, body_env):
            body = self.block(stmts, body_env)
        for name, header in carried:
            final = body_env.get(name)
            if final is not None and final is not header:
                update = ir.IRAssign(header, final)
                info.updates.append(update)
                body.append(update)
        if test is not None:
            flag = self.atom(test.cond, body_env, body)
            info.break_test = ir.IRIf(flag, [ir.IRBreak()], [])
            body.append(info.break_test)
        for name, header in carried:
            env[name] = header
        if isinstance(s, ir.IRFor):
            env[s.var.name] = var
            new = ir.IRFor(var, start, stop, step, body, s.step_sign)
        else:
            new = ir.IRWhile(_TRUE, body)
        self.loops[id(new)] = info
        out.append(new)

    def type_of(self, name, env):
        if name in env:
            return env[name].type
        return self.types.get(name) or self.fn.locals.get(name)

    # -- expressions -----------------------------------------------------------------------------
    def atom(self, e, env, out):
        if isinstance(e, ir.IRConst):
            return e
        if isinstance(e, ir.IRLocal):
            return self.read(e, env)
        shared = self.shared
        if shared is not None:
            for scope in reversed(shared):
                found = scope.get(id(e))
                if found is not None:
                    return found[1]
        v = self.simple(e, env, out)
        t = self.locals.new("_ad_t", v.type)
        out.append(ir.IRAssign(t, v))
        if shared is not None:
            shared[-1][id(e)] = (e, t)  # the node is kept alive with it, so its id is not reused
        return t

    def simple(self, e, env, out):
        """``e`` as one operation over atoms (or an atom)."""
        if isinstance(e, (ir.IRConst, ir.IRLocal)):
            return self.atom(e, env, out)
        if isinstance(e, ir.IRCall):
            args = [self.atom(a, env, out) for a in e.args]
            for i in REFERENCE_ARGUMENTS.get(e.op, ()):
                if isinstance(e.args[i], ir.IRLocal):
                    # the call writes this local: it advances a fresh version, copied from the current one, so
                    # that a replay from the saved versions (a loop's headers) draws the same values again
                    new = self.version(e.args[i].name, e.args[i].type)
                    out.append(ir.IRAssign(new, args[i]))
                    env[e.args[i].name] = args[i] = new
            expand = EXPANSIONS.get(e.op)
            if expand is not None:  # differentiated through its definition in simpler builtins
                from .adjoint import E

                value = expand(E, args)
                if value is not None:
                    if value.type is not e.type:
                        raise AssertionError(f"expansion of {e.op}: {value.type!r} for {e.type!r}")
                    outer, self.shared = self.shared, [{}]
                    try:
                        return self.simple(value, env, out)
                    finally:
                        self.shared = outer
            return ir.IRCall(e.op, args, e.type, where=e.where)
        if isinstance(e, ir.IRFuncCall):
            return self.inline(e, env, out)
        if isinstance(e, ir.IRCast):
            return ir.IRCast(self.atom(e.arg, env, out), e.type)
        if isinstance(e, ir.IRConstruct):
            return ir.IRConstruct([None if a is None else self.atom(a, env, out) for a in e.args], e.type)
        if isinstance(e, ir.IRArrayElem):
            return ir.IRArrayElem(self.atom(e.array, env, out), [self.atom(i, env, out) for i in e.indices], e.type,
                                  e.where)
        if isinstance(e, ir.IRSubarray):
            return ir.IRSubarray(self.atom(e.array, env, out), [self.atom(i, env, out) for i in e.indices], e.type,
                                 e.where)
        if isinstance(e, ir.IRArrayShape):
            return ir.IRArrayShape(self.atom(e.array, env, out), e.dim, e.type)
        if isinstance(e, ir.IRComponent):
            return ir.IRComponent(self.atom(e.base, env, out), [self.atom(i, env, out) for i in e.indices], e.type)
        if isinstance(e, ir.IRField):
            return ir.IRField(self.atom(e.base, env, out), e.name, e.type)
        if isinstance(e, ir.IRTupleGet):
            base = self.atom(e.base, env, out)
            parts = self.tuple_parts.get(base.name) if isinstance(base, ir.IRLocal) else None
            return ir.IRTupleGet(base, e.index, e.type) if parts is None else parts[e.index]
        if isinstance(e, ir.IRTid):
            return e
        if isinstance(e, ir.IRTeamBegin):
            return ir.IRTeamBegin(self.atom(e.arena_bytes, env, out), e.type)
        if isinstance(e, ir.IRTeamScratch):
            return ir.IRTeamScratch(self.atom(e.member, env, out), [self.atom(n, env, out) for n in e.sizes], e.type)
        if isinstance(e, ir.IRLAScratchElem):
            return self.scratch_elem(e, env, out)
        if isinstance(e, ir.IRLAViewElem):
            elem = self.view_elem(e, env, out)
            forwarded = self.views.read(e, elem, env)  # the value the body stored there, or None: a load
            return elem if forwarded is None else forwarded
        if isinstance(e, ir.IRLAGetKJI):
            return ir.IRLAGetKJI(self.atom(e.index, env, out), e.type)
        if isinstance(e, ir.IRSelect):  # a conditional expression: only the taken side runs
            cond = self.atom(e.cond, env, out)
            result = self.locals.new("_ad_sel", e.type)
            yes, no = [], []
            for side, branch in ((e.if_true, yes), (e.if_false, no)):
                if self.shared is not None:
                    self.shared.append({})  # what a branch computes is not there after it
                try:
                    branch.append(ir.IRAssign(result, self.atom(side, env, branch)))
                finally:
                    if self.shared is not None:
                        self.shared.pop()
            out.append(ir.IRIf(cond, yes, no))
            return result
        if isinstance(e, ir.IRPackElem):
            raise _not_differentiable(self.label, _PACK_SUBSCRIPT)
        raise _not_differentiable(self.label, f"{type(e).__name__[2:]} expressions have no adjoint yet")

    def print_part(self, part, env, out):
        """A printed value as an atom, or a component of one (its adjoint is that component of the atom's)."""
        if isinstance(part, str):
            return part
        if isinstance(part, ir.IRComponent) and all(isinstance(i, ir.IRConst) for i in part.indices):
            return ir.IRComponent(self.atom(part.base, env, out), part.indices, part.type)
        return self.atom(part, env, out)

    def scratch_elem(self, e: ir.IRLAScratchElem, env, out) -> ir.IRLAScratchElem:
        return ir.IRLAScratchElem(e.storage, [self.atom(c, env, out) for c in e.comps],
                                  [self.atom(p, env, out) for p in e.point], e.type, e.where)

    def view_elem(self, e: ir.IRLAViewElem, env, out) -> ir.IRLAViewElem:
        v = e.view
        view = replace(v, pack=self.atom(v.pack, env, out),
                       direction=None if v.direction is None else self.atom(v.direction, env, out))
        var = ir.PackVar(e.var.position, self.atom(e.var.offset, env, out))
        return ir.IRLAViewElem(view, var, e.element, [self.atom(p, env, out) for p in e.point], e.type, e.where)

    def inline(self, call: ir.IRFuncCall, env, out):
        """A ``@func`` call: its body (its ``@func_replay`` if any), with fresh names, returns as flags;
        the result local. With a ``@func_grad`` the call becomes an ``IRCustomAdjoint``."""
        callee = call.func
        args = [self.atom(a, env, out) for a in call.args]
        if callee.body and isinstance(callee.body[0], ir.IRNative):  # wp.func_native: called, never inlined
            native = callee.custom_replay or callee  # its replay snippet, if any, is what the backward runs
            if callee.return_type is None:
                out.append(ir.IRExprStmt(ir.IRFuncCall(native, args, None)))
                return None
            result = self.locals.new(self.next_prefix(callee) + "ret", callee.return_type)
            self.types[result.name] = result.type
            out.append(ir.IRAssign(result, ir.IRFuncCall(native, args, callee.return_type)))
            return result
        body_fn = callee.custom_replay or callee
        if callee.custom_grad is None and callee.custom_replay is None:
            return self.inline_body(body_fn, args, env, out)
        forward: list = []
        result = self.inline_body(body_fn, args, env, forward)
        if callee.custom_grad is None:  # replay only: the reverse sweep differentiates the body itself
            original: list = []
            original_result = self.inline_body(callee, args, dict(env), original)
            out.append(IRCustomAdjoint(forward, [], args, result, [], [], [], [], original, original_result))
            return result
        grad_fn = callee.custom_grad
        n = len(callee.params)
        own_result = callee.reference_result is not None
        if own_result:
            params_of = dict(callee.params)
            written = [p for p in callee.reference_result[1] if carries_adjoint(params_of[p])]
            if written:
                raise _not_differentiable(self.label, f"{callee.label} has a custom gradient (@func_grad) and stores "
                                          f"into wp.ref parameters ({', '.join(written)}) whose gradient it cannot "
                                          f"give; pass those values and return them instead, or launch the kernel "
                                          f"with enable_backward=False")
        grad_out: list = []
        prefix = self.next_prefix(grad_fn)
        rename = self.declare_renamed(grad_fn, prefix)
        grad_env = dict(env)
        params = [rename[pn] for pn, _ in grad_fn.params]
        for p in params:
            grad_env[p.name] = p
        body = _Renamer(rename).stmts(InlineLocalFunctions().run(grad_fn).body)
        structured = _Exits(self.locals, self.label, None).function_body(body)
        grad_out.extend(self.block(structured, grad_env))
        inits = [rename.get(f"_adjoint_{pn}") for pn, _ in grad_fn.params[:n]]
        adjoints = [grad_env.get(a.name, a) if a is not None else None for a in inits]
        out.append(IRCustomAdjoint(forward, grad_out, args, result, params[:n], params[n:], adjoints, inits,
                                   own_result=own_result))
        return result

    def next_prefix(self, callee) -> str:
        self.inlined += 1
        return f"_f{self.inlined}_{callee.name[:24]}_"

    def declare_renamed(self, callee, prefix) -> dict:
        rename = {n: ir.IRLocal(prefix + n, t) for n, t in [*callee.params, *callee.locals.items()]}
        for n, t in [*callee.params, *callee.locals.items()]:
            self.fn.locals[prefix + n] = t
            self.types[prefix + n] = t
        return rename

    def inline_body(self, callee, args, env, out):
        prefix = self.next_prefix(callee)
        rename = self.declare_renamed(callee, prefix)
        body = _Renamer(rename).stmts(InlineLocalFunctions().run(callee).body)
        result = self.locals.new(prefix + "ret", callee.return_type) if callee.return_type is not None else None
        structured = _Exits(self.locals, self.label, result).function_body(body)
        callee_env = dict(env)
        for (n, _), a in zip(callee.params, args):
            p = rename[n]
            out.append(ir.IRAssign(p, a))
            callee_env[p.name] = p
        if result is not None:
            self.types[result.name] = result.type
        out.extend(self.block(structured, callee_env))
        env.update(callee_env)  # a callee assigns only its own (renamed) locals and flags
        if result is None:
            return None
        return env.get(result.name, result)


class _Renamer(ir.Rewriter):
    def __init__(self, rename: dict):
        self.rename = rename

    def r_IRLocal(self, e):
        return self.rename.get(e.name, ir.IRLocal(e.name, e.type))


def holds_tiles(t) -> bool:
    """Whether ``t`` is a tuple with a tile among its items."""
    return isinstance(t, TupleType) and any(isinstance(et, TileType) for et in t.types)


def _path(target):
    """(components/fields from the root outwards, root) of an assignment target."""
    path = []
    while isinstance(target, (ir.IRComponent, ir.IRField, ir.IRTupleGet)):
        path.append(target)
        target = target.base
    return list(reversed(path)), target


def _assigned(stmts) -> set:
    names = set()
    for n in ir.walk(stmts):
        if isinstance(n, ir.IRAssign):
            _, root = _path(n.target)
            if isinstance(root, ir.IRLocal):
                names.add(root.name)
        elif isinstance(n, ir.IRFor):
            names.add(n.var.name)
        elif isinstance(n, ir.IRCall):
            names.update(local.name for local in reference_locals(n))
    return names


def _is_break_test(s) -> bool:
    return isinstance(s, ir.IRIf) and len(s.body) == 1 and isinstance(s.body[0], ir.IRBreak) and not s.orelse


def _has_effect(e) -> bool:
    """Whether a call made as a statement must stay: an atomic, or a builtin that writes a local."""
    return isinstance(e, ir.IRCall) and (e.op.startswith("atomic_") or e.op in REFERENCE_ARGUMENTS)


_ = int32

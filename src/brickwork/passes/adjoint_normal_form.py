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
from ..ir.analysis import REFERENCE_ARGUMENTS, reference_locals
from ..types.opaque import TupleType
from ..types.scalars import int32
from ..types.tiles import TileType
from .adjoint_dead_headers import drop_unread_headers
from .adjoint_exits import TRUE, ExitsToFlags
from .adjoint_inline import FunctionInlining
from .adjoint_refusals import check_slot_update, not_differentiable
from .adjoint_values import access_path
from .adjoint_view_stores import ViewStores, is_forwarded_name
from .build import Locals
from .inline_local_functions import InlineLocalFunctions


@dataclass
class LoopInfo:
    """A loop of the normal form: its header locals, the statements that update them (the last of
    the body, before ``break_test``), and the trailing ``if flag: break`` (or None)."""

    headers: list = field(default_factory=list)
    updates: list = field(default_factory=list)
    break_test: object = None


@dataclass
class NormalForm:
    fn: ir.IRFunction  # params as typed, locals of the normal form, flat body
    loops: dict  # id(loop statement) -> LoopInfo


def normal_form(fn: ir.IRFunction) -> NormalForm:
    fn = InlineLocalFunctions().run(fn)
    out_fn = ir.IRFunction(fn.name, list(fn.params), {}, [], fn.return_type, fn.is_kernel, fn.tid_dims,
                           label=fn.label)
    flat = _Flattener(out_fn, fn)
    body = ExitsToFlags(flat.locals, label=fn.label).function_body(fn.body)
    out_fn.body = drop_unread_headers(flat.block(body, {}), flat.loops)
    return NormalForm(out_fn, flat.loops)


# -- flattening and single assignment ----------------------------------------------------------------


class _Flattener(FunctionInlining):
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
            check_slot_update(s, self.label)
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
            raise not_differentiable(self.label, f"{type(s).__name__[2:]} statements have no adjoint yet "
                                      "(the loop abstraction and mesh packs are differentiated only on the forward "
                                      "side for now)")

    def team_loop(self, s: ir.IRTeamLoop, env, out):
        """``par_for_inner``: like an inner loop of the loop abstraction, its iterations are independent and
        what one assigns is private to it."""
        member, lo, hi = (self.atom(x, env, out) for x in (s.member, s.lo, s.hi))
        if any(isinstance(n, ir.IRTeamScratch) for n in ir.walk(s.body)):
            raise not_differentiable(self.label, "a team scratch pad allocated inside par_for_inner has no adjoint "
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
        path, root = access_path(target)
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
            atom = self.atom(value, env, out)
            base = self.pack_elem(root, env, out)
            out.append(ir.IRAssign(self.rebuild(path, base, env, out), atom))
            self.views.stored(root, base, atom, not path, env)
            return
        raise not_differentiable(self.label, f"stores into {type(root).__name__[2:]} have no adjoint yet")

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
            raise not_differentiable(self.label, "a team scratch pad allocated inside a loop has no adjoint "
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
            new = ir.IRWhile(TRUE, body)
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
                from .adjoint_values import E

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
            elem = self.pack_elem(e, env, out)
            forwarded = self.views.read(e, elem, env)  # as for views
            return elem if forwarded is None else forwarded
        raise not_differentiable(self.label, f"{type(e).__name__[2:]} expressions have no adjoint yet")

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

    def pack_elem(self, e: ir.IRPackElem, env, out) -> ir.IRPackElem:
        """A pack subscript (``par_for`` bodies) with its pack, block, variable, flux direction and cell as atoms."""
        def atom(x):
            return None if x is None else self.atom(x, env, out)
        kji = None if e.kji is None else [atom(x) for x in e.kji]
        return ir.IRPackElem(atom(e.pack), atom(e.block), ir.PackVar(e.var.position, atom(e.var.offset)), e.element,
                             atom(e.flux_dir), kji, atom(e.memory), e.type, e.where)


def holds_tiles(t) -> bool:
    """Whether ``t`` is a tuple with a tile among its items."""
    return isinstance(t, TupleType) and any(isinstance(et, TileType) for et in t.types)


def _assigned(stmts) -> set:
    names = set()
    for n in ir.walk(stmts):
        if isinstance(n, ir.IRAssign):
            _, root = access_path(n.target)
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

"""adjoint: the backward kernel of a typed kernel (reverse-mode automatic differentiation).

``adjoint_kernel(fn)`` returns a kernel that takes the original parameters, then one adjoint array
per array parameter (``adj_<name>``; an empty array stands for "no gradient wanted"). Its body is:

1. the forward replay of the normal form (``adjoint_normal_form``) without writing arrays (the
   forward launch already did; an atomic's result is read back instead), saving each top-level
   loop's carried values at the top of every iteration and its trip count at the end;
2. the reverse sweep: statements in reverse order, each sending the adjoint of what it assigns to
   its operands with the builtin's rule (``builtins/adjoints.py``); an array read becomes an atomic
   add into the adjoint array, a store a read of it. A loop runs its iterations backwards: it restores
   the iteration's carried values, replays the iteration (which saves its inner loops), then
   reverses it. Loop-free code saves nothing.

Adjoint locals are zero at the start and set back to zero once their statement is reversed, so an
iteration's temporaries start from zero in every reversed iteration. The pass runs on typed,
target-neutral IR, before any target pass, so every target differentiates the same way.

This module holds the entry point, the builder's state, the adjoints' storage and the reverse sweep of
plain statements; the builder's other parts have a module each: ``adjoint_operations`` (the reverse of
one assigned value: builtin calls by their rules, native calls, reads of arrays, atomics),
``adjoint_replay`` (the forward replay), ``adjoint_teams`` (teams of threads: ``par_for_outer`` teams
and their scratch, a GPU slice's values summed over its threads), ``adjoint_loop_abstraction`` (slices,
visits, folds), ``adjoint_rows`` (the row analysis behind ``scatter_radius``), ``adjoint_tiles``
(adjoints through the elements of tiles, and which tiles a loop saves) and ``adjoint_values`` (zeros,
the rules' builder ``E``, which types carry an adjoint).
"""

from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..types.arrays import ArrayType
from ..types.kernel_params import KEEP_BITS, KEEP_PARAM, has_adjoint_param, has_adjoint_value, is_pack_type
from ..types.scalars import bool_, int32, int64, uint64
from ..types.structs import has_array_fields
from .adjoint_activity import inactive_locals, reverses_nothing
from .adjoint_fixed_arrays import FixedStorage
from .adjoint_inline import IRCustomAdjoint
from .adjoint_loop_abstraction import LoopAbstractionAdjoints
from .adjoint_normal_form import LoopInfo, normal_form
from .adjoint_operations import OperationAdjoints
from .adjoint_replay import ForwardReplay, writes_locals
from .adjoint_rows import RowOffsets, row_offsets
from .adjoint_teams import TeamAdjoints, assigned_outside_visits
from .adjoint_tiles import TileAdjoints, tile_with_adjoint, unread_tile_stores
from .adjoint_values import (
    access_path,
    carries_adjoint,
    part_of,
    rebase,
    summable_parts,
    zero,
)
from .adjoint_wrap import periodic_interior
from .build import Locals, i32, op


def adjoint_param_name(name: str) -> str:
    return f"adj_{name}"


def adjoint_kernel(fn: ir.IRFunction, phased_rows: bool = True) -> ir.IRFunction:
    """The backward kernel of the typed kernel ``fn`` (its callees are inlined). ``phased_rows``: the
    target can run the first grid dimension in phases (``scatter_radius``), so scatters near tid(0)
    may be plain adds; otherwise every scatter is atomic."""
    nf = normal_form(fn)
    rows = row_offsets(nf.fn)
    if not phased_rows or ir.contains(nf.fn.body, ir.IRTeamBegin):  # teams: a grid point is a team, not a row
        rows.radius = None
    elif rows.radius is None and nf.fn.is_kernel:
        split = _periodic_split(nf)
        if split is not None:
            return split
    return _Adjoint(nf.fn, nf.loops, rows, team_threads=not phased_rows).build()


def _periodic_split(nf) -> ir.IRFunction | None:
    """A backward kernel whose wrapped (``%``) indices are row offsets inside a box of the launch
    (``adjoint_wrap``): the box runs a version with phased plain adds that assumes every adjoint
    array it uses was passed; the other points run the original version, with atomic adds, after
    the box's (``IRInteriorSplit``; the CPU target's ``_phased_split_loops``)."""
    if any(isinstance(n, ir.IRLAOuter) for n in ir.walk(nf.fn.body)):
        return None
    box = periodic_interior(nf.fn)
    if box is None:
        return None
    inner_fn = replace(nf.fn, body=box.body)  # shares the locals: both versions declare theirs in one table
    inner_rows = row_offsets(inner_fn)
    if inner_rows.radius is None:
        return None
    inner = _Adjoint(inner_fn, nf.loops, inner_rows, assume_grads=True)
    interior = inner.build()
    rows = row_offsets(nf.fn)
    rows.radius = None
    boundary = _Adjoint(nf.fn, nf.loops, rows).build()
    upper = list(box.upper)
    if inner.assumed:  # an empty box unless every adjoint array the interior assumes was passed
        passed = [ir.IRCall("gt", [ir.IRArrayShape(a, 0, int32), i32(0)], bool_) for a in inner.assumed.values()]
        cond = passed[0]
        for p in passed[1:]:
            cond = ir.IRCall("logical_and", [cond, p], bool_)
        whole = ir.IRSelect(cond, ir.IRConst(2**31, int64), ir.IRConst(0, int64), int64)
        upper[0] = whole if upper[0] is None else op("min", upper[0], whole)
    # the replay's first statements, the same in both versions, run before the split: their locals keep
    # one assignment each (prove_no_overflow's intervals of tid() and of the indices built from it)
    p = 0
    while p < min(len(interior.body), len(boundary.body)) and interior.body[p] is boundary.body[p]:
        p += 1
    copy = ir.Rewriter()
    split = ir.IRInteriorSplit(box.lower, upper, copy.stmts(interior.body[p:]), copy.stmts(boundary.body[p:]))
    return replace(interior, body=copy.stmts(interior.body[:p]) + [split], scatter_radius=inner_rows.radius,
                   simd_innermost=inner_rows.simd)


class _Adjoint(OperationAdjoints, ForwardReplay, TeamAdjoints, LoopAbstractionAdjoints, TileAdjoints):
    """Builds the backward kernel of one normal form: its state, the adjoints' storage and the reverse
    sweep; the reverse of values, the replay, teams and the loop abstraction are its parts in
    ``adjoint_operations``, ``adjoint_replay``, ``adjoint_teams`` and ``adjoint_loop_abstraction``."""

    def __init__(self, fn: ir.IRFunction, loops: dict, rows: RowOffsets, team_threads: bool = False,
                 assume_grads: bool = False):
        self.fn = fn
        self.replaying_custom = 0  # inside a @func_replay'd function's own body (see r_custom / forward_assign)
        self.assume_grads = assume_grads
        self.assumed: dict = {}  # adjoint array parameters whose test ``has_grad`` left out -> the parameter
        # a slice of a hierarchical tag is a team of threads (GPU targets): the outer body's locals are
        # per thread, so their adjoints cannot gather what every thread's visits contribute
        self.team_threads = team_threads
        self.slice_locals: set = set()  # locals of the outer body being reversed (outside inner loops)
        # slice local -> the per-slice scratch its visits' adjoints are summed in (team threads), and the
        # ones the inner loop being reversed added into
        self.slice_sums: dict = {}
        self.summed: set = set()
        self.in_visit = False
        self.loops = loops
        self.rows = rows
        self.locals = Locals(fn)
        self.label = fn.label or fn.name
        self.adj: dict = {}  # local name -> its adjoint local
        self.adj_arrays: dict = {}  # array param name -> adjoint array param
        self.adj_scratch: dict = {}  # per-point scratch storage name -> its adjoint scratch's storage
        self.params = list(fn.params)
        self.adj_packs: dict = {}  # pack param name -> the pack over its fields' gradients
        self.slice_loop = None  # the loop tag of the outer body being reversed
        self.reducer, self.la_block = None, None  # and its reducer (outer_reduce) and block index
        self.grad_structs: dict = {}  # struct local or param holding arrays -> the struct of their gradients
        self.team_member = None  # the team of a par_for_outer body (its member local)
        self.team_scratch: set = set()  # locals holding a team scratch pad (their adjoint pads: adj_arrays)
        self.adj_values: dict = {}  # scalar or composite param name -> its adjoint value parameter
        self.replay_prints = True  # whether the replay being built prints (not in a reversed iteration's)
        # fixed-size local arrays and tiles: replayed, with an adjoint array each (adjoint_tiles)
        self.fixed = FixedStorage()
        self.tile_copies: dict = {}  # id(loop) -> (tile, copy) of the tiles it copies at its start
        self.inactive = inactive_locals(fn)  # locals no parameter reaches: no adjoint (adjoint_activity)
        self.quiet_loops: dict = {}  # id(loop) -> its reverse sweep is empty: replayed, not recorded
        self.unread_tiles: frozenset = frozenset()  # tiles whose stores the replay being built leaves out
        for name, t in fn.params:
            if has_adjoint_param(t) or has_adjoint_value(t):
                p = ir.IRLocal(adjoint_param_name(name), t)
                if isinstance(t, ArrayType):
                    self.adj_arrays[name] = p
                elif is_pack_type(t):
                    self.adj_packs[name] = p
                elif has_array_fields(t):
                    self.grad_structs[name] = p
                else:
                    self.adj_values[name] = p
                self.params.append((p.name, t))
        self.adj_params = {p.name for p in self.adj_arrays.values()}
        # bit k set: keep the adjoint of array parameter k where a store is reversed (the launch sets it
        # unless that adjoint array is the argument's own .grad without retain_grad, as Warp decides)
        self.params.append((KEEP_PARAM, uint64))
        self.array_positions = {name: k for k, (name, t) in enumerate(fn.params) if isinstance(t, ArrayType)}

    def build(self) -> ir.IRFunction:
        teams = ir.contains(self.fn.body, ir.IRTeamBegin)
        if teams:
            self.check_team_scratch_order()
            if self.team_threads:
                self.slice_locals = assigned_outside_visits(self.fn.body)
        forward = self.forward(self.fn.body, record=True)
        if ir.contains(self.fn.body, ir.IRPrint):  # printed adjoints of parameters start from the launch's
            forward[:0] = [ir.IRAssign(self.adj_of(ir.IRLocal(n, p.type)), p) for n, p in self.adj_values.items()]
        if teams and self.team_member is not None:
            # every thread of the team replays its stages (refilling the scratch pads) before any reverses
            forward.append(ir.IRTeamBarrier(self.team_member))
        reverse = self.reverse(self.fn.body)
        radius = self.rows.radius if self.fn.is_kernel else None
        return replace(self.fn, params=self.params, body=forward + reverse, callees=[], index_ranges={},
                       scatter_radius=radius, simd_innermost=radius is not None and self.rows.simd)

    # -- adjoint storage -------------------------------------------------------------------------
    def has_adjoint(self, atom) -> bool:
        """Whether the reverse sweep keeps an adjoint for operand ``atom`` (a differentiable type and not an
        inactive local)."""
        return carries_adjoint(atom.type) and getattr(atom, "name", None) not in self.inactive

    def tile_with_adjoint(self, arr) -> bool:
        """``adjoint_tiles.tile_with_adjoint`` for an active tile."""
        return tile_with_adjoint(arr) and arr.name not in self.inactive

    def adj_of(self, local: ir.IRLocal) -> ir.IRLocal:
        a = self.adj.get(local.name)
        if a is None:
            a = self.adj[local.name] = self.locals.new(f"_adj_{local.name}_", local.type)
            if isinstance(local.type, ArrayType):  # a local array's adjoint: not saved with the arrays by loops
                self.fixed.adjoint_names.add(a.name)
        return a

    def adj_array(self, arr) -> ir.IRLocal:
        """The adjoint array of an array-typed atom (a parameter or a local alias of one)."""
        found = self.adj_arrays.get(arr.name)
        if found is None:  # an array the adjoint cannot follow (a struct's field): no gradient
            found = self.adj_arrays[arr.name] = self.locals.new(f"_adj_{arr.name}_", arr.type)
        return found

    def accumulate(self, atom, value, out):
        """adj(atom) += value (nothing for constants and values without an adjoint)."""
        if value is None or not isinstance(atom, ir.IRLocal) or not carries_adjoint(atom.type) \
                or atom.name in self.inactive:
            return
        if self.in_visit and atom.name in self.slice_locals:
            self.sum_over_threads(atom, value, out)
            return
        self._add_into(self.adj_of(atom), value, out)

    def _add_into(self, place, value, out):
        """place += value, part by part (``summable_parts``: a struct's or tuple's arrays and integers are
        left alone)."""
        for path, t in summable_parts(place.type):
            part, v = part_of(place, path), part_of(value, path)
            if v.type is not t:
                raise AssertionError(f"adjoint of type {v.type!r} for a value of type {t!r}")
            out.append(ir.IRAssign(part, ir.IRCall("add", [part, v], t)))

    def _atomic_add_fields(self, place, value, out):
        """place += value atomically, field by field, for a struct ``place`` (its arrays and integers are
        left alone)."""
        for path, _ in summable_parts(place.type):
            out.append(ir.IRAtomicAdd(part_of(place, path), part_of(value, path)))

    def has_grad(self, adj_arr):
        """The test that the adjoint array was passed (not empty), or None where the kernel may assume
        it (``assume_grads``: a version of the body that runs only when every one it tests was)."""
        if self.assume_grads and adj_arr.name in self.adj_params:  # a parameter (not a local alias)
            self.assumed[adj_arr.name] = adj_arr
            return None
        return ir.IRCall("gt", [ir.IRArrayShape(adj_arr, 0, int32), i32(0)], bool_)

    def unless_kept(self, array, stmts: list) -> list:
        """``stmts`` (clearing the adjoint of a stored element of ``array``) run unless the launch keeps
        that array's adjoint (``KEEP_PARAM``)."""
        k = self.array_positions.get(getattr(array, "name", None))
        if k is None or k >= KEEP_BITS:  # not a parameter (no gradient arrives there), or beyond the mask: cleared
            return stmts
        bit = op("bit_and", op("rshift", ir.IRLocal(KEEP_PARAM, uint64), ir.IRConst(k, uint64)), ir.IRConst(1, uint64))
        return [ir.IRIf(op("eq", bit, ir.IRConst(0, uint64)), stmts, [])]

    def if_grad(self, adj_arr, stmts: list) -> list:
        cond = self.has_grad(adj_arr)
        return stmts if cond is None else [ir.IRIf(cond, stmts, [])]

    # -- reverse sweep -----------------------------------------------------------------------------
    def reverse(self, stmts) -> list:
        out: list = []
        for s in reversed(stmts):
            if isinstance(s, ir.IRAssign):
                self.reverse_assign(s, out)
            elif isinstance(s, ir.IRExprStmt):
                if self.fixed.stores(s):
                    self.reverse_local_atomic(s.expr, None, out)
                elif not writes_locals(s.expr):  # a random draw dropped: no adjoint
                    self.reverse_atomic(s.expr, out)
            elif isinstance(s, ir.IRIf):
                body, orelse = self.reverse(s.body), self.reverse(s.orelse)
                if body or orelse:
                    out.append(ir.IRIf(s.cond, body, orelse))
            elif isinstance(s, (ir.IRFor, ir.IRWhile)):
                out.extend(self.reverse_loop(s))
            elif isinstance(s, IRCustomAdjoint):
                self.reverse_custom(s, out)
            elif isinstance(s, ir.IRLAOuter):
                out.append(self.reverse_slice(s))
            elif isinstance(s, ir.IRLAInner):
                self.reverse_visits(s, out)
            elif isinstance(s, ir.IRTeamLoop):
                out.extend(self.reverse_team_loop(s))
            elif isinstance(s, ir.IRPrint):
                self.reverse_print(s, out)
            elif isinstance(s, ir.IRLAFold):
                self.reverse_fold(s, out)
            elif isinstance(s, ir.IRTeamBarrier):
                out.append(s)
            elif isinstance(s, ir.IRLAScratchZero):  # the zeroed values are constants: nothing flows back
                out.append(ir.IRLAScratchZero(self.adj_scratch[s.storage.name]))
        return out

    # -- printing ---------------------------------------------------------------------------------------
    def reverse_print(self, s: ir.IRPrint, out):
        """``print(...)`` reversed prints its line again with ``adj: `` first and each value's adjoint in
        the value's place (Warp's backward print): a parameter's adjoint starts from the launch's
        ``adj_inputs``, other values' from 0; lines after the first are indented under the first value and
        trailing blanks dropped, so one matrix prints ``adj: 3 2`` then ``     1 0``. ``printf`` prints
        nothing more."""
        if s.parts and isinstance(s.parts[0], ir.Format):
            return
        parts: list = ["adj:" if s.sep == " " else "adj: "]
        for p in s.parts:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, ir.IRComponent) and isinstance(p.base, ir.IRLocal):
                parts.append(ir.IRComponent(self.adj_of(p.base), p.indices, p.type))
            elif isinstance(p, ir.IRLocal):
                parts.append(self.adj_of(p))
            else:
                parts.append(zero(p.type))
        for n, p in enumerate(parts):
            if isinstance(p, str):
                ends_line = n + 1 == len(parts) or (isinstance(parts[n + 1], str) and parts[n + 1].startswith("\n"))
                text = "\n".join(line.rstrip(" ") for line in p.split("\n")) if ends_line else p
                parts[n] = text.replace("\n", "\n" + " " * len("adj: "))
        out.append(ir.IRPrint(parts, s.sep, s.newline))

    def reverse_custom(self, s: IRCustomAdjoint, out):
        """The user's gradient function in place of the call's reverse sweep (or, for a function with
        only a replay, its own body replayed and reversed)."""
        if s.original is not None:
            # the user's @func_replay stands for the function's forward values (an atomic's slot it saved,
            # say): the body's own replay here only feeds the reverse sweep, so its atomics are not refused
            self.replaying_custom += 1
            try:
                out.extend(self.forward(s.original, record=True))
            finally:
                self.replaying_custom -= 1
            if isinstance(s.result, ir.IRLocal) and carries_adjoint(s.result.type):
                self.accumulate(s.original_result, self.adj_of(s.result), out)
                out.append(ir.IRAssign(self.adj_of(s.result), zero(s.result.type)))
            out.extend(self.reverse(s.original))
            return
        for p, a in zip(s.params, s.args):
            out.append(ir.IRAssign(p, a))
        if s.result is not None and s.result_adjoints:
            g = self.adj_of(s.result) if isinstance(s.result, ir.IRLocal) else zero(s.result.type)
            if s.own_result:  # (own result, final values of wp.ref parameters): the own result's adjoint
                g = ir.IRTupleGet(g, 0, s.result.type.types[0])
            if len(s.result_adjoints) == 1:
                out.append(ir.IRAssign(s.result_adjoints[0], g))
            else:
                for k, p in enumerate(s.result_adjoints):
                    out.append(ir.IRAssign(p, ir.IRTupleGet(g, k, p.type)))
        grad = list(s.grad)
        for arg, a in zip(s.args, s.adjoint_inits):
            if a is None:
                continue
            if isinstance(a.type, ArrayType):  # wp.adjoint[arr] is the argument's gradient array, updated in place
                adj_arr = self.adj_array(arg)
                out.append(ir.IRAssign(a, adj_arr))
                grad = self.if_grad(adj_arr, grad)  # it runs only where that gradient exists
            else:
                out.append(ir.IRAssign(a, zero(a.type)))
        # the gradient function is the user's backward code: it runs as written, side effects included
        # (forward() would leave its stores and atomics to the forward launch)
        out.extend(grad)
        for arg, a in zip(s.args, s.adjoints):
            if a is not None and not isinstance(a.type, ArrayType):
                self.accumulate(arg, a, out)
        if isinstance(s.result, ir.IRLocal) and carries_adjoint(s.result.type):
            out.append(ir.IRAssign(self.adj_of(s.result), zero(s.result.type)))

    def quiet_loop(self, s) -> bool:
        """Whether loop ``s`` assigns nothing the reverse sweep reverses (``adjoint_activity``)."""
        found = self.quiet_loops.get(id(s))
        if found is None:
            found = self.quiet_loops[id(s)] = reverses_nothing(s.body, self.inactive)
        return found

    def reverse_loop(self, s) -> list:
        if self.quiet_loop(s):
            return []
        info: LoopInfo = self.loops[id(s)]
        n = self.locals.new("_ad_n", int32)
        it = self.locals.new("_ad_it", int32)
        body: list = []
        if isinstance(s, ir.IRFor):  # the loop variable of iteration it: start + it * step
            body.append(ir.IRAssign(s.var, ir.IRCall("add", [s.start, ir.IRCall("mul", [it, s.step], int32)],
                                                     int32)))
        body += [ir.IRAssign(a, ir.IRPop(a.type)) for a in reversed(self.fixed.loop_state(self.fn, s))]
        body += [ir.IRAssign(h, ir.IRPop(h.type)) for h in reversed(info.headers)]
        saved, self.replay_prints = self.replay_prints, False  # the replay at the top printed the iteration
        unread, self.unread_tiles = self.unread_tiles, unread_tile_stores(s, self.fn.locals)
        body += self.forward(s.body, record=True, skip=tuple(info.updates) + (info.break_test,))
        self.replay_prints, self.unread_tiles = saved, unread
        body += self.reverse(s.body)
        loop = ir.IRFor(it, ir.IRCall("sub", [n, i32(1)], int32, no_wrap=True), i32(-1), i32(-1), body, step_sign=-1)
        restore = [ir.IRAssign(tile, copy) for tile, copy in self.tile_start_copies(s)]
        return [ir.IRAssign(n, ir.IRPop(int32)), *restore, loop]

    def reverse_assign(self, s, out):
        target, value = s.target, s.value
        if self.fixed.stores(s):  # a local array's element (or a view's): its adjoint moves to the value
            if isinstance(value, ir.IRCall) and value.op.startswith("atomic_"):
                self.reverse_local_atomic(value, target, out)
                return
            path, root = access_path(target)
            place = self.local_elem_adjoint(root) if isinstance(root, ir.IRArrayElem) else None
            if place is not None:
                self.hand_over(rebase(path, place), value, out)
            return
        if not isinstance(target, ir.IRLocal):
            path, root = access_path(target)
            if isinstance(root, ir.IRLocal) and root.name in self.inactive:
                return
            if isinstance(root, ir.IRLAScratchElem):  # a scratch store: the slot's adjoint moves to the value
                self.hand_over(rebase(path, self.adj_scratch_elem(root)), value, out)
            elif isinstance(root, ir.IRLAViewElem):
                # a store through a view: what was there before is overwritten (a mesh field updated in
                # place, fluxes of each stage)
                self.hand_over(rebase(path, self.adj_view_elem(root)), value, out)
            elif isinstance(root, ir.IRPackElem):  # a pack subscript's store (par_for bodies): as a view's
                self.hand_over(rebase(path, self.adj_pack_elem(root)), value, out)
            elif isinstance(root, ir.IRArrayElem) and self.is_team_scratch(root.array):
                # a store into a team scratch pad: the slot's adjoint moves to the value (as per-point scratch)
                place = ir.IRArrayElem(self.adj_array(root.array), root.indices, root.type)
                self.hand_over(rebase(path, place), value, out)
            elif isinstance(root, ir.IRArrayElem):  # a store: its value's adjoint is the adjoint array's element
                if carries_adjoint(value.type) and isinstance(value, ir.IRLocal):
                    adj_arr = self.adj_array(root.array)
                    g = self.locals.new("_ad_g", value.type)
                    read = rebase(path, ir.IRArrayElem(adj_arr, root.indices, root.type))
                    out.append(ir.IRAssign(g, zero(value.type)))
                    # the store overwrote what the element held: its adjoint moves to the stored value, and
                    # what wrote the element before (an earlier statement or launch) gets none (as Warp)
                    clear = [ir.IRAssign(read, zero(value.type))]
                    if not s.updates:  # a wp.ref write-back always moves it
                        clear = self.unless_kept(root.array, clear)
                    out.extend(self.if_grad(adj_arr, [ir.IRAssign(g, read), *clear]))
                    self.accumulate(value, g, out)
            elif carries_adjoint(root.type):  # x.path = v
                self.hand_over(rebase(path, self.adj_of(root)), value, out)
            return
        if isinstance(value, ir.IRCall) and value.op.startswith("atomic_"):
            self.reverse_atomic(value, out)
            return
        if target.name in self.inactive:
            return
        if tile_with_adjoint(target):
            self.reverse_tile_assign(target, value, out)
            return
        if not carries_adjoint(target.type):
            return
        g = self.adj_of(target)
        self.reverse_value(value, target, g, out)
        out.append(ir.IRAssign(g, zero(target.type)))

    def hand_over(self, place, value, out):
        """Reverse a store of ``value`` whose target's adjoint is ``place``: the value gets that adjoint,
        which is then cleared (the value the store overwrote had no part in what followed)."""
        if carries_adjoint(value.type) and isinstance(value, ir.IRLocal):
            g = self.locals.new("_ad_g", value.type)
            out.append(ir.IRAssign(g, place))
            self.accumulate(value, g, out)
        if carries_adjoint(place.type):
            out.append(ir.IRAssign(place, zero(place.type)))

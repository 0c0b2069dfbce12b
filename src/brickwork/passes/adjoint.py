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
"""

from __future__ import annotations

import math
from dataclasses import replace

from .. import ir
from ..builtins.adjoints import ADJOINTS, NOT_DIFFERENTIABLE, is_differentiable_type
from ..builtins.table import resolve
from ..types.arrays import ArrayType, type_name
from ..types.composite import is_composite_type, is_matrix_type, vector
from ..types.opaque import TupleType
from ..types.scalars import bool_, int32, int64, is_scalar_type
from ..types.structs import has_array_fields, is_struct_type
from .adjoint_normal_form import IRCustomAdjoint, LoopInfo, _not_differentiable, _path, normal_form
from .adjoint_wrap import periodic_interior
from .build import Locals, i32, op


def adjoint_param_name(name: str) -> str:
    return f"adj_{name}"


def adjoint_kernel(fn: ir.IRFunction, phased_rows: bool = True) -> ir.IRFunction:
    """The backward kernel of the typed kernel ``fn`` (its callees are inlined). ``phased_rows``: the
    target can run the first grid dimension in phases (``scatter_radius``), so scatters near tid(0)
    may be plain adds; otherwise every scatter is atomic."""
    nf = normal_form(fn)
    rows = _row_offsets(nf.fn)
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
    inner_rows = _row_offsets(inner_fn)
    if inner_rows.radius is None:
        return None
    inner = _Adjoint(inner_fn, nf.loops, inner_rows, assume_grads=True)
    interior = inner.build()
    rows = _row_offsets(nf.fn)
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


def has_adjoint_value(t) -> bool:
    """Whether a kernel parameter of type ``t`` gets an adjoint value parameter ``adj_<name>`` (as Warp:
    scalars, vectors, matrices, quaternions, transforms). Its adjoint starts from the value the backward
    launch passes (``adj_inputs``; zero from a tape) and is not returned: a kernel that prints shows it."""
    return is_scalar_type(t) or is_composite_type(t)


def is_pack_type(t) -> bool:
    """Whether ``t`` is a mesh pack passed to a kernel (its backward kernel gets a pack of gradients)."""
    return getattr(t, "_bw_pack", None) is not None


def carries_adjoint(t) -> bool:
    """Whether a value of type ``t`` has an adjoint (floats, composites of floats, structs or tuples
    holding one)."""
    if is_differentiable_type(t):
        return True
    if is_struct_type(t):
        return any(carries_adjoint(ft) for _, ft in t._fields)
    if isinstance(t, TupleType):
        return any(carries_adjoint(et) for et in t.types)
    return False


class _Builder:
    """``E`` of the adjoint rules: builtin calls and values, as IR expressions."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args):
            _, t = resolve(name, [a.type for a in args])
            return ir.IRCall(name, list(args), t)

        return call

    @staticmethod
    def type(v):
        return v.type

    @staticmethod
    def const(value, t):
        return ir.IRConst(float(value), t)

    @staticmethod
    def zero(t):
        return zero(t)

    @staticmethod
    def comp(v, i, j=None):
        t = v.type
        if is_matrix_type(t):
            if j is None:
                return ir.IRComponent(v, [i32(i)], vector(t._shape[1], t._dtype))
            return ir.IRComponent(v, [i32(i), i32(j)], t._dtype)
        return ir.IRComponent(v, [i32(i)], t._dtype)

    @staticmethod
    def make(t, comps):
        return ir.IRConstruct(list(comps), t)

    @staticmethod
    def sel(cond, if_true, if_false):
        return ir.IRSelect(cond, if_true, if_false, if_true.type)


E = _Builder()


def zero(t):
    if isinstance(t, ArrayType):
        raise TypeError("arrays have no zero value")
    if is_struct_type(t):
        return ir.IRConstruct([None] * len(t._fields), t)
    if isinstance(t, TupleType):
        return ir.IRConstruct([zero(et) for et in t.types], t)
    if hasattr(t, "_shape"):
        n = 1
        for d in t._shape:
            n *= d
        return ir.IRConstruct([ir.IRConst(0, t._dtype)] * n, t)
    return ir.IRConst(False if t is bool_ else 0, t)


def _flat_component(v, k):
    """Component ``k`` of the flat (row-major) components of a composite value."""
    t = v.type
    if is_matrix_type(t):
        cols = t._shape[1]
        return ir.IRComponent(v, [i32(k // cols), i32(k % cols)], t._dtype)
    return ir.IRComponent(v, [i32(k)], t._dtype)


class _Adjoint:
    def __init__(self, fn: ir.IRFunction, loops: dict, rows: "_RowOffsets", team_threads: bool = False,
                 assume_grads: bool = False):
        self.fn = fn
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
        for name, t in fn.params:
            if isinstance(t, ArrayType) or is_pack_type(t) or has_array_fields(t) or has_adjoint_value(t):
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

    def build(self) -> ir.IRFunction:
        teams = ir.contains(self.fn.body, ir.IRTeamBegin)
        if teams:
            self.check_team_scratch_order()
            if self.team_threads:
                self.slice_locals = _assigned_outside_visits(self.fn.body)
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
    def adj_of(self, local: ir.IRLocal) -> ir.IRLocal:
        a = self.adj.get(local.name)
        if a is None:
            a = self.adj[local.name] = self.locals.new(f"_adj_{local.name}_", local.type)
        return a

    def adj_array(self, arr) -> ir.IRLocal:
        """The adjoint array of an array-typed atom (a parameter or a local alias of one)."""
        found = self.adj_arrays.get(arr.name)
        if found is None:  # an array the adjoint cannot follow (a struct's field): no gradient
            found = self.adj_arrays[arr.name] = self.locals.new(f"_adj_{arr.name}_", arr.type)
        return found

    def adj_view_elem(self, e: ir.IRLAViewElem) -> ir.IRLAViewElem:
        pack = e.view.pack
        adj = self.adj_packs.get(pack.name) if isinstance(pack, ir.IRLocal) else None
        if adj is None:
            raise _not_differentiable(self.label, "a view of a pack that is not a kernel argument has no adjoint")
        return ir.IRLAViewElem(replace(e.view, pack=adj), e.var, e.element, e.point, e.type)

    def adj_scratch_elem(self, e: ir.IRLAScratchElem) -> ir.IRLAScratchElem:
        return ir.IRLAScratchElem(self.adj_scratch[e.storage.name], e.comps, e.point, e.type)

    def accumulate(self, atom, value, out):
        """adj(atom) += value (nothing for constants and values without an adjoint)."""
        if value is None or not isinstance(atom, ir.IRLocal) or not carries_adjoint(atom.type):
            return
        if self.in_visit and atom.name in self.slice_locals:
            self.sum_over_threads(atom, value, out)
            return
        self._add_into(self.adj_of(atom), value, out)

    def sum_over_threads(self, atom, value, out):
        """A visit's part of the adjoint of a slice value that every thread of the slice holds: added
        atomically into the slice's sum (a one-value scratch), which ``gather_slice_sums`` hands to
        every thread's adjoint once the inner loop is done."""
        t = atom.type
        storage, ncomp = self.slice_sum(atom, atom)
        for k in range(ncomp):
            part = value if not hasattr(t, "_shape") else _flat_component(value, k)
            out.append(ir.IRAtomicAdd(ir.IRLAScratchElem(storage, [i32(k)], [], storage.type.dtype), part))

    def sum_component_over_threads(self, value, g, out):
        """``sum_over_threads`` for a visit's read of one component (or a matrix row) of a slice value."""
        base, t = value.base, value.base.type
        storage, _ = self.slice_sum(base, value)
        scalar = storage.type.dtype

        def add(slot, part):
            out.append(ir.IRAtomicAdd(ir.IRLAScratchElem(storage, [slot], [], scalar), part))

        if not is_matrix_type(t):
            add(value.indices[0], g)
            return
        row = op("mul", value.indices[0], i32(t._shape[1]))
        if len(value.indices) == 2:
            add(op("add", row, value.indices[1]), g)
        else:  # a row of a matrix
            for c in range(t._shape[1]):
                add(op("add", row, i32(c)), ir.IRComponent(g, [i32(c)], scalar))

    def slice_sum(self, atom, use):
        """(storage, components) of the slice's sum of ``atom``'s adjoint (made on first use); ``use``: the
        read the visits make of it (a struct or tuple slice value, or one of their fields, is refused)."""
        t = atom.type
        if self.slice_loop is None:  # a par_for_outer team body: its sums are not built yet
            raise _not_differentiable(self.label, f"'{atom.name.split('__')[0]}' is computed in the outer body "
                                      "of a par_for_outer team and used by its par_for_inner iterations; on a GPU "
                                      "target every thread of the team holds it and its adjoint is not summed over "
                                      "them yet (compute it inside the par_for_inner body)")
        if not is_differentiable_type(t) or not isinstance(use, (ir.IRLocal, ir.IRComponent)):
            raise _not_differentiable(self.label, f"'{atom.name.split('__')[0]}' is computed in the outer body "
                                      f"and used by the inner loop's visits; a {type_name(t)} slice value has no "
                                      "summed adjoint on a GPU target yet (compute it inside the inner loop)")
        found = self.slice_sums.get(atom.name)
        if found is None:
            ncomp = math.prod(getattr(t, "_shape", ()) or (1,))
            storage = self.locals.new(f"_adj_sum_{atom.name}_", ArrayType(getattr(t, "_dtype", t), 1))
            found = self.slice_sums[atom.name] = (atom, storage, ncomp)
        self.summed.add(atom.name)
        return found[1], found[2]

    def gather_slice_sums(self, out):
        """After an inner loop's reversed visits: (a barrier, so every thread's additions are done) each
        thread adds the slice's sums into its adjoints of the slice values, then the sums are cleared."""
        if not self.summed:
            return
        out.append(ir.IRTeamBarrier(None))
        for name in sorted(self.summed):
            atom, storage, ncomp = self.slice_sums[name]
            adj, scalar = self.adj_of(atom), storage.type.dtype
            for k in range(ncomp):
                total = ir.IRLAScratchElem(storage, [i32(k)], [], scalar)
                place = adj if not hasattr(atom.type, "_shape") else _flat_component(adj, k)
                out.append(ir.IRAssign(place, ir.IRCall("add", [place, total], scalar)))
        out += [ir.IRLAScratchZero(self.slice_sums[name][1]) for name in sorted(self.summed)]
        self.summed = set()

    def _add_into(self, place, value, out):
        t = place.type
        if is_differentiable_type(t):
            if value.type is not t:
                raise AssertionError(f"adjoint of type {value.type!r} for a value of type {t!r}")
            out.append(ir.IRAssign(place, ir.IRCall("add", [place, value], t)))
        elif is_struct_type(t):
            for name, ft in t._fields:
                if carries_adjoint(ft):
                    self._add_into(ir.IRField(place, name, ft), ir.IRField(value, name, ft), out)
        elif isinstance(t, TupleType):
            for k, et in enumerate(t.types):
                if carries_adjoint(et):
                    self._add_into(ir.IRTupleGet(place, k, et), ir.IRTupleGet(value, k, et), out)

    def _atomic_add_fields(self, place, value, out):
        """place += value atomically, field by field, for a struct ``place`` (its arrays and integers are
        left alone)."""
        for name, ft in place.type._fields:
            if is_struct_type(ft) and carries_adjoint(ft):
                self._atomic_add_fields(ir.IRField(place, name, ft), ir.IRField(value, name, ft), out)
            elif is_differentiable_type(ft):
                out.append(ir.IRAtomicAdd(ir.IRField(place, name, ft), ir.IRField(value, name, ft)))

    def has_grad(self, adj_arr):
        """The test that the adjoint array was passed (not empty), or None where the kernel may assume
        it (``assume_grads``: a version of the body that runs only when every one it tests was)."""
        if self.assume_grads and any(adj_arr.name == p.name for p in self.adj_arrays.values()):
            self.assumed[adj_arr.name] = adj_arr
            return None
        return ir.IRCall("gt", [ir.IRArrayShape(adj_arr, 0, int32), i32(0)], bool_)

    def if_grad(self, adj_arr, stmts: list) -> list:
        cond = self.has_grad(adj_arr)
        return stmts if cond is None else [ir.IRIf(cond, stmts, [])]

    # -- forward replay ----------------------------------------------------------------------------
    def forward(self, stmts, record: bool, skip: tuple = ()) -> list:
        out: list = []
        for s in stmts:
            if any(s is k for k in skip):
                continue
            if isinstance(s, ir.IRAssign):
                self.forward_assign(s, out)
            elif isinstance(s, ir.IRExprStmt):
                pass  # atomics: the forward launch applied them
            elif isinstance(s, ir.IRIf):
                out.append(ir.IRIf(s.cond, self.forward(s.body, record), self.forward(s.orelse, record)))
            elif isinstance(s, (ir.IRFor, ir.IRWhile)):
                out.extend(self.forward_loop(s, record))
            elif isinstance(s, ir.IRBreak):
                out.append(s)
            elif isinstance(s, IRCustomAdjoint):  # never reversed: nothing of it is saved
                out.extend(self.forward(s.forward, record=False))
            elif isinstance(s, ir.IRLAOuter):
                pass  # replayed and reversed together, inside one outer body (reverse)
            elif isinstance(s, ir.IRLAInner):
                body = self.forward(s.body, record=False)
                if any(_stores_scratch(x) for x in ir.walk(body)):  # only what it writes to scratch is needed
                    out.append(replace(s, body=body, reduce=False))
            elif isinstance(s, ir.IRPrint):
                if self.replay_prints:
                    out.append(s)
            elif isinstance(s, ir.IRTeamLoop):
                body = self.forward(s.body, record=False)
                if any(self.stores_team_scratch(x) for x in ir.walk(body)):  # only its scratch stores are needed
                    out.append(ir.IRTeamLoop(s.member, s.var, s.lo, s.hi, body))
            elif isinstance(s, ir.IRLAFold):
                pass  # the forward launch folded
            elif isinstance(s, ir.IRLAScratch):
                adj = self.locals.new(f"_adj_{s.storage.name}_", s.storage.type)
                self.adj_scratch[s.storage.name] = adj
                out += [s, ir.IRLAScratch(adj, s.halo, s.dims), ir.IRLAScratchZero(adj)]
            elif isinstance(s, (ir.IRLAScratchZero, ir.IRTeamBarrier)):
                out.append(s)
            else:
                raise AssertionError(f"unexpected statement in the normal form: {type(s).__name__}")
        return out

    def forward_assign(self, s, out):
        target, value = s.target, s.value
        if isinstance(value, (ir.IRTeamBegin, ir.IRTeamScratch)):
            self.forward_team(s, out)
            return
        if not isinstance(target, ir.IRLocal):
            path, root = _path(target)
            if isinstance(root, ir.IRArrayElem) and self.is_team_scratch(root.array):
                out.append(s)  # the forward launch's team scratch is gone: the replay refills it
                return
            if isinstance(root, (ir.IRArrayElem, ir.IRLAViewElem)):
                return  # array and view stores: done by the forward launch
            out.append(s)
            if isinstance(root, ir.IRLocal) and has_array_fields(root.type) and (
                    isinstance(value.type, ArrayType) or has_array_fields(value.type)):
                # an array (or a struct of them) stored in a struct: its gradient goes to the gradient struct
                grads = self.adj_array(value) if isinstance(value.type, ArrayType) else self.grad_struct_of(value)
                if grads is not None:
                    out.append(ir.IRAssign(_rebase(path, self.grad_struct_local(root)), grads))
            return
        if isinstance(value, ir.IRCall) and value.op.startswith("atomic_"):
            arr, *idx, _ = value.args
            out.append(ir.IRAssign(target, ir.IRArrayElem(arr, idx, target.type)))
            return
        out.append(s)
        if isinstance(target.type, ArrayType):  # an alias of an array: its adjoint follows it
            alias = self.adj_array(target)
            if isinstance(value, ir.IRLocal):
                out.append(ir.IRAssign(alias, self.adj_array(value)))
                if value.name in self.team_scratch:
                    self.team_scratch.add(target.name)
            elif isinstance(value, ir.IRSubarray):
                out.append(ir.IRAssign(alias, ir.IRSubarray(self.adj_array(value.array), value.indices, value.type)))
            elif isinstance(value, ir.IRField):  # a struct's array: its gradient is the gradient struct's field
                grads = self.grad_struct_of(value)
                if grads is not None:
                    out.append(ir.IRAssign(alias, grads))
        elif has_array_fields(target.type):
            grads = self.grad_struct_of(value)
            if grads is not None:
                out.append(ir.IRAssign(self.grad_struct_local(target), grads))

    def grad_struct_local(self, local: ir.IRLocal) -> ir.IRLocal:
        """The local holding the gradients of the arrays that the struct local ``local`` holds."""
        found = self.grad_structs.get(local.name)
        if found is None:
            found = self.grad_structs[local.name] = self.locals.new(f"_grads_{local.name}_", local.type)
        return found

    def grad_struct_of(self, value):
        """For a value that holds arrays (a struct, or an array field of one): the same value over their
        gradients, as an expression; None where it cannot be followed."""
        if isinstance(value, ir.IRConstruct) and is_struct_type(value.type):
            args = []
            for a in value.args:
                if isinstance(a, ir.IRLocal) and isinstance(a.type, ArrayType):
                    args.append(self.adj_array(a))
                elif isinstance(a, ir.IRLocal) and has_array_fields(a.type):
                    args.append(self.grad_structs.get(a.name, a))
                else:
                    args.append(a)
            return ir.IRConstruct(args, value.type)
        path, root = _path(value)
        if isinstance(root, ir.IRLocal) and root.name in self.grad_structs:
            return _rebase(path, self.grad_structs[root.name])
        return None

    def forward_loop(self, s, record: bool) -> list:
        info: LoopInfo = self.loops[id(s)]
        if not record:
            return [self.clone_loop(s, self.forward(s.body, record=False))]
        count = self.locals.new("_ad_n", int32)
        body = [ir.IRAssign(count, ir.IRCall("add", [count, i32(1)], int32, no_wrap=True))]
        body += [ir.IRPush(h) for h in info.headers]
        body += self.forward(s.body, record=False)
        return [ir.IRAssign(count, i32(0)), self.clone_loop(s, body), ir.IRPush(count)]

    def clone_loop(self, s, body):
        if isinstance(s, ir.IRFor):
            return ir.IRFor(s.var, s.start, s.stop, s.step, body, s.step_sign)
        return ir.IRWhile(s.cond, body)

    # -- reverse sweep -----------------------------------------------------------------------------
    def reverse(self, stmts) -> list:
        out: list = []
        for s in reversed(stmts):
            if isinstance(s, ir.IRAssign):
                self.reverse_assign(s, out)
            elif isinstance(s, ir.IRExprStmt):
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
                # one slice: replay its stages (refilling scratch), then reverse them in reverse order;
                # the barrier lets every point's replay finish before any is reversed
                replay = self.forward(s.body, record=True)
                if self.team_threads and s.config.loop != "boiv":
                    self.slice_locals = _assigned_outside_visits(s.body)
                self.slice_loop = s.config.loop
                self.reducer, self.la_block = s.config.reducer, s.block
                reverse = self.reverse(s.body)
                sums = [ir.IRLAScratch(storage, None, (ncomp,)) for _, storage, ncomp in self.slice_sums.values()]
                sums += [ir.IRLAScratchZero(st.storage) for st in sums]
                self.slice_locals, self.slice_loop, self.slice_sums = set(), None, {}
                out.append(replace(s, body=replay + sums + [ir.IRTeamBarrier(None)] + reverse))
            elif isinstance(s, ir.IRLAInner):
                # visits are independent: each replays its point, then reverses it; neighbouring visits
                # may add into the same adjoint scratch slot, so the visits are not a vector loop
                self.in_visit, saved, self.replay_prints = True, self.replay_prints, False
                body = self.forward(s.body, record=True) + self.reverse(s.body)
                self.in_visit, self.replay_prints = False, saved
                if body:
                    out.append(replace(s, body=body, simd=False, reduce=False))
                self.gather_slice_sums(out)
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

    def reverse_fold(self, s: ir.IRLAFold, out):
        """A value folded into an ``outer_reduce`` gets its gradient from the partials' adjoint array that
        the backward launch passes (la/outer.py), at the slice's block: with a Sum, the result's gradient
        (d sum / d partial = 1; the one-cell Sum that stands for a Min, Max, MinLoc or MaxLoc gets it only at
        the winning cell's block); with a Prod of values without a zero, the result's gradient times the
        product, which divided by the value is the product of the others."""
        if not (isinstance(s.value, ir.IRLocal) and carries_adjoint(s.value.type)):
            return
        partials = self.adj_arrays.get("_la_partials")
        if partials is None or self.reducer.join not in ("sum", "prod"):
            raise AssertionError(f"a fold outside an outer_reduce kernel with a Sum or a Prod: {self.reducer!r}")
        g = ir.IRArrayElem(partials, [self.la_block], s.value.type)
        if self.reducer.join == "prod":
            g = ir.IRCall("div", [g, s.value], s.value.type)
        self.accumulate(s.value, g, out)

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

    # -- nested parallelism: par_for_outer teams, their scratch pads and par_for_inner loops -----------------
    def is_team_scratch(self, arr) -> bool:
        return isinstance(arr, ir.IRLocal) and arr.name in self.team_scratch

    def stores_team_scratch(self, s) -> bool:
        return isinstance(s, ir.IRAssign) and isinstance(_path(s.target)[1], ir.IRArrayElem) and (
            self.is_team_scratch(_path(s.target)[1].array))

    def forward_team(self, s: ir.IRAssign, out):
        """The team and its scratch pads in the replay. The team's arena holds each pad and its adjoint
        pad: twice the bytes the launch asks for, plus 64 per pad (each pad starts 64-byte aligned). An
        adjoint pad has the pad's shape and starts at zero (zeroed by the team's threads; the barrier
        between the replay and the reverse sweep orders that before any addition)."""
        value = s.value
        if isinstance(value, ir.IRTeamBegin):
            t = value.arena_bytes.type
            pads = sum(isinstance(n, ir.IRTeamScratch) for n in ir.walk(self.fn.body))
            twice = ir.IRCall("mul", [value.arena_bytes, ir.IRConst(2, t)], t, no_wrap=True)
            arena = ir.IRCall("add", [twice, ir.IRConst(64 * pads, t)], t, no_wrap=True)
            out.append(ir.IRAssign(s.target, ir.IRTeamBegin(arena, value.type)))
            self.team_member = s.target
            return
        out.append(s)
        pad = s.target
        adj = self.adj_arrays[pad.name] = self.locals.new(f"_adj_{pad.name}_", pad.type)
        self.team_scratch.add(pad.name)
        out.append(ir.IRAssign(adj, ir.IRTeamScratch(value.member, value.sizes, value.type)))
        idx = [self.locals.new("_ad_z", int32) for _ in range(pad.type.ndim)]
        body = [ir.IRAssign(ir.IRArrayElem(adj, idx, pad.type.dtype), zero(pad.type.dtype))]
        for d in range(pad.type.ndim - 1, 0, -1):
            body = [ir.IRFor(idx[d], i32(0), ir.IRArrayShape(adj, d, int32), i32(1), body)]
        last = op("sub", ir.IRArrayShape(adj, 0, int32), i32(1))
        out.append(ir.IRTeamLoop(value.member, idx[0], i32(0), last, body))

    def reverse_team_loop(self, s: ir.IRTeamLoop) -> list:
        """A ``par_for_inner`` loop reversed: each iteration replays then reverses its index. Iterations
        add into neighbouring adjoint scratch slots: on the CPU (a team is one thread) the loop is a plain
        loop, not a vector loop; on a GPU target it stays a team loop and the additions are atomic."""
        saved = self.in_visit, self.replay_prints
        self.in_visit, self.replay_prints = True, False
        body = self.forward(s.body, record=True) + self.reverse(s.body)
        self.in_visit, self.replay_prints = saved
        if not body:
            return []
        if self.team_threads:
            return [ir.IRTeamLoop(s.member, s.var, s.lo, s.hi, body)]
        return [ir.IRFor(s.var, s.lo, op("add", s.hi, i32(1)), i32(1), body)]

    def add_to_team_scratch(self, read: ir.IRArrayElem, g, out):
        """adj(pad)[i] += g for a read ``pad[i]``: atomic where the team's threads share the pad (a
        statement, so that a GPU target makes a team-level one once, on one thread)."""
        adj = self.adj_array(read.array)
        if self.team_threads:
            out.append(ir.IRExprStmt(ir.IRCall("atomic_add", [adj, *read.indices, g], read.type)))
        else:
            self._add_into(ir.IRArrayElem(adj, read.indices, read.type), g, out)

    def check_team_scratch_order(self):
        """The replay runs every stage of the team before the reverse sweep, so a pad must keep the values
        its readers read: a pad written by a statement after one that reads it (or by one that reads it
        too) is refused."""
        pads = set()
        for n in ir.walk(self.fn.body):
            if not (isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRLocal)):
                continue
            if isinstance(n.value, ir.IRTeamScratch) or (isinstance(n.value, ir.IRLocal) and n.value.name in pads):
                pads.add(n.target.name)
        read: set = set()
        for s in self.fn.body:
            stored, targets = set(), set()
            for n in ir.walk([s]):
                if isinstance(n, ir.IRAssign):
                    root = _path(n.target)[1]
                    if isinstance(root, ir.IRArrayElem) and isinstance(root.array, ir.IRLocal):
                        stored.add(root.array.name)
                        targets.add(id(root))
            reads = {n.array.name for n in ir.walk([s]) if isinstance(n, ir.IRArrayElem) and id(n) not in targets
                     and isinstance(n.array, ir.IRLocal)}
            again = stored & pads & (read | reads)
            if again:
                name = sorted(again)[0].split("__")[0]
                raise _not_differentiable(self.label, f"the team scratch pad '{name}' is written after it is read "
                                          "(or read and written by one loop): the backward kernel replays the "
                                          "team's stages before reversing them, so the earlier values are lost; "
                                          "write each pad before reading it, in one stage (use another pad)")
            read |= reads

    def reverse_custom(self, s: IRCustomAdjoint, out):
        """The user's gradient function in place of the call's reverse sweep (or, for a function with
        only a replay, its own body replayed and reversed)."""
        if s.original is not None:
            out.extend(self.forward(s.original, record=True))
            if isinstance(s.result, ir.IRLocal) and carries_adjoint(s.result.type):
                self.accumulate(s.original_result, self.adj_of(s.result), out)
                out.append(ir.IRAssign(self.adj_of(s.result), zero(s.result.type)))
            out.extend(self.reverse(s.original))
            return
        for p, a in zip(s.params, s.args):
            out.append(ir.IRAssign(p, a))
        if s.result is not None and s.result_adjoints:
            g = self.adj_of(s.result) if isinstance(s.result, ir.IRLocal) else zero(s.result.type)
            if len(s.result_adjoints) == 1:
                out.append(ir.IRAssign(s.result_adjoints[0], g))
            else:
                for k, p in enumerate(s.result_adjoints):
                    out.append(ir.IRAssign(p, ir.IRTupleGet(g, k, p.type)))
        for a in s.adjoint_inits:
            if a is not None:
                out.append(ir.IRAssign(a, zero(a.type)))
        # the gradient function is the user's backward code: it runs as written, side effects included
        # (forward() would leave its stores and atomics to the forward launch)
        out.extend(s.grad)
        for arg, a in zip(s.args, s.adjoints):
            if a is not None:
                self.accumulate(arg, a, out)
        if isinstance(s.result, ir.IRLocal) and carries_adjoint(s.result.type):
            out.append(ir.IRAssign(self.adj_of(s.result), zero(s.result.type)))

    def reverse_loop(self, s) -> list:
        info: LoopInfo = self.loops[id(s)]
        n = self.locals.new("_ad_n", int32)
        it = self.locals.new("_ad_it", int32)
        body: list = []
        if isinstance(s, ir.IRFor):  # the loop variable of iteration it: start + it * step
            body.append(ir.IRAssign(s.var, ir.IRCall("add", [s.start, ir.IRCall("mul", [it, s.step], int32)],
                                                     int32)))
        body += [ir.IRAssign(h, ir.IRPop(h.type)) for h in reversed(info.headers)]
        saved, self.replay_prints = self.replay_prints, False  # the replay at the top printed the iteration
        body += self.forward(s.body, record=True, skip=tuple(info.updates) + (info.break_test,))
        self.replay_prints = saved
        body += self.reverse(s.body)
        loop = ir.IRFor(it, ir.IRCall("sub", [n, i32(1)], int32, no_wrap=True), i32(-1), i32(-1), body, step_sign=-1)
        return [ir.IRAssign(n, ir.IRPop(int32)), loop]

    def reverse_assign(self, s, out):
        target, value = s.target, s.value
        if not isinstance(target, ir.IRLocal):
            path, root = _path(target)
            if isinstance(root, ir.IRLAScratchElem):  # a scratch store: the slot's adjoint moves to the value
                self.hand_over(_rebase(path, self.adj_scratch_elem(root)), value, out)
            elif isinstance(root, ir.IRLAViewElem):
                # a store through a view: what was there before is overwritten (a mesh field updated in
                # place, fluxes of each stage)
                self.hand_over(_rebase(path, self.adj_view_elem(root)), value, out)
            elif isinstance(root, ir.IRArrayElem) and self.is_team_scratch(root.array):
                # a store into a team scratch pad: the slot's adjoint moves to the value (as per-point scratch)
                place = ir.IRArrayElem(self.adj_array(root.array), root.indices, root.type)
                self.hand_over(_rebase(path, place), value, out)
            elif isinstance(root, ir.IRArrayElem):  # a store: its value's adjoint is the adjoint array's element
                if carries_adjoint(value.type) and isinstance(value, ir.IRLocal):
                    adj_arr = self.adj_array(root.array)
                    g = self.locals.new("_ad_g", value.type)
                    read = _rebase(path, ir.IRArrayElem(adj_arr, root.indices, root.type))
                    out.append(ir.IRAssign(g, zero(value.type)))
                    out.extend(self.if_grad(adj_arr, [ir.IRAssign(g, read)]))
                    self.accumulate(value, g, out)
            elif carries_adjoint(root.type):  # x.path = v
                self.hand_over(_rebase(path, self.adj_of(root)), value, out)
            return
        if isinstance(value, ir.IRCall) and value.op.startswith("atomic_"):
            self.reverse_atomic(value, out)
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

    def reverse_value(self, value, result, g, out):
        if isinstance(value, ir.IRLocal):
            self.accumulate(value, g, out)
        elif isinstance(value, ir.IRCall):
            self.reverse_call(value, result, g, out)
        elif isinstance(value, ir.IRCast):
            if carries_adjoint(value.arg.type):
                self.accumulate(value.arg, ir.IRCast(g, value.arg.type), out)
        elif isinstance(value, ir.IRConstruct):
            t = value.type
            if is_struct_type(t):
                for (name, ft), a in zip(t._fields, value.args):
                    if a is not None:
                        self.accumulate(a, ir.IRField(g, name, ft), out)
            elif isinstance(t, TupleType):
                for k, (et, a) in enumerate(zip(t.types, value.args)):
                    self.accumulate(a, ir.IRTupleGet(g, k, et), out)
            else:
                for k, a in enumerate(value.args):
                    self.accumulate(a, _flat_component(g, k), out)
        elif isinstance(value, ir.IRArrayElem) and self.is_team_scratch(value.array):
            self.add_to_team_scratch(value, g, out)
        elif isinstance(value, ir.IRArrayElem):
            adj_arr = self.adj_array(value.array)
            place = ir.IRArrayElem(adj_arr, value.indices, value.type)
            update: list = []
            if self.rows.radius is not None:  # scatters near tid(0)'s row: the target phases the rows
                self._add_into(place, g, update)
            elif is_struct_type(value.type):  # a struct element: each differentiable field atomically
                self._atomic_add_fields(place, g, update)
            else:
                update.append(ir.IRExprStmt(ir.IRCall("atomic_add", [adj_arr, *value.indices, g], value.type)))
            out.extend(self.if_grad(adj_arr, update))
        elif isinstance(value, ir.IRLAViewElem):
            place = self.adj_view_elem(value)
            if self.team_threads or self.slice_loop != "bvoi":  # other slices (threads) reach the same cells
                out.append(ir.IRAtomicAdd(place, g))
            else:  # a bvoi slice is its block, on one thread, its visits in order
                self._add_into(place, g, out)
        elif isinstance(value, ir.IRLAScratchElem):
            place = self.adj_scratch_elem(value)
            if self.team_threads:  # the slice's threads share its scratch
                out.append(ir.IRAtomicAdd(place, g))
            else:  # a slice runs on one thread, its visits in order (not as a vector loop)
                self._add_into(place, g, out)
        elif isinstance(value, (ir.IRComponent, ir.IRField, ir.IRTupleGet)):
            base = value.base
            if not isinstance(base, ir.IRLocal) or not carries_adjoint(base.type):
                pass
            elif self.in_visit and base.name in self.slice_locals:
                self.sum_component_over_threads(value, g, out)
            else:
                self._add_into(_rebase([value], self.adj_of(base)), g, out)
        # constants, tid(), shapes, subarrays: nothing flows back

    def reverse_call(self, call, result, g, out):
        if call.op in NOT_DIFFERENTIABLE:
            return
        if not any(carries_adjoint(a.type) for a in call.args):
            return
        rule = ADJOINTS.get(call.op)
        if rule is None:
            raise _not_differentiable(self.label, f"the builtin '{call.op}' has no adjoint rule yet")
        contributions = rule(E, call.args, result, g)
        if len(contributions) != len(call.args) or (
                call.op in ("mul", "matmul") and all(c is None for c in contributions)):
            raise _not_differentiable(self.label, f"the builtin '{call.op}' has no adjoint rule for "
                                      f"({', '.join(type_name(a.type) for a in call.args)})")
        for arg, contribution in zip(call.args, contributions):
            if contribution is not None and isinstance(arg, ir.IRLocal) and carries_adjoint(arg.type):
                if contribution.type is not arg.type:
                    raise AssertionError(f"adjoint rule of {call.op}: {contribution.type!r} for {arg.type!r}")
                self.accumulate(arg, contribution, out)

    def reverse_atomic(self, call, out):
        if not (isinstance(call, ir.IRCall) and call.op.startswith("atomic_")):
            return
        arr, *idx, value = call.args
        if not carries_adjoint(value.type) or not isinstance(value, ir.IRLocal):
            return
        adj_arr = self.adj_array(arr)
        g = self.locals.new("_ad_g", value.type)
        read = [ir.IRAssign(g, ir.IRArrayElem(adj_arr, idx, value.type))]
        out.append(ir.IRAssign(g, zero(value.type)))
        if call.op in ("atomic_add", "atomic_sub", "atomic_exch"):
            out.extend(self.if_grad(adj_arr, read))
            self.accumulate(value, g if call.op != "atomic_sub" else ir.IRCall("neg", [g], g.type), out)
        elif call.op in ("atomic_min", "atomic_max"):  # the value that won receives the adjoint (as Warp)
            current = ir.IRArrayElem(arr, idx, value.type)
            shape = getattr(value.type, "_shape", None)
            if shape is None:
                won = ir.IRCall("eq", [current, value], bool_)
                has = self.has_grad(adj_arr)
                test = won if has is None else ir.IRCall("logical_and", [has, won], bool_)
                out.append(ir.IRIf(test, read, []))
                self.accumulate(value, g, out)
                return
            # vectors and matrices are compared component by component: each component that won gets its adjoint
            out.extend(self.if_grad(adj_arr, read))
            dtype = value.type._dtype
            comps = []
            for k in range(math.prod(shape)):
                won = ir.IRCall("eq", [_flat_component(current, k), _flat_component(value, k)], bool_)
                comps.append(ir.IRSelect(won, _flat_component(g, k), ir.IRConst(0, dtype), dtype))
            masked = self.locals.new("_ad_g", value.type)
            out.append(ir.IRAssign(masked, ir.IRConstruct(comps, value.type)))
            self.accumulate(value, masked, out)


def _assigned_outside_visits(stmts) -> set:
    names: set = set()
    for s in stmts:
        if isinstance(s, (ir.IRLAInner, ir.IRTeamLoop)):
            continue
        if isinstance(s, ir.IRAssign) and isinstance(_path(s.target)[1], ir.IRLocal):
            names.add(_path(s.target)[1].name)
        for attr in ("body", "orelse"):
            names |= _assigned_outside_visits(getattr(s, attr, None) or [])
    return names


def _stores_scratch(s) -> bool:
    return isinstance(s, ir.IRAssign) and isinstance(_path(s.target)[1], ir.IRLAScratchElem)


def _rebase(path, base):
    for node in path:
        if isinstance(node, ir.IRComponent):
            base = ir.IRComponent(base, node.indices, node.type)
        elif isinstance(node, ir.IRField):
            base = ir.IRField(base, node.name, node.type)
        else:
            base = ir.IRTupleGet(base, node.index, node.type)
    return base


# -- race-free scatters ------------------------------------------------------------------------------


class _RowOffsets:
    """Which locals are ``tid(0) + c`` (single assignment), and the largest ``|c|`` over the first
    index of every array read (each read scatters into an adjoint array), or None when some read's
    first index is not of that form (the scatters then stay atomic)."""

    def __init__(self, last_dim: int = 0):
        self.offset: dict = {}  # local name -> c
        self.arrays: dict = {}  # array local name -> None (the whole array) or c (a row view tid(0) + c)
        self.radius: int | None = 0
        self.last_dim = last_dim  # the grid dimension of the innermost loop
        self.lanes: dict = {}  # local name -> d: the local is tid(d) + a constant
        # every scatter indexes some dimension with tid(last_dim) + c: within one statement the points of
        # the innermost loop update distinct elements, so that loop may be a simd loop
        self.simd = True

    def first_index(self, arr, indices):
        base = self.arrays.get(arr.name, "param") if isinstance(arr, ir.IRLocal) else None
        if base is None:
            return None
        if base != "param":
            return base
        return self.value(indices[0])

    def value(self, e):
        if isinstance(e, ir.IRLocal):
            return self.offset.get(e.name)
        return None

    def note_read(self, arr, indices):
        if self.radius is None:
            return
        c = self.first_index(arr, indices)
        self.radius = None if c is None else max(self.radius, abs(c))
        whole = isinstance(arr, ir.IRLocal) and self.arrays.get(arr.name, "param") == "param"
        distinct = (whole and any(isinstance(i, ir.IRLocal) and self.lanes.get(i.name) == self.last_dim
                                  for i in indices)) or (self.last_dim == 0 and c is not None)
        self.simd = self.simd and distinct


def _row_offsets(fn: ir.IRFunction) -> _RowOffsets:
    rows = _RowOffsets(max(fn.tid_dims, 1) - 1)
    counts = ir.assignment_counts(fn.body)
    params = {n for n, t in fn.params if isinstance(t, ArrayType)}
    for s in ir.walk(fn.body):
        if not isinstance(s, ir.IRAssign) or not isinstance(s.target, ir.IRLocal):
            if isinstance(s, ir.IRAssign):
                _note_reads(rows, s.value)
            continue
        name, v = s.target.name, s.value
        _note_reads(rows, v)
        single = counts.get(name, 0) == 1
        if isinstance(s.target.type, ArrayType):
            if single and isinstance(v, ir.IRLocal) and (v.name in params or rows.arrays.get(v.name) == "param"):
                rows.arrays[name] = "param"
            elif single and isinstance(v, ir.IRSubarray) and isinstance(v.array, ir.IRLocal) and (
                    v.array.name in params) and rows.value(v.indices[0]) is not None:
                rows.arrays[name] = rows.value(v.indices[0])
            else:
                rows.arrays[name] = None
            continue
        if not single:
            continue
        lane = _lane_of(rows, v)
        if lane is not None:
            rows.lanes[name] = lane
        if isinstance(v, ir.IRTid) and v.dim == 0:
            rows.offset[name] = 0
        elif isinstance(v, ir.IRLocal) and v.name in rows.offset:
            rows.offset[name] = rows.offset[v.name]
        elif isinstance(v, ir.IRCall) and v.op in ("add", "sub") and len(v.args) == 2:
            a, b = v.args
            if isinstance(b, ir.IRConst) and isinstance(b.value, int) and rows.value(a) is not None:
                rows.offset[name] = rows.value(a) + (b.value if v.op == "add" else -b.value)
            elif v.op == "add" and isinstance(a, ir.IRConst) and isinstance(a.value, int) and rows.value(b) is not None:
                rows.offset[name] = rows.value(b) + a.value
    return rows


def _lane_of(rows: _RowOffsets, v):
    """d when ``v`` is tid(d), a copy of such a local, or one plus or minus a constant."""
    if isinstance(v, ir.IRTid):
        return v.dim
    if isinstance(v, ir.IRLocal):
        return rows.lanes.get(v.name)
    if isinstance(v, ir.IRCall) and v.op in ("add", "sub") and len(v.args) == 2:
        a, b = v.args
        if isinstance(b, ir.IRConst) and isinstance(b.value, int):
            return _lane_of(rows, a) if isinstance(a, ir.IRLocal) else None
        if v.op == "add" and isinstance(a, ir.IRConst) and isinstance(a.value, int) and isinstance(b, ir.IRLocal):
            return rows.lanes.get(b.name)
    return None


def _note_reads(rows: _RowOffsets, value) -> None:
    if isinstance(value, ir.IRArrayElem) and carries_adjoint(value.type):
        rows.note_read(value.array, value.indices)

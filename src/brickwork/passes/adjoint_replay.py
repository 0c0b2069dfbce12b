"""adjoint_replay: the forward replay of a backward kernel (``adjoint``), part 1 of its body and the
replay of each iteration and slice before the reverse sweep reverses it.

The replay runs the normal form again without writing arrays or views (the forward launch did; an
atomic's result is read back instead), refills per-point and team scratch, declares each scratch's
adjoint, and makes adjoint arrays and gradient structs follow the local aliases of arrays and the
structs holding them. A recorded loop saves its carried values at the top of every iteration and its
trip count at the end (``IRPush``), for the reversed loop to restore (``adjoint.reverse_loop``)."""

from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..builtins.bvh import GRADIENT_STRUCTS
from ..ir.analysis import REFERENCE_ARGUMENTS
from ..types.arrays import ArrayType
from ..types.fixed_arrays import FixedArrayType
from ..types.scalars import int32
from ..types.structs import has_array_fields, is_struct_type
from .adjoint_inline import IRCustomAdjoint
from .adjoint_normal_form import LoopInfo
from .adjoint_refusals import not_differentiable
from .adjoint_values import access_path, rebase
from .build import i32


class ForwardReplay:
    """The replay's part of the backward kernel's builder (``adjoint._Adjoint``, whose state it uses:
    ``loops``, ``locals``, the adjoint arrays, scratch and gradient structs, ``replay_prints``)."""

    def forward(self, stmts, record: bool, skip: tuple = ()) -> list:
        out: list = []
        for s in stmts:
            if any(s is k for k in skip):
                continue
            if isinstance(s, ir.IRAssign):
                self.forward_assign(s, out)
            elif isinstance(s, ir.IRExprStmt):
                if self.fixed.stores(s) or writes_locals(s.expr):
                    # an atomic into a fixed-size local array (its values are gone), or a call that advances a
                    # local (a random state's draw whose value is dropped: the replay draws it again)
                    out.append(s)
                # other atomics: the forward launch applied them
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
                # the primal buffer is zeroed too: slots the replay does not refill (the ghost cells a memory
                # span crosses, which no producer wrote) then read 0, not garbage that 0 * NaN would turn into
                # NaN gradients
                out += [s, ir.IRLAScratchZero(s.storage), ir.IRLAScratch(adj, s.halo, s.dims), ir.IRLAScratchZero(adj)]
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
        if self.fixed.stores(s):  # a fixed-size local array's values are gone: the replay stores them again
            if _stored_local(s) not in self.unread_tiles:  # (unless no replay reads them: unread_tile_stores)
                out.append(s)
            return
        if isinstance(target, ir.IRLocal) and isinstance(target.type, ArrayType):
            self.fixed.follow(target, value)
            if self.fixed.holds(target):  # (a view of) a fixed-size local array: its adjoint view follows it
                out.append(s)
                if not isinstance(target.type, FixedArrayType):
                    self.follow_local_view(target, value, out)
                return
        if not isinstance(target, ir.IRLocal):
            path, root = access_path(target)
            if isinstance(root, ir.IRArrayElem) and self.is_team_scratch(root.array):
                out.append(s)  # the forward launch's team scratch is gone: the replay refills it
                return
            if isinstance(root, (ir.IRArrayElem, ir.IRLAViewElem, ir.IRPackElem)):
                return  # array, view and pack subscript stores: done by the forward launch
            out.append(s)
            if isinstance(root, ir.IRLocal) and has_array_fields(root.type) and (
                    isinstance(value.type, ArrayType) or has_array_fields(value.type)):
                # an array (or a struct of them) stored in a struct: its gradient goes to the gradient struct
                grads = self.adj_array(value) if isinstance(value.type, ArrayType) else self.grad_struct_of(value)
                if grads is not None:
                    out.append(ir.IRAssign(rebase(path, self.grad_struct_local(root)), grads))
            return
        if isinstance(value, ir.IRCall) and value.op.startswith("atomic_"):
            arr, idx, _ = ir.atomic_parts(value)
            # (atomic_cas passes no gradient and its result is mostly a lock's state: kept as Warp has it)
            replayed = self.fixed.holds(arr) or self.is_team_scratch(arr) or self.replaying_custom
            if value.op != "atomic_cas" and not replayed and _used_beyond_stores(self.fn.body, target):
                # Reading the element back gives the value after every thread's update, not the one this
                # thread's atomic returned: its gradient (and an index taken from it) would be silently wrong.
                at = f" at {value.where}" if value.where else ""
                raise not_differentiable(
                    self.label, f"it uses the value {value.op} returns{at}, which its backward pass cannot recover "
                    f"(the array then holds the value after every thread's update, not the one this thread saw); "
                    f"take that value in a launch outside the Tape (or of a kernel with enable_backward=False), or "
                    f"compute it without the atomic")
            # (only stored as it is, the value's replay does not change the gradient: kept, as Warp does)
            out.append(ir.IRAssign(target, ir.IRArrayElem(arr, list(idx), target.type)))
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
            elif isinstance(value, ir.IRCall) and value.op == "array_slice" and isinstance(value.args[0], ir.IRLocal):
                # a view by slicing (row[0:1]): the same slice of the adjoint array (same shape; the bounds
                # are clamped to it, so an empty adjoint array gives an empty view)
                adj = ir.IRCall("array_slice", [self.adj_array(value.args[0]), *value.args[1:]], value.type)
                out.append(ir.IRAssign(alias, adj))
            elif isinstance(value, ir.IRField):  # a struct's array: its gradient is the gradient struct's field
                grads = self.grad_struct_of(value)
                if grads is not None:
                    out.append(ir.IRAssign(alias, grads))
        elif has_array_fields(target.type):
            grads = self.grad_struct_of(value)
            if grads is not None:
                out.append(ir.IRAssign(self.grad_struct_local(target), grads))
            elif isinstance(value, ir.IRArrayElem) and isinstance(value.array, ir.IRLocal):
                # an element of an array of structs: the same element of its adjoint array points to the
                # gradients of its arrays (runtime/tape.launch_adjoint fills those fields in)
                adj = self.adj_array(value.array)
                load = ir.IRAssign(self.grad_struct_local(target), ir.IRArrayElem(adj, value.indices, value.type))
                test = self.has_grad(adj)
                out.append(load if test is None else ir.IRIf(test, [load], []))

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
        if isinstance(value, ir.IRCall) and value.op in GRADIENT_STRUCTS:  # wp.mesh_get(id): the mesh's gradients
            return ir.IRCall(GRADIENT_STRUCTS[value.op], list(value.args), value.type)
        path, root = access_path(value)
        if isinstance(root, ir.IRLocal) and root.name in self.grad_structs:
            return rebase(path, self.grad_structs[root.name])
        return None

    def forward_loop(self, s, record: bool) -> list:
        info: LoopInfo = self.loops[id(s)]
        if not record or self.quiet_loop(s):  # (a loop the reverse sweep leaves out needs no record)
            return [self.clone_loop(s, self.forward(s.body, record=False))]
        count = self.locals.new("_ad_n", int32)
        body = [ir.IRAssign(count, ir.IRCall("add", [count, i32(1)], int32, no_wrap=True))]
        body += [ir.IRPush(h) for h in info.headers]
        # the fixed-size local arrays it writes: the reversed iteration replays from their values here
        body += [ir.IRPush(a) for a in self.fixed.loop_state(self.fn, s)]
        body += self.forward(s.body, record=False)
        copies = [ir.IRAssign(copy, tile) for tile, copy in self.tile_start_copies(s)]
        return [*copies, ir.IRAssign(count, i32(0)), self.clone_loop(s, body), ir.IRPush(count)]

    def clone_loop(self, s, body):
        if isinstance(s, ir.IRFor):
            return ir.IRFor(s.var, s.start, s.stop, s.step, body, s.step_sign)
        return ir.IRWhile(s.cond, body)


def _stored_local(s) -> str | None:
    """The name of the local array a store statement writes an element of (None for an atomic)."""
    if isinstance(s, ir.IRAssign) and not isinstance(s.target, ir.IRLocal):
        root = access_path(s.target)[1]
        if isinstance(root, ir.IRArrayElem) and isinstance(root.array, ir.IRLocal):
            return root.array.name
    return None


def _stores_scratch(s) -> bool:
    return isinstance(s, ir.IRAssign) and isinstance(access_path(s.target)[1], ir.IRLAScratchElem)


def _used_beyond_stores(body, local) -> bool:
    """Whether ``local`` is read anywhere other than as the whole value stored into an array element or view
    (``out[i] = old``): in arithmetic, an index, a condition, a call."""
    if not isinstance(local, ir.IRLocal):
        return True
    reads = sum(isinstance(n, ir.IRLocal) and n.name == local.name for n in ir.walk(body))
    plain = sum(isinstance(n, ir.IRAssign) and isinstance(n.value, ir.IRLocal) and n.value.name == local.name
                and isinstance(access_path(n.target)[1], (ir.IRArrayElem, ir.IRLAViewElem, ir.IRPackElem))
                for n in ir.walk(body))
    targets = sum(isinstance(n, ir.IRAssign) and isinstance(n.target, ir.IRLocal) and n.target.name == local.name
                  for n in ir.walk(body))
    return reads - targets - plain > 0


def writes_locals(e) -> bool:
    """Whether ``e`` is a call of a builtin that writes local variables (``ir.analysis.REFERENCE_ARGUMENTS``)."""
    return isinstance(e, ir.IRCall) and e.op in REFERENCE_ARGUMENTS

"""adjoint_teams: the backward kernel (``adjoint``) where a team of threads shares values: nested
parallelism (a ``par_for_outer`` team, its scratch pads, its ``par_for_inner`` loops) and, on a GPU
target, the threads of a loop abstraction's slice.

A team's replay refills its scratch pads and makes a zeroed adjoint pad beside each; a reversed
``par_for_inner`` loop replays then reverses each index, adding into the adjoint pads (atomically where
the team's threads share them). A value of a slice's outer body, or of a team's body, is held by every
thread of the slice (team), so what the visits (iterations) send to its adjoint is summed over the threads
in a one-value scratch (a pad of the team's arena) and handed to every thread's adjoint once the inner loop
is done."""

from __future__ import annotations

import math

import numpy as np

from .. import ir
from ..types.arrays import ArrayType
from ..types.composite import is_matrix_type
from ..types.scalars import int32
from .adjoint_refusals import not_differentiable
from .adjoint_values import access_path, flat_component, part_of, summable_parts, zero
from .build import i32, op


class TeamAdjoints:
    """The teams' part of the backward kernel's builder (``adjoint._Adjoint``, whose state it uses:
    ``team_threads``, ``team_member``, ``team_scratch``, ``slice_locals``, ``slice_sums``, ``summed``,
    ``in_visit``)."""

    # -- par_for_outer teams, their scratch pads and par_for_inner loops ---------------------------------
    def is_team_scratch(self, arr) -> bool:
        return isinstance(arr, ir.IRLocal) and arr.name in self.team_scratch

    def stores_team_scratch(self, s) -> bool:
        return isinstance(s, ir.IRAssign) and isinstance(access_path(s.target)[1], ir.IRArrayElem) and (
            self.is_team_scratch(access_path(s.target)[1].array))

    def forward_team(self, s: ir.IRAssign, out):
        """The team and its scratch pads in the replay. The team's arena holds each pad and its adjoint
        pad: twice the bytes the launch asks for, plus 64 per pad (a pad starts at most 64-byte aligned). An
        adjoint pad has the pad's shape and starts at zero (zeroed by the team's threads; the barrier
        between the replay and the reverse sweep orders that before any addition)."""
        value = s.value
        if isinstance(value, ir.IRTeamBegin):
            t = value.arena_bytes.type
            pads = sum(isinstance(n, ir.IRTeamScratch) for n in ir.walk(self.fn.body))
            sums = self.team_values_summed()
            # each sum's pad: 64 bytes of alignment and its components
            extra = sum(64 + ncomp * np.dtype(storage.type.dtype._np).itemsize for _, _, storage, ncomp in sums)
            twice = ir.IRCall("mul", [value.arena_bytes, ir.IRConst(2, t)], t, no_wrap=True)
            arena = ir.IRCall("add", [twice, ir.IRConst(64 * pads + extra, t)], t, no_wrap=True)
            out.append(ir.IRAssign(s.target, ir.IRTeamBegin(arena, value.type)))
            self.team_member = s.target
            for atom, path, storage, ncomp in sums:
                out.append(ir.IRAssign(storage, ir.IRTeamScratch(s.target, [i32(ncomp)], storage.type)))
                out.append(self.zero_pad(s.target, storage))
                self.slice_sums[(atom.name, path)] = (atom, path, storage, ncomp)
            return
        out.append(s)
        pad = s.target
        adj = self.adj_arrays[pad.name] = self.locals.new(f"_adj_{pad.name}_", pad.type)
        self.team_scratch.add(pad.name)
        out.append(ir.IRAssign(adj, ir.IRTeamScratch(value.member, value.sizes, value.type)))
        out.append(self.zero_pad(value.member, adj))

    def zero_pad(self, member, pad) -> ir.IRTeamLoop:
        """The team's threads set every element of the scratch array ``pad`` to zero."""
        idx = [self.locals.new("_ad_z", int32) for _ in range(pad.type.ndim)]
        body = [ir.IRAssign(ir.IRArrayElem(pad, idx, pad.type.dtype), zero(pad.type.dtype))]
        for d in range(pad.type.ndim - 1, 0, -1):
            body = [ir.IRFor(idx[d], i32(0), ir.IRArrayShape(pad, d, int32), i32(1), body)]
        last = op("sub", ir.IRArrayShape(pad, 0, int32), i32(1))
        return ir.IRTeamLoop(member, idx[0], i32(0), last, body)

    def team_values_summed(self) -> list:
        """(local, path, pad, components) of each part (``summable_parts``) of each value of the team body
        that its par_for_inner iterations read, on a GPU target (every thread of the team holds it): what
        the reversed iterations add to its adjoint is summed in a pad of the team's arena."""
        if not self.team_threads:
            return []
        read: dict = {}
        for loop in ir.walk(self.fn.body):
            if isinstance(loop, ir.IRTeamLoop):
                read.update((n.name, n) for n in ir.walk(loop.body) if isinstance(n, ir.IRLocal))
        sums = []
        for name in sorted(set(read) & self.slice_locals):
            atom = ir.IRLocal(name, read[name].type)
            for path, t in summable_parts(atom.type):
                sums.append((atom, path, *self.new_sum(name, t)))
        return sums

    def new_sum(self, name: str, t) -> tuple:
        """(storage, components) of a sum of the adjoint of a part of type ``t`` of the value ``name``."""
        ncomp = math.prod(getattr(t, "_shape", ()) or (1,))
        return self.locals.new(f"_adj_sum_{name}_", ArrayType(getattr(t, "_dtype", t), 1)), ncomp

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
            return [ir.IRTeamLoop(s.member, s.var, s.lo, s.hi, body), *self.gather_team_sums(s.member)]
        return [ir.IRFor(s.var, s.lo, op("add", s.hi, i32(1)), i32(1), body)]

    def gather_team_sums(self, member) -> list:
        """After a reversed par_for_inner loop (a barrier: every thread's additions are done): each thread
        adds the team's sums into its adjoints of the team values, then (a barrier later) the sums are
        cleared, and a last barrier orders that before the additions of an earlier loop."""
        if not self.summed:
            return []
        out: list = [ir.IRTeamBarrier(member), *self.hand_out_sums(), ir.IRTeamBarrier(member)]
        out += [self.zero_pad(member, self.slice_sums[key][2]) for key in sorted(self.summed, key=repr)]
        out.append(ir.IRTeamBarrier(member))
        self.summed = set()
        return out

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
                    root = access_path(n.target)[1]
                    if isinstance(root, ir.IRArrayElem) and isinstance(root.array, ir.IRLocal):
                        stored.add(root.array.name)
                        targets.add(id(root))
            reads = {n.array.name for n in ir.walk([s]) if isinstance(n, ir.IRArrayElem) and id(n) not in targets
                     and isinstance(n.array, ir.IRLocal)}
            again = stored & pads & (read | reads)
            if again:
                name = sorted(again)[0].split("__")[0]
                raise not_differentiable(self.label, f"the team scratch pad '{name}' is written after it is read "
                                          "(or read and written by one loop): the backward kernel replays the "
                                          "team's stages before reversing them, so the earlier values are lost; "
                                          "write each pad before reading it, in one stage (use another pad)")
            read |= reads

    # -- values every thread of a slice holds: their adjoints summed over the threads -------------------
    def sum_over_threads(self, atom, value, out):
        """A visit's part of the adjoint of a slice value that every thread of the slice holds: added
        atomically into the slice's sum (a one-value scratch), which ``gather_slice_sums`` hands to
        every thread's adjoint once the inner loop is done."""
        self.add_to_sums(atom, (), value, out)

    def add_to_sums(self, atom, prefix: tuple, value, out):
        """Each summable part of ``value`` (the adjoint of the part of ``atom`` at ``prefix``) added into its sum."""
        for path, t in summable_parts(value.type):
            storage, ncomp = self.slice_sum(atom, (*prefix, *path), t)
            part = part_of(value, path)
            for k in range(ncomp):
                self.add_to_sum(storage, i32(k), part if not hasattr(t, "_shape") else flat_component(part, k), out)

    def add_to_sum(self, storage, slot, part, out):
        """sum[slot] += part, atomically: a slice's one-value scratch, or a team's pad (an array)."""
        if self.slice_loop is None:
            out.append(ir.IRExprStmt(ir.IRCall("atomic_add", [storage, slot, part], part.type)))
        else:
            out.append(ir.IRAtomicAdd(self.sum_elem(storage, slot), part))

    def sum_elem(self, storage, slot):
        """Element ``slot`` of a sum: of a slice's one-value scratch, or of a team's pad (no slice)."""
        if self.slice_loop is None:
            return ir.IRArrayElem(storage, [slot], storage.type.dtype)
        return ir.IRLAScratchElem(storage, [slot], [], storage.type.dtype)

    def hand_out_sums(self) -> list:
        """Each thread adds the sums of the values the reversed inner loop added into to its adjoints."""
        out = []
        for key in sorted(self.summed, key=repr):
            atom, path, storage, ncomp = self.slice_sums[key]
            adj, scalar = part_of(self.adj_of(atom), path), storage.type.dtype
            for k in range(ncomp):
                place = adj if not hasattr(adj.type, "_shape") else flat_component(adj, k)
                out.append(ir.IRAssign(place, ir.IRCall("add", [place, self.sum_elem(storage, i32(k))], scalar)))
        return out

    def sum_component_over_threads(self, value, g, out):
        """``sum_over_threads`` for a visit's read of a part of a slice value: a component (or a matrix row)
        of a vector or matrix, a field of a struct or an item of a tuple."""
        base, t = value.base, value.base.type
        if not isinstance(value, ir.IRComponent):  # a field or an item: each of its summable parts
            self.add_to_sums(base, (value.name if isinstance(value, ir.IRField) else value.index,), g, out)
            return
        storage, _ = self.slice_sum(base, (), t)
        scalar = storage.type.dtype

        def add(slot, part):
            self.add_to_sum(storage, slot, part, out)

        if not is_matrix_type(t):
            add(value.indices[0], g)
            return
        row = op("mul", value.indices[0], i32(t._shape[1]))
        if len(value.indices) == 2:
            add(op("add", row, value.indices[1]), g)
        else:  # a row of a matrix
            for c in range(t._shape[1]):
                add(op("add", row, i32(c)), ir.IRComponent(g, [i32(c)], scalar))

    def slice_sum(self, atom, path: tuple, t):
        """(storage, components) of the sum of the adjoint of the part at ``path`` (of type ``t``) of the slice
        value ``atom``: made on first use in a slice, planned with the arena in a team."""
        key = (atom.name, path)
        found = self.slice_sums.get(key)
        if found is None and self.slice_loop is None:  # a team's sums are planned with its arena
            raise AssertionError(f"no team sum planned for '{atom.name}' {path}")
        if found is None:
            found = self.slice_sums[key] = (atom, path, *self.new_sum(atom.name, t))
        self.summed.add(key)
        return found[2], found[3]

    def gather_slice_sums(self, out):
        """After an inner loop's reversed visits: (a barrier, so every thread's additions are done) each
        thread adds the slice's sums into its adjoints of the slice values, then the sums are cleared."""
        if not self.summed:
            return
        out.append(ir.IRTeamBarrier(None))
        out += self.hand_out_sums()
        out += [ir.IRLAScratchZero(self.slice_sums[key][2]) for key in sorted(self.summed, key=repr)]
        self.summed = set()


def assigned_outside_visits(stmts) -> set:
    """The locals ``stmts`` assign outside inner loops (``la.inner`` visits, ``par_for_inner`` iterations):
    the values every thread of a slice holds."""
    names: set = set()
    for s in stmts:
        if isinstance(s, (ir.IRLAInner, ir.IRTeamLoop)):
            continue
        if isinstance(s, ir.IRAssign) and isinstance(access_path(s.target)[1], ir.IRLocal):
            names.add(access_path(s.target)[1].name)
        for attr in ("body", "orelse"):
            names |= assigned_outside_visits(getattr(s, attr, None) or [])
    return names

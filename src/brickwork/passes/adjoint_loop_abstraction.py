"""adjoint_loop_abstraction: the loop abstraction in the backward kernel (``adjoint``): an outer body
(one slice) replayed then reversed, its inner loop's visits, the adjoints of pack views and per-point
scratch, and the gradient of a value folded into an ``outer_reduce`` (from the adjoint of the reducer's
partials)."""

from __future__ import annotations

from dataclasses import replace

from .. import ir
from .adjoint_refusals import not_differentiable
from .adjoint_teams import assigned_outside_visits
from .adjoint_values import carries_adjoint


class LoopAbstractionAdjoints:
    """The loop abstraction's part of the backward kernel's builder (``adjoint._Adjoint``, whose state it
    uses: ``adj_packs``, ``adj_scratch``, ``adj_arrays``, ``slice_loop``, ``reducer``, ``la_block``, and
    the slice's sums of ``adjoint_teams``)."""

    def adj_view_elem(self, e: ir.IRLAViewElem) -> ir.IRLAViewElem:
        pack = e.view.pack
        adj = self.adj_packs.get(pack.name) if isinstance(pack, ir.IRLocal) else None
        if adj is None:
            raise not_differentiable(self.label, "a view of a pack that is not a kernel argument has no adjoint")
        return ir.IRLAViewElem(replace(e.view, pack=adj), e.var, e.element, e.point, e.type)

    def adj_pack_elem(self, e: ir.IRPackElem) -> ir.IRPackElem:
        """The element of the adjoint pack (over the fields' gradients) a pack subscript's adjoint is."""
        adj = self.adj_packs.get(e.pack.name) if isinstance(e.pack, ir.IRLocal) else None
        if adj is None:
            raise not_differentiable(self.label, "a subscript of a pack that is not a kernel argument has no adjoint")
        return replace(e, pack=adj)

    def adj_scratch_elem(self, e: ir.IRLAScratchElem) -> ir.IRLAScratchElem:
        return ir.IRLAScratchElem(self.adj_scratch[e.storage.name], e.comps, e.point, e.type)

    def reverse_slice(self, s: ir.IRLAOuter) -> ir.IRLAOuter:
        """One slice: replay its stages (refilling scratch), then reverse them in reverse order; the
        barrier lets every point's replay finish before any is reversed."""
        replay = self.forward(s.body, record=True)
        if self.team_threads and s.config.loop != "boiv":
            self.slice_locals = assigned_outside_visits(s.body)
        self.slice_loop = s.config.loop
        self.reducer, self.la_block = s.config.reducer, s.block
        reverse = self.reverse(s.body)
        sums = [ir.IRLAScratch(storage, None, (ncomp,)) for _, _, storage, ncomp in self.slice_sums.values()]
        sums += [ir.IRLAScratchZero(st.storage) for st in sums]
        self.slice_locals, self.slice_loop, self.slice_sums = set(), None, {}
        return replace(s, body=replay + sums + [ir.IRTeamBarrier(None)] + reverse)

    def reverse_visits(self, s: ir.IRLAInner, out):
        """An inner loop: visits are independent, each replays its point, then reverses it; neighbouring
        visits may add into the same adjoint scratch slot, so the visits are not a vector loop."""
        self.in_visit, saved, self.replay_prints = True, self.replay_prints, False
        body = self.forward(s.body, record=True) + self.reverse(s.body)
        self.in_visit, self.replay_prints = False, saved
        if body:
            out.append(replace(s, body=body, simd=False, reduce=False))
        self.gather_slice_sums(out)

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

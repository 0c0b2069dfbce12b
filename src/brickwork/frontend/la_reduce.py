"""Reductions in loop-abstraction bodies: the slice accumulator and ``la.inner_reduce``.

Every slice folds into one accumulator (``_la_acc``), initialised to the reducer's identity and
stored at the end of the slice into ``_la_partials[slice]``; a one-thread kernel then combines
the partials in slice order, so results do not depend on the thread count. ``inner_reduce``
visits the logical cells of a base range (the memory tag degenerates to logical) with a simd
loop carrying an OpenMP reduction clause where the join allows one.
"""

from __future__ import annotations

from ..errors import KernelTypeError
from ..types.arrays import ArrayType, type_name
from ..types.scalars import bool_, float16, int32
from . import ir
from .la_lowering import VEC3I, VEC4I, Slice

ACC = "_la_acc"


class LAReduceMixin:
    """Mixin of ``Builder`` for ``outer_reduce`` bodies."""

    def la_reducer(self):
        cfg = getattr(self, "la_cfg", None)
        return None if cfg is None else cfg.get("reducer")

    def _acc(self):
        r = self.la_reducer()
        return ir.IRLocal(ACC, r.value_type)

    def _identity(self):
        r = self.la_reducer()
        t = r.dtype
        value = ir.IRConst(r.identity(), t)
        if not r.with_location:
            return value
        minus = ir.IRConst(-1, int32)
        return ir.IRConstruct([value, minus, minus, minus, minus], r.value_type)

    def _slice_id(self):
        cfg, g = self.la_cfg, self._geom
        b = ir.IRTid(0, int32)
        if cfg["loop"] == "bvoi":
            return b
        if cfg["loop"] == "bovi":
            return self._op("add", self._op("mul", b, g("nouter")), ir.IRTid(1, int32))
        nk = self._op("add", self._op("sub", g("ke"), g("ks")), self._i(1))
        nj = self._op("add", self._op("sub", g("je"), g("js")), self._i(1))
        return self._op("add", self._op("mul", self._op("add", self._op("mul", b, nk), ir.IRTid(1, int32)), nj),
                        ir.IRTid(2, int32))

    def simd_reduction_clause(self):
        r = self.la_reducer()
        if r is None or r.with_location or r.dtype in (float16, bool_):
            return None
        op = {"sum": "+", "prod": "*", "min": "min", "max": "max"}[r.join]
        return f"{op}:v_{ACC}"

    def la_wrap(self, prologue: list, user: list) -> list:
        """The body of an outer_reduce kernel: identity, the user's statements, the partial stored."""
        r = self.la_reducer()
        self.locals[ACC] = r.value_type
        self.var_types[ACC] = r.value_type
        self.context.note_type(r.value_type)
        partials = ir.IRLocal("_la_partials", ArrayType(r.value_type, 1))
        start = [ir.IRAssign(self._acc(), self._identity())]
        store = [ir.IRAssign(ir.IRArrayElem(partials, [self._slice_id()], r.value_type), self._acc())]
        if self.la_cfg["loop"] != "boiv":
            return prologue + start + user + [ir.IRLabel("_la_end")] + store
        g = self._geom
        pi = self._declare("_la_pi", int32)
        loop_body = self._la_point_prologue + user + [ir.IRLabel("_la_end")]
        loop = ir.IRFor(pi, g("is"), self._op("add", g("ie"), self._i(1)), self._i(1), loop_body, 1, simd=True,
                        reduction=self.simd_reduction_clause())
        return prologue + start + [loop] + store

    def la_fold(self, value, node) -> list:
        """Statements folding ``value`` (the body's return) into the accumulator."""
        r = self.la_reducer()
        if value.type is not r.dtype:
            raise self.error(KernelTypeError, f"inner_reduce: the body returns {type_name(value.type)} but the "
                             f"reducer {r!r} folds {type_name(r.dtype)}", node)
        acc = self._acc()
        if r.join in ("sum", "prod"):
            return [ir.IRAssign(acc, self._op("add" if r.join == "sum" else "mul", acc, value))]
        if not r.with_location:
            return [ir.IRAssign(acc, self._op(r.join, acc, value))]
        better = self._op("lt" if r.join == "min" else "gt", value, ir.IRField(acc, "value", r.dtype))
        k, j, i = self._la_point_kji
        loc = ir.IRConstruct([value, self._la_b, k, j, i], r.value_type)
        return [ir.IRIf(better, [ir.IRAssign(acc, loc)], [])]

    def la_inner_reduce(self, node, out):
        """``la.inner_reduce(rng, fn)``: fold ``fn(idx)`` (or ``fn(k, j, i)``) over the range's cells."""
        from .nested import LocalFunction

        if self.la_reducer() is None:
            raise self.error(KernelTypeError, "inner_reduce needs a reduction space: call it from la.outer_reduce "
                             "on space.with_reducer(...) or la.ReductionIndexSpace(...)", node)
        if len(node.args) != 2 or node.keywords:
            raise self.error(KernelTypeError, "la.inner_reduce(rng, fn) takes a range and a body", node)
        rng = self._slice_arg(node.args[0], node)
        if not rng.halo.is_none:
            raise self.error(KernelTypeError, f"inner_reduce over a halo range ({rng.halo!r}): reduce over the base "
                             f"range, extend only producer loops", node)
        fn = self.static_value(node.args[1])
        if not isinstance(fn, LocalFunction) or len(fn.params) not in (1, 3):
            raise self.error(KernelTypeError, "la.inner_reduce: the body must be a nested def or lambda taking idx "
                             "or (k, j, i) and returning the value to fold", node)
        cfg = dict(rng.cfg)
        if cfg["inner"] == "memory":
            cfg["inner"] = "logical_flat"  # memory degenerates to logical cells, same flat argument
        logical = Slice(cfg, rng.b, rng.start, rng.end, rng.mem0, rng.halo, rng.point)
        self._inl_counter = getattr(self, "_inl_counter", 0) + 1
        names = [f"_la_red{self._inl_counter}_{n}" for n in range(len(fn.params))]

        def body():
            params, stmts = self.inline(fn, self._arg_types(logical, len(fn.params)), node, fold=True)
            binds = [ir.IRAssign(p, ir.IRLocal(n, p.type)) for p, n in zip(params, names)]
            return binds + stmts

        saved = getattr(self, "_simd_reduction", None), getattr(self, "_la_point_kji", None)
        self._simd_reduction = self.simd_reduction_clause()
        self._la_kji_hook = True
        try:
            self._traverse(logical, names, body, node, out)
        finally:
            self._simd_reduction, self._la_point_kji = saved


_ = (VEC3I, VEC4I)

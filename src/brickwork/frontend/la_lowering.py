"""The loop abstraction in kernel code: slices, ``la.inner`` traversals, halos, scratch, views.

An ``outer`` body ``def body(rng, b)`` becomes a kernel whose grid is the slices of the index
space (spec §4): blocks (bvoi), (block, chunk) (bovi) or (block, cell) (boiv). ``rng`` is a
compile-time ``Slice`` holding the slice's runtime geometry as locals; ``for idx in la.inner(rng)``
and ``la.inner(rng, fn)`` expand into loops over the cells of spec §6: contiguous rows with a
simd innermost loop and no division per element. Halo ranges, per-point scratch and pack views
follow spec §5, §7 and §9, with the PROPOSED rules (bvoi halo traversal and scratch span = the
halo box on both backends; the reduced halo list for boiv).
"""

from __future__ import annotations

import ast

from ..errors import KernelSyntaxError, KernelTypeError
from ..types.arrays import type_name
from ..types.composite import vector
from ..types.scalars import int32
from . import ir

VEC3I = vector(3, int32)
VEC4I = vector(4, int32)
GEOMETRY = ("ks", "ke", "js", "je", "is", "ie", "NK", "NJ", "NI", "ninner", "nouter")


class Slice:
    """A range inside an outer body: base (halo none) or extended with a halo."""

    def __init__(self, cfg, b, start, end, mem0, halo, point=None):
        self.cfg = cfg  # dict: loop, inner, ndim, chunk (names)
        self.b = b
        self.start = start  # (k, j, i) exprs of the first logical cell (the origin)
        self.end = end  # (k, j, i) exprs of the last logical cell
        self.mem0 = mem0  # mflat(origin)
        self.halo = halo  # la.halo value
        self.point = point  # boiv: the slice's cell


class ScratchRef:
    """A per-point scratch buffer of one slice."""

    def __init__(self, rng, storage, size, first, dims, box=None):
        self.rng, self.storage, self.size, self.first, self.dims, self.box = rng, storage, size, first, dims, box


class ViewRef:
    """A pack, variable or flux view made from a slice."""

    def __init__(self, rng, pack, kind, var=None, direction=None, sparse=None):
        self.rng, self.pack, self.kind, self.var, self.direction, self.sparse = rng, pack, kind, var, direction, sparse


class SliceMethod:
    def __init__(self, rng, name):
        self.rng, self.name = rng, name


class LAMixin:
    """Mixin of ``Builder`` for loop-abstraction bodies."""

    # -- small IR helpers ---------------------------------------------------------------------------
    def _i(self, v):
        return ir.IRConst(int(v), int32)

    def _op(self, name, a, b):
        return self.builtin_call(name, [a, b], self.source.tree)

    def _tmp_assign(self, value, out):
        t = self.new_temp(value.type)
        out.append(ir.IRAssign(t, value))
        return t

    def _geom(self, name):
        return ir.IRLocal(f"_la_{name}", int32)

    def _mflat(self, k, j, i):
        nj, ni = self._geom("NJ"), self._geom("NI")
        return self._op("add", self._op("mul", self._op("add", self._op("mul", k, nj), j), ni), i)

    def _decode(self, f, box, out):
        """(k, j, i) locals of flat index ``f`` of a box given as ((ks, nj, ...)) exprs."""
        ks, js, is_, nj, ni = box
        plane = self._op("mul", nj, ni)
        q = self._tmp_assign(self._op("div", f, plane), out)
        r = self._tmp_assign(self._op("sub", f, self._op("mul", q, plane)), out)
        jj = self._tmp_assign(self._op("div", r, ni), out)
        ii = self._op("sub", r, self._op("mul", jj, ni))
        return (self._tmp_assign(self._op("add", q, ks), out), self._tmp_assign(self._op("add", jj, js), out),
                self._tmp_assign(self._op("add", ii, is_), out))

    def _l_box(self):
        g = self._geom
        nj = self._op("add", self._op("sub", g("je"), g("js")), self._i(1))
        ni = self._op("add", self._op("sub", g("ie"), g("is")), self._i(1))
        return (g("ks"), g("js"), g("is"), nj, ni)

    def _l_size(self):
        g = self._geom
        nk = self._op("add", self._op("sub", g("ke"), g("ks")), self._i(1))
        _, _, _, nj, ni = self._l_box()
        return self._op("mul", self._op("mul", nk, nj), ni)

    # -- the slice of an outer body -------------------------------------------------------------------
    def bind_la_slice(self, name, cfg, out):
        """Prologue of an outer body: the slice's geometry as locals, ``name`` bound to it."""
        from ..la import halo as halos

        self.la_cfg = cfg
        self._la_kji = {}
        b = ir.IRLocal(self._block_name, int32) if getattr(self, "_block_name", None) else ir.IRTid(0, int32)
        g = self._geom
        loop = cfg["loop"]
        self._la_b = b
        if loop == "boiv":
            # A reduction walks i inside the kernel (one partial per row); else i is a grid index.
            reduce = cfg.get("reducer") is not None
            point_out = [] if reduce else out
            i_index = ir.IRLocal("_la_pi", int32) if reduce else self._op("add", g("is"), ir.IRTid(3, int32))
            p = (self._tmp_assign(self._op("add", g("ks"), ir.IRTid(1, int32)), point_out),
                 self._tmp_assign(self._op("add", g("js"), ir.IRTid(2, int32)), point_out),
                 self._tmp_assign(i_index, point_out))
            mem0 = self._tmp_assign(self._mflat(*p), point_out)
            self._la_point_prologue = point_out
            rng = Slice(cfg, b, p, p, mem0, halos.none, point=p)
        elif loop == "bvoi":
            start = (g("ks"), g("js"), g("is"))
            end = (g("ke"), g("je"), g("ie"))
            mem0 = self._tmp_assign(self._mflat(*start), out)
            rng = Slice(cfg, b, start, end, mem0, halos.none)
        else:
            o = ir.IRTid(1, int32)
            lo = self._tmp_assign(self._op("mul", o, g("ninner")), out)
            hi_excl = self._op("min", self._op("mul", self._op("add", o, self._i(1)), g("ninner")), self._l_size())
            hi = self._tmp_assign(self._op("sub", hi_excl, self._i(1)), out)
            start = self._decode(lo, self._l_box(), out)
            end = self._decode(hi, self._l_box(), out)
            mem0 = self._tmp_assign(self._mflat(*start), out)
            rng = Slice(cfg, b, start, end, mem0, halos.none)
        self.static_locals[name] = rng
        self.la_halos_used = getattr(self, "la_halos_used", set())

    # -- methods of a slice -------------------------------------------------------------------------------
    def slice_attribute(self, rng, attr, node):
        from .expressions import Static

        if attr in ("add_halo", "get_kji", "team_barrier"):
            return Static(SliceMethod(rng, attr))
        raise self.error(KernelTypeError, f"an index range has no attribute '{attr}' (it has add_halo, get_kji, "
                         f"team_barrier)", node)

    def call_slice_method(self, m: SliceMethod, node):
        from ..la.halo import Halo
        from .expressions import Static

        rng = m.rng
        if m.name == "team_barrier":
            return Static(None)  # one thread per slice on the CPU: program order is the barrier
        if m.name == "add_halo":
            if len(node.args) != 1:
                raise self.error(KernelTypeError, "add_halo(halo) takes one halo", node)
            h = self.static_value(node.args[0])
            if not isinstance(h, Halo):
                raise self.error(KernelTypeError, f"add_halo needs an la.halo value, got {h!r}", node)
            if not rng.halo.is_none:
                raise self.error(KernelTypeError, f"add_halo on a range that already has halo {rng.halo!r}: "
                                 f"halos do not compose", node)
            try:
                h.check_projection_closed(3)
            except ValueError as e:
                raise self.error(KernelTypeError, str(e), node) from None
            self.la_halos_used.add(h.reduced(rng.cfg["ndim"]))
            return Static(Slice(rng.cfg, rng.b, rng.start, rng.end, rng.mem0, h, rng.point))
        # get_kji
        if len(node.args) == 1:
            arg = self.expr(node.args[0])
            if isinstance(arg, Static) and hasattr(arg.value, "__bw_value_for__"):  # a host Index3 / MemoryOffset
                from ..la.indices import Index3

                want = VEC3I if isinstance(arg.value, Index3) else VEC4I if rng.point is not None else int32
                arg = Static(arg.value.__bw_value_for__(want))
            return self._kji_of(rng, self.to_value(arg, node.args[0]), node)
        raise self.error(KernelTypeError, "get_kji(idx) takes one index", node)

    def _kji_shortcut(self, name) -> bool:
        """``get_kji(idx)`` may reuse the loop's (k, j, i) unless the body also assigns ``idx`` elsewhere."""
        stored = getattr(self, "_la_stored", None)
        if stored is None:
            loop_targets = set()
            for n in ast.walk(self.source.tree):
                if isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and \
                        getattr(n.iter.func, "attr", getattr(n.iter.func, "id", None)) == "inner":
                    loop_targets.update(id(t) for t in ast.walk(n.target))
            stored = self._la_stored = {n.id for n in ast.walk(self.source.tree) if isinstance(n, ast.Name)
                                        and isinstance(n.ctx, ast.Store) and id(n) not in loop_targets}
        return name not in stored

    def _kji_of(self, rng, arg, node):
        t3 = ir.TupleType((int32, int32, int32))
        self.context.note_type(t3)
        if isinstance(arg, ir.IRLocal) and arg.name in self._la_kji:
            return ir.IRConstruct(list(self._la_kji[arg.name]), t3)
        if arg.type is VEC3I:
            comps = [ir.IRComponent(arg, [self._i(c)], int32) for c in range(3)]
        elif arg.type is VEC4I and rng.point is not None:
            comps = [self._op("add", rng.point[c], ir.IRComponent(arg, [self._i(c)], int32)) for c in range(3)]
        elif arg.type is int32:
            m = self._op("add", arg, rng.mem0)
            g = self._geom
            plane = self._op("mul", g("NJ"), g("NI"))
            k = self._op("div", m, plane)
            r = self._op("sub", m, self._op("mul", k, plane))
            j = self._op("div", r, g("NI"))
            comps = [k, j, self._op("sub", r, self._op("mul", j, g("NI")))]
        else:
            raise self.error(KernelTypeError, f"get_kji: index of type {type_name(arg.type)} is not an index of "
                             f"this range", node)
        return ir.IRConstruct(comps, t3)

    # -- la.inner ---------------------------------------------------------------------------------------
    def la_inner_for(self, node, out):
        """``for idx in la.inner(rng):`` / ``for k, j, i in la.inner(rng):``."""
        call = node.iter
        if len(call.args) != 1 or call.keywords:
            raise self.error(KernelTypeError, "la.inner(rng) in a for loop takes the range only", node)
        rng = self._slice_arg(call.args[0], node)
        if isinstance(node.target, ast.Tuple):
            names = [self._target_name(e, node) for e in node.target.elts]
            if len(names) != 3:
                raise self.error(KernelTypeError, "la.inner unpacks into k, j, i (three names)", node)
        else:
            names = [self._target_name(node.target, node)]
        saved, self._cur_shortcut = getattr(self, "_cur_shortcut", True), \
            isinstance(node.target, ast.Name) and self._kji_shortcut(node.target.id)
        self._traverse(rng, names, lambda: self.block(node.body), node, out)
        self._cur_shortcut = saved

    def la_inner_call(self, node, out):
        """``la.inner(rng, fn)`` with a nested def or lambda taking ``idx`` or ``k, j, i``."""
        from .nested import LocalFunction

        if len(node.args) != 2 or node.keywords:
            raise self.error(KernelTypeError, "la.inner(rng, fn) takes a range and a body", node)
        rng = self._slice_arg(node.args[0], node)
        fn = self.static_value(node.args[1])
        if not isinstance(fn, LocalFunction) or len(fn.params) not in (1, 3):
            raise self.error(KernelTypeError, "la.inner: the body must be a nested def or lambda taking idx or "
                             "(k, j, i)", node)
        if len(fn.params) == 1 and rng.cfg["loop"] == "boiv" and rng.cfg["inner"] == "logical_flat":
            ann = fn.node.args.args[0].annotation
            try:
                ann = ann if ann is None else self.static_value(ann)
            except Exception:  # noqa: BLE001 - not a resolvable annotation: the inlining reports it
                ann = None
            if ann is int or getattr(ann, "is_int", False) is True:
                raise self.error(KernelTypeError, "a boiv/logical_flat inner body gets a MemoryOffset, not an "
                                 "int: drop the int annotation", node)

        self._inl_counter = getattr(self, "_inl_counter", 0) + 1
        names = [f"_la_arg{self._inl_counter}_{n}" for n in range(len(fn.params))]

        def body():
            params, stmts = self.inline(fn, self._arg_types(rng, len(fn.params)), node)
            binds = [ir.IRAssign(p, ir.IRLocal(n, p.type)) for p, n in zip(params, names)]
            if len(fn.params) == 1:
                kji = self._la_kji.get(names[0])
                if self._kji_shortcut(fn.node.args.args[0].arg):
                    self._la_kji[params[0].name] = kji
                else:
                    self._la_kji.pop(params[0].name, None)
            return binds + stmts

        saved, self._cur_shortcut = getattr(self, "_cur_shortcut", True), True
        self._traverse(rng, names, body, node, out)
        self._cur_shortcut = saved

    def _arg_types(self, rng, n):
        if n == 3:
            return [int32] * 3
        inner = rng.cfg["inner"]
        if inner == "logical_coords":
            return [VEC3I]
        if rng.cfg["loop"] == "boiv":
            return [VEC4I]
        return [int32]

    def _target_name(self, t, node):
        if not isinstance(t, ast.Name):
            raise self.error(KernelSyntaxError, "la.inner loop targets must be names", node)
        return self.renames.get(t.id, t.id)

    def _slice_arg(self, arg_node, node) -> Slice:
        rng = self.static_value(arg_node)
        if not isinstance(rng, Slice):
            raise self.error(KernelTypeError, f"la.inner needs the range an outer body receives, got {rng!r}", node)
        return rng

    def _declare(self, name, t):
        known = self.var_types.get(name)
        if known is not None and known is not t:
            raise self.error(KernelTypeError, f"'{name}' has type {type_name(known)} and cannot hold an index of type "
                             f"{type_name(t)}", self.source.tree)
        self.locals[name] = t
        self.var_types[name] = t
        return ir.IRLocal(name, t)

    def _bind(self, rng, names, kji, out, memory_index=None):
        """Assign the loop names at cell ``kji`` (and remember their (k, j, i) for get_kji)."""
        k, j, i = kji
        self._la_point_kji = kji  # the current cell (MinLoc/MaxLoc record it)
        if len(names) == 3:
            for n, v in zip(names, kji):
                out.append(ir.IRAssign(self._declare(n, int32), v))
            return
        name = names[0]
        inner = rng.cfg["inner"]
        if inner == "logical_coords":
            value = ir.IRConstruct([k, j, i], VEC3I)
            local = self._declare(name, VEC3I)
        elif rng.cfg["loop"] == "boiv":
            d = [self._op("sub", a, b) for a, b in zip(kji, rng.point)]
            value = ir.IRConstruct(d + [self._op("sub", self._mflat(k, j, i), rng.mem0)], VEC4I)
            local = self._declare(name, VEC4I)
        else:
            m = memory_index if memory_index is not None else self._mflat(k, j, i)
            value = self._op("sub", m, rng.mem0)
            local = self._declare(name, int32)
        out.append(ir.IRAssign(local, value))
        if getattr(self, "_cur_shortcut", True):
            self._la_kji[name] = kji
        else:  # the body reassigns the index: get_kji decodes its value
            self._la_kji.pop(name, None)

    def _traverse(self, rng, names, make_body, node, out):
        loop, inner = rng.cfg["loop"], rng.cfg["inner"]
        self._cur_names = names
        offsets = rng.halo.reduced(rng.cfg["ndim"])
        if loop == "boiv":
            for h in offsets:  # one visit per reduced offset, in order
                kji = tuple(self._op("add", p, self._i(d)) for p, d in zip(rng.point, h))
                self._bind(rng, names, kji, out)
                out.extend(make_body())
            return
        if loop == "bvoi" and inner != "memory":
            box = self._grown_box(rng, offsets)
            self._box_loops(rng, names, box, make_body, out)
            return
        if loop == "bvoi":
            self._bvoi_memory(rng, names, offsets, make_body, out)
            return
        self._bovi_spans(rng, names, offsets, make_body, out)

    def _grown_box(self, rng, offsets):
        lo = [min(0, min(h[d] for h in offsets)) for d in range(3)]
        hi = [max(0, max(h[d] for h in offsets)) for d in range(3)]
        return [(self._op("add", s, self._i(a)), self._op("add", e, self._i(z)))
                for s, e, a, z in zip(rng.start, rng.end, lo, hi)]

    def _loop(self, var_name, lo, hi_incl, body, simd=False):
        var = self._declare(var_name, int32)
        clause = getattr(self, "_simd_reduction", None) if simd else None
        return ir.IRFor(var, lo, self._op("add", hi_incl, self._i(1)), self._i(1), body, 1, simd=simd,
                        reduction=clause)

    def _box_loops(self, rng, names, box, make_body, out):
        self._tmp += 1
        n = self._tmp
        kv, jv, iv = (f"_la_k{n}", f"_la_j{n}", f"_la_i{n}")
        inner = []
        kji = (ir.IRLocal(kv, int32), ir.IRLocal(jv, int32), ir.IRLocal(iv, int32))
        self._bind(rng, names, kji, inner)
        inner.extend(make_body())
        iloop = self._loop(iv, box[2][0], box[2][1], inner, simd=True)
        jloop = self._loop(jv, box[1][0], box[1][1], [iloop])
        out.append(self._loop(kv, box[0][0], box[0][1], [jloop]))

    def _memory_span(self, rng, names, m0, m1, make_body, out):
        """Visit every memory cell of [m0, m1] (contiguous: one simd loop)."""
        self._tmp += 1
        mv = f"_la_m{self._tmp}"
        m = ir.IRLocal(mv, int32)
        body = []
        kji = self._lazy_kji(m)
        self._bind(rng, names, kji, body, memory_index=m)
        body.extend(make_body())
        out.append(self._loop(mv, m0, m1, body, simd=True))

    def _lazy_kji(self, m):
        g = self._geom
        plane = self._op("mul", g("NJ"), g("NI"))
        k = self._op("div", m, plane)
        r = self._op("sub", m, self._op("mul", k, plane))
        j = self._op("div", r, g("NI"))
        return (k, j, self._op("sub", r, self._op("mul", j, g("NI"))))

    def _bvoi_memory(self, rng, names, offsets, make_body, out):
        box = self._grown_box(rng, offsets)
        nk = self._op("add", self._op("sub", box[0][1], box[0][0]), self._i(1))
        nj = self._op("add", self._op("sub", box[1][1], box[1][0]), self._i(1))
        ni = self._op("add", self._op("sub", box[2][1], box[2][0]), self._i(1))
        size = self._tmp_assign(self._op("mul", self._op("mul", nk, nj), ni), out)
        chunk = {"i_pencil": ni, "ij_slab": self._op("mul", ni, nj), "kji_cube": size}.get(
            rng.cfg["chunk"], self._geom("ninner"))
        chunk = self._tmp_assign(chunk, out)
        self._tmp += 1
        pv = f"_la_piece{self._tmp}"
        piece = self._declare(pv, int32)
        body = []
        dbox = (box[0][0], box[1][0], box[2][0], nj, ni)
        first = self._decode(piece, dbox, body)
        last_f = self._op("sub", self._op("min", self._op("add", piece, chunk), size), self._i(1))
        last = self._decode(last_f, dbox, body)
        m0 = self._tmp_assign(self._mflat(*first), body)
        m1 = self._tmp_assign(self._mflat(*last), body)
        self._memory_span(rng, names, m0, m1, make_body, body)
        out.append(ir.IRFor(piece, self._i(0), size, chunk, body, 1))

    def _bovi_spans(self, rng, names, offsets, make_body, out):
        memory = rng.cfg["inner"] == "memory"
        if memory:
            ext = None
        else:  # the range indexer: L grown by the reduced halo
            lo = [min(0, min(h[d] for h in offsets)) for d in range(3)]
            hi = [max(0, max(h[d] for h in offsets)) for d in range(3)]
            g = self._geom
            ks = self._op("add", g("ks"), self._i(lo[0]))
            js = self._op("add", g("js"), self._i(lo[1]))
            is_ = self._op("add", g("is"), self._i(lo[2]))
            nj = self._op("add", self._op("sub", self._op("add", g("je"), self._i(hi[1])), js), self._i(1))
            ni = self._op("add", self._op("sub", self._op("add", g("ie"), self._i(hi[2])), is_), self._i(1))
            ext = tuple(self._tmp_assign(x, out) for x in (ks, js, is_, nj, ni))
        prev = None
        for h in offsets:
            s_kji = [self._op("add", a, self._i(d)) for a, d in zip(rng.start, h)]
            e_kji = [self._op("add", a, self._i(d)) for a, d in zip(rng.end, h)]
            s = self._tmp_assign(self._flat_in(s_kji, ext), out)
            e = self._tmp_assign(self._flat_in(e_kji, ext), out)
            if prev is not None:  # merge: never visit a cell twice
                s = self._tmp_assign(self._op("max", s, self._op("add", prev, self._i(1))), out)
            if memory:
                self._memory_span(rng, names, s, e, make_body, out)
            else:
                self._rows(rng, names, s, e, ext, make_body, out)
            prev = e if prev is None else self._tmp_assign(self._op("max", prev, e), out)

    def _flat_in(self, kji, ext):
        if ext is None:
            return self._mflat(*kji)
        ks, js, is_, nj, ni = ext
        k, j, i = kji
        return self._op("add", self._op("mul", self._op("add", self._op("mul", self._op("sub", k, ks), nj),
                                                        self._op("sub", j, js)), ni), self._op("sub", i, is_))

    def _rows(self, rng, names, s, e, ext, make_body, out):
        """Visit logical flat span [s, e] of box ``ext`` row by row (division per row only)."""
        ks, js, is_, nj, ni = ext
        self._tmp += 1
        n = self._tmp
        f = self._declare(f"_la_f{n}", int32)
        out.append(ir.IRAssign(f, s))
        body = []
        k, j, i0 = self._decode(f, (ks, js, is_, nj, ni), body)
        col = self._op("sub", i0, is_)
        length = self._tmp_assign(self._op("min", self._op("sub", ni, col),
                                           self._op("add", self._op("sub", e, f), self._i(1))), body)
        iv = f"_la_i{n}"
        inner = []
        kji = (k, j, ir.IRLocal(iv, int32))
        self._bind(rng, names, kji, inner)
        inner.extend(make_body())
        body.append(self._loop(iv, i0, self._op("sub", self._op("add", i0, length), self._i(1)), inner, simd=True))
        body.append(ir.IRAssign(f, self._op("add", f, length)))
        out.append(ir.IRWhile(self._op("le", f, e), body))

"""Loop abstraction in kernel code, part two: per-point scratch (spec §7) and views (spec §9)."""

from __future__ import annotations

import math

from ..errors import KernelTypeError
from ..types.arrays import ArrayType, type_name
from ..types.scalars import int32, python_annotation_type
from . import ir
from .la_lowering import VEC3I, VEC4I, ScratchRef, Slice, ViewRef


class ScratchMethod:
    def __init__(self, scratch, name):
        self.scratch, self.name = scratch, name


class LAViewsMixin:
    """Mixin of ``Builder``: ``la.get_per_point_scratch`` and ``la.make_*_view``."""

    def _new_team(self, out):
        """A fresh scratch arena for this slice (the raw backend resets it per slice)."""
        from ..types.opaque import TEAM_MEMBER

        member = ir.IRLocal("_la_team", TEAM_MEMBER)
        self.locals["_la_team"] = TEAM_MEMBER
        self.var_types["_la_team"] = TEAM_MEMBER
        call = ir.IRCall("team_begin", [ir.IRConst(0, ir_int64())], TEAM_MEMBER, "bw::team_begin({args})")
        out.append(ir.IRAssign(member, call))
        return member

    def _slice_team(self):
        member = getattr(self, "_la_member", None)
        if member is None:
            raise self.error(KernelTypeError, "per-point scratch is available in outer bodies only",
                             self.source.tree)
        return member

    def la_scratch(self, node):
        """``la.get_per_point_scratch(T, rng, dims=(...))``."""
        if len(node.args) != 2:
            raise self.error(KernelTypeError, "get_per_point_scratch(T, rng, dims=()) takes a type and a range", node)
        dtype = python_annotation_type(self.static_value(node.args[0]))
        rng = self.static_value(node.args[1])
        if not isinstance(rng, Slice):
            raise self.error(KernelTypeError, "get_per_point_scratch needs a range of the outer body", node)
        kw = {k.arg: self.static_value(k.value) for k in node.keywords}
        dims = tuple(int(d) for d in kw.pop("dims", ()))
        if kw:
            raise self.error(KernelTypeError, f"get_per_point_scratch: unknown keyword {next(iter(kw))!r}", node)
        ncomp = math.prod(dims) if dims else 1
        offsets = rng.halo.reduced(rng.cfg["ndim"])
        out = self._pending_stmts
        from ..codegen.ctypes_names import c_type
        from .expressions import Static

        if rng.point is not None:  # boiv: a small box around the point, in a local buffer
            from ..types.opaque import OpaqueType

            box = rng.halo.box(offsets)
            count = math.prod(hi - lo + 1 for lo, hi in box)
            buffer_type = OpaqueType(f"local_buf_{dtype.__name__}_{count * ncomp}",
                                     f"bw::local_buf<{c_type(dtype)}, {count * ncomp}>")
            self._tmp += 1
            name = f"_la_buf{self._tmp}"
            self.locals[name] = buffer_type
            self.var_types[name] = buffer_type
            t = ArrayType(dtype, 1)
            self.context.note_type(t)
            local = ir.IRCall("local_array", [ir.IRLocal(name, buffer_type)], t, "bw::local_array({args})")
            return Static(ScratchRef(rng, self._tmp_assign(local, out), self._i(count), None, dims, box))
        member = self._slice_team()
        # hierarchical tags: the scratch span of the range (spec §5, §7)
        lo_h, hi_h = offsets[0], offsets[-1]
        if rng.cfg["loop"] == "bvoi" and not rng.halo.is_none:  # PROPOSED: the halo box
            lo_h = tuple(min(0, min(h[d] for h in offsets)) for d in range(3))
            hi_h = tuple(max(0, max(h[d] for h in offsets)) for d in range(3))
        start = self._mflat(*[self._op("add", a, self._i(d)) for a, d in zip(rng.start, lo_h)])
        end = self._mflat(*[self._op("add", a, self._i(d)) for a, d in zip(rng.end, hi_h)])
        first = self._tmp_assign(start, out)
        size = self._tmp_assign(self._op("add", self._op("sub", end, first), self._i(1)), out)
        storage_len = self._op("mul", size, self._i(ncomp))
        t = ArrayType(dtype, 1)
        self.context.note_type(t)
        alloc = ir.IRCall("team_alloc", [member, storage_len], t, f"bw::team_alloc<{c_type(dtype)}, 1>({{args}})")
        storage = self._tmp_assign(alloc, out)
        return Static(ScratchRef(rng, storage, size, first, dims))

    def scratch_element(self, s: ScratchRef, index_nodes, node):
        nd = len(s.dims)
        comps = [self.value(n) for n in index_nodes[:nd]]
        point = [self.value(n) for n in index_nodes[nd:]]
        for c in comps:
            if c.type is not int32:
                raise self.error(KernelTypeError, f"scratch components must be int32, got {type_name(c.type)}", node)
        slot = self._scratch_slot(s, point, node)
        flat_c = self._i(0)
        for c, d in zip(comps, s.dims):
            flat_c = self._op("add", self._op("mul", flat_c, self._i(d)), c)
        if nd:
            slot = self._op("add", slot, self._op("mul", s.size, flat_c))
        elif len(index_nodes) != len(point):
            pass
        return ir.IRArrayElem(s.storage, [slot], s.storage.type.dtype)

    def _scratch_slot(self, s: ScratchRef, point, node):
        rng = s.rng
        if len(point) == 3:
            kji = point
        elif len(point) == 1 and point[0].type is VEC3I:
            kji = [ir.IRComponent(point[0], [self._i(c)], int32) for c in range(3)]
        elif len(point) == 1 and point[0].type is VEC4I:
            if rng.point is None:
                raise self.error(KernelTypeError, "a MemoryOffset index belongs to boiv ranges", node)
            kji = [self._op("add", rng.point[c], ir.IRComponent(point[0], [self._i(c)], int32)) for c in range(3)]
        elif len(point) == 1 and point[0].type is int32:
            if rng.point is not None:
                raise self.error(KernelTypeError, "a plain int is not a point of boiv scratch (use the index the "
                                 "inner loop gives)", node)
            # ScratchIndex(m) = m - scratch_index_start, scratch_index_start = first - mem0
            return self._op("sub", self._op("add", point[0], rng.mem0), s.first)
        else:
            raise self.error(KernelTypeError, f"scratch takes {len(s.dims)} component(s) then an index or k, j, i",
                             node)
        if rng.point is not None:
            box = s.box
            nj = box[1][1] - box[1][0] + 1
            ni = box[2][1] - box[2][0] + 1
            rel = [self._op("sub", self._op("sub", q, p), self._i(lo)) for q, p, (lo, _) in zip(kji, rng.point, box)]
            return self._op("add", self._op("mul", self._op("add", self._op("mul", rel[0], self._i(nj)), rel[1]),
                                            self._i(ni)), rel[2])
        return self._op("sub", self._mflat(*kji), s.first)

    def scratch_zero(self, s: ScratchRef, node):
        n = s.storage
        self._tmp += 1
        var = self._declare(f"_la_z{self._tmp}", int32)
        length = ir.IRArrayShape(n, 0, int32)
        body = [ir.IRAssign(ir.IRArrayElem(n, [var], n.type.dtype), ir.IRCast(self._i(0), n.type.dtype)
                            if n.type.dtype is not int32 else self._i(0))]
        return ir.IRFor(var, self._i(0), length, self._i(1), body, 1, simd=True)

    # -- views ----------------------------------------------------------------------------------------
    def la_view(self, kind, node):
        """``make_pack_view(rng, pack)``, ``make_sparse_pack_view(rng, pack, s)``, ``make_var_view(rng, pack,
        var)``, ``make_flux_pack_view(rng, pack, dir)``, ``make_flux_view(rng, pack, dir, var)``."""
        from .expressions import Static
        from .packs import is_pack_type

        kind = {"sparse_pack": "sparse", "sparse_flux_pack": "sparse_flux"}.get(kind, kind)
        nargs = {"pack": 2, "sparse": 3, "var": 3, "flux_pack": 3, "flux": 4, "sparse_flux": 4}[kind]
        if len(node.args) != nargs or node.keywords:
            raise self.error(KernelTypeError, f"this view takes {nargs} arguments, got {len(node.args)}", node)
        rng = self.static_value(node.args[0])
        if not isinstance(rng, Slice):
            raise self.error(KernelTypeError, "views are made from the range of the outer body", node)
        pack = self.value(node.args[1])
        if not is_pack_type(pack.type):
            raise self.error(KernelTypeError, f"views are made from packs, got {type_name(pack.type)}", node)
        view = ViewRef(rng, pack, "flux_pack" if kind == "sparse_flux" else kind)
        if kind == "sparse":
            view.sparse = self.value(node.args[2])
        if kind == "sparse_flux":  # make_sparse_flux_pack_view(rng, pack, dir, s)
            view.sparse = self.value(node.args[3])
        if kind in ("flux_pack", "flux", "sparse_flux"):
            view.direction = self.value(node.args[2])
        if kind in ("var", "flux"):
            view.var = self.expr(node.args[-1])
        return Static(view)

    def view_element(self, v: ViewRef, index_nodes, node):
        from .expressions import Static

        items = list(index_nodes)
        element = 0
        first = self.expr(items[0]) if items else None
        if isinstance(first, Static) and isinstance(first.value, int) and not isinstance(first.value, bool) and \
                type(first.value).__name__ == "TopologicalElement":
            element = int(first.value) % 3
            items = items[1:]
        if v.kind in ("var", "flux"):
            var_spec = v.var
            comp = None
            if len(items) in (2, 4):  # (comp_offset, idx) / (comp_offset, k, j, i)
                comp = self.value(items[0])
                items = items[1:]
        else:
            if not items:
                raise self.error(KernelTypeError, "a pack view takes a variable then an index", node)
            var_spec = self.expr(items[0])
            items = items[1:]
            comp = None
        flat = self._flat_index(v.pack, v.rng.b, var_spec, node)
        if v.sparse is not None:
            position, _ = self._var_position(v.pack, var_spec.value, node)
            size = self._i(v.pack.type._bw_pack["sizes"][position])
            flat = self._op("add", flat, self._op("mul", v.sparse, size))
        if comp is not None:
            flat = self._op("add", flat, comp)
        point = [self.value(n) for n in items]
        is_flux = v.kind in ("flux_pack", "flux")
        table = "fluxes" if is_flux else "ptrs"
        slot = self._op("sub", v.direction, self._i(1)) if is_flux else self._i(element)
        if v.rng.cfg["inner"] == "logical_coords":  # thin forwarders to the pack
            kji = self._view_kji(v, point, node)
            return self._storage(v.pack, table, v.rng.b, flat, slot, kji, node)
        # flat and memory tags: the storage shares the space's memory layout M (spec §9)
        address = self._table(v.pack, table, [v.rng.b, flat, slot, self._i(0)])
        if len(point) == 1 and point[0].type is int32:
            offset = self._op("add", v.rng.mem0, point[0])
        elif len(point) == 1 and point[0].type is VEC4I:
            offset = self._op("add", v.rng.mem0, ir.IRComponent(point[0], [self._i(3)], int32))
        else:
            offset = self._mflat(*self._view_kji(v, point, node))
        from ..types.scalars import int64

        return ir.IRRawElem(address, ir.IRCast(offset, int64), v.pack.type._bw_pack["dtype"])

    def _view_kji(self, v, point, node):
        if len(point) == 3:
            return point
        if len(point) == 1 and point[0].type is VEC3I:
            return [ir.IRComponent(point[0], [self._i(c)], int32) for c in range(3)]
        if len(point) == 1:
            t = self._kji_of(v.rng, point[0], node)
            return [ir.IRTupleGet(t, c, int32) for c in range(3)]
        raise self.error(KernelTypeError, "a view takes an index or k, j, i", node)


def ir_int64():
    from ..types.scalars import int64

    return int64

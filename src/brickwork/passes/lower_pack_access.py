"""lower_pack_access: pack elements and bounds become loads from the pack's address tables.

A pack argument is a struct of tables built on the host (``mesh.kernel_pack``): ``ptrs[b, idx,
element]`` and ``fluxes[b, idx, dir - 1]`` hold (address, k stride, j stride) of a variable
component's storage, ``bounds[b, var]`` its flat index range, ``ptr_shapes``/``flux_shapes`` the
storage's (nk, nj, ni) for bounds checks. An element at (k, j, i) is
``raw(address)[k * sk + j * sj + i]``; at a flat memory offset ``m`` it is ``raw(address)[m]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..types.scalars import int64
from .build import i32, op


@dataclass(frozen=True)
class LowerPackAccess:
    name: str = "lower_pack_access"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        return _Lower().function(fn)


def _table(pack, name, indices, where=""):
    field = ir.IRField(pack, name, pack.type._field_types[name])
    return ir.IRArrayElem(field, indices, field.type.dtype, where)


def _int64(x):
    return x if x.type is int64 else ir.IRCast(x, int64)


class _Lower(ir.Rewriter):
    def r_IRPackBound(self, e: ir.IRPackBound):
        which = 0 if e.which == "lower" else 1
        return _table(self.expr(e.pack), "bounds", [self.expr(e.block), i32(e.position), i32(which)])

    def r_IRPackElem(self, e: ir.IRPackElem):
        pack, b = self.expr(e.pack), self.expr(e.block)
        flat = self.expr(e.var.offset)
        if e.var.position is not None:
            flat = op("add", _table(pack, "bounds", [b, i32(e.var.position), i32(0)]), flat)
        if e.flux_dir is not None:
            table, slot = "fluxes", op("sub", self.expr(e.flux_dir), i32(1))
        else:
            table, slot = "ptrs", i32(e.element)
        row = [b, flat, slot]
        address = _table(pack, table, row + [i32(0)], e.where)
        shapes = "flux_shapes" if e.flux_dir is not None else "ptr_shapes"
        nk, nj, ni = (_table(pack, shapes, row + [i32(c)], e.where) for c in range(3))  # used by bounds checks
        if e.kji is None:
            memory = _int64(self.expr(e.memory))
            return ir.IRRawElem(address, memory, e.type, [memory, _int64(op("mul", op("mul", nk, nj), ni))], e.where)
        sk = _table(pack, table, row + [i32(1)], e.where)
        sj = _table(pack, table, row + [i32(2)], e.where)
        k, j, i = (_int64(self.expr(x)) for x in e.kji)
        offset = op("add", op("add", op("mul", k, sk), op("mul", j, sj)), i)
        return ir.IRRawElem(address, offset, e.type, [k, nk, j, nj, i, ni], e.where)



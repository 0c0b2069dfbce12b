"""lower_pack_access: pack elements and bounds become loads from the pack's address tables.

A pack argument is a struct of tables built on the host (``mesh.kernel_pack``): ``ptrs[b, idx,
element]`` and ``fluxes[b, idx, dir - 1]`` hold (address, k stride, j stride) of a variable
component's storage, ``bounds[b, var]`` its flat index range, ``ptr_shapes``/``flux_shapes`` the
storage's (nk, nj, ni) for bounds checks. An element at (k, j, i) is
``raw(address)[k * sk + j * sj + i]``; at a flat memory offset ``m`` it is ``raw(address)[m]``.

Table loads inside loops whose indices are the same for the whole slice (constants, parameters,
the block index: locals assigned once at the top of the kernel) are hoisted to the top of the
kernel, one local per distinct load: the innermost loop then walks ``raw(base)[offset]`` with a
loop-invariant base and strides, a unit-stride pointer walk the C++ compiler vectorizes, instead
of re-reading the tables at every point. The tables are read-only in kernels and those indices
are in range for every slice, so loading them once, earlier, changes no result.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir.analysis import assignment_counts
from ..ir.printer import expr as show
from ..types.scalars import int64
from .build import Locals, i32, op


@dataclass(frozen=True)
class LowerPackAccess:
    name: str = "lower_pack_access"

    def run(self, fn: ir.IRFunction) -> ir.IRFunction:
        if not ir.contains(fn.body, (ir.IRPackElem, ir.IRPackBound)):
            return fn  # no pack access: no table to read or hoist
        lower = _Lower()
        fn = lower.function(fn)
        return _Hoist(fn, lower.tables).function()


def _table(pack, name, indices, where="", made=None):
    field = ir.IRField(pack, name, pack.type._field_types[name])
    elem = ir.IRArrayElem(field, indices, field.type.dtype, where)
    if made is not None:
        made.add(id(elem))
    return elem


def _int64(x):
    return x if x.type is int64 else ir.IRCast(x, int64)


class _Lower(ir.Rewriter):
    def __init__(self):
        self.tables: set[int] = set()  # ids of the table loads made (candidates for hoisting)

    def r_IRPackBound(self, e: ir.IRPackBound):
        which = 0 if e.which == "lower" else 1
        return self._table(self.expr(e.pack), "bounds", [self.expr(e.block), i32(e.position), i32(which)])

    def r_IRPackElem(self, e: ir.IRPackElem):
        pack, b = self.expr(e.pack), self.expr(e.block)
        flat = self.expr(e.var.offset)
        if e.var.position is not None:
            flat = op("add", self._table(pack, "bounds", [b, i32(e.var.position), i32(0)], e.where), flat)
        if e.flux_dir is not None:
            table, slot = "fluxes", op("sub", self.expr(e.flux_dir), i32(1))
        else:
            table, slot = "ptrs", i32(e.element)
        row = [b, flat, slot]
        address = self._table(pack, table, row + [i32(0)], e.where)
        shapes = "flux_shapes" if e.flux_dir is not None else "ptr_shapes"
        nk, nj, ni = (self._table(pack, shapes, row + [i32(c)], e.where) for c in range(3))  # used by bounds checks
        if e.kji is None:
            memory = _int64(self.expr(e.memory))
            return ir.IRRawElem(address, memory, e.type, [memory, _int64(op("mul", op("mul", nk, nj), ni))], e.where)
        sk = self._table(pack, table, row + [i32(1)], e.where)
        sj = self._table(pack, table, row + [i32(2)], e.where)
        k, j, i = (_int64(self.expr(x)) for x in e.kji)
        offset = op("add", op("add", op("mul", k, sk), op("mul", j, sj)), i)
        return ir.IRRawElem(address, offset, e.type, [k, nk, j, nj, i, ni], e.where)

    def _table(self, pack, name, indices, where=""):
        return _table(pack, name, indices, where, self.tables)


# builtins a slice-invariant local may be computed with (its assignment stays where it is); the comparisons
# choose a GPU slice's coordinates by its grid (gpu_grid.pencil_coords)
_DEFINING_OPS = ("add", "sub", "mul", "div", "mod", "min", "max", "neg", "eq", "ne", "logical_and")


class _Hoist(ir.Rewriter):
    """Table loads inside loops with slice-invariant indices -> locals assigned at the top level."""

    def __init__(self, fn: ir.IRFunction, tables: set):
        self.fn, self.tables = fn, tables
        self.params = {name for name, _ in fn.params}
        counts = assignment_counts(fn.body)
        # slice-invariant locals -> the first top-level position before which they hold their value
        self.ready: dict[str, int] = {}
        for pos, s in enumerate(fn.body):
            if (isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal) and counts.get(s.target.name) == 1
                    and self._invariant(s.value, _DEFINING_OPS)):
                self.ready[s.target.name] = pos + 1
        self.locals = Locals(fn)
        self.hoisted: dict[str, ir.IRLocal] = {}  # printed load -> its local
        self.inserts: dict[int, list] = {}  # top-level position -> assignments to insert before it
        self.loops = 0

    def function(self) -> ir.IRFunction:
        body = self.stmts(self.fn.body)  # one statement per top-level statement (none is dropped or split)
        if not self.hoisted:
            return self.fn
        self.fn.body = [s for pos, stmt in enumerate(body) for s in [*self.inserts.get(pos, []), stmt]]
        return self.fn

    def _invariant(self, e, ops=("add", "sub", "mul")) -> bool:
        """Built from constants, ``tid()`` (on a GPU: the block index and the launch's extents), parameters,
        slice-invariant locals, table loads and ``ops``."""
        for n in ir.walk(e):
            if isinstance(n, ir.IRLocal):
                ok = n.name in self.params or n.name in self.ready
            elif isinstance(n, ir.IRArrayElem):
                ok = id(n) in self.tables
            elif isinstance(n, ir.IRCall):
                ok = n.op in ops
            elif isinstance(n, ir.IRGpuIndex):  # a GPU block is one slice (or team): its index is the slice's
                ok = n.axis == "block"
            else:
                ok = isinstance(n, (ir.IRConst, ir.IRCast, ir.IRField, ir.IRTid, ir.IRLaunchExtent, ir.IRGpuDim,
                                    ir.IRSelect))
            if not ok:
                return False
        return True

    def _loop(self, s):
        self.loops += 1
        try:
            return self.copy(s)
        finally:
            self.loops -= 1

    r_IRFor = _loop
    r_IRWhile = _loop

    def r_IRRawElem(self, e: ir.IRRawElem):
        # the bounds (nk, nj, ni of the storage) serve debug-mode checks only: not hoisted
        return ir.IRRawElem(self.expr(e.address), self.expr(e.offset), e.type,
                            [ir.Rewriter().expr(b) for b in e.bounds], e.where, e.checked)

    def r_IRArrayElem(self, e: ir.IRArrayElem):
        out = self.copy(e)
        if id(e) not in self.tables:
            return out
        self.tables.add(id(out))
        if self.loops == 0 or not self._invariant(out):
            return out
        key = show(out)
        local = self.hoisted.get(key)
        if local is None:
            local = self.hoisted[key] = self.locals.new("_pk", out.type)
            names = {n.name for n in ir.walk(out) if isinstance(n, ir.IRLocal)}
            pos = max((self.ready[n] for n in names if n in self.ready), default=0)
            self.inserts.setdefault(pos, []).append(ir.IRAssign(local, out))
            self.ready[local.name] = pos
        return ir.IRLocal(local.name, local.type)

"""adjoint_rows: the row analysis of a backward kernel (``adjoint``). Every array read of the kernel
becomes a scatter into an adjoint array; when each one's first index is ``tid(0) + c`` (a row offset), no
scatter reaches more than ``max |c|`` rows from its thread's, so a target that runs the first grid
dimension in phases of rows (``IRFunction.scatter_radius``) may make them plain adds instead of atomic
ones. It also tells whether the innermost loop may be a simd loop (``IRFunction.simd_innermost``)."""

from __future__ import annotations

from .. import ir
from ..types.arrays import ArrayType
from .adjoint_values import carries_adjoint


class RowOffsets:
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


def row_offsets(fn: ir.IRFunction) -> RowOffsets:
    """The row offsets of the (normal form) kernel ``fn``: one walk over its assignments."""
    rows = RowOffsets(max(fn.tid_dims, 1) - 1)
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


def _lane_of(rows: RowOffsets, v):
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


def _note_reads(rows: RowOffsets, value) -> None:
    if isinstance(value, ir.IRArrayElem) and carries_adjoint(value.type):
        rows.note_read(value.array, value.indices)

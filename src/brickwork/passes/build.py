"""Small helpers for passes that build IR: typed builtin calls, int32 constants, fresh locals."""

from __future__ import annotations

from .. import ir
from ..builtins.table import resolve
from ..types.scalars import int32, int64


def op(name: str, *args) -> ir.IRCall:
    """A call of builtin ``name`` with its result type from the builtin table: the compiler's own
    index arithmetic, which never overflows (index spaces and launches are checked to fit)."""
    _, t = resolve(name, [a.type for a in args])
    return ir.IRCall(name, list(args), t, no_wrap=True)


def i32(value: int) -> ir.IRConst:
    return ir.IRConst(int(value), int32)


def wide(e) -> ir.IRExpr:
    """``e`` as int64."""
    return e if e.type is int64 else ir.IRCast(e, int64)


def pad_length(size, ncomp: int) -> ir.IRExpr:
    """The elements of a per-point scratch pad of ``size`` slots per component and ``ncomp`` components: in
    int64 when there are several, as their slots are. A slice spans up to 2**30 cells, and the int32 product
    of a 4096-cell row and 2**20 components wrapped around to a pad of 0 bytes that every access wrote past."""
    return op("mul", size, i32(1)) if ncomp == 1 else op("mul", wide(size), ir.IRConst(ncomp, int64))


class Locals:
    """Declares new locals of one function under names it does not use yet."""

    def __init__(self, fn: ir.IRFunction, first: int = 1):
        self.fn = fn
        self.counter = first - 1  # the number the next new local's name ends with, less one

    def new(self, prefix: str, t) -> ir.IRLocal:
        while True:
            self.counter += 1
            name = f"{prefix}{self.counter}"
            if name not in self.fn.locals and all(name != p for p, _ in self.fn.params):
                break
        self.fn.locals[name] = t
        return ir.IRLocal(name, t)

    def named(self, name: str, t) -> ir.IRLocal:
        """The local ``name`` (declared if new)."""
        self.fn.locals.setdefault(name, t)
        return ir.IRLocal(name, t)

    def assign(self, value, out: list, prefix: str = "_lt") -> ir.IRLocal:
        """A new local holding ``value`` (the assignment appended to ``out``)."""
        local = self.new(prefix, value.type)
        out.append(ir.IRAssign(local, value))
        return local


def la_geom(name: str) -> ir.IRLocal:
    """The loop abstraction's launch geometry ``_la_<name>`` (ks .. ie, NK, NJ, NI, ninner, nouter)."""
    return ir.IRLocal(f"_la_{name}", int32)


def la_mflat(k, j, i):
    """The memory-flat index of cell (k, j, i): ``(k * NJ + j) * NI + i``."""
    return op("add", op("mul", op("add", op("mul", k, la_geom("NJ")), j), la_geom("NI")), i)

"""Host-side index values: ``Indexer3D`` boxes, ``Index3`` and ``MemoryOffset``.

In kernel code an ``Index3`` is a ``vec3i`` (k, j, i) and a ``MemoryOffset`` a ``vec4i``
(dk, dj, di, flat); ``get_delta`` values made on the host turn into whichever of int (flat),
``vec3i`` or ``vec4i`` the expression they meet needs (``value_for``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from ..types.composite import vector
from ..types.scalars import int32

VEC3I = vector(3, int32)
VEC4I = vector(4, int32)


@dataclass(frozen=True)
class Indexer3D:
    """An inclusive box ``[ks, ke] x [js, je] x [is, ie]`` with i fastest."""

    ks: int
    ke: int
    js: int
    je: int
    is_: int
    ie: int

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.ke - self.ks + 1, self.je - self.js + 1, self.ie - self.is_ + 1)

    @property
    def size(self) -> int:
        nk, nj, ni = self.shape
        return max(nk, 0) * max(nj, 0) * max(ni, 0)

    def flat(self, k, j, i) -> int:
        nk, nj, ni = self.shape
        return ((k - self.ks) * nj + (j - self.js)) * ni + (i - self.is_)

    def decode(self, f: int) -> tuple[int, int, int]:
        nk, nj, ni = self.shape
        return (f // (nj * ni) + self.ks, (f % (nj * ni)) // ni + self.js, f % ni + self.is_)

    def contains(self, k, j, i) -> bool:
        return self.ks <= k <= self.ke and self.js <= j <= self.je and self.is_ <= i <= self.ie

    def grown(self, offsets) -> "Indexer3D":
        """``AddHaloToIndexer``: grown low by max(0, -min h) and high by max(0, max h) per direction."""
        lo = [min(0, min(h[d] for h in offsets)) for d in range(3)]
        hi = [max(0, max(h[d] for h in offsets)) for d in range(3)]
        return Indexer3D(self.ks + lo[0], self.ke + hi[0], self.js + lo[1], self.je + hi[1],
                         self.is_ + lo[2], self.ie + hi[2])


def _integer_factor(n, what: str) -> int:
    """``n`` as a Python int for scaling an index value (offsets are whole cells)."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{what} can be multiplied by an integer only, got {type(n).__name__} {n!r}")
    return int(n)


@dataclass(frozen=True)
class Index3:
    """A (k, j, i) triple with componentwise arithmetic."""

    k: int
    j: int
    i: int

    def __add__(self, o):
        if not isinstance(o, Index3):
            return NotImplemented
        return Index3(self.k + o.k, self.j + o.j, self.i + o.i)

    def __sub__(self, o):
        if not isinstance(o, Index3):
            return NotImplemented
        return Index3(self.k - o.k, self.j - o.j, self.i - o.i)

    def __neg__(self):
        return Index3(-self.k, -self.j, -self.i)

    def __mul__(self, n: int):
        n = _integer_factor(n, "an Index3")
        return Index3(n * self.k, n * self.j, n * self.i)

    __rmul__ = __mul__

    def value_for(self, t):
        if t is VEC3I:
            return VEC3I(*_int32_parts(self, (self.k, self.j, self.i)))
        raise TypeError(f"an Index3 cannot be combined with a value of type {getattr(t, '__name__', t)}")


def _int32_parts(value, parts: tuple) -> tuple:
    """``parts`` of a host index value for kernel code, which holds them as int32: one that does not fit
    would wrap silently (an offset of 2**32 + 1 acting as +1), so it is refused (a TypeError, which typing
    reports with the kernel's file and line)."""
    for part in parts:
        if not -2**31 <= part < 2**31:
            raise TypeError(f"{value!r} does not fit in kernel code: {part} is beyond int32 (offsets and indices "
                            f"there are int32)")
    return parts


@dataclass(frozen=True, eq=False)
class MemoryOffset:
    """An offset (dk, dj, di) with its flat memory offset; behaves as the int ``flat`` (with Python and numpy
    integers: arithmetic gives an int, comparisons compare ``flat``)."""

    dk: int
    dj: int
    di: int
    flat: int

    def __add__(self, o):
        if isinstance(o, MemoryOffset):
            return MemoryOffset(self.dk + o.dk, self.dj + o.dj, self.di + o.di, self.flat + o.flat)
        if isinstance(o, numbers.Integral):
            return self.flat + int(o)
        return NotImplemented

    def __radd__(self, o):
        return self.flat + int(o) if isinstance(o, numbers.Integral) else NotImplemented

    def __sub__(self, o):
        if isinstance(o, MemoryOffset):
            return MemoryOffset(self.dk - o.dk, self.dj - o.dj, self.di - o.di, self.flat - o.flat)
        if isinstance(o, numbers.Integral):
            return self.flat - int(o)
        return NotImplemented

    def __rsub__(self, o):  # int - MemoryOffset is a plain int (semantics §3)
        return int(o) - self.flat if isinstance(o, numbers.Integral) else NotImplemented

    def __neg__(self):
        return MemoryOffset(-self.dk, -self.dj, -self.di, -self.flat)

    def __mul__(self, n: int):
        n = _integer_factor(n, "a MemoryOffset")
        return MemoryOffset(n * self.dk, n * self.dj, n * self.di, n * self.flat)

    def _key(self, o):
        """What ``self`` compares with ``o``: the whole offset with another one, ``flat`` with an integer."""
        if isinstance(o, MemoryOffset):
            return (self.dk, self.dj, self.di, self.flat), (o.dk, o.dj, o.di, o.flat)
        if isinstance(o, numbers.Integral):
            return self.flat, int(o)
        return None

    def __eq__(self, o):
        pair = self._key(o)
        return NotImplemented if pair is None else pair[0] == pair[1]

    def __hash__(self):
        return hash(self.flat)  # equal offsets (and an offset equal to an int) have one flat

    def __lt__(self, o):
        return self.flat < int(o) if isinstance(o, (MemoryOffset, numbers.Integral)) else NotImplemented

    def __le__(self, o):
        return self.flat <= int(o) if isinstance(o, (MemoryOffset, numbers.Integral)) else NotImplemented

    def __gt__(self, o):
        return self.flat > int(o) if isinstance(o, (MemoryOffset, numbers.Integral)) else NotImplemented

    def __ge__(self, o):
        return self.flat >= int(o) if isinstance(o, (MemoryOffset, numbers.Integral)) else NotImplemented

    __rmul__ = __mul__

    def __int__(self):
        return self.flat

    __index__ = __int__

    def value_for(self, t):
        if t is int32:
            return int32(*_int32_parts(self, (self.flat,)))
        if t is VEC4I:
            return VEC4I(*_int32_parts(self, (self.dk, self.dj, self.di, self.flat)))
        if t is VEC3I:
            return VEC3I(*_int32_parts(self, (self.dk, self.dj, self.di)))
        raise TypeError(f"a MemoryOffset cannot be combined with a value of type {getattr(t, '__name__', t)}")

"""``wp.ref[T]``: the annotation of a ``@func`` parameter passed by reference (assignments to it change the
caller's variable, array element, field or component)."""

from __future__ import annotations

from .scalars import python_annotation_type

_TYPES: dict = {}


class RefType:
    """``ref[T]`` for one value type ``T`` (one object per ``T``, so annotations compare by identity)."""

    __slots__ = ("type",)

    def __new__(cls, t):
        t = python_annotation_type(t)
        found = _TYPES.get(t)
        if found is None:
            found = _TYPES[t] = super().__new__(cls)
            found.type = t
        return found

    def __reduce__(self):
        return RefType, (self.type,)

    @property
    def dtype(self):
        """The referenced value type ``T`` (Warp's name for it; ``value_type`` too)."""
        return self.type

    value_type = dtype

    @property
    def __name__(self):
        return f"ref[{getattr(self.type, '__name__', repr(self.type))}]"

    def __repr__(self):
        return f"wp.{self.__name__}"


class ref:
    """Warp's pass-by-reference annotation: ``def f(dst: wp.ref[float], x: float): dst = 2.0 * x`` stores into
    what the caller passes (``f(out[i], x)``, ``f(local, x)``, ``f(s.field, x)``, ``f(v[1], x)``)."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("wp.ref is an annotation: write wp.ref[T] for a parameter passed by reference")

    def __class_getitem__(cls, t) -> RefType:
        return RefType(t)

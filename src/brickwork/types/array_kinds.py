"""The kinds of array values (plain, indexed, Fabric, indexed Fabric) as the launch tells them apart.

``SIGNED`` holds each kind's class and every subclass of one (``signed_class`` registers them when they are
defined): a launch keys its table by ``a._sig`` (the kernel type) for these and by the class for anything
else, so two instances of one subclass with different dtypes never share a compiled instance. A class
derived from two kinds is not registered, and a launch refuses its instances (``cross_family``).
``GatheredView`` is what the views whose elements are gathered (indexed and Fabric arrays) answer alike.
"""

from __future__ import annotations

SIGNED: set = set()
_FAMILIES: list = []  # the kinds of arrays (the classes signed_class decorates)


def signed_class(cls):
    """Register ``cls``, and every subclass defined later, in ``SIGNED``. A class derived from two kinds
    (``class A(wp.array, wp.indexedarray)``) is not registered: its instances are refused as arguments."""
    SIGNED.add(cls)
    _FAMILIES.append(cls)

    def __init_subclass__(sub, **kwargs):  # noqa: N807 - the hook's own name
        super(cls, sub).__init_subclass__(**kwargs)
        if len([f for f in _FAMILIES if issubclass(sub, f)]) == 1:
            SIGNED.add(sub)

    cls.__init_subclass__ = classmethod(__init_subclass__)
    return cls


def cross_family(value) -> str | None:
    """The kinds of array ``value``'s class derives from, when more than one (else None)."""
    kinds = [f.__name__ for f in _FAMILIES if isinstance(value, f)]
    return " and ".join(kinds) if len(kinds) > 1 else None


class GatheredView:
    """What a view whose elements are gathered (an indexed or a Fabric array) answers, as Warp's do."""

    @property
    def is_contiguous(self) -> bool:
        """Always False: the elements are wherever the indices or buckets put them."""
        return False

    @property
    def requires_grad(self) -> bool:
        """Always False: such views have no gradients."""
        return False

    @property
    def grad(self):
        return None

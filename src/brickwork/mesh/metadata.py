"""Field metadata: the flags a package declares a field with.

``Metadata(Metadata.Cell, Metadata.FillGhost, Metadata.WithFluxes)`` (flags may also be given as
one iterable, or by name: ``Metadata("Cell", "FillGhost")``). The flags mean:

* topology, exactly one of ``Cell``, ``Face``, ``Edge``, ``Node`` (``Cell`` when none is given);
* role, at most one of ``Independent`` and ``Derived`` (``Derived`` when none is given);
* ``WithFluxes``: the mesh allocates a flux array per active direction (Cell fields only);
* ``FillGhost``: ghost exchange and boundary conditions fill this field's ghost cells;
* ``Sparse``: the field is a pool of instances (sparse ids), each allocated per block;
* ``Vector``: the components are a vector; reflecting boundaries flip the normal component;
* ``CellMemAligned``: a Face/Edge/Node field stored with the cell memory extents instead of the
  node extents (its outermost upper ghost element is then not stored).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from . import parthenon_names
from .indexing import TopologicalType


class MetadataFlag(enum.Flag):
    """One metadata flag; combine with ``|`` or pass several to ``Metadata``."""

    Cell = enum.auto()
    Face = enum.auto()
    Edge = enum.auto()
    Node = enum.auto()
    Independent = enum.auto()
    Derived = enum.auto()
    WithFluxes = enum.auto()
    FillGhost = enum.auto()
    Sparse = enum.auto()
    Vector = enum.auto()
    CellMemAligned = enum.auto()


_TOPOLOGY = {
    MetadataFlag.Cell: TopologicalType.Cell,
    MetadataFlag.Face: TopologicalType.Face,
    MetadataFlag.Edge: TopologicalType.Edge,
    MetadataFlag.Node: TopologicalType.Node,
}
_FLAG_NAMES = tuple(f.name for f in MetadataFlag)


def as_flag(item: object) -> MetadataFlag:
    """A ``MetadataFlag`` from a flag or its name; ValueError/TypeError otherwise."""
    if isinstance(item, MetadataFlag):
        return item
    if isinstance(item, str):
        if item in _FLAG_NAMES:
            return MetadataFlag[item]
        raise ValueError(f"unknown Metadata flag {item!r}{parthenon_names.flag_hint(item, _FLAG_NAMES)}; "
                         f"valid flags: {', '.join(_FLAG_NAMES)}")
    raise TypeError(f"Metadata flags must be Metadata.<Flag> values or flag names, got {item!r}")


class Metadata:
    """An immutable set of ``MetadataFlag`` values with validated combinations."""

    Cell = MetadataFlag.Cell
    Face = MetadataFlag.Face
    Edge = MetadataFlag.Edge
    Node = MetadataFlag.Node
    Independent = MetadataFlag.Independent
    Derived = MetadataFlag.Derived
    WithFluxes = MetadataFlag.WithFluxes
    FillGhost = MetadataFlag.FillGhost
    Sparse = MetadataFlag.Sparse
    Vector = MetadataFlag.Vector
    CellMemAligned = MetadataFlag.CellMemAligned

    def __init__(self, *flags: MetadataFlag | str | Iterable[MetadataFlag | str]):
        if len(flags) == 1 and isinstance(flags[0], Iterable) and not isinstance(flags[0], str):
            flags = tuple(flags[0])
        combined = MetadataFlag(0)
        for item in flags:
            combined |= as_flag(item)
        topologies = [f for f in _TOPOLOGY if f in combined]
        if len(topologies) > 1:
            names = " and ".join(f.name for f in topologies)
            raise ValueError(f"Metadata has {names}: give exactly one of Cell, Face, Edge, Node")
        if not topologies:
            combined |= MetadataFlag.Cell
        if MetadataFlag.Independent in combined and MetadataFlag.Derived in combined:
            raise ValueError("Metadata has both Independent and Derived: give at most one")
        if MetadataFlag.Independent not in combined:
            combined |= MetadataFlag.Derived
        if MetadataFlag.WithFluxes in combined and MetadataFlag.Cell not in combined:
            raise ValueError("Metadata WithFluxes is supported on Cell fields only")
        self._flags = combined

    @property
    def flags(self) -> MetadataFlag:
        """All flags, as one combined ``MetadataFlag``."""
        return self._flags

    def has(self, *flags: MetadataFlag | str) -> bool:
        """True when every given flag is set."""
        return all(as_flag(f) in self._flags for f in flags)

    def __contains__(self, flag: MetadataFlag | str) -> bool:
        return self.has(flag)

    @property
    def topological_type(self) -> TopologicalType:
        """Cell, Face, Edge or Node."""
        return next(t for f, t in _TOPOLOGY.items() if f in self._flags)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Metadata) and self._flags == other._flags

    def __hash__(self) -> int:
        return hash(self._flags)

    def __repr__(self) -> str:
        names = ", ".join(f"Metadata.{f.name}" for f in MetadataFlag if f in self._flags)
        return f"Metadata({names})"

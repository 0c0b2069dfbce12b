"""Packages declare fields: a name, ``Metadata``, a component shape and a dtype.

``Package`` plays the part of Parthenon's ``StateDescriptor``::

    pkg = Package("hydro")
    pkg.add_field("density", Metadata(Metadata.Cell, Metadata.FillGhost, Metadata.WithFluxes))
    pkg.add_field("momentum", Metadata("Cell", "FillGhost", "Vector"), shape=(3,))
    pkg.add_field("tracer", Metadata("Cell", "Sparse", "FillGhost"), sparse_ids=[1, 4])

A sparse field is a *pool*: one base name and a list of sparse ids. Instance ``id`` is the field
``f"{base}_{id}"``; the mesh allocates it per block on demand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .indexing import ELEMENTS_OF_TYPE, TopologicalElement, TopologicalType
from .metadata import Metadata, MetadataFlag
from .parthenon_names import AnswersParthenonNames

_NUMERIC_KINDS = "biufc"


def sparse_name(base: str, sparse_id: int) -> str:
    """Name of instance ``sparse_id`` of sparse pool ``base`` (Parthenon's ``base_id``)."""
    return f"{base}_{sparse_id}"


def check_dtype(dtype: object, what: str) -> np.dtype:
    """``np.dtype(dtype)`` when it is a numeric (bool, int, float, complex) type, else TypeError."""
    dtype = getattr(dtype, "_np", dtype)  # brickwork scalar types (wp.float64) name their numpy type
    try:
        result = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{what}: {dtype!r} is not a numpy dtype") from exc
    if result.kind not in _NUMERIC_KINDS or result.hasobject:
        raise TypeError(f"{what}: dtype {result} is not supported; use a numeric dtype such as float64")
    if not result.isnative:  # kernels, outputs and the exchange all read values in this machine's order
        raise TypeError(f"{what}: dtype {result.str!r} is not in this machine's byte order; use "
                        f"{result.newbyteorder('=').name}")
    return result


@dataclass(frozen=True)
class FieldSpec:
    """One declared field (a dense field, or one instance of a sparse pool)."""

    name: str
    metadata: Metadata
    shape: tuple[int, ...]
    dtype: np.dtype
    package: str
    base_name: str
    sparse_id: int | None = None

    @property
    def ncomp(self) -> int:
        """Number of components, ``prod(shape)`` (1 for a scalar)."""
        return math.prod(self.shape)

    @property
    def topological_type(self) -> TopologicalType:
        """Cell, Face, Edge or Node."""
        return self.metadata.topological_type

    @property
    def elements(self) -> tuple[TopologicalElement, ...]:
        """The topological elements stored: (CC,), (F1, F2, F3), (E1, E2, E3) or (NN,)."""
        return ELEMENTS_OF_TYPE[self.topological_type]

    @property
    def nslots(self) -> int:
        """Length of the storage's slot axis: ``len(elements) * ncomp``, element-major."""
        return len(self.elements) * self.ncomp

    @property
    def is_sparse(self) -> bool:
        """True for an instance of a sparse pool."""
        return self.sparse_id is not None

    def has(self, *flags: MetadataFlag | str) -> bool:
        """True when the field's metadata has every given flag."""
        return self.metadata.has(*flags)


@dataclass(frozen=True)
class SparsePool:
    """A sparse field: base name, metadata and component shape shared by all instances."""

    base_name: str
    metadata: Metadata
    shape: tuple[int, ...]
    dtype: np.dtype
    package: str
    sparse_ids: tuple[int, ...]
    instances: tuple[FieldSpec, ...] = field(repr=False)

    @property
    def ncomp(self) -> int:
        """Number of components of one instance."""
        return math.prod(self.shape)


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        raise ValueError(f"field name must be a non-empty string without spaces, got {name!r}")
    # outputs write the name into XML (XDMF), which cannot hold control characters
    if any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in name):  # Unicode's control characters (Cc)
        raise ValueError(f"field name must not contain control characters, got {name!r}")
    try:  # HDF5 and XDMF store names as UTF-8; a lone surrogate (such as U+D800) has no UTF-8 form
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"field name must be valid Unicode text (it is written as UTF-8), got {name!r}, which "
                         f"holds a lone surrogate") from None
    return name


def _check_shape(name: str, shape: object) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        dims = tuple(shape)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(
            f"field {name!r}: shape must be a tuple of positive integers, got {shape!r}"
        ) from None
    for d in dims:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1:
            raise ValueError(f"field {name!r}: shape must be a tuple of positive integers, got {shape!r}")
    return tuple(int(d) for d in dims)


class Package(AnswersParthenonNames):
    """A named collection of field declarations (Parthenon's ``StateDescriptor``)."""

    def __init__(self, name: str):
        if not isinstance(name, str) or not name:
            raise ValueError(f"package name must be a non-empty string, got {name!r}")
        self.name = name
        self._fields: dict[str, FieldSpec] = {}
        self._pools: dict[str, SparsePool] = {}

    def __repr__(self) -> str:
        return f"Package({self.name!r}, fields={list(self._fields)})"

    def add_field(
        self,
        name: str,
        metadata: Metadata,
        shape: tuple[int, ...] | int = (),
        dtype: object = np.float64,
        sparse_ids: list[int] | tuple[int, ...] | None = None,
    ) -> FieldSpec | SparsePool:
        """Declare a field; a ``Sparse`` field also needs ``sparse_ids`` and returns its pool."""
        name = _check_name(name)
        if not isinstance(metadata, Metadata):
            raise TypeError(f"field {name!r}: metadata must be a Metadata, got {metadata!r}")
        shape = _check_shape(name, shape)
        dt = check_dtype(dtype, f"field {name!r}")
        one_element = metadata.topological_type in (TopologicalType.Cell, TopologicalType.Node)
        if metadata.has(MetadataFlag.Vector) and one_element and len(shape) != 1:
            raise ValueError(
                f"field {name!r}: a Vector field needs a one-dimensional shape such as (3,), got {shape}"
            )
        if metadata.has(MetadataFlag.Vector) and dt.kind in "bu":
            raise TypeError(f"field {name!r}: a Vector field needs a signed dtype (its sign flips), got {dt}")
        if name in self._fields or name in self._pools:
            raise ValueError(f"field {name!r} is already declared in package {self.name!r}")
        is_sparse = metadata.has(MetadataFlag.Sparse)
        if is_sparse != (sparse_ids is not None):
            if is_sparse:
                raise ValueError(f"field {name!r} has Metadata.Sparse but no sparse_ids")
            raise ValueError(f"field {name!r} has sparse_ids but lacks Metadata.Sparse")
        if not is_sparse:
            spec = FieldSpec(name, metadata, shape, dt, self.name, name)
            self._fields[name] = spec
            return spec
        ids = self._check_sparse_ids(name, sparse_ids)
        instances = tuple(
            FieldSpec(sparse_name(name, i), metadata, shape, dt, self.name, name, i) for i in ids
        )
        for inst in instances:
            self._check_free(inst.name)
        pool = SparsePool(name, metadata, shape, dt, self.name, ids, instances)
        self._pools[name] = pool
        for inst in instances:
            self._fields[inst.name] = inst
        return pool

    def _check_free(self, name: str) -> None:
        if name in self._fields or name in self._pools:
            raise ValueError(f"field name {name!r} clashes with an existing field of package {self.name!r}")

    @staticmethod
    def _check_sparse_ids(name: str, sparse_ids: object) -> tuple[int, ...]:
        ids = tuple(sparse_ids)  # type: ignore[arg-type]
        if not ids:
            raise ValueError(f"sparse field {name!r}: sparse_ids is empty")
        for i in ids:
            if not isinstance(i, (int, np.integer)) or isinstance(i, bool) or i < 0:
                raise ValueError(
                    f"sparse field {name!r}: sparse ids must be non-negative integers, got {i!r}"
                )
        if len(set(ids)) != len(ids):
            raise ValueError(f"sparse field {name!r}: duplicate sparse ids in {list(ids)}")
        return tuple(sorted(int(i) for i in ids))

    @property
    def fields(self) -> dict[str, FieldSpec]:
        """Every field by name (dense fields and sparse instances ``base_id``)."""
        return dict(self._fields)

    @property
    def sparse_pools(self) -> dict[str, SparsePool]:
        """Sparse pools by base name."""
        return dict(self._pools)

    def __contains__(self, name: str) -> bool:
        return name in self._fields or name in self._pools

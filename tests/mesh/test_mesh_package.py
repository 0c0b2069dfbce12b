"""Metadata flags and package field declarations."""

from __future__ import annotations

import numpy as np
import pytest

from brickwork.mesh import TE, Metadata, MetadataFlag, Package, TopologicalType


def test_metadata_flags_and_defaults():
    md = Metadata(Metadata.Face, Metadata.FillGhost)
    assert md.topological_type is TopologicalType.Face
    assert md.has(Metadata.FillGhost) and Metadata.Derived in md and "Independent" not in md
    assert Metadata().topological_type is TopologicalType.Cell
    assert Metadata(["Node", "Independent"]) == Metadata(Metadata.Node, Metadata.Independent)
    assert repr(Metadata("Edge")) == "Metadata(Metadata.Edge, Metadata.Derived)"
    assert Metadata.Cell is MetadataFlag.Cell


@pytest.mark.parametrize(
    "flags,error,message",
    [
        (("Cell", "Face"), ValueError, "Cell and Face: give exactly one"),
        (("Independent", "Derived"), ValueError, "both Independent and Derived"),
        (("Face", "WithFluxes"), ValueError, "WithFluxes is supported on Cell fields only"),
        (("Cel",), ValueError, "unknown Metadata flag 'Cel'"),
        ((3,), TypeError, "Metadata flags must be"),
    ],
)
def test_metadata_rejects_bad_combinations(flags, error, message):
    with pytest.raises(error, match=message):
        Metadata(*flags)


def test_add_field_dense_and_sparse():
    pkg = Package("hydro")
    rho = pkg.add_field("density", Metadata("Cell", "FillGhost"))
    mom = pkg.add_field("momentum", Metadata("Cell", "Vector"), shape=3, dtype=np.float32)
    b = pkg.add_field("B", Metadata("Face"), shape=(2, 2))
    pool = pkg.add_field("tracer", Metadata("Cell", "Sparse"), sparse_ids=[7, 2])
    assert (rho.ncomp, rho.nslots, rho.dtype, rho.elements) == (1, 1, np.float64, (TE.CC,))
    assert (mom.shape, mom.ncomp, mom.dtype) == ((3,), 3, np.float32)
    assert (b.ncomp, b.nslots, b.elements) == (4, 12, (TE.F1, TE.F2, TE.F3))
    assert pool.sparse_ids == (2, 7)
    assert [s.name for s in pool.instances] == ["tracer_2", "tracer_7"]
    assert set(pkg.fields) == {"density", "momentum", "B", "tracer_2", "tracer_7"}
    assert "tracer" in pkg and "tracer_7" in pkg and "nope" not in pkg


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        ({"name": ""}, ValueError, "field name must be a non-empty string"),
        ({"name": "a b"}, ValueError, "without spaces"),
        ({"shape": (0,)}, ValueError, "shape must be a tuple of positive integers, got \\(0,\\)"),
        ({"shape": "x"}, ValueError, "shape must be a tuple of positive integers"),
        ({"dtype": object}, TypeError, "dtype object is not supported"),
        ({"dtype": "U3"}, TypeError, "dtype <U3 is not supported"),
        ({"dtype": "nonsense"}, TypeError, "'nonsense' is not a numpy dtype"),
        ({"dtype": ">f8" if np.little_endian else "<f8"}, TypeError, "is not in this machine's byte order; use float64"),
        ({"metadata": "Cell"}, TypeError, "metadata must be a Metadata"),
        ({"metadata": Metadata("Cell", "Sparse")}, ValueError, "has Metadata.Sparse but no sparse_ids"),
        ({"sparse_ids": [1]}, ValueError, "has sparse_ids but lacks Metadata.Sparse"),
        ({"metadata": Metadata("Cell", "Vector"), "shape": (3, 3)}, ValueError, "one-dimensional shape"),
        ({"metadata": Metadata("Cell", "Vector"), "shape": 3, "dtype": np.uint8}, TypeError, "signed dtype"),
    ],
)
def test_add_field_errors(kwargs, error, message):
    pkg = Package("p")
    args = {"name": "f", "metadata": Metadata("Cell"), **kwargs}
    with pytest.raises(error, match=message):
        pkg.add_field(**args)
    assert pkg.fields == {}  # nothing half-declared


@pytest.mark.parametrize(
    "ids,message",
    [([], "sparse_ids is empty"), ([1, 1], "duplicate sparse ids"), ([-1], "non-negative integers, got -1")],
)
def test_sparse_id_errors(ids, message):
    pkg = Package("p")
    with pytest.raises(ValueError, match=message):
        pkg.add_field("s", Metadata("Cell", "Sparse"), sparse_ids=ids)


def test_duplicate_and_clashing_names():
    pkg = Package("p")
    pkg.add_field("a", Metadata())
    with pytest.raises(ValueError, match="field 'a' is already declared in package 'p'"):
        pkg.add_field("a", Metadata())
    pkg.add_field("s_1", Metadata())
    with pytest.raises(ValueError, match="'s_1' clashes"):
        pkg.add_field("s", Metadata("Sparse"), sparse_ids=[1])
    assert "s" not in pkg

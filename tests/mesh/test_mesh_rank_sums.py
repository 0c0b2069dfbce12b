"""``Mesh.sum_over_ranks`` in one process: nothing changes; what it refuses (several ranks: tests/mpi)."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork.mesh import Mesh, Metadata, Package


def _mesh():
    pkg = Package("p")
    pkg.add_field("q", Metadata("Cell"))
    return Mesh((8, 8), (4, 4), nghost=1, packages=[pkg])


def test_one_rank_keeps_the_values():
    values = wp.array(np.arange(5.0), dtype=wp.float64)
    host = np.arange(6).reshape(2, 3)
    mesh = _mesh()
    mesh.sum_over_ranks(values)
    mesh.sum_over_ranks(host)
    assert np.array_equal(values.numpy(), np.arange(5.0)) and np.array_equal(host, np.arange(6).reshape(2, 3))


@pytest.mark.parametrize(("values", "message"), [
    ([1.0, 2.0], "sum_over_ranks: takes a wp.array or a numpy array, got list"),
    (np.array([True, False]), "sum_over_ranks: adds numbers, got an array of bool"),
    (np.array(["a"]), "sum_over_ranks: adds numbers, got an array of <U1"),
])
def test_what_is_not_an_array_of_numbers_is_refused(values, message):
    before = list(values)
    with pytest.raises(TypeError) as e:
        _mesh().sum_over_ranks(values)
    assert str(e.value) == message and list(values) == before

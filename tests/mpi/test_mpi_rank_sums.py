"""``Mesh.sum_over_ranks`` on 1, 2 and 4 MPI ranks: each rank's arrays (wp.arrays, numpy, vectors, a strided
view) summed in place, and the gradient of a parameter every rank's kernels read made whole (each rank's
backward pass gives its blocks' part): equal to numpy's on every rank, the same bits on every rank."""

from __future__ import annotations

import re

import pytest
from test_mpi import python  # importing it skips this module without mpiexec


@pytest.mark.parametrize("nranks", [1, 2, 4])
def test_sum_over_ranks_makes_a_parameter_gradient_whole(nranks):
    done = python(nranks, "sum_over_ranks.py")
    assert sorted(re.findall(r"rank (\d+) sums equal", done.stdout)) == [str(r) for r in range(nranks)]
    gradients = re.findall(r"gradient (\[.*?\])", done.stdout)
    assert len(gradients) == nranks and len(set(gradients)) == 1  # the same bits on every rank

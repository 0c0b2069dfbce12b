"""``Mesh.sum_over_ranks`` on 1, 2 and 4 MPI ranks: each rank's arrays (wp.arrays, numpy, vectors, a strided
view) summed in place, and the gradient of a parameter every rank's kernels read made whole (each rank's
backward pass gives its blocks' part): equal to numpy's on every rank, the same bits on every rank."""

from __future__ import annotations

import re

import pytest
from test_mpi import EXAMPLES, python  # importing it skips this module without mpiexec


@pytest.mark.parametrize("nranks", [1, 2, 4])
def test_sum_over_ranks_makes_a_parameter_gradient_whole(nranks):
    done = python(nranks, "sum_over_ranks.py")
    assert sorted(re.findall(r"rank (\d+) sums equal", done.stdout)) == [str(r) for r in range(nranks)]
    gradients = re.findall(r"gradient (\[.*?\])", done.stdout)
    assert len(gradients) == nranks and len(set(gradients)) == 1  # the same bits on every rank


def test_the_fit_example_fits_the_one_process_velocity_on_two_ranks():
    """examples/fit_advection_velocity.py sums the velocity's gradient over the ranks: the ranks fit one
    velocity, the one process's (without the sum each rank moved its own copy)."""
    lines = {}
    for nranks in (1, 2):
        done = python(nranks, str(EXAMPLES / "fit_advection_velocity.py"), "--iterations", "15", "--steps", "5",
                      timeout=400)
        found = re.findall(r"fitted velocity \[([^\]]*)\]", done.stdout)
        assert len(found) == 1, done.stdout
        lines[nranks] = [float(v) for v in found[0].split()]
    # the gradients' parts are added in another order than one process adds them: the last bits may differ
    assert lines[2] == pytest.approx(lines[1], rel=1e-10) and lines[1] != pytest.approx([0.2, 0.2], abs=0.05)

"""optim.linear's solvers over vectors spread across MPI ranks (``LinearOperator(comm=...)``): a matrix-free
Poisson solve on a block mesh on 1, 2 and 4 ranks, each of cg, cr, bicgstab and gmres against numpy's dense
solve of the whole system, every rank taking the same iterations (without ``comm`` each rank stopped at its own
iteration and the ghost exchanges of the next matvec waited for ever)."""

from __future__ import annotations

import re

import pytest
from test_mpi import python  # importing it skips this module without mpiexec


@pytest.mark.parametrize("nranks", [1, 2, 4])
def test_mesh_poisson_solve_over_ranks(nranks):
    done = python(nranks, "mesh_poisson_solve.py", timeout=300)
    for name in ("cg", "cr", "bicgstab", "gmres"):
        found = re.findall(rf"rank (\d+) {name} (\d+) iterations, residual ([-+.e0-9]+)", done.stdout)  # lines may interleave
        assert sorted(int(r) for r, _, _ in found) == list(range(nranks)), done.stdout
        assert len({(its, res) for _, its, res in found}) == 1  # the same steps and bits on every rank

"""``LinearOperator(comm=...)``: the solvers add every inner product over the communicator's ranks, each rank
holding its part of the vectors (tests/mpi/test_mpi_linear_solvers.py runs a block-mesh Poisson solve on 1, 2
and 4 MPI ranks). Here in one process: a stand-in communicator of two ranks holding the same part, so the whole
system is two copies of one, which the solvers must solve as the one system (the same iterations and solution,
residuals and tolerances sqrt(2) times the one's); a one-rank communicator changes nothing; and the mistakes."""

import math

import numpy as np
import pytest

import brickwork as wp
from brickwork.comm import SERIAL
from brickwork.optim.linear import (
    CG,
    LinearOperator,
    LinearSolverTypeError,
    LinearSolverValueError,
    bicgstab,
    cg,
    cr,
    gmres,
)

N = 30
A_NP = 3.0 * np.eye(N) - np.eye(N, k=1) - np.eye(N, k=-1) + 0.2 * np.eye(N, k=2) + 0.2 * np.eye(N, k=-2)
B_NP = np.cos(np.arange(N) * 0.4) + 0.5


class TwinRanks:
    """Two ranks holding the same part of every vector: an allgather gives this rank's value twice."""

    def Get_size(self):  # noqa: N802 - mpi4py's spelling
        return 2

    def allgather(self, value):
        self.calls = getattr(self, "calls", 0) + 1
        return [value, value]


def _operator(comm):
    def matvec(x, y, z, alpha, beta):
        z.assign(wp.array(alpha * (A_NP @ x.numpy()) + beta * y.numpy(), dtype=wp.float64))

    return LinearOperator((N, N), wp.float64, "cpu", matvec, comm=comm)


SOLVERS = [(cg, {}), (cr, {}), (bicgstab, {}), (gmres, {"restart": 8})]


@pytest.mark.parametrize("solve, options", SOLVERS, ids=["cg", "cr", "bicgstab", "gmres"])
def test_two_ranks_of_one_system_solve_as_the_one(solve, options):
    alone, x_alone = _operator(None), wp.zeros(N, dtype=wp.float64)
    its, res, tol = solve(alone, wp.array(B_NP), x_alone, tol=1e-9, **options)
    twins = TwinRanks()
    x_twin = wp.zeros(N, dtype=wp.float64)
    its2, res2, tol2 = solve(_operator(twins), wp.array(B_NP), x_twin, tol=1e-9, **options)
    assert twins.calls > its2  # every inner product went through the communicator
    assert its2 == its and res2 == pytest.approx(math.sqrt(2) * res, rel=1e-6)
    assert tol2 == pytest.approx(math.sqrt(2) * tol, rel=1e-12)
    np.testing.assert_allclose(x_twin.numpy(), x_alone.numpy(), rtol=1e-9)
    np.testing.assert_allclose(x_twin.numpy(), np.linalg.solve(A_NP, B_NP), rtol=1e-7)


def test_maxiter_defaults_to_the_whole_system_size():
    """maxiter 0: the size of every rank's part together (each rank's part alone stopped the ranks apart)."""
    solver = CG(_operator(TwinRanks()), wp.array(B_NP), wp.zeros(N, dtype=wp.float64), maxiter=0)
    assert solver._maxiter == 2 * N
    assert CG(_operator(None), wp.array(B_NP), wp.zeros(N, dtype=wp.float64), maxiter=0)._maxiter == N


def test_one_rank_changes_nothing():
    x_none, x_serial = wp.zeros(N, dtype=wp.float64), wp.zeros(N, dtype=wp.float64)
    got_none = cr(_operator(None), wp.array(B_NP), x_none, tol=1e-10)
    got_serial = cr(_operator(SERIAL), wp.array(B_NP), x_serial, tol=1e-10)
    assert got_none == got_serial and np.array_equal(x_none.numpy(), x_serial.numpy())
    assert _operator(SERIAL).comm is SERIAL and _operator(None).comm is None


@pytest.mark.parametrize("comm", ["world", 3, object()])
def test_comm_must_be_a_communicator(comm):
    with pytest.raises(LinearSolverTypeError, match=r"LinearOperator comm must be an MPI communicator \(mesh\.comm, "
                                                    r"MPI\.COMM_WORLD\) or None, got (str|int|object)$"):
        _operator(comm)


def test_a_solve_over_ranks_cannot_be_captured():
    x = wp.array(np.full(N, 2.0))
    with pytest.raises(LinearSolverValueError, match="spans several MPI ranks .* cannot be captured"):
        with wp.ScopedCapture():
            cg(_operator(TwinRanks()), wp.array(B_NP), x, tol=1e-9, check_every=0)
    assert (x.numpy() == 2.0).all()

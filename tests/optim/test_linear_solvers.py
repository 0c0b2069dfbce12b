"""brickwork.optim.linear's solvers (cg, cr, bicgstab, gmres): against numpy.linalg.solve on SPD, nonsymmetric and
indefinite systems, against the iteration counts, callbacks and tolerances Warp 1.19 gives, with and without
preconditioners, in float32 and float64, with the device-side loop, and on the cuda-emulation target."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.optim.linear import CG, CR, GMRES, BiCGSTAB, bicgstab, cg, cr, gmres, preconditioner

SOLVERS = {"cg": cg, "cr": cr, "bicgstab": bicgstab, "gmres": gmres}
NP = {wp.float32: np.float32, wp.float64: np.float64}


def least_squares_system(seed, n):
    """Warp's test systems: A = C C^T, b = C f with entries in [-100, 100] (badly conditioned)."""
    rng = np.random.default_rng(seed)
    C = rng.uniform(-100, 100, (n, n))
    f = rng.uniform(-100, 100, n)
    return rng, C @ C.T, C @ f


def warp_system(kind, seed, n):
    rng, A, b = least_squares_system(seed, n)
    if kind == "nonsymmetric":
        A = A @ np.diag(rng.uniform(0.1, 10, n))
    return A, b


def conditioned_system(kind, n, seed):
    """Well-conditioned systems: SPD and symmetric indefinite (half the eigenvalues negative) with eigenvalues of
    magnitude in [1, 10], or nonsymmetric (a perturbed diagonal)."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    lam = rng.uniform(1.0, 10.0, n)
    if kind == "indefinite":
        lam[: n // 2] *= -1.0
    if kind == "nonsymmetric":  # a perturbed diagonal: eigenvalues near [1, 10], not symmetric
        A = np.diag(lam) + 0.5 * rng.standard_normal((n, n)) / np.sqrt(n)
    else:
        A = Q @ np.diag(lam) @ Q.T
    return A, rng.standard_normal(n)


def solve(solver, A, b, dtype=wp.float64, M=None, x0=None, **kwargs):
    Aw = wp.array(A, dtype=dtype)
    bw = wp.array(b, dtype=dtype)
    x = wp.zeros_like(bw) if x0 is None else wp.array(x0, dtype=dtype)
    Mw = preconditioner(Aw, M) if isinstance(M, str) else M
    result = SOLVERS[solver](Aw, bw, x, M=Mw, **kwargs)
    return result, x.numpy()


# -- Warp's numbers ------------------------------------------------------------------------------------------------
# (solver, dtype, kind, n, seed, preconditioner) -> iterations and number of callbacks, from Warp 1.19 on the CPU
# (maxiter=1000, default tolerances and check_every)
WARP_RUNS = [
    ("cg", wp.float64, "spd", 16, 1, None, 20, 3),
    ("cg", wp.float32, "spd", 40, 2, None, 80, 9),
    ("cg", wp.float32, "spd", 40, 2, "diag", 70, 8),
    ("cr", wp.float64, "spd", 40, 2, "diag", 60, 7),
    ("cr", wp.float32, "spd", 16, 1, None, 30, 4),
    ("bicgstab", wp.float64, "nonsymmetric", 40, 2, None, 150, 16),
    ("bicgstab", wp.float64, "nonsymmetric", 40, 2, "diag", 80, 9),
    ("bicgstab", wp.float32, "nonsymmetric", 16, 1, "diag", 40, 5),
    ("gmres", wp.float64, "nonsymmetric", 16, 1, None, 62, 3),
    ("gmres", wp.float64, "nonsymmetric", 16, 1, "diag", 31, 2),
    ("gmres", wp.float32, "nonsymmetric", 40, 2, "diag", 279, 10),
]


@pytest.mark.parametrize("solver, dtype, kind, n, seed, M, iterations, callbacks", WARP_RUNS)
def test_iterations_callbacks_and_tolerance_are_warps(solver, dtype, kind, n, seed, M, iterations, callbacks):
    A, b = warp_system(kind, seed, n)
    calls = []
    (niter, err, atol), x = solve(solver, A, b, dtype, M=M, maxiter=1000, callback=lambda *a: calls.append(a))
    assert niter == iterations and len(calls) == callbacks
    step = 31 if solver == "gmres" else 10  # gmres checks once a cycle (check_every is at least restart)
    assert [c[0] for c in calls] == [*range(0, niter, step), niter][:callbacks]
    # the absolute tolerance: rtol * |b| with Warp's default rtol (1e-12 for float64, 1e-6 for float32)
    rtol = 1e-12 if dtype is wp.float64 else 1e-6
    b_norm = np.linalg.norm(b.astype(NP[dtype]).astype(np.float64))
    assert atol == pytest.approx(rtol * b_norm, rel=1e-5)
    assert all(c[2] == atol for c in calls) and calls[-1][1] == err
    assert err <= atol
    scale = 2.0 if dtype is wp.float64 else 32.0
    assert np.linalg.norm(A @ x - b) <= scale * atol * (4.0 if solver == "bicgstab" else 1.0)


def test_maxiter_reached_returns_warps_values():
    # Warp 1.19: gmres on this system stops at maxiter, counted a cycle (31 iterations) at a time
    A, b = warp_system("nonsymmetric", 1, 16)
    calls = []
    (niter, err, atol), x = solve("gmres", A, b, wp.float32, maxiter=1000, callback=lambda *a: calls.append(a))
    assert niter == 1023 and len(calls) == 34 and err > atol
    assert calls[-1] == (1023, err, atol) and calls[-2][0] == 992
    assert err == pytest.approx(np.linalg.norm(A @ x - b), rel=5e-2)  # float32 residual of the last cycle
    # cg stopped early: the last callback is the final iteration, err above the tolerance
    A, b = conditioned_system("spd", 30, 3)
    calls = []
    (niter, err, atol), _ = solve("cg", A, b, maxiter=5, check_every=2, callback=lambda *a: calls.append(a[0]))
    assert niter == 5 and err > atol and calls == [0, 2, 4, 5]


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
@pytest.mark.parametrize("n", [1, 7, 48])
@pytest.mark.parametrize("solver, kind", [("cg", "spd"), ("cr", "spd"), ("bicgstab", "spd"),
                                          ("bicgstab", "nonsymmetric"), ("gmres", "nonsymmetric"),
                                          ("gmres", "indefinite")])
@pytest.mark.parametrize("M", [None, "diag"])
def test_solutions_match_numpy(solver, kind, n, dtype, M):
    # (Warp's CR takes no step where z.Az <= 0, so it is for definite systems, as CG; restarted GMRES may
    # stagnate on an indefinite system: these run GMRES unrestarted)
    A, b = conditioned_system(kind, n, seed=n)
    tol = 1e-10 if dtype is wp.float64 else 1e-5
    kw = {"restart": n} if kind == "indefinite" else {}
    (niter, err, atol), x = solve(solver, A, b, dtype, M=M, tol=tol, maxiter=20 * n + 64, **kw)
    assert err <= atol, (niter, err, atol)
    assert atol == pytest.approx(max(tol * np.linalg.norm(b), tol), rel=1e-5)  # atol defaults to tol
    expected = np.linalg.solve(A, b)
    slack = 1e3 if dtype is wp.float64 else 50.0
    assert np.linalg.norm(A @ x - b) <= slack * atol
    np.testing.assert_allclose(x, expected, atol=slack * 10 * tol * np.linalg.norm(expected))
    if solver in ("cg", "cr") and kind == "spd" and M is None and dtype is wp.float64:
        assert niter <= n + 10  # well conditioned: at most about n iterations


def test_a_converged_start_takes_no_iteration_and_a_zero_rhs_converges():
    A, b = conditioned_system("spd", 8, 1)
    x0 = np.linalg.solve(A, b)
    for name in SOLVERS:
        calls = []
        (niter, err, atol), x = solve(name, A, b, x0=x0, tol=1e-6, callback=lambda *a: calls.append(a))
        assert niter == 0 and err <= atol and len(calls) == 1 and calls[0] == (0, err, atol)
        np.testing.assert_array_equal(x, x0)
        (niter, err, atol), x = solve(name, A, np.zeros(8))
        assert niter == 0 and err == 0.0 and atol == pytest.approx(1e-12, rel=1e-12, abs=0.0)  # the default atol


@pytest.mark.parametrize("name", list(SOLVERS))
def test_empty_systems_and_strided_views(name):
    empty = wp.zeros(0, dtype=wp.float64)
    assert SOLVERS[name](wp.zeros((0, 0), dtype=wp.float64), empty, wp.zeros(0, dtype=wp.float64)) == (0, 0.0, 1e-12)
    A = np.diag(np.arange(1.0, 6.0)) + 0.1
    b = wp.array(np.repeat(np.arange(1.0, 6.0), 2), dtype=wp.float64)
    x = wp.zeros(10, dtype=wp.float64)
    _, err, atol = SOLVERS[name](wp.array(A, dtype=wp.float64), b[::2], x[1::2], tol=1e-12)
    assert err <= atol
    np.testing.assert_allclose(x.numpy()[1::2], np.linalg.solve(A, np.arange(1.0, 6.0)), rtol=1e-10)
    assert not x.numpy()[::2].any()  # the other elements of the array are left alone


def test_tol_and_atol_combine_as_warps():
    A, b = conditioned_system("spd", 10, 2)
    bn = np.linalg.norm(b)
    for kw, expected in (({}, 1e-12 * bn), ({"tol": 1e-3}, max(1e-3 * bn, 1e-3)), ({"atol": 0.5}, max(0.5 * bn, 0.5)),
                         ({"tol": 1e-4, "atol": 1e-2}, max(1e-4 * bn, 1e-2)), ({"tol": 0.0, "atol": 0.0}, 1e-16 ** 2.25)):
        (_, _, atol), _ = solve("cg", A, b, **kw)
        assert atol == pytest.approx(expected, rel=1e-12, abs=0.0)


def test_default_maxiter_is_the_system_size():
    A, b = warp_system("nonsymmetric", 2, 40)
    (niter, err, atol), _ = solve("bicgstab", A, b, wp.float32)  # does not converge in float32 (NaN in Warp too)
    assert niter == 40


def test_restarted_conjugate_solvers_check_at_cycle_boundaries():
    rng = np.random.default_rng(2027)
    C = rng.standard_normal((12, 12))
    A, b = C.T @ C + 4.0 * np.eye(12), rng.standard_normal(12)
    for name in ("cg", "cr"):
        for M in (None, "diag"):
            calls = []
            (niter, err, atol), x = solve(name, A, b, M=M, tol=1e-10, maxiter=120, check_every=1, restart=3,
                                          callback=lambda i, *_: calls.append(i))
            assert err <= atol and niter % 3 == 0 and calls[0] == 0 and calls[-1] == niter
            assert all(i % 3 == 0 for i in calls)
            assert np.linalg.norm(A @ x - b) <= atol  # the returned residual is the true one


def test_gmres_restart_and_left_right_preconditioning():
    A, b = conditioned_system("nonsymmetric", 24, 5)
    A = A @ np.diag(np.linspace(1.0, 50.0, 24))  # badly scaled columns: the diagonal preconditioner helps
    expected = np.linalg.solve(A, b)
    for restart in (4, 10, 24):
        for left in (False, True):
            calls = []
            (niter, err, atol), x = solve("gmres", A, b, M="diag", restart=restart, is_left_preconditioner=left,
                                          tol=1e-10, maxiter=2000, callback=lambda i, *_: calls.append(i))
            assert err <= atol and niter % restart == 0 and all(i % restart == 0 for i in calls)
            np.testing.assert_allclose(x, expected, rtol=1e-6, atol=1e-8)
    # restart is at most maxiter
    (niter, _, _), _ = solve("gmres", A, b, restart=50, maxiter=20)
    assert niter == 20


def test_bicgstab_left_preconditioner():
    A, b = conditioned_system("nonsymmetric", 20, 9)
    for left in (False, True):
        (niter, err, atol), x = solve("bicgstab", A, b, M="diag", is_left_preconditioner=left, tol=1e-10,
                                      maxiter=200)
        assert err <= atol
        np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-7, atol=1e-8)


# -- the device-side loop (check_every=0) ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(SOLVERS))
def test_check_every_zero_returns_device_arrays(name):
    A, b = conditioned_system("spd", 12, 4)
    kw = {"restart": 4} if name == "gmres" else {}
    state = SOLVERS[name](wp.array(A, dtype=wp.float64), wp.array(b, dtype=wp.float64), wp.zeros(12, dtype=wp.float64),
                          tol=1e-5, maxiter=40, check_every=0, run=False, **kw)
    counter = state._cur_iter_and_condition
    niter, err_sq, atol_sq = state()
    assert isinstance(niter, wp.array) and niter.ptr == counter.ptr and niter.shape == (1,)
    # without a capture the loop runs maxiter iterations (the steps are zero once converged), as Warp's CPU loop
    assert niter.numpy()[0] == 40 and err_sq.numpy()[0] <= atol_sq.numpy()[0]
    x = state._x.numpy()
    assert np.linalg.norm(A @ x - b) <= 10 * math.sqrt(atol_sq.numpy()[0])
    # the counter is reset by each solve
    counter.fill_(123)
    state._x.zero_()
    assert state()[0].numpy()[0] == 40


def test_check_every_zero_in_a_cpu_capture_stops_when_converged():
    A, b = conditioned_system("spd", 12, 4)
    x = wp.zeros(12, dtype=wp.float64)
    state = CG(wp.array(A, dtype=wp.float64), wp.array(b, dtype=wp.float64), x, tol=1e-5, maxiter=60, check_every=0)
    with wp.ScopedCapture() as capture:
        niter, err_sq, atol_sq = state()
    assert not x.numpy().any()  # nothing ran while capturing
    wp.capture_launch(capture.graph)  # a capture_while node: it stops when the condition falls
    stopped = niter.numpy()[0]
    assert 0 < stopped < 60 and err_sq.numpy()[0] <= atol_sq.numpy()[0]
    assert np.linalg.norm(A @ x.numpy() - b) <= 10 * math.sqrt(atol_sq.numpy()[0])
    x.zero_()  # replayed: the same iterations again
    wp.capture_launch(capture.graph)
    assert niter.numpy()[0] == stopped


def test_check_every_zero_launches_a_kernel_callback(capfd):
    A, b = conditioned_system("spd", 6, 8)

    @wp.kernel
    def report(it: wp.array(dtype=wp.int32), r_sq: wp.array(dtype=wp.float64), t_sq: wp.array(dtype=wp.float64)):
        wp.printf("iteration %d\n", it[0])

    capfd.readouterr()
    cg(wp.array(A, dtype=wp.float64), wp.array(b, dtype=wp.float64), wp.zeros(6, dtype=wp.float64), maxiter=4,
       check_every=0, callback=report)
    # once before the loop (iteration 0), then after each of maxiter iterations
    assert capfd.readouterr().out.split("\n")[:-1] == [f"iteration {i}" for i in range(5)]


# -- reuse of a solver state ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("func, cls, kind, kw", [(cg, CG, "spd", {"restart": 32}), (cr, CR, "spd", {"restart": 32}),
                                                 (bicgstab, BiCGSTAB, "nonsymmetric", {}),
                                                 (gmres, GMRES, "nonsymmetric", {"restart": 16})])
def test_a_state_solves_again_with_new_operands(func, cls, kind, kw):
    A1, b1 = conditioned_system(kind, 32, 11)
    A2, b2 = conditioned_system(kind, 32, 22)
    x1 = wp.zeros(32, dtype=wp.float64)
    state = func(wp.array(A1, dtype=wp.float64), wp.array(b1, dtype=wp.float64), x1, tol=1e-10, maxiter=500,
                 run=False, **kw)
    assert isinstance(state, cls) and not x1.numpy().any()  # run=False runs nothing
    buffers = [id(v) for v in vars(state).values() if isinstance(v, wp.array)]
    _, err, atol = state()
    assert err <= atol
    np.testing.assert_allclose(x1.numpy(), np.linalg.solve(A1, b1), rtol=1e-7, atol=1e-8)
    x2 = wp.zeros(32, dtype=wp.float64)
    _, err, atol = state(A=wp.array(A2, dtype=wp.float64), b=wp.array(b2, dtype=wp.float64), x=x2)
    assert err <= atol
    np.testing.assert_allclose(x2.numpy(), np.linalg.solve(A2, b2), rtol=1e-7, atol=1e-8)
    assert [id(v) for v in vars(state).values() if isinstance(v, wp.array)] == buffers  # nothing reallocated
    # the same solve again gives the same bits (inner products in a fixed order)
    x3 = wp.zeros(32, dtype=wp.float64)
    state(A=wp.array(A2, dtype=wp.float64), b=wp.array(b2, dtype=wp.float64), x=x3)
    np.testing.assert_array_equal(x3.numpy(), x2.numpy())


def test_cg_and_cr_states_take_a_preconditioner_per_call():
    A, b = warp_system("spd", 33, 32)
    Aw, bw = wp.array(A, dtype=wp.float64), wp.array(b, dtype=wp.float64)
    M = preconditioner(Aw, "diag")
    for func in (cg, cr):
        x = wp.zeros_like(bw)
        state = func(Aw, bw, x, maxiter=640, restart=32, run=False)
        _, err, atol = state()
        assert err <= atol
        x.zero_()
        _, err, atol = state(M=M)
        assert err <= atol


# -- batched systems -----------------------------------------------------------------------------------------------
def batch_offsets(sizes):
    return wp.array(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32), dtype=wp.int32)


@pytest.mark.parametrize("name", list(SOLVERS))
@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
def test_batched_block_diagonal_systems(name, dtype):
    from brickwork.optim.linear import aslinearoperator

    sizes = [8, 15, 10, 12]
    n = sum(sizes)
    A, b = np.zeros((n, n)), np.zeros(n)
    start = 0
    for i, size in enumerate(sizes):
        Ai, bi = conditioned_system("spd" if name in ("cg", "cr") else "nonsymmetric", size, 100 + i)
        A[start:start + size, start:start + size], b[start:start + size] = Ai, bi
        start += size
    tol = 1e-10 if dtype is wp.float64 else 1e-5
    op = aslinearoperator(wp.array(A, dtype=dtype), batch_offsets=batch_offsets(sizes), max_batch_length=15)
    assert op.batch_count == 4
    x = wp.zeros(n, dtype=dtype)
    niter, err, atol = SOLVERS[name](op, wp.array(b, dtype=dtype), x, tol=tol, maxiter=1000)
    assert err <= atol and niter <= 15 * (4 if name != "gmres" else 31)
    start = 0
    for size in sizes:
        part = slice(start, start + size)
        residual = np.linalg.norm(A[part, part] @ x.numpy()[part] - b[part])
        assert residual <= 50 * tol * np.linalg.norm(b[part])  # every batch meets its own tolerance
        start += size
    # the maximum over the batches: atol is the largest batch tolerance
    norms = [np.linalg.norm(b[s:s + k]) for s, k in zip(np.cumsum([0, *sizes[:-1]]), sizes)]
    assert atol == pytest.approx(tol * max(norms), rel=1e-5)


def test_batched_inactive_tail_is_left_alone():
    from brickwork.optim.linear import aslinearoperator

    diag = wp.array([2.0, 3.0, 4.0, 5.0, 6.0], dtype=wp.float64)
    b = wp.array([2.0, 6.0, 12.0, 100.0, 200.0], dtype=wp.float64)
    A = aslinearoperator(diag, batch_offsets=batch_offsets([3]), max_batch_length=3)
    for name, kw in (("cg", {}), ("cr", {}), ("bicgstab", {}), ("gmres", {"restart": 2})):
        x = wp.array([0.0, 0.0, 0.0, 7.0, 8.0], dtype=wp.float64)
        niter, err, atol = SOLVERS[name](A, b, x, tol=1e-8, maxiter=20, check_every=1, **kw)
        assert niter >= 1 and err <= atol and atol == pytest.approx(1e-8 * math.sqrt(4 + 36 + 144))
        np.testing.assert_allclose(x.numpy(), [1.0, 2.0, 3.0, 7.0, 8.0], rtol=1e-7, atol=1e-7)


def test_batched_vector_entries():
    from brickwork.optim.linear import aslinearoperator

    diag = wp.array(((2.0, 3.0), (4.0, 5.0), (6.0, 7.0)), dtype=wp.vec2d)
    b = wp.array(((2.0, 6.0), (12.0, 20.0), (100.0, 200.0)), dtype=wp.vec2d)
    A = aslinearoperator(diag, batch_offsets=batch_offsets([2, 2]), max_batch_length=2)
    for name, kw in (("cg", {}), ("cr", {}), ("bicgstab", {}), ("gmres", {"restart": 2})):
        x = wp.array(((0.0, 0.0), (0.0, 0.0), (7.0, 8.0)), dtype=wp.vec2d)
        _, err, atol = SOLVERS[name](A, b, x, tol=1e-8, maxiter=8, check_every=1, **kw)
        assert err <= atol
        np.testing.assert_allclose(x.numpy(), [[1.0, 2.0], [3.0, 4.0], [7.0, 8.0]], rtol=1e-7, atol=1e-7)


def test_batch_offsets_past_the_end_are_clamped():
    from brickwork.optim.linear import aslinearoperator

    diag = wp.array([2.0, 4.0, 8.0], dtype=wp.float64)
    A = aslinearoperator(diag, batch_offsets=wp.array([0, 2, 1000], dtype=wp.int32))
    for name in SOLVERS:
        x = wp.zeros(3, dtype=wp.float64)
        _, err, atol = SOLVERS[name](A, wp.array([2.0, 4.0, 8.0], dtype=wp.float64), x, tol=1e-12, maxiter=10)
        assert err <= atol
        np.testing.assert_allclose(x.numpy(), 1.0, rtol=1e-12)


def test_batched_gmres_right_preconditioned_inactive_tail():
    from brickwork.optim.linear import aslinearoperator

    A = aslinearoperator(wp.array(((2.0, 0.0, 0.0), (0.0, 3.0, 0.0), (5.0, 0.0, 1.0)), dtype=wp.float64),
                         batch_offsets=batch_offsets([2]), max_batch_length=2)
    M = aslinearoperator(wp.array((1.0, 1.0, 1.0), dtype=wp.float64))
    b, x = wp.array((2.0, 6.0, 7.0), dtype=wp.float64), wp.array((0.0, 0.0, 7.0), dtype=wp.float64)
    _, err, atol = gmres(A, b, x, M=M, restart=2, maxiter=2, check_every=1, tol=1e-12)
    assert err <= atol
    np.testing.assert_allclose(x.numpy(), (1.0, 2.0, 7.0), rtol=1e-12, atol=1e-12)


# -- the GPU mapping ---------------------------------------------------------------------------------------------------
@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
def test_the_gpu_mapping_solves_as_the_cpu(dtype):
    from brickwork.optim.linear import aslinearoperator

    A, b = conditioned_system("nonsymmetric", 20, 12)
    S, c = conditioned_system("spd", 20, 13)
    tol = 1e-10 if dtype is wp.float64 else 1e-5

    def run_all():
        out = []
        for name, (M_, Bm, bv) in (("cg", (None, S, c)), ("cr", ("diag", S, c)), ("bicgstab", ("diag", A, b)),
                                   ("gmres", ("diag", A, b))):
            for kw in ({}, {"check_every": 0}) if name != "cr" else ({"restart": 5},):
                (res, x) = solve(name, Bm, bv, dtype, M=M_, tol=tol, maxiter=200,
                                 **({"is_left_preconditioner": True} if name == "gmres" else {}), **kw)
                out.append((name, res if not isinstance(res[0], wp.array) else
                            tuple(float(r.numpy()[0]) for r in res), x))
        (res, x) = solve("gmres", A, b, dtype, M="diag", tol=tol, maxiter=200, restart=8)  # right-preconditioned
        out.append(("gmres right", res, x))
        batched = aslinearoperator(wp.array(np.kron(np.eye(2), S), dtype=dtype), batch_offsets=batch_offsets([20, 20]))
        x = wp.zeros(40, dtype=dtype)
        out.append(("batched", cg(batched, wp.array(np.tile(c, 2), dtype=dtype), x, tol=tol), x.numpy()))
        vec2 = wp.types.vector(length=2, dtype=dtype)  # a diagonal of vectors, with vector and scalar vectors
        diag = aslinearoperator(wp.array(np.arange(1.0, 9.0).reshape(4, 2), dtype=vec2))
        for rhs in (wp.array(np.ones((4, 2)), dtype=vec2), wp.array(np.ones(8), dtype=dtype)):
            x = wp.zeros_like(rhs)
            out.append(("diagonal", bicgstab(diag, rhs, x, tol=tol), x.numpy().ravel()))
        return out

    on_cpu = run_all()
    with config.override(target="cuda-emulation"):
        emulated = run_all()
    for (name, res, x), (_, res_e, x_e) in zip(on_cpu, emulated):
        assert res_e[0] == res[0], name
        assert res_e[1] <= res_e[2], name
        np.testing.assert_allclose(x_e, x, rtol=1e-3 if dtype is wp.float32 else 1e-9, atol=1e-4)


# -- a property: CG reaches the tolerance within n iterations on well-conditioned SPD systems -----------------------
@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 24), seed=st.integers(0, 2**31 - 1), spread=st.floats(1.0, 100.0))
def test_cg_converges_within_n_iterations(n, seed, spread):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = Q @ np.diag(rng.uniform(1.0, spread, n)) @ Q.T
    b = rng.standard_normal(n)
    (niter, err, atol), x = solve("cg", A, b, tol=1e-8, maxiter=4 * n, check_every=1)
    assert err <= atol and niter <= n + 2
    np.testing.assert_allclose(A @ x, b, atol=1e-6 * np.linalg.norm(b) + 1e-12)


# -- BSR matrices (brickwork.sparse) ---------------------------------------------------------------------------------
def block_spd_system(nb, bs, seed):
    """A block-tridiagonal SPD BSR matrix (SPD diagonal blocks, small coupling) and its dense copy."""
    from brickwork.sparse import bsr_from_triplets

    rng = np.random.default_rng(seed)
    rows, cols, vals = [], [], []
    for i in range(nb):
        C = rng.uniform(-1, 1, (bs, bs))
        rows.append(i), cols.append(i), vals.append(C @ C.T + bs * np.eye(bs))
        if i + 1 < nb:
            off = 0.05 * rng.uniform(-1, 1, (bs, bs))
            rows += [i, i + 1]
            cols += [i + 1, i]
            vals += [off, off.T]
    dense = np.zeros((nb * bs, nb * bs))
    for r, c, v in zip(rows, cols, vals):
        dense[r * bs:(r + 1) * bs, c * bs:(c + 1) * bs] = v
    A = bsr_from_triplets(nb, nb, wp.array(rows, dtype=wp.int32), wp.array(cols, dtype=wp.int32),
                          wp.array(np.stack(vals), dtype=wp.float64))
    return A, dense, rng.standard_normal(nb * bs)


@pytest.mark.parametrize("name", list(SOLVERS))
def test_bsr_matrices_with_scalar_and_vector_right_hand_sides(name):
    from brickwork.optim.linear import aslinearoperator

    A, dense, b = block_spd_system(6, 3, 3)
    op = aslinearoperator(A)
    assert op.shape == (18, 18) and op.dtype is wp.mat33d and op.scalar_type is wp.float64
    M = preconditioner(A, "diag")
    assert M.dtype is wp.vec3d and M.shape == (6,)  # the inverse diagonal of each diagonal block, as a vector
    z = wp.zeros(18, dtype=wp.float64)
    M.matvec(wp.array(b, dtype=wp.float64), z, z, alpha=1.0, beta=0.0)
    np.testing.assert_allclose(z.numpy(), b / np.diag(dense), rtol=1e-15)
    for vector in (False, True):
        for Mp in (None, M):
            bw = wp.array(b.reshape(-1, 3), dtype=wp.vec3d) if vector else wp.array(b, dtype=wp.float64)
            x = wp.zeros_like(bw)
            niter, err, atol = SOLVERS[name](A, bw, x, M=Mp, tol=1e-10)
            assert err <= atol and niter <= 18
            np.testing.assert_allclose(x.numpy().ravel(), np.linalg.solve(dense, b), rtol=1e-8, atol=1e-9)

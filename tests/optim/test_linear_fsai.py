"""brickwork.optim.linear.FSAI: the factor against numpy (exact inverse on a full pattern, local solves on every
support, an independent greedy search for the adaptive supports), application, refits and their rollback, the
deferred pattern, storage types, cg iteration counts, the GPU mapping, and the errors."""

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config
from brickwork.optim.linear import FSAI, LinearSolverTypeError, LinearSolverValueError, cg, preconditioner

NP = {wp.float16: np.float16, wp.float32: np.float32, wp.float64: np.float64}


def matrix(a, dtype=wp.float64, block=1):
    rows, cols = np.nonzero(a)
    m = sp.bsr_from_triplets(a.shape[0], a.shape[1], wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                             wp.array(a[rows, cols].astype(NP[dtype]), dtype=dtype))
    return sp.bsr_copy(m, block_shape=(block, block)) if block != 1 else m


def dense(m):
    offsets, columns, values = m.offsets.numpy(), m.columns.numpy(), m.values.numpy().astype(np.float64)
    counts = None if m.row_counts is None else m.row_counts.numpy()
    out = np.zeros(m.shape)
    for r in range(m.nrow):
        end = offsets[r + 1] if counts is None else offsets[r] + counts[r]
        out[r, columns[offsets[r]:end]] = values[offsets[r]:end]
    return out


def path(n):
    return np.diag(np.full(n, 3.0)) - np.eye(n, k=1) - np.eye(n, k=-1)


def laplacian(k, shift=0.0):
    """The 5-point Laplacian of a k x k grid (Dirichlet), plus ``shift`` on the diagonal."""
    one = 2 * np.eye(k) - np.eye(k, k=1) - np.eye(k, k=-1)
    return np.kron(one, np.eye(k)) + np.kron(np.eye(k), one) + shift * np.eye(k * k)


def random_spd(n, density, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, n))
    a[rng.random(a.shape) > density] = 0
    a = a + a.T
    np.fill_diagonal(a, np.abs(a).sum(1) + 2)
    s = np.geomspace(1 / spread, spread, n)
    return a * s[:, None] * s[None, :]


def check_local_solves(pre, a, rtol=1e-10, atol=1e-12):
    """Each row of G on its support S is A[S, S]^-1 e_i scaled so that (G A G^T)[i, i] = 1."""
    g = dense(pre.G)
    np.testing.assert_array_equal(dense(pre.GT), g.T)
    assert np.array_equal(g, np.tril(g)) and np.all(np.diag(g) > 0)
    offsets, columns = pre.G.offsets.numpy(), pre.G.columns.numpy()
    for i in range(len(a)):
        support = columns[offsets[i]:offsets[i + 1]]
        assert support[-1] == i and np.all(np.diff(support) > 0)
        rhs = np.zeros(len(support))
        rhs[-1] = 1
        z = np.linalg.solve(a[np.ix_(support, support)], rhs)
        np.testing.assert_allclose(g[i, support], z / np.sqrt(z[-1]), rtol=rtol, atol=atol)
    return g


def greedy_supports(a, width, step, tolerance):
    """The adaptive supports, by a dense search written from the definition (not from the kernels)."""
    d = 1 / np.sqrt(np.diag(a))
    e = a * d[:, None] * d[None, :]
    out = []
    for i in range(len(a)):
        support, z = [i], np.ones(1)
        while len(support) < width:
            frontier = [c for c in np.flatnonzero(np.any(a[support] != 0, axis=0)) if c < i and c not in support]
            ranked = sorted(((abs(e[c, support] @ z), c) for c in frontier), key=lambda t: (-t[0], t[1]))
            chosen = [c for s, c in ranked if s > 0][:min(step, width - len(support))]
            if not chosen:
                break
            support += chosen
            old = z[0]
            rhs = np.zeros(len(support))
            rhs[0] = 1
            z = np.linalg.solve(e[np.ix_(support, support)], rhs)
            if tolerance > 0 and 1 - old / z[0] <= tolerance:
                break
        out.append(sorted(support))
    return out


@pytest.mark.parametrize("dtype,tol", [(wp.float64, 1e-12), (wp.float32, 2e-5)])
@pytest.mark.parametrize("block", [1, 2])
def test_full_pattern_is_the_exact_inverse(dtype, tol, block):
    rng = np.random.default_rng(7)
    r = rng.normal(size=(8, 8))
    a = r @ r.T + np.eye(8)
    pre = FSAI(matrix(a, dtype, block), max_row_size=8, kap_tolerance=0)
    g = check_local_solves(pre, a, rtol=tol * 10, atol=tol)
    inverse = np.linalg.inv(a)
    np.testing.assert_allclose(g.T @ g, inverse, rtol=tol * 10, atol=tol * np.abs(inverse).max())
    assert pre.truncated_rows == 0 and pre.shape == (8, 8) and pre.G.scalar_type is dtype


@pytest.mark.parametrize("width,step,tolerance", [(4, 1, 1e-3), (8, 3, 0.0), (8, 1, 0.1), (12, 2, 0.003)])
def test_adaptive_supports_follow_the_greedy_definition(width, step, tolerance):
    a = random_spd(24, 0.25, seed=3, spread=100.0)
    pre = FSAI(matrix(a, block=2), max_row_size=width, max_step_size=step, kap_tolerance=tolerance)
    offsets, columns = pre.G.offsets.numpy(), pre.G.columns.numpy()
    found = [list(columns[offsets[i]:offsets[i + 1]]) for i in range(len(a))]
    assert found == greedy_supports(a, width, step, tolerance)
    check_local_solves(pre, a)


def test_rows_in_chunks_give_the_same_factor(monkeypatch):
    """Rows run in chunks when their work space exceeds the budget: the factor and refit do not change."""
    from brickwork.optim.linear import fsai_plans

    a = random_spd(30, 0.3, seed=9)
    whole = FSAI(matrix(a), max_row_size=6, max_step_size=2, reuse_pattern=True)
    monkeypatch.setattr(fsai_plans, "WORK_BUDGET", 7 * (36 + 24 + 4))  # 7 rows a chunk: 5 chunks, the last short
    assert fsai_plans.chunk_rows(30, 6, 2) == 7
    chunked = FSAI(matrix(a), max_row_size=6, max_step_size=2, reuse_pattern=True)
    np.testing.assert_array_equal(dense(chunked.G), dense(whole.G))
    b = matrix(a + np.eye(30))
    np.testing.assert_array_equal(dense(chunked.update(b).G), dense(whole.update(b).G))


def test_pivot_guard_truncates_the_row():
    a = np.array([[1.0, 1 - 1e-14, 0], [1 - 1e-14, 1.0, 0], [0, 0, 2.0]])
    assert FSAI(matrix(a), max_row_size=1).truncated_rows == 0
    pre = FSAI(matrix(a), max_row_size=2)
    assert pre.truncated_rows == 1  # row 1 would add column 0 with a pivot of about 2e-14
    np.testing.assert_allclose(dense(pre.G), np.diag(1 / np.sqrt(np.diag(a))))
    # a higher floor rejects a pivot the default accepts
    b = np.array([[1.0, 0.9], [0.9, 1.0]])
    assert FSAI(matrix(b), max_row_size=2).truncated_rows == 0
    assert FSAI(matrix(b), max_row_size=2, pivot_floor=0.5).truncated_rows == 1


def test_width_one_is_jacobi():
    a = path(9)
    np.testing.assert_allclose(dense(FSAI(matrix(a, block=3), max_row_size=1).G), np.eye(9) / np.sqrt(3), rtol=1e-15)


@pytest.mark.parametrize("dtype,tol", [(wp.float64, 1e-12), (wp.float32, 3e-6)])
def test_application(dtype, tol):
    a = path(15)
    pre = FSAI(matrix(a, dtype), max_row_size=4)
    g = dense(pre.G)
    rng = np.random.default_rng(1)
    for alias in ("none", "xz", "yz", "xyz"):
        x = wp.array(rng.normal(size=15), dtype=dtype)
        y = x if alias == "xyz" else wp.array(rng.normal(size=15), dtype=dtype)
        z = x if alias in ("xz", "xyz") else y if alias == "yz" else wp.empty_like(x)
        expected = 0.7 * g.T @ g @ x.numpy() - 1.2 * y.numpy()
        pre.matvec(x, y, z, 0.7, -1.2)
        np.testing.assert_allclose(z.numpy(), expected, rtol=tol, atol=tol)
    x, y, z = wp.ones(15, dtype=dtype), wp.full(15, float("nan"), dtype=dtype), wp.empty(15, dtype=dtype)
    pre.matvec(x, y, z, 1.0, 0.0)  # beta 0: y unread
    np.testing.assert_allclose(z.numpy(), g.T @ g @ np.ones(15), rtol=tol)
    x.fill_(float("nan"))
    y.fill_(2.0)
    pre.matvec(x, y, z, 0.0, 0.5)  # alpha 0: x unread
    np.testing.assert_array_equal(z.numpy(), 1.0)
    # vectors of the block size, as the solvers pass for block matrices
    blocked = FSAI(matrix(a, dtype, 3), max_row_size=4)
    np.testing.assert_array_equal(dense(blocked.G), g)
    v = np.arange(15.0)
    xv, zv = wp.array(v.reshape(5, 3), dtype=wp.types.vector(3, dtype)), wp.zeros(5, dtype=wp.types.vector(3, dtype))
    blocked.matvec(xv, zv, zv, 1.0, 0.0)
    np.testing.assert_allclose(zv.numpy().ravel(), g.T @ g @ v, rtol=tol)


def test_block_storage_equals_its_scalar_expansion():
    a = random_spd(18, 0.3, seed=11)
    a[0, 1] = a[1, 0] = 0.0  # a zero stored inside a nonzero block
    blocked = FSAI(matrix(a, block=3), max_row_size=6, max_step_size=2)
    scalar = FSAI(matrix(a), max_row_size=6, max_step_size=2)
    for name in ("offsets", "columns", "values"):
        np.testing.assert_array_equal(getattr(blocked.G, name).numpy(), getattr(scalar.G, name).numpy())


def test_cg_needs_fewer_iterations_than_jacobi():
    a = laplacian(16)
    A = matrix(a)
    b = wp.array(np.random.default_rng(0).normal(size=len(a)), dtype=wp.float64)
    counts = {}
    for name, M in (("diag", preconditioner(A, "diag")), ("fsai", preconditioner(A, "fsai")),
                    ("fsai16", FSAI(A, max_row_size=16, kap_tolerance=0))):
        x = wp.zeros_like(b)
        iterations, err, atol = cg(A, b, x, M=M, tol=1e-10, maxiter=1000, check_every=1)
        counts[name] = int(np.asarray(iterations.numpy() if hasattr(iterations, "numpy") else iterations).ravel()[0])
        np.testing.assert_allclose(a @ x.numpy(), b.numpy(), atol=1e-7)
    assert isinstance(preconditioner(A, "fsai"), FSAI)
    assert counts["fsai16"] < counts["fsai"] < counts["diag"], counts


@pytest.mark.parametrize("block", [1, 3])
@pytest.mark.parametrize("storage", [wp.float64, wp.float32])
def test_refit_and_rollback(block, storage):
    rng = np.random.default_rng(48)
    r = rng.normal(size=(12, 12))
    a = r @ r.T + 3 * np.eye(12)
    b = a + np.diag(np.arange(12.0))
    raw, updated = matrix(a, block=block), matrix(b, block=block)
    pre = FSAI(raw, max_row_size=5, reuse_pattern=True, factor_dtype=storage, max_step_size=3)
    columns = pre.G.columns.numpy().copy()
    pointers = (pre.G.values.ptr, pre.GT.values.ptr)
    assert pre.update(updated) is pre and pre.source is updated
    tol = (2e-6, 1e-6) if storage is wp.float32 else (1e-10, 1e-12)
    g = check_local_solves(pre, b, *tol)
    assert (pre.G.values.ptr, pre.GT.values.ptr) == pointers
    np.testing.assert_array_equal(pre.G.columns.numpy(), columns)
    np.testing.assert_array_equal(pre.update_status.numpy(), 0)
    indefinite = np.full(a.shape, 10.0)
    np.fill_diagonal(indefinite, 1.0)
    bad_diagonal = sp.bsr_copy(updated)
    bad_diagonal.values.zero_()
    moved = sp.bsr_copy(updated)
    moved_columns = moved.columns.numpy().copy()
    moved_columns[0] += 1
    moved.columns.assign(moved_columns)
    for invalid, text, slot in ((bad_diagonal, "finite positive diagonals", 1),
                                (matrix(indefinite, block=block), "SPD local supports", 2),
                                (moved, "identical sparsity", 0)):
        with pytest.raises(LinearSolverValueError, match=text):
            pre.update(invalid)
        assert pre.update_status.numpy()[slot] > 0
        assert pre.source is updated
        np.testing.assert_array_equal(dense(pre.G), g)
        np.testing.assert_array_equal(dense(pre.GT), g.T)
    updated.values.assign(raw.values.numpy())  # new values in the same matrix, then update()
    check_local_solves(pre.update(), a, *tol)


def test_refit_keeps_the_growth_order():
    """Factorized in sorted order these supports would meet a pivot under the floor; in growth order not."""
    c = np.sqrt(0.0179)
    a = np.array([[1.0, c, 0.0], [c, 1.0, 0.99], [0.0, 0.99, 1.0]])
    pre = FSAI(matrix(a), max_row_size=3, pivot_floor=0.01, reuse_pattern=True)
    before = dense(pre.G)
    pre.update(matrix(a))
    np.testing.assert_allclose(dense(pre.G), before, rtol=1e-13, atol=1e-15)


def pair(first, second):
    a = np.zeros((4, 4))
    a[:2, :2], a[2:, 2:] = first, second
    return a


def test_regularized_refit():
    healthy = np.array([[1.0, 0.5], [0.5, 1.0]])
    changed = np.array([[2.0, 0.5], [0.5, 1.0]])
    singular = np.ones((2, 2))
    pre = FSAI(matrix(pair(healthy, healthy)), max_row_size=2, reuse_pattern=True, regularize_refit=True)
    pre.update(matrix(pair(singular, changed)))
    np.testing.assert_array_equal(pre.update_status.numpy(), [0, 0, 0, 1])  # row 1's pivot raised to the floor
    reference = dense(FSAI(matrix(pair(healthy, changed)), max_row_size=2).G)
    g = dense(pre.G)
    np.testing.assert_allclose(g[2:, 2:], reference[2:, 2:], rtol=1e-13)
    np.testing.assert_array_equal(dense(pre.GT), g.T)
    broken = pair(healthy, changed)
    broken[0, 0] = -1.0
    pre.update(matrix(broken))
    status = pre.update_status.numpy()
    assert status[1] == 1 and status[2] >= 1
    np.testing.assert_array_equal(dense(pre.G)[0], [1.0, 0.0, 0.0, 0.0])  # the unusable row falls back to 1
    np.testing.assert_allclose(dense(pre.G)[2:, 2:], reference[2:, 2:], rtol=1e-13)
    kept = dense(pre.G)
    with pytest.raises(LinearSolverValueError, match="identical sparsity"):
        pre.update(matrix(pair(healthy, healthy) + 0.1 * np.eye(4)[::-1]))
    np.testing.assert_array_equal(dense(pre.G), kept)


def test_unvalidated_topology_gives_the_same_refit():
    a = path(12)
    checked = FSAI(matrix(a), max_row_size=5, reuse_pattern=True)
    unchecked = FSAI(matrix(a), max_row_size=5, reuse_pattern=True, validate_topology=False)
    for pre in (checked, unchecked):
        pre.update(matrix(0.5 * a + np.eye(12)))
    np.testing.assert_array_equal(dense(unchecked.G), dense(checked.G))
    np.testing.assert_array_equal(unchecked.update_status.numpy(), 0)


@pytest.mark.parametrize("block", [1, 3])
def test_deferred_pattern(block):
    a = path(12)
    options = {"max_row_size": 5, "max_step_size": 2, "reuse_pattern": True}
    raw = matrix(a, block=block)
    raw.values.zero_()  # the topology alone
    pre = FSAI(raw, defer_pattern=True, **options)
    assert pre.truncated_rows is None
    np.testing.assert_array_equal(pre.pattern_ready.numpy(), 0)
    x = wp.array(np.arange(1.0, 13.0), dtype=wp.float64)
    y = wp.empty_like(x)
    pre.matvec(x, y, y, 1.0, 0.0)
    np.testing.assert_array_equal(y.numpy(), x.numpy())  # the identity before the first update
    raw.values.assign(matrix(a, block=block).values.numpy())
    pre.update()
    reference = FSAI(matrix(a, block=block), **options)
    np.testing.assert_array_equal(pre.pattern_ready.numpy(), 1)
    assert pre.pattern_status.numpy()[1] == reference.truncated_rows
    np.testing.assert_array_equal(dense(pre.G), dense(reference.G))
    np.testing.assert_array_equal(dense(pre.GT), dense(reference.GT))
    # later updates keep the supports, even where the new values would select others
    columns = pre.G.columns.numpy().copy()
    stiff = a + 200 * np.eye(12)
    raw.values.assign(matrix(stiff, block=block).values.numpy())
    reference.update(matrix(stiff, block=block))
    pre.update()
    np.testing.assert_array_equal(pre.G.columns.numpy(), columns)
    np.testing.assert_array_equal(dense(pre.G), dense(reference.G))
    np.testing.assert_array_equal(dense(pre.GT), dense(reference.GT))


def test_deferred_pattern_retries_after_a_rejected_update():
    healthy = np.array([[1.0, 0.5], [0.5, 1.0]])
    good, bad = pair(healthy, healthy), pair(np.array([[-1.0, 0.5], [0.5, 1.0]]), healthy)
    raw = matrix(good)
    pre = FSAI(raw, max_row_size=2, reuse_pattern=True, defer_pattern=True)
    raw.values.assign(matrix(bad).values.numpy())
    with pytest.raises(LinearSolverValueError, match="finite positive diagonals"):
        pre.update()
    np.testing.assert_array_equal(pre.pattern_ready.numpy(), 0)
    np.testing.assert_array_equal(dense(pre.G), np.eye(4))
    raw.values.assign(matrix(good).values.numpy())
    pre.update()
    np.testing.assert_array_equal(dense(pre.G), dense(FSAI(matrix(good), max_row_size=2).G))


def test_float32_factors_of_a_float64_matrix():
    a = path(20)
    full = FSAI(matrix(a), max_row_size=5)
    half = FSAI(matrix(a), max_row_size=5, factor_dtype=wp.float32)
    assert half.G.scalar_type is wp.float32 and half.GT.scalar_type is wp.float32 and half.scalar_type is wp.float64
    np.testing.assert_array_equal(dense(half.G), dense(full.G).astype(np.float32))
    for magnitude in (1e-100, 1e100):  # 1/sqrt overflows or underflows float32
        with pytest.raises(LinearSolverValueError, match="factor_dtype=float32 conversion lost finite entries"):
            FSAI(matrix(np.eye(3) * magnitude), factor_dtype=wp.float32)
    pre = FSAI(matrix(np.eye(3)), reuse_pattern=True, factor_dtype=wp.float32)
    with pytest.raises(LinearSolverValueError, match="SPD local supports"):
        pre.update(matrix(np.eye(3) * 1e100))
    np.testing.assert_array_equal(dense(pre.G), np.eye(3))


def test_float16():
    rng = np.random.default_rng(72)
    r = rng.normal(size=(12, 12))
    a = (r @ r.T + 4 * np.eye(12)).astype(np.float16).astype(np.float64)
    pre = FSAI(matrix(a, wp.float16, 3), max_row_size=12, kap_tolerance=0)
    assert pre.G.scalar_type is wp.float16
    g = check_local_solves(pre, a, rtol=1e-2, atol=1e-3)
    inverse = np.linalg.inv(a)
    assert np.linalg.norm(g.T @ g - inverse) / np.linalg.norm(inverse) < 1e-2
    with pytest.raises(LinearSolverValueError, match="factor_dtype must be the matrix scalar type"):
        FSAI(matrix(a, wp.float16), factor_dtype=wp.float32)


def test_padded_input_and_stored_zeros():
    a = path(12)
    raw = matrix(a, block=3)
    padded = sp.bsr_zeros(raw.nrow, raw.ncol, raw.dtype, row_capacity=raw.ncol + 2)
    sp.bsr_assign(padded, raw, topology="padded")
    expected = dense(FSAI(raw, max_row_size=5).G)
    np.testing.assert_allclose(dense(FSAI(padded, max_row_size=5).G), expected, atol=1e-15)
    with pytest.raises(LinearSolverValueError, match="reuse_pattern requires compact BSR storage"):
        FSAI(padded, reuse_pattern=True)
    # unused capacity past nnz (garbage columns, NaN values) is never read
    count = raw.nnz_sync()
    columns, values = raw.columns, raw.values
    raw.columns = wp.full(16, -123, dtype=int)
    raw.values = wp.empty(16, dtype=raw.dtype)
    raw.values.fill_(float("nan"))
    wp.copy(raw.columns, columns, count=count)
    wp.copy(raw.values, values, count=count)
    pre = FSAI(raw, max_row_size=5, reuse_pattern=True)
    np.testing.assert_allclose(dense(pre.G), expected, atol=1e-15)
    pre.update(matrix(a, block=3))
    np.testing.assert_allclose(dense(pre.G), expected, atol=1e-15)


def test_empty_matrix():
    raw = sp.bsr_zeros(0, 0, wp.float64)
    for reuse in (False, True):
        pre = FSAI(raw, reuse_pattern=reuse)
        assert pre.G.nnz == 0 and pre.shape == (0, 0)
        x = wp.empty(0, dtype=wp.float64)
        pre.matvec(x, x, x, 1.0, 0.0)
        if reuse:
            assert pre.update() is pre


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("dtype,storage", [(wp.float64, wp.float64), (wp.float64, wp.float32),
                                           (wp.float32, wp.float32), (wp.float16, wp.float16)])
def test_the_gpu_mapping_builds_the_cpu_factor(dtype, storage):
    a = random_spd(15, 0.3, seed=5)

    def run():
        options = {"max_row_size": 6, "max_step_size": 2, "reuse_pattern": True, "factor_dtype": storage}
        pre = FSAI(matrix(a, dtype, 3), **options)
        out = [dense(pre.G)]
        pre.update(matrix(a + np.eye(15), dtype, 3))
        out.append(dense(pre.GT))
        x = wp.array(np.linspace(-1.0, 1.0, 15), dtype=dtype)
        z = wp.zeros_like(x)
        pre.matvec(x, z, z, 1.0, 0.0)
        out.append(z.numpy().astype(np.float64))
        deferred = FSAI(matrix(a, dtype, 3), defer_pattern=True, **options)
        out.append(dense(deferred.update().G))
        return out

    on_cpu = run()
    with config.override(target="cuda-emulation"):
        emulated = run()
    tol = {wp.float64: 1e-13, wp.float32: 1e-6, wp.float16: 1e-3}[dtype]  # same operations (bits here; FMA may differ)
    for b, c in zip(on_cpu, emulated):
        np.testing.assert_allclose(c, b, rtol=tol, atol=tol)


def test_errors():
    raw = matrix(np.eye(3))
    for option in ("max_row_size", "max_step_size"):
        for value in (0, -1, 65, 1.5, True):
            with pytest.raises(LinearSolverValueError, match=f"{option} must be an integer in \\[1, 64\\]"):
                FSAI(raw, **{option: value})
    for option, values, text in (("kap_tolerance", (-1, 1, float("nan"), float("inf"), "0"), r"in \[0, 1\)"),
                                 ("pivot_floor", (0, 1, float("nan")), r"in \(0, 1\)"),
                                 ("factor_dtype", (wp.float16, wp.int32), "the matrix scalar type")):
        for value in values:
            with pytest.raises(LinearSolverValueError, match=f"{option} (must be )?.*{text}"):
                FSAI(raw, **{option: value})
    for invalid, got in ((None, "NoneType"), (wp.array(np.eye(3)), "array"),
                         (sp.bsr_zeros(2, 3, wp.float64), r"shape \(2, 3\)"),
                         (sp.bsr_zeros(3, 2, wp.types.matrix((2, 3), wp.float64)), r"shape \(6, 6\) with blocks \(2, 3\)")):
        with pytest.raises(LinearSolverValueError, match=f"square BSR matrix with square blocks, got {got}"):
            FSAI(invalid)
    with pytest.raises(LinearSolverValueError, match="square BSR matrix"):
        preconditioner(sp.bsr_zeros(2, 3, wp.float64), "fsai")
    with pytest.raises(LinearSolverTypeError, match="float16, float32 and float64 matrices, got scalar type int32"):
        FSAI(sp.bsr_zeros(3, 3, wp.int32))
    with pytest.raises(LinearSolverValueError, match="defer_pattern requires reuse_pattern"):
        FSAI(raw, defer_pattern=True)
    with pytest.raises(LinearSolverValueError, match="constructed with reuse_pattern=True"):
        FSAI(raw).update()
    for diagonal in (0.0, -1.0, float("inf"), float("nan")):
        bad = matrix(np.diag([1.0, diagonal, 1.0]))
        before = bad.values.numpy().copy()
        with pytest.raises(LinearSolverValueError, match=r"finite positive diagonals \(1 invalid rows\)"):
            FSAI(bad)
        np.testing.assert_array_equal(bad.values.numpy(), before)
    pre = FSAI(raw, reuse_pattern=True)
    g = dense(pre.G)
    with pytest.raises(LinearSolverValueError, match="requires a BSR matrix, got ndarray"):
        pre.update(np.eye(3))
    for changed in (matrix(np.eye(2)), matrix(np.eye(3), wp.float32)):
        with pytest.raises(LinearSolverValueError, match="original shape, dtype, device and topology"):
            pre.update(changed)
    assert pre.source is raw
    np.testing.assert_array_equal(dense(pre.G), g)

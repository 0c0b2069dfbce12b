"""brickwork.optim.linear: the block-Jacobi preconditioners of BSR matrices against numpy's per-block solves, their
identity fallback for blocks they cannot use, their use in the solvers, and their errors."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.optim.linear import LinearSolverValueError, cg, preconditioner
from brickwork.sparse import bsr_from_triplets, bsr_zeros

PTYPES = ["block_jacobi_direct", "block_jacobi_sequential", "block_jacobi_tile"]
NP = {wp.float16: np.float16, wp.float32: np.float32, wp.float64: np.float64}


def block_matrix(blocks, dtype=wp.float64, coupling=0.0, seed=0):
    """A BSR matrix with the given diagonal blocks (and a small symmetric coupling of neighbours)."""
    rng = np.random.default_rng(seed)
    n, bs = len(blocks), blocks[0].shape[0]
    rows, cols, vals = [], [], []
    for i, block in enumerate(blocks):
        rows.append(i), cols.append(i), vals.append(block)
        if coupling and i + 1 < n:
            off = coupling * rng.uniform(-1, 1, (bs, bs))
            rows += [i, i + 1]
            cols += [i + 1, i]
            vals += [off, off.T]
    values = wp.array(np.stack(vals).astype(NP[dtype]), dtype=wp.types.matrix(shape=(bs, bs), dtype=dtype))
    return bsr_from_triplets(n, n, wp.array(rows, dtype=wp.int32), wp.array(cols, dtype=wp.int32), values)


def spd_blocks(count, bs, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        C = rng.uniform(-1, 1, (bs, bs))
        out.append(C @ C.T + bs * np.eye(bs))
    return out


def apply(M, x, dtype=wp.float64, alpha=1.0, beta=0.0, y=None):
    xw = wp.array(x, dtype=dtype)
    z = wp.array(np.zeros_like(x) if y is None else y, dtype=dtype)
    M.matvec(xw, z, z, alpha=alpha, beta=beta)
    return z.numpy().astype(np.float64)


@pytest.mark.parametrize("ptype", PTYPES)
@pytest.mark.parametrize("bs", [2, 3, 8])
def test_each_block_is_solved(ptype, bs):
    blocks = spd_blocks(5, bs, seed=bs)
    M = preconditioner(block_matrix(blocks, coupling=0.1), ptype)
    assert M.shape == (5 * bs, 5 * bs) and M.dtype is wp.types.matrix(shape=(bs, bs), dtype=wp.float64)
    x = np.random.default_rng(1).uniform(-1, 1, 5 * bs)
    expected = np.concatenate([np.linalg.solve(B, x[i * bs:(i + 1) * bs]) for i, B in enumerate(blocks)])
    np.testing.assert_allclose(apply(M, x), expected, rtol=1e-10, atol=1e-12)
    y = np.arange(5.0 * bs)
    np.testing.assert_allclose(apply(M, x, alpha=2.0, beta=-1.0, y=y), 2.0 * expected - y, rtol=1e-10, atol=1e-12)
    # vector arrays of the block's size
    vec = wp.types.vector(length=bs, dtype=wp.float64)
    xv = wp.array(x.reshape(5, bs), dtype=vec)
    zv = wp.zeros(5, dtype=vec)
    M.matvec(xv, zv, zv, alpha=1.0, beta=0.0)
    np.testing.assert_allclose(zv.numpy().ravel(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype, scale, rtol", [(wp.float16, 1e-2, 1e-2), (wp.float32, 1e-4, 1e-4),
                                                (wp.float64, 1e-4, 1e-12)])
def test_scalar_types_and_scaled_blocks(dtype, scale, rtol):
    # diag(1, scale) is well conditioned in each type: inverted, not taken for singular
    for ptype in ("block_jacobi_direct", "block_jacobi_sequential"):
        M = preconditioner(block_matrix([np.diag([1.0, scale])], dtype), ptype)
        np.testing.assert_allclose(apply(M, np.ones(2, NP[dtype]), dtype), [1.0, 1.0 / scale], rtol=rtol)


def test_blocks_that_cannot_be_used_become_the_identity():
    x = np.arange(1.0, 7.0)
    cases = {  # block -> the strategies that fall back on it
        "zero": (np.zeros((3, 3)), PTYPES),
        "rank one": (np.outer([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]), PTYPES),
        "negative definite": (-np.eye(3), ["block_jacobi_sequential", "block_jacobi_tile"]),
        "not symmetric": (np.array([[4.0, 1.0, 0.0], [0.1, 3.0, 0.0], [0.0, 0.0, 2.0]]),
                          ["block_jacobi_sequential", "block_jacobi_tile"]),
    }
    for name, (block, falling) in cases.items():
        for ptype in PTYPES:
            z = apply(preconditioner(block_matrix([block, 2.0 * np.eye(3)]), ptype), x)
            np.testing.assert_array_equal(z[3:], x[3:] / 2.0)  # the good block is used
            if ptype in falling:
                np.testing.assert_array_equal(z[:3], x[:3], err_msg=f"{name} {ptype}")
            else:  # QR inverts any nonsingular block, symmetric or not
                np.testing.assert_allclose(z[:3], np.linalg.solve(block, x[:3]), rtol=1e-12, err_msg=name)
    # rank one in every scalar type
    for dtype in NP:
        for ptype in ("block_jacobi_direct", "block_jacobi_sequential"):
            z = apply(preconditioner(block_matrix([np.array([[9.0, 21.0], [21.0, 49.0]])], dtype), ptype),
                      np.ones(2, NP[dtype]), dtype)
            np.testing.assert_array_equal(z, [1.0, 1.0])


def test_one_by_one_blocks_are_scalar_jacobi():
    A = block_matrix([np.array([[d]]) for d in (2.0, -4.0, 0.5)])
    x = np.array([1.0, 2.0, 3.0])
    for ptype in PTYPES:
        np.testing.assert_array_equal(apply(preconditioner(A, ptype), x), [0.5, -0.5, 6.0])


def test_block_jacobi_helps_cg():
    blocks = spd_blocks(8, 6, seed=99)
    A = block_matrix(blocks, coupling=0.2, seed=1)
    b = wp.array(np.random.default_rng(3).standard_normal(48), dtype=wp.float64)
    counts = {}
    for ptype in ("diag", *PTYPES):
        x = wp.zeros_like(b)
        counts[ptype], err, atol = cg(A, b, x, M=preconditioner(A, ptype), tol=1e-10, maxiter=500, check_every=1)
        assert err <= atol
    assert all(counts[p] <= counts["diag"] for p in PTYPES) and counts["block_jacobi_direct"] < counts["diag"]


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_applies_the_cpu_blocks():
    blocks = spd_blocks(4, 3, seed=5)
    x = np.random.default_rng(2).standard_normal(12)

    def run():
        out = []
        for p in PTYPES:
            M = preconditioner(block_matrix(blocks), p)
            out.append(apply(M, x))
            xv, zv = wp.array(x.reshape(4, 3), dtype=wp.vec3d), wp.zeros(4, dtype=wp.vec3d)
            M.matvec(xv, zv, zv, alpha=1.0, beta=0.0)  # vectors of the block's size
            out.append(zv.numpy().ravel())
        return out

    on_cpu = run()
    with config.override(target="cuda-emulation"):
        emulated = run()
    for a, b in zip(on_cpu, emulated):
        np.testing.assert_allclose(b, a, rtol=1e-13)


def test_errors():
    dense = wp.array(np.eye(4), dtype=wp.float64)
    for ptype in PTYPES:
        with pytest.raises(LinearSolverValueError, match="requires a BsrMatrix input, got array"):
            preconditioner(dense, ptype)
        with pytest.raises(LinearSolverValueError, match=r"square matrix blocks, got shape \(3, 2\)"):
            preconditioner(bsr_zeros(2, 3, wp.types.matrix(shape=(3, 2), dtype=wp.float64)), ptype)
        with pytest.raises(LinearSolverValueError, match="3 block rows and 5 block columns"):
            preconditioner(bsr_zeros(3, 5, wp.mat33d), ptype)
    with pytest.raises(LinearSolverValueError, match="'block_jacobi_tile' preconditioner requires a float32 or float64"):
        preconditioner(block_matrix([np.eye(2)], wp.float16), "block_jacobi_tile")
    with pytest.raises(ValueError, match="Unsupported preconditioner type 'block_jacobi_bogus'"):
        preconditioner(block_matrix([np.eye(2)]), "block_jacobi_bogus")

"""brickwork.sparse and brickwork.optim.linear on a real CUDA device, against the same calls on the CPU
(marker ``cuda_device``: skipped without a GPU; ``scripts/gpu_check.sh`` runs them on a machine with one).

The topology (offsets, columns) must be the same on both; values may differ in the last bits (the
GPU's fused multiply-adds), so they are compared to a relative 1e-12 (float64)."""

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp
from brickwork import cuda_driver
from brickwork.jit import nvrtc
from brickwork.optim.linear import bicgstab, cg, gmres, preconditioner

pytestmark = [
    pytest.mark.cuda_device,
    pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device (driver and GPU) on this machine"),
    pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')"),
]

DEV = "cuda:0"


def laplacian_triplets(n: int):
    """The 7-point Laplacian of an n^3 grid (Dirichlet), shifted to be positive definite, as triplets in a
    shuffled order with every diagonal entry split in two (so that duplicates are summed)."""
    idx = np.arange(n ** 3).reshape(n, n, n)
    rows, cols, vals = [idx.ravel(), idx.ravel()], [idx.ravel(), idx.ravel()], [np.full(n ** 3, 3.5), np.full(n ** 3, 3.0)]
    for axis in range(3):
        for shift in (1, -1):
            a = np.roll(idx, shift, axis=axis)
            keep = (np.arange(n) != (0 if shift == 1 else n - 1))
            mask = np.moveaxis(np.broadcast_to(keep, (n, n, n)), 2, axis)
            rows.append(idx[mask]), cols.append(a[mask]), vals.append(np.full(mask.sum(), -1.0))
    rows, cols, vals = (np.concatenate(v) for v in (rows, cols, vals))
    order = np.random.default_rng(3).permutation(rows.size)
    return rows[order].astype(np.int32), cols[order].astype(np.int32), vals[order]


def build(device, rows, cols, vals, n):
    return sp.bsr_from_triplets(n, n, wp.array(rows, dtype=int, device=device), wp.array(cols, dtype=int, device=device),
                                wp.array(vals, dtype=wp.float64, device=device))


def same_topology(a, b):
    nrow = a.nrow
    np.testing.assert_array_equal(a.offsets.numpy()[: nrow + 1], b.offsets.numpy()[: nrow + 1])
    nnz = int(a.offsets.numpy()[nrow])
    np.testing.assert_array_equal(a.columns.numpy()[:nnz], b.columns.numpy()[:nnz])
    np.testing.assert_allclose(a.values.numpy()[:nnz], b.values.numpy()[:nnz], rtol=1e-12, atol=0)


def test_triplets_products_and_transposes_match_the_cpu():
    n = 24
    rows, cols, vals = laplacian_triplets(n)
    A_cpu, A_gpu = build("cpu", rows, cols, vals, n ** 3), build(DEV, rows, cols, vals, n ** 3)
    assert A_gpu.device == DEV and A_gpu.nnz_sync() == A_cpu.nnz_sync()
    same_topology(A_cpu, A_gpu)
    x = np.random.default_rng(1).standard_normal(n ** 3)
    y_cpu = sp.bsr_mv(A_cpu, wp.array(x, dtype=wp.float64))
    y_gpu = sp.bsr_mv(A_gpu, wp.array(x, dtype=wp.float64, device=DEV))
    np.testing.assert_allclose(y_gpu.numpy(), y_cpu.numpy(), rtol=1e-12, atol=1e-12)
    same_topology(sp.bsr_mm(A_cpu, A_cpu), sp.bsr_mm(A_gpu, A_gpu))
    same_topology(sp.bsr_transposed(A_cpu), sp.bsr_transposed(A_gpu))
    s_cpu, s_gpu = A_cpu + 2.0 * sp.bsr_transposed(A_cpu), A_gpu + 2.0 * sp.bsr_transposed(A_gpu)
    same_topology(s_cpu, s_gpu)


def test_block_matrices_match_the_cpu():
    rng = np.random.default_rng(2)
    nb, count = 300, 2000
    rows, cols = rng.integers(0, nb, count).astype(np.int32), rng.integers(0, nb, count).astype(np.int32)
    vals = rng.standard_normal((count, 3, 3))
    mats = [sp.bsr_from_triplets(nb, nb, wp.array(rows, dtype=int, device=d), wp.array(cols, dtype=int, device=d),
                                 wp.array(vals, dtype=wp.mat33d, device=d)) for d in ("cpu", DEV)]
    same_topology(*mats)
    x = rng.standard_normal((nb, 3))
    ys = [sp.bsr_mv(m, wp.array(x, dtype=wp.vec3d, device=m.device)) for m in mats]
    np.testing.assert_allclose(ys[1].numpy(), ys[0].numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("solver", [cg, bicgstab, gmres], ids=["cg", "bicgstab", "gmres"])
def test_solvers_converge_as_on_the_cpu(solver):
    n = 16
    rows, cols, vals = laplacian_triplets(n)
    b = np.random.default_rng(4).standard_normal(n ** 3)
    got = {}
    for device in ("cpu", DEV):
        A = build(device, rows, cols, vals, n ** 3)
        x = wp.zeros(n ** 3, dtype=wp.float64, device=device)
        iterations, residual, tolerance = solver(A, wp.array(b, dtype=wp.float64, device=device), x, tol=1e-10,
                                                 M=preconditioner(A, "diag"))
        assert residual <= tolerance, device
        got[device] = (iterations, x.numpy())
    (it_cpu, x_cpu), (it_gpu, x_gpu) = got["cpu"], got[DEV]
    assert abs(it_gpu - it_cpu) <= 31  # one check interval (GMRES counts whole cycles)
    np.testing.assert_allclose(x_gpu, x_cpu, rtol=1e-8, atol=1e-8)

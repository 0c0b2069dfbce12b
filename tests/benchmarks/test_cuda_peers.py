"""The hand-written CUDA references of benchmarks/cuda/ (the GPU rows of bench_cuda.py compare
brickwork with them): NVRTC compiles them for sm_90, and on the CPU (cuda/host_shim.h, driven by
the same Python as on a GPU) they compute what numpy and the C++ references compute."""

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import cnative  # noqa: E402
import cuda_peers  # noqa: E402
from la_cases import _interior_faces, recon_flux_numpy  # noqa: E402

from brickwork.jit import nvrtc  # noqa: E402


@pytest.fixture(scope="module")
def runner():
    r = cuda_peers.HostRunner()
    yield r
    r.close()


def _on(runner, host: np.ndarray) -> int:
    ptr = runner.alloc(host.nbytes)
    runner.upload(ptr, host)
    return ptr


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')")
@pytest.mark.parametrize("source", cuda_peers.SOURCES, ids=lambda p: p.name)
def test_nvrtc_compiles_each_reference_for_sm90(source):
    cubin = nvrtc.compile_cubin(source.read_text(), source.name, "sm_90", [])
    for name in cuda_peers._KERNEL.findall(source.read_text()):
        assert name.encode() in cubin


def test_the_laplacian_matches_numpy_and_leaves_the_border(runner):
    a = np.random.default_rng(0).random((7, 9, 37), dtype=np.float32)
    out = np.full(a.shape, -1.0, dtype=np.float32)
    pa, pout = _on(runner, a), _on(runner, out)
    cuda_peers.laplacian(runner, pa, pout, a.shape, block=(8, 4, 2))()
    got = runner.download(pout, np.empty_like(out))
    c = a[1:-1, 1:-1, 1:-1]
    want = (a[:-2, 1:-1, 1:-1] + a[2:, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1] + a[1:-1, 2:, 1:-1] + a[1:-1, 1:-1, :-2]
            + a[1:-1, 1:-1, 2:] - np.float32(6.0) * c)
    np.testing.assert_array_equal(got[1:-1, 1:-1, 1:-1], want)
    got[1:-1, 1:-1, 1:-1] = -1.0
    assert np.all(got == -1.0)


def test_the_laplacian_refuses_sizes_its_int_indices_cannot_reach(runner):
    with pytest.raises(ValueError, match="2\\^31"):
        cuda_peers.laplacian(runner, 0, 0, (2048, 1024, 1024))


def test_recon_flux_matches_numpy_on_the_interior_faces(runner):
    nb, m, ng = 3, 12, 2
    q = np.random.default_rng(1).random((nb, m, m, m)) - 0.5
    q[0, 5, 5, :] = 0.25  # flat stretches: zero slopes and zero wave speeds
    flux = np.zeros_like(q)
    pq, pf = _on(runner, q), _on(runner, flux)
    cuda_peers.recon_flux(runner, pq, pf, nb, m, ng, m**3)()
    got = runner.download(pf, np.empty_like(q))
    want = recon_flux_numpy(q)
    faces = _interior_faces(q.shape)
    np.testing.assert_allclose(got[faces], want[faces], rtol=1e-15, atol=1e-17)
    got[faces] = 0.0
    assert not got.any()  # nothing but the interior faces is written


def test_hand_kh_initial_state_is_the_cpp_one():
    c = cnative.build(threads=1)
    try:
        hydro = c.hydro()
        grid = hydro.hydro_kh_create(24)
        theirs = np.zeros((24, 24))
        hydro.hydro_kh_density(grid, theirs.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        hydro.hydro_kh_destroy(grid)
    finally:
        c.close()
    np.testing.assert_allclose(cuda_peers.kh_initial(24)[0, 2:-2, 2:-2], theirs, rtol=1e-15)


def test_hand_kh_steps_like_the_cpp_reference(runner):
    """Three RK2 steps of the CUDA port against hydro_kh.cpp: the same time steps and densities (to
    rounding: g++ contracts multiply-adds in the C++, the CPU build of the port does not)."""
    n = 24
    kh = cuda_peers.HandKH(runner, n)
    c = cnative.build(threads=1)
    try:
        hydro = c.hydro()
        grid = hydro.hydro_kh_create(n)
        for _ in range(3):
            np.testing.assert_allclose(kh.step(), hydro.hydro_kh_step(grid), rtol=1e-13)
        theirs = np.zeros((n, n))
        hydro.hydro_kh_density(grid, theirs.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
        hydro.hydro_kh_destroy(grid)
    finally:
        c.close()
    mine = kh.density()
    np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    assert np.abs(mine - cuda_peers.kh_initial(n)[0, 2:-2, 2:-2]).max() > 1e-4  # it moved


def test_an_unknown_kernel_is_an_error(runner):
    with pytest.raises(KeyError, match="no_such_kernel"):
        runner.launch("no_such_kernel", (1, 1, 1), (1, 1, 1), b"")


def test_the_benchmark_script_runs_every_row_on_the_cpu(capsys):
    """bench_cuda.py --dry-run-on-cpu: every row (brickwork, the references through the shim) on tiny
    problems, each row's values checked, so the GPU run meets no error of the script's own."""
    import bench_cuda

    assert bench_cuda.main(["--dry-run-on-cpu", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    assert "CHECK FAILED" not in out
    for case in ("saxpy", "laplacian 16^3", "la recon+flux 16^3/8^3", "hydro KH 16^2/8^2", "ghost exchange 16^2/8^2",
                 "la outer_reduce Max 16^2/8^2", "la outer_reduce Sum 16^2/8^2", "launch overhead",
                 "graph replay, 100 launches", "graph replay, 50 x (fill, launch, copy)"):
        assert case in out
    assert "(short rows)" in out  # the KH step in mesh blocks of short rows, beside its hand step (ac6216e0)
    assert out.count("| hand CUDA |") == 4 and "brickwork bvoi+memory" in out

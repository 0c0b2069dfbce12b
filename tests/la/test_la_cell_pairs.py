"""Two cells per trip of a team's loop (``passes/gpu_cell_pairs.py``) on the emulation target: slices of more
than two cells per thread (a 128-thread block), so that the pairs, and the lone last cell of threads with an
odd count, both run; results against numpy, and which loops are paired, read from the CUDA source."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import la_model as M
import numpy as np
import pytest
from test_la_emulation import run_stencil

import brickwork as wp
import gpu_compile
from brickwork import config, la

# 8 x 8 x 5 = 320 interior cells in one slice (kji_cube): threads 0-63 take a pair and a last cell, the others
# a pair; with the diagonal halo the producer loop's range is larger still
GEO = M.Geo(2, (1, 8, 1, 8, 1, 5), (10, 10, 7))


@pytest.mark.parametrize("lt,it", [pytest.param(lt, it, id=f"{lt}-{it}", marks=pytest.mark.compiles_for_cuda(
    check=gpu_compile.contains("v__la_p"))) for lt, it in ((la.bvoi, la.logical_flat), (la.bovi, la.memory))])
def test_paired_cells_give_the_cpu_result(lt, it):
    """The stencil's producer loop (an assignment and two stores per cell) runs in pairs: same values as numpy."""
    with config.override(target="cuda-emulation"):
        got, want = run_stencil(M.make_space(lt, it, GEO, ninner=la.kji_cube, backend=la.team), GEO, M.DIAG)
    np.testing.assert_array_equal(got, want)


@wp.func
def _bump(n: wp.int32) -> wp.int32:
    return n + 1


def _carried_body(out):
    def body(rng, b):
        n = wp.int32(0)
        for k, j, i in la.inner(rng):
            n = _bump(n)  # a value carried from the thread's last cell to its next: no pairs
            out[b, k, j, i] = n

    return body


@pytest.mark.compiles_for_cuda
def test_a_value_carried_between_cells_keeps_one_cell_per_trip():
    """A local the body reads before assigning it counts the thread's cells (thread t's m-th cell sees m + 1),
    as one cell per trip does; pairs would have read the copy's first value instead."""
    geo = M.Geo(1, (0, 4, 0, 7, 0, 9), (5, 8, 10))
    out = wp.zeros(geo.shape, dtype=wp.int32)
    with config.override(target="cuda-emulation"):
        la.outer(M.make_space(la.bvoi, la.logical_flat, geo, ninner=la.kji_cube, backend=la.team),
                 _carried_body(out))
    want = (np.arange(400, dtype=np.int32) // 128 + 1).reshape(geo.shape)
    np.testing.assert_array_equal(out.numpy(), want)


def test_recon_flux_benchmark_kernel_gives_the_cpu_result():
    """The recon+flux benchmark's kernel (``benchmarks/la_cases.py``), whose reconstruction and flux loops run
    in pairs (an ``ij_slab`` slice of 16 x 16 faces, 16 x 17 cells with the minus-i halo), on both targets."""
    bench = Path(__file__).resolve().parents[2] / "benchmarks"
    if str(bench) not in sys.path:
        sys.path.insert(0, str(bench))
    import la_cases

    q = np.random.default_rng(3).random((8, 20, 20, 20))
    fluxes = {}
    for target in ("cpu", "cuda-emulation"):
        with config.override(target=target):
            run, flux = la_cases.la_recon_flux(SimpleNamespace(wp=wp), q, 32, 16, "bovi", "logical_flat")
            run()
            fluxes[target] = flux()
    assert np.abs(fluxes["cpu"]).max() > 0
    np.testing.assert_array_equal(fluxes["cuda-emulation"], fluxes["cpu"])

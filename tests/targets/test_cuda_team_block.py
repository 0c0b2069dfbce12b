"""The threads of a team on a GPU. A par_for_outer team (``passes/gpu_lowering.team_block``): where every
par_for_inner loop's extent is a constant, the smallest power of two from a warp (32) up that covers the
longest loop, at most 128; 128 where an extent is known only at run time. A loop-abstraction slice: 128
threads, 64 for a row of a bovi ``i_pencil`` space whose rows are short (``gpu_grid.SHORT_ROW_TEAM``).
Checked on the emulation target (values against numpy for extents below, at and above the chosen block:
the threads share the cells out, a barrier and scratch between two loops), on the stand-in driver (the
block each launch gets) and, where there is one, on a GPU (marker ``cuda_device``: scripts/gpu_check.sh)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, cuda_driver, la
from brickwork.jit import nvrtc
from brickwork.passes.build import i32, op
from brickwork.passes.gpu_lowering import constant_extent, team_block

TESTS = Path(__file__).resolve().parents[1]
for sub in ("la", "runtime"):
    if str(TESTS / sub) not in sys.path:
        sys.path.insert(0, str(TESTS / sub))

import la_model as M  # noqa: E402
import test_la_emulation as la_emulation  # noqa: E402
from cuda_fake import FakeDriver, installed  # noqa: E402

pytestmark = pytest.mark.compiles_for_cuda  # every instance built here also compiles for sm_90 (gpu_compile.py)
TEAMS = 3


def test_the_block_covers_the_longest_constant_loop_from_a_warp_to_128():
    assert [team_block([n]) for n in (0, 1, 20, 32, 33, 64, 65, 128, 129, 300)] == \
        [32, 32, 32, 32, 64, 64, 128, 128, 128, 128]
    assert team_block([8, 40]) == 64  # the longest loop of the team
    assert team_block([8, None]) == 128  # one extent known only at run time
    assert team_block([]) == 128  # no par_for_inner loop
    assert constant_extent(i32(2), op("sub", op("mul", i32(4), i32(5)), i32(1))) == 18  # 2..19
    assert constant_extent(i32(5), i32(3)) == 0


def _team(n: int, u, out, count):
    """Team j: pad[i] = 2 u[j, i] for i < n, a barrier, out[j, i] = pad[(i + 1) % n] - pad[i] + j (a cell
    other threads wrote), and one count per team (a statement outside the loops, run by one thread)."""
    def body(member, j):
        pad = wp.ScratchPad1D(member, wp.float64, n)

        def produce(i):
            pad[i] = u[j, i] * wp.float64(2.0)

        wp.par_for_inner(member, 0, n - 1, produce)
        member.team_barrier()

        def consume(i):
            out[j, i] = pad[(i + 1) % n] - pad[i] + wp.float64(j)

        wp.par_for_inner(member, 0, n - 1, consume)
        wp.atomic_add(count, j, 1)

    return body


def _expected(u: np.ndarray) -> np.ndarray:
    two = 2.0 * u
    return np.roll(two, -1, axis=1) - two + np.arange(TEAMS)[:, None]


def _run_teams(n: int, device=None) -> None:
    u = wp.array(np.random.default_rng(n).random((TEAMS, n)), dtype=wp.float64, device=device)
    out = wp.zeros((TEAMS, n), dtype=wp.float64, device=device)
    count = wp.zeros(TEAMS, dtype=wp.int32, device=device)
    with wp.ScopedDevice(device):
        wp.par_for_outer(8 * n, 0, TEAMS, _team(n, u, out, count))
    np.testing.assert_array_equal(out.numpy(), _expected(u.numpy()))
    np.testing.assert_array_equal(count.numpy(), np.ones(TEAMS))


# 20: below one warp; 32: a warp, one cell each; 33: 64 threads, one cell each, 31 idle; 129: above 128 (pairs)
EXTENTS = [20, 32, 33, 129]


@pytest.mark.parametrize("n", EXTENTS)
def test_teams_of_constant_extents_give_numpys_values_on_the_emulation_target(n):
    with config.override(target="cuda-emulation"):
        _run_teams(n)


@pytest.mark.cuda_device
@pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device (driver and GPU) on this machine")
@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')")
@pytest.mark.parametrize("n", EXTENTS)
def test_teams_of_constant_extents_give_numpys_values_on_a_gpu(n):
    _run_teams(n, "cuda:0")


def _run_time_extent(out):
    def body(member, j):
        def inner(i):
            out[j, i] = j * 1000 + i

        wp.par_for_inner(member, 0, out.shape[1] - 1, inner)  # the array's shape: known at run time only

    return body


def test_a_team_whose_extent_is_known_at_run_time_keeps_128_threads_and_its_values():
    out = wp.zeros((TEAMS, 200), dtype=wp.int32)
    with config.override(target="cuda-emulation"):
        wp.par_for_outer(0, 0, TEAMS, _run_time_extent(out))
    np.testing.assert_array_equal(out.numpy(), np.arange(TEAMS)[:, None] * 1000 + np.arange(200))


def test_the_stand_in_driver_launches_each_team_with_its_block():
    with installed(FakeDriver()) as fake, wp.ScopedDevice("cuda:0"):
        u = wp.zeros((TEAMS, 33), dtype=wp.float64)
        out, count = wp.zeros((TEAMS, 33), dtype=wp.float64), wp.zeros(TEAMS, dtype=wp.int32)
        wp.par_for_outer(8 * 33, 0, TEAMS, _team(33, u, out, count))
        wp.par_for_outer(0, 0, TEAMS, _run_time_extent(wp.zeros((TEAMS, 200), dtype=wp.int32)))
        assert [(grid, block) for _, _, grid, block, _ in fake.launches] == [(TEAMS, 64), (TEAMS, 128)]


# -- la slices: a bovi i_pencil slice is one row; short rows (la.outer.SHORT_ROW) run 64 threads -------------------
def test_the_short_row_team_is_below_la_outers_short_row():
    from brickwork.la.outer import SHORT_ROW
    from brickwork.passes.gpu_grid import SHORT_ROW_TEAM

    assert SHORT_ROW_TEAM == SHORT_ROW == 64  # a short row's cells, a halo's two more, fit in one trip of pairs


def _row_geo(cells: int):
    """Two blocks of 2 rows of ``cells`` cells each and a ghost on both sides along i (la.halo.pm_i)."""
    return M.Geo(2, (0, 0, 0, 1, 1, cells), (1, 2, cells + 2))


# pm_i's loop over a row grown by one cell each side: 22 cells (below 64), 64 (at), 65 (above: one thread two);
# rows of 64 cells are not short: 128 threads for 66
@pytest.mark.parametrize("cells", [20, 62, 63, 64])
def test_i_pencil_rows_give_numpys_values_on_the_emulation_target(cells):
    geo = _row_geo(cells)
    with config.override(target="cuda-emulation"):
        space = M.make_space(la.bovi, la.logical_flat, geo, ninner=la.i_pencil, backend=la.team)
        got, want = la_emulation.run_stencil(space, geo, la.halo.pm_i)
    np.testing.assert_array_equal(got, want)


def test_the_stand_in_driver_launches_short_rows_with_64_threads():
    blocks = []
    for cells in (20, 64):
        geo = _row_geo(cells)
        with installed(FakeDriver()) as fake, wp.ScopedDevice("cuda:0"):
            space = M.make_space(la.bovi, la.logical_flat, geo, ninner=la.i_pencil, backend=la.team)
            f, out = wp.zeros(geo.shape, dtype=wp.int32), wp.zeros(geo.shape, dtype=wp.int32)
            mask, offsets = wp.zeros(geo.shape[1:], dtype=wp.int32), wp.zeros((3, 3), dtype=wp.int32)
            la.outer(space, la_emulation.stencil_body(f, out, offsets, mask, la.halo.pm_i))
            blocks += [block for _, _, _, block, _ in fake.launches]
    assert blocks == [64, 128]

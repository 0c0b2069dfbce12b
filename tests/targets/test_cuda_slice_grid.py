"""The grid of slices of a team launch (a loop-abstraction slice or a par_for_outer team per block):
x along the last launch dimension, and the index over the dimensions before it in y, with z taking
what passes CUDA's limit of 65535 (``y + gridDim.y * z``), so that a block reads a ``bovi`` slice
without dividing its index. Checked for the host (``slice_grid``, ``LaunchPlan``, the launches a fake
driver records, which refuses a grid past CUDA's limits as the driver does, CUDA graph nodes) and for
the emulation target, which launches the same grid."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, cuda_driver, la
from brickwork.targets.cuda.geometry import (
    MAX_GRID_YZ,
    Geometry,
    LaunchPlan,
    SliceGridError,
    row_grid,
    slice_grid,
)

TESTS = Path(__file__).resolve().parents[1]
for sub in ("la", "runtime"):
    if str(TESTS / sub) not in sys.path:
        sys.path.insert(0, str(TESTS / sub))

import la_model as M  # noqa: E402
import test_la_emulation as la_emulation  # noqa: E402
from cuda_fake import FakeDriver, installed  # noqa: E402


@pytest.mark.parametrize("dims, grid", [
    ((6,), None),  # one dimension: the block index is the slice
    ((2, 3), (3, 2, 1)),
    ((2, 3, 4), (4, 6, 1)),  # y: the rows of slices (the dimensions before the last) together
    ((2, 5, 3, 4), (4, 30, 1)),
    ((MAX_GRID_YZ, 7), (7, MAX_GRID_YZ, 1)),
    ((MAX_GRID_YZ + 1, 7), (7, MAX_GRID_YZ, 2)),  # past y's limit: z takes the rest, one row in the last z
    ((300, 300, 2, 5), (5, MAX_GRID_YZ, 3)),  # 180000 rows
    ((MAX_GRID_YZ, MAX_GRID_YZ, 3), (3, MAX_GRID_YZ, MAX_GRID_YZ)),
    ((2, 0, 4), None),  # no slice
])
def test_the_grid_of_slices(dims, grid):
    assert slice_grid(dims) == grid


def test_more_rows_of_slices_than_a_grid_holds_are_refused():
    with pytest.raises(SliceGridError, match=r"a team launch of 65535 x 65536 x 2 slices has 4294901760 rows of "
                                             r"slices, more than a CUDA grid holds \(65535 x 65535\)") as err:
        slice_grid((MAX_GRID_YZ, MAX_GRID_YZ + 1, 2))
    assert isinstance(err.value, wp.LaunchError)


def test_a_launch_plan_of_slices_gives_the_grid_and_an_arena_for_each_block():
    plan = LaunchPlan({"grid": "slices", "block": 128, "arena": "_bw_scratch", "shared_limit": 1024})
    g = plan.geometry((2, 3), (1025,), [("_bw_scratch", None)])
    assert g == ((3, 2, 1), 128, 0, 1088) and g.blocks == 6
    g = plan.geometry((MAX_GRID_YZ + 1, 2), (10,), [("_bw_scratch", None)])
    assert g == ((2, MAX_GRID_YZ, 2), 128, 10, 0) and g.blocks == 2 * MAX_GRID_YZ * 2  # the idle ones too
    assert LaunchPlan({"grid": "slices", "block": 128}).geometry((7,), (), []) == (7, 128, 0, 0)
    assert Geometry((4, 3, 2), 128, 0, 0).blocks == 24


@pytest.mark.parametrize("grid, block", [((1, MAX_GRID_YZ + 1, 1), 128), ((1, 1, MAX_GRID_YZ + 1), 128),
                                         (2**31, 256), (0, 128), ((4, 1, 1), 1025), ((32, 8, 1), (32, 8, 8))])
def test_the_fake_driver_refuses_a_launch_past_cudas_limits(grid, block):
    drv = FakeDriver()
    with pytest.raises(cuda_driver.CudaError, match="CUDA_ERROR_INVALID_VALUE") as err:
        drv.launch(0, 1, grid, block, b"")
    assert err.value.code == 1 and drv.launches == []
    drv.launch(0, 1, (2**31 - 1, MAX_GRID_YZ, MAX_GRID_YZ), (32, 8, 4), b"")  # the limits themselves
    assert len(drv.launches) == 1


@pytest.fixture
def fake():
    with installed(FakeDriver()) as drv:
        yield drv


@pytest.mark.parametrize("limit", [0, 1 << 20], ids=["global-arena", "shared-arena"])
def test_a_bovi_launch_runs_on_a_grid_of_slices(fake, limit):
    """Blocks along y, a block's rows along x and its planes along z; the global arena has a part for every block."""
    geo = M.Geo(3, (1, 3, 1, 2, 1, 4), (5, 4, 6), via_box=True)
    with la_emulation.config.override(gpu_shared_limit=limit), wp.ScopedDevice("cuda:0"):
        space = M.make_space(la.bovi, la.logical_flat, geo, ninner=la.i_pencil, backend=la.team)
        f = wp.zeros(geo.shape, dtype=wp.int32)
        out = wp.zeros(geo.shape, dtype=wp.int32)
        mask = wp.zeros(geo.shape[1:], dtype=wp.int32)
        offsets = wp.zeros((4, 3), dtype=wp.int32)
        la.outer(space, la_emulation.stencil_body(f, out, offsets, mask, M.DIAG))
    [(_, function, grid, block, _)] = fake.launches
    [(shared, arena)] = fake.launch_memory
    assert space.get_nouter() == 3 * 2  # i pencils: 3 k planes of 2 rows
    assert (grid, block) == ((2, 3, 3), 64)  # i pencils: a grid of rows (x the row, y the block, z the plane);
    # rows of 6 cells: short (la.outer.SHORT_ROW), one team of 64 threads each (gpu_grid.SHORT_ROW_TEAM)
    if not limit:
        assert shared == 0 and len(fake.memory[arena]) % (3 * 6) == 0 and fake.function_name(function) == \
            "bw_entry_global"


def _team_body(out):
    def body(member, a, b):
        def inner(t):
            out[a, b, t] = a * 1000 + b * 10 + t

        wp.par_for_inner(member, 0, 3, inner)

    return body


@pytest.mark.parametrize("sizes, grid", [((3, 4), (4, 3, 1)), ((MAX_GRID_YZ + 1, 2), (2, MAX_GRID_YZ, 2))])
def test_par_for_outer_teams_launch_on_a_grid_of_slices(fake, sizes, grid):
    out = wp.zeros((*sizes, 4), dtype=wp.int32, device="cuda:0")
    with wp.ScopedDevice("cuda:0"):
        wp.par_for_outer(0, 0, sizes[0], sizes[1], _team_body(out))
    [(_, _, got, block, _)] = fake.launches
    assert (got, block) == (grid, 32)  # par_for_inner over 4 iterations: a team of one warp (team_block)


def test_a_captured_team_launch_replays_on_its_grid_of_slices(fake):
    """A CUDA graph's node gets the launch's grid (``CudaEntry.graph_node``), as a direct launch does."""
    out = wp.zeros((MAX_GRID_YZ + 1, 2, 4), dtype=wp.int32, device="cuda:0")
    with wp.ScopedDevice("cuda:0"):
        for sizes in ((3, 4), (MAX_GRID_YZ + 1, 2)):
            wp.par_for_outer(0, 0, *sizes, _team_body(out))
        direct = [(grid, block) for _, _, grid, block, _ in fake.launches]
        fake.launches.clear()
        with wp.ScopedCapture(device="cuda:0") as capture:
            for sizes in ((3, 4), (MAX_GRID_YZ + 1, 2)):
                wp.par_for_outer(0, 0, *sizes, _team_body(out))
        wp.capture_launch(capture.graph)
    assert direct == [((4, 3, 1), 32), ((2, MAX_GRID_YZ, 2), 32)]
    assert [e[0] for e in fake.graph_log].count("captured") == 2  # one CUDA graph of both
    assert [(grid, block) for _, _, grid, block, _ in fake.launches] == direct


#: team launches of a grid of slices (two and three dimensions, and past the y limit: blocks in z too)
TEAM_SIZES = [(3, 5), (2, 3, 4), (MAX_GRID_YZ + 2, 2)]
TEAM_IDS = ["2d", "3d", "past-y-limit"]


def run_teams(sizes: tuple):
    """``(got, want)`` of par_for_outer teams over ``sizes`` (2 or 3 ranges) on the current target, each team
    writing values of its own indices."""
    out = wp.zeros((*sizes, 4), dtype=wp.int32)
    if len(sizes) == 2:
        body = _team_body(out)
    else:
        def body(member, a, b, c):
            def inner(t):
                out[a, b, c, t] = a * 100000 + b * 1000 + c * 10 + t

            wp.par_for_inner(member, 0, 3, inner)

    wp.par_for_outer(0, 0, *sizes, body)
    index = np.indices(out.shape)
    weights = (1000, 10, 1) if len(sizes) == 2 else (100000, 1000, 10, 1)
    return out.numpy(), sum(w * i for w, i in zip(weights, index, strict=True))


@pytest.mark.parametrize("sizes", TEAM_SIZES, ids=TEAM_IDS)
def test_the_emulation_decodes_each_grid_of_slices(sizes):
    """Each block of the grid of slices runs its slice (past the y limit, z counts rows of 65535 too)."""
    with config.override(target="cuda-emulation"):
        got, want = run_teams(sizes)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dims, rows, grid", [
    ((3, 6), 2, (2, 3, 3)),  # x the row, y the block, z the plane: nothing to divide
    ((3, 2), 2, (2, 3, 1)),  # one plane: the grid of slices itself
    ((MAX_GRID_YZ, 2 * MAX_GRID_YZ), 2, (2, MAX_GRID_YZ, MAX_GRID_YZ)),  # the limits themselves
    ((MAX_GRID_YZ + 1, 6), 2, (6, MAX_GRID_YZ, 2)),  # more blocks than y holds: the grid of slices
    ((3, 2 * (MAX_GRID_YZ + 1)), 2, (2 * (MAX_GRID_YZ + 1), 2, 2)),  # more planes than z holds: slices, z of 2
    ((1, 2 * (MAX_GRID_YZ + 1)), 2, (2 * (MAX_GRID_YZ + 1), 1, 2)),  # (its block past the launch returns)
    ((3, 7), 2, (7, 2, 2)),  # chunks that are not whole planes: slices
    ((3, 6), 0, (6, 2, 2)),  # no row
    ((0, 6), 2, None),  # no slice
])
def test_the_grid_of_rows_of_an_i_pencil_launch(dims, rows, grid):
    """A slice of a grid of slices reads as one of rows where x is the whole outer index and z is 1: the
    fallback's z is then 2, unless a plane is every chunk (both grids are the same)."""
    assert row_grid(dims, rows) == grid


def test_a_launch_plan_of_rows_reads_the_rows_of_a_plane_from_the_arguments():
    plan = LaunchPlan({"grid": "slices", "block": 128, "rows": ["_la_js", "_la_je"]})
    params = [("q", None), ("_la_js", None), ("_la_je", None)]
    assert plan.geometry((3, 12), (None, 2, 5), params) == ((4, 3, 3), 128, 0, 0)
    assert plan.geometry((3, 12), (None, 0, 11), params) == ((12, 3, 1), 128, 0, 0)
    assert plan.geometry((MAX_GRID_YZ + 1, 12), (None, 2, 5), params) == ((12, MAX_GRID_YZ, 2), 128, 0, 0)


def _pencil_space(geo):
    return M.make_space(la.bovi, la.logical_flat, geo, ninner=la.i_pencil, backend=la.team)


@pytest.mark.parametrize("geo", [
    M.Geo(2, (1, 3, 1, 2, 1, 4), (5, 4, 6), via_box=True),  # a grid of rows: 3 planes of 2 rows
    M.Geo(3, (0, 0, 1, 3, 1, 2), (1, 5, 4)),  # two dimensions: one plane
    M.Geo(1, (0, MAX_GRID_YZ, 1, 2, 0, 1), (MAX_GRID_YZ + 1, 4, 2)),  # more planes than z holds: the fallback
], ids=["rows", "one-plane", "past-z-limit"])
def test_the_emulation_runs_i_pencil_slices_on_their_grid(geo):
    """Each slice of a bovi i_pencil launch finds its block, plane and row, on the grid of rows and on the grid
    of slices it falls back to (its outer index divided by the rows), against numpy."""
    with config.override(target="cuda-emulation"):
        got, want = la_emulation.run_stencil(_pencil_space(geo), geo, la.halo.none)
    np.testing.assert_array_equal(got, want)

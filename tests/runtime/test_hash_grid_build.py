"""The compiled build of a CPU hash grid (runtime/hash_grid_build.py) against a numpy sort, for any thread
count, and the queries' loop over cell ranges (targets/cpu/render.py) against the
one-candidate-at-a-time loop it replaces."""

import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config, pipeline
from brickwork.runtime import hash_grid_build

from . import hash_grid_reference as reference

POINT_TYPES = {wp.float16: wp.vec3h, wp.float32: wp.vec3, wp.float64: wp.vec3d}


def _numpy_tables(xyz: np.ndarray, width: float, dims: tuple, dtype, groups):
    return reference.tables(xyz, width, dims, dtype is wp.float64, groups)


coordinates = st.one_of(st.floats(-4.0, 4.0), st.sampled_from([np.nan, np.inf, -np.inf, 3e9, -3e9, 65000.0]))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 300), dims=st.tuples(*[st.integers(1, 9)] * 3),
       width=st.floats(0.05, 2.0), dtype=st.sampled_from(list(POINT_TYPES)), grouped=st.booleans(),
       threads=st.integers(1, 5), special=st.lists(coordinates, max_size=6), by_cell=st.booleans())
def test_the_compiled_build_sorts_as_numpy_does_for_any_thread_count(seed, n, dims, width, dtype, grouped,
                                                                     threads, special, by_cell):
    """Both sorts (by whole cells, by 16-bit digits of the cells) on each grid."""
    rng = np.random.default_rng(seed)
    xyz = rng.uniform(-4, 4, (n, 3))
    if n:
        flat = xyz.reshape(-1)
        flat[rng.integers(0, flat.size, len(special))] = special
    if dtype is wp.float16:
        with np.errstate(over="ignore"):  # beyond float16's range: infinite, as the grid holds them
            xyz = xyz.astype(np.float16).astype(np.float64)
    groups = rng.choice([-2**31, -70000, -1, 0, 1, 3, 65535, 65536, 2**31 - 1], n).astype(np.int32) if grouped \
        else None
    grid = wp.HashGrid(*dims, dtype=dtype)
    with config.override(num_threads=threads, parallel_threshold=1, adaptive_threads=False), \
            mock.patch.object(hash_grid_build, "dense", lambda *_: by_cell):  # chunks of every count, whatever the load
        grid.build(wp.array(xyz, dtype=POINT_TYPES[dtype]), width,
                   groups=None if groups is None else wp.array(groups, dtype=wp.int32))
    order, starts, ends, sorted_groups = _numpy_tables(xyz, width, dims, dtype, groups)
    tables = {name: table.numpy() for name, table in grid._tables.items()}
    np.testing.assert_array_equal(tables["point_ids"][:n], order)
    np.testing.assert_array_equal(tables["cell_starts"], starts)
    np.testing.assert_array_equal(tables["cell_ends"], ends)
    if grouped:
        np.testing.assert_array_equal(tables["groups"][:n], sorted_groups)
    assert grid.num_points == n


def test_rebuilds_leave_only_their_own_ranges_whichever_sort_each_takes():
    rng = np.random.default_rng(3)
    dims = (80, 60, 40)
    grid = wp.HashGrid(*dims)
    assert not hash_grid_build.dense(80 * 60 * 40, 500) and hash_grid_build.dense(80 * 60 * 40, 50000)
    for n, by_cell in ((500, False), (30, False), (800, True), (200, False), (0, False), (50000, None)):
        xyz = rng.uniform(0, 12, (n, 3))
        if by_cell is None:  # the size chooses
            grid.build(wp.array(xyz, dtype=wp.vec3), 0.5)
        else:
            with mock.patch.object(hash_grid_build, "dense", lambda *_, by_cell=by_cell: by_cell):
                grid.build(wp.array(xyz, dtype=wp.vec3), 0.5)
        order, starts, ends, _ = _numpy_tables(xyz, 0.5, dims, wp.float32, None)
        np.testing.assert_array_equal(grid._tables["point_ids"].numpy()[:n], order)
        np.testing.assert_array_equal(grid._tables["cell_starts"].numpy(), starts)
        np.testing.assert_array_equal(grid._tables["cell_ends"].numpy(), ends)


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads the resident memory from /proc")
def test_a_large_grid_with_few_points_touches_the_memory_of_its_points_only():
    """2^30 cells (8 GiB of cell tables): a build maps the pages of the cells it fills, and no build writes
    every cell."""
    grid = wp.HashGrid(1024, 1024, 1024)
    points = wp.array(np.random.default_rng(7).uniform(0, 100, (1000, 3)), dtype=wp.vec3)
    before = _resident_bytes()
    for _ in range(3):
        grid.build(points, 0.1)
    assert _resident_bytes() - before < 100e6  # 8 KiB per filled cell (a 4 KiB page in each table), not 2 MiB
    counts = wp.zeros(1000, dtype=int)
    wp.launch(count_near, 1000, inputs=[grid.id, points, 0.1, counts])
    xyz = points.numpy()
    near = (np.linalg.norm(xyz[:, None] - xyz[None], axis=-1) <= 0.1).sum(axis=1)
    assert (np.abs(counts.numpy() - near) <= 1).all()


def _resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@wp.kernel
def count_near(grid: wp.uint64, points: wp.array(dtype=wp.vec3), radius: float, counts: wp.array(dtype=int)):
    i = wp.tid()
    n = 0
    for j in wp.hash_grid_query(grid, points[i], radius):
        if wp.length(points[i] - points[j]) <= radius:
            n += 1
    counts[i] = n


def test_a_build_while_a_tape_records_adds_nothing_to_the_tape():
    points = wp.array(np.random.default_rng(5).uniform(0, 2, (50, 3)), dtype=wp.vec3, requires_grad=True)
    grid = wp.HashGrid(4, 4, 4)
    with wp.Tape() as tape:
        grid.build(points, 0.5)
    assert tape.launches == []
    assert grid.num_points == 50


@wp.kernel
def first_candidates(grid: wp.uint64, queries: wp.array(dtype=wp.vec3), radius: float, limit: int,
                     found: wp.array2d(dtype=int), counts: wp.array(dtype=int)):
    """At most ``limit`` candidates, skipping odd indices: a ``break`` and a ``continue`` in the loop."""
    i = wp.tid()
    n = 0
    for index in wp.hash_grid_query(grid, queries[i], radius):
        if n == limit:
            break
        if index % 2 == 1:
            continue
        found[i, n] = index
        n += 1
    counts[i] = n


@wp.kernel
def even_candidates(grid: wp.uint64, queries: wp.array(dtype=wp.vec3), radius: float, found: wp.array2d(dtype=int),
                    counts: wp.array(dtype=int)):
    """Every even candidate in query order (a ``continue``, and a ``break`` of an inner loop only)."""
    i = wp.tid()
    n = 0
    last = -1
    for index in wp.hash_grid_query(grid, queries[i], radius):
        for k in range(3):
            if k == 1:
                break
        if index % 2 == 1:
            continue
        found[i, n] = index
        n += 1
        last = index
    counts[i] = n
    found[i, found.shape[1] - 1] = last


@wp.kernel
def pairs_of_candidates(grid: wp.uint64, queries: wp.array(dtype=wp.vec3), radius: float,
                        found: wp.array2d(dtype=int), counts: wp.array(dtype=int)):
    """Two candidates per step: the body advances the query itself."""
    i = wp.tid()
    query = wp.hash_grid_query(grid, queries[i], radius)
    second = 0
    n = 0
    for index in query:
        found[i, n] = index
        n += 1
        if wp.hash_grid_query_next(query, second):
            found[i, n] = second
            n += 1
    counts[i] = n


def _source(kernel, *types):
    return pipeline.generate(kernel, list(types), "k")[0]


def test_a_loop_that_leaves_only_by_its_end_runs_over_cell_ranges_and_others_one_candidate_at_a_time():
    args = [wp.uint64, wp.array(dtype=wp.vec3), wp.float32, wp.array2d(dtype=wp.int32), wp.array(dtype=wp.int32)]
    assert "hash_grid_query_range" in _source(even_candidates, *args)
    assert "hash_grid_query_range" not in _source(first_candidates, *args[:3], wp.int32, *args[3:])
    assert "hash_grid_query_range" not in _source(pairs_of_candidates, *args)


def test_candidate_loops_yield_what_the_query_yields_in_its_order():
    rng = np.random.default_rng(11)
    xyz = rng.uniform(0, 3, (400, 3))
    queries = rng.uniform(0, 3, (40, 3))
    grid = wp.HashGrid(5, 5, 5)
    grid.build(wp.array(xyz, dtype=wp.vec3), 0.6)
    q = wp.array(queries, dtype=wp.vec3)
    everything = wp.full((40, 400), -1, dtype=int)
    all_counts = wp.zeros(40, dtype=int)
    wp.launch(pairs_of_candidates, 40, inputs=[grid.id, q, 0.6, everything, all_counts])
    yielded = [everything.numpy()[i, :c] for i, c in enumerate(all_counts.numpy())]
    assert all(len(set(y)) == len(y) for y in yielded) and sum(map(len, yielded)) > 400
    even = [y[y % 2 == 0] for y in yielded]

    found = wp.full((40, 401), -1, dtype=int)
    counts = wp.zeros(40, dtype=int)
    wp.launch(even_candidates, 40, inputs=[grid.id, q, 0.6, found, counts])
    for i, e in enumerate(even):
        np.testing.assert_array_equal(found.numpy()[i, :counts.numpy()[i]], e)
        assert found.numpy()[i, -1] == (e[-1] if len(e) else -1)

    for limit in (0, 3):
        found = wp.full((40, 400), -1, dtype=int)
        wp.launch(first_candidates, 40, inputs=[grid.id, q, 0.6, limit, found, counts])
        for i, e in enumerate(even):
            np.testing.assert_array_equal(found.numpy()[i, :counts.numpy()[i]], e[:limit])


def _loops_over_ranges(texts) -> None:
    assert not texts or any("hash_grid_query_range" in t for t in texts)  # texts: the emulation's instances


@pytest.mark.compiles_for_cuda(check=_loops_over_ranges)
@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_grouped_candidate_loops_see_their_group_on_each_target(target):
    rng = np.random.default_rng(19)
    xyz = rng.uniform(0, 2, (300, 3))
    groups = rng.integers(0, 3, 300).astype(np.int32)
    grid = wp.HashGrid(4, 4, 4, dtype=wp.float64)
    grid.build(wp.array(xyz, dtype=wp.vec3d), 0.5, groups=wp.array(groups, dtype=wp.int32))

    @wp.kernel
    def grouped_sum(grid: wp.uint64, points: wp.array(dtype=wp.vec3d), group: int, out: wp.array(dtype=int)):
        i = wp.tid()
        s = 0
        for j in wp.hash_grid_query(grid, points[i], wp.float64(0.5), group):
            if wp.length(points[i] - points[j]) <= wp.float64(0.5):
                s += j
        out[i] = s

    out = wp.zeros(300, dtype=int)
    with config.override(target=target):
        wp.launch(grouped_sum, 300, inputs=[grid.id, wp.array(xyz, dtype=wp.vec3d), 1, out])
    near = np.linalg.norm(xyz[:, None] - xyz[None], axis=-1) <= 0.5
    expected = (near * (groups == 1)[None] * np.arange(300)[None]).sum(axis=1)
    np.testing.assert_array_equal(out.numpy(), expected)

"""wp.HashGrid: neighbour queries in kernels against brute force in numpy, groups, extreme coordinates,
determinism, graph capture, gradients through queries, the CUDA mapping (emulation + NVRTC) and every
error a user can cause (type, message naming the problem, nothing changed)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.runtime.hash_grid import HashGridCaptureError, HashGridError, HashGridTypeError

CAP = 512  # candidates a query may record (more than any test has points)


@wp.kernel
def collect_f32(grid: wp.uint64, queries: wp.array(dtype=wp.vec3), radius: float,
                found: wp.array2d(dtype=int), counts: wp.array(dtype=int)):
    """Every candidate of each query, in the order the query yields them."""
    i = wp.tid()
    n = 0
    for index in wp.hash_grid_query(grid, queries[i], radius):
        if n < found.shape[1]:
            found[i, n] = index
        n += 1
    counts[i] = n


@wp.kernel
def collect_f64_grouped(grid: wp.uint64, queries: wp.array(dtype=wp.vec3d), radius: wp.float64, group: int,
                        found: wp.array2d(dtype=int), counts: wp.array(dtype=int)):
    i = wp.tid()
    query = wp.hash_grid_query(grid, queries[i], radius, group)
    index = 0
    n = 0
    while wp.hash_grid_query_next(query, index):
        if n < found.shape[1]:
            found[i, n] = index
        n += 1
    counts[i] = n


@wp.kernel
def count_within_f16(grid: wp.uint64, points: wp.array(dtype=wp.vec3h), radius: wp.float16,
                     counts: wp.array(dtype=int)):
    """Neighbours within ``radius``, iterating a query variable (``for index in query``)."""
    tid = wp.tid()
    i = wp.hash_grid_point_id(grid, tid)
    p = points[i]
    query = wp.hash_grid_query(grid, p, radius)
    n = 0
    for index in query:
        if wp.length(p - points[index]) <= radius:
            n += 1
    counts[i] = n


@wp.kernel
def brute_count_f16(points: wp.array(dtype=wp.vec3h), radius: wp.float16, counts: wp.array(dtype=int)):
    i, j = wp.tid()
    if wp.length(points[i] - points[j]) <= radius:
        wp.atomic_add(counts, i, 1)


@wp.kernel
def point_ids(grid: wp.uint64, out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = wp.hash_grid_point_id(grid, i - 1)  # one before the first position, one past the last


@wp.func
def nearest(query: wp.HashGridQuery[wp.float64], center: wp.vec3d, points: wp.array(dtype=wp.vec3d),
            radius: wp.float64) -> int:
    best = -1
    best_d = radius * radius
    index = 0
    while wp.hash_grid_query_next(query, index):
        d = wp.length_sq(points[index] - center)
        if d <= best_d:
            best = index
            best_d = d
    return best


@wp.kernel
def nearest_f64(grid: wp.uint64, queries: wp.array(dtype=wp.vec3d), points: wp.array(dtype=wp.vec3d),
                radius: wp.float64, out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = nearest(wp.hash_grid_query(grid, queries[i], radius), queries[i], points, radius)


@wp.kernel
def smooth_density(grid: wp.uint64, h: float, points: wp.array(dtype=wp.vec3), rho: wp.array(dtype=float)):
    """A sum over neighbours of a smooth kernel: differentiable in the points."""
    i = wp.tid()
    p = points[i]
    s = 0.0
    for index in wp.hash_grid_query(grid, p, h):
        d = wp.length_sq(p - points[index])
        if d < h * h:
            q = h * h - d
            s += q * q * q
    rho[i] = s


def _collect(grid, queries, radius, dtype=wp.vec3, group=None):
    found = wp.full((len(queries), CAP), -1, dtype=int)
    counts = wp.zeros(len(queries), dtype=int)
    q = wp.array(queries, dtype=dtype)
    if group is None:
        wp.launch(collect_f32, len(queries), inputs=[grid.id, q, radius, found, counts])
    else:
        wp.launch(collect_f64_grouped, len(queries), inputs=[grid.id, q, radius, group, found, counts])
    counts = counts.numpy()
    assert counts.max(initial=0) <= CAP
    return [found.numpy()[i, :c] for i, c in enumerate(counts)]


def _within(points, queries, radius):
    d = np.linalg.norm(queries[:, None, :] - points[None, :, :], axis=-1)
    return [set(np.flatnonzero(row <= radius)) for row in d]


def test_queries_find_every_point_within_the_radius_once():
    rng = np.random.default_rng(3)
    points = rng.uniform(-4, 4, (400, 3)).astype(np.float32)
    queries = rng.uniform(-4.5, 4.5, (100, 3)).astype(np.float32)
    for dims, width, radius in (((8, 8, 8), 0.6, 0.6), ((3, 5, 7), 0.5, 0.9), ((1, 1, 1), 1.0, 0.4),
                                ((16, 2, 4), 0.3, 0.2)):
        grid = wp.HashGrid(*dims)
        grid.build(wp.array(points, dtype=wp.vec3), width)
        found = _collect(grid, queries, radius)
        for cand, near in zip(found, _within(points.astype(np.float64), queries.astype(np.float64), radius)):
            assert len(cand) == len(set(cand)), "a candidate came twice"
            assert near <= set(cand.tolist())
        # the candidates are the points of the cells the query box overlaps, no more
        cells = np.floor(points.astype(np.float32) * np.float32(1 / np.float32(width))).astype(np.int64) % dims
        q = queries[0]
        lo = np.floor((q - np.float32(radius)) * np.float32(1 / np.float32(width))).astype(np.int64)
        hi = np.floor((q + np.float32(radius)) * np.float32(1 / np.float32(width))).astype(np.int64)
        visited = [set(np.arange(lo[a], hi[a] + 1) % dims[a]) for a in range(3)]
        expected = {j for j, c in enumerate(cells) if all(c[a] in visited[a] for a in range(3))}
        assert set(found[0].tolist()) == expected


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 60), dims=st.tuples(*[st.integers(1, 6)] * 3),
       width=st.floats(0.05, 3.0), radius=st.floats(0.0, 3.0))
def test_property_candidates_are_a_superset_without_repeats(seed, n, dims, width, radius):
    rng = np.random.default_rng(seed)
    points = rng.uniform(-3, 3, (n, 3)).astype(np.float32)
    queries = rng.uniform(-3, 3, (8, 3)).astype(np.float32)
    grid = wp.HashGrid(*dims)
    grid.build(wp.array(points, dtype=wp.vec3), width)
    for cand, near in zip(_collect(grid, queries, radius), _within(points, queries, np.float32(radius))):
        assert len(cand) == len(set(cand.tolist()))
        assert near <= set(cand.tolist())
        assert all(0 <= c < n for c in cand)


def test_float16_counts_equal_brute_force_and_point_ids_are_a_permutation():
    rng = np.random.default_rng(5)
    points = wp.array(rng.uniform(0, 6, (300, 3)), dtype=wp.vec3h)
    radius = wp.float16(0.75)
    grid = wp.HashGrid(8, 8, 8, dtype=wp.float16)
    grid.build(points, 0.75)
    counts, ref = wp.zeros(300, dtype=int), wp.zeros(300, dtype=int)
    wp.launch(count_within_f16, 300, inputs=[grid.id, points, radius, counts])
    wp.launch(brute_count_f16, (300, 300), inputs=[points, radius, ref])
    np.testing.assert_array_equal(counts.numpy(), ref.numpy())
    ids = wp.zeros(302, dtype=int)
    wp.launch(point_ids, 302, inputs=[grid.id, ids])
    ids = ids.numpy()
    assert ids[0] == -1 and ids[-1] == -1
    np.testing.assert_array_equal(np.sort(ids[1:-1]), np.arange(300))


def test_point_ids_of_a_grid_never_built_are_minus_one():
    ids, grid = wp.zeros(3, dtype=int), wp.HashGrid(4, 4, 4)  # kept alive: the id of a freed grid is refused
    wp.launch(point_ids, 3, inputs=[grid.id, ids])
    np.testing.assert_array_equal(ids.numpy(), [-1, -1, -1])
    assert _collect(wp.HashGrid(4, 4, 4), np.zeros((1, 3), np.float32), 1.0)[0].size == 0


def test_a_query_in_a_function_finds_the_nearest_point_in_float64():
    rng = np.random.default_rng(7)
    points = rng.uniform(-2, 2, (500, 3))
    queries = rng.uniform(-2.5, 2.5, (64, 3))
    grid = wp.HashGrid(10, 10, 10, dtype=wp.float64)
    pts = wp.array(points, dtype=wp.vec3d)
    grid.build(pts, 0.3)
    out = wp.zeros(64, dtype=int)
    wp.launch(nearest_f64, 64, inputs=[grid.id, wp.array(queries, dtype=wp.vec3d), pts, 0.3, out])
    d = np.linalg.norm(queries[:, None] - points[None], axis=-1)
    np.testing.assert_array_equal(out.numpy(), np.where(d.min(1) <= 0.3, d.argmin(1), -1))


def test_grouped_queries_see_their_group_only_and_ungrouped_grids_see_all():
    rng = np.random.default_rng(11)
    points = rng.uniform(-1, 1, (200, 3))
    groups = rng.choice(np.array([-2**31, -1, 0, 7, 2**31 - 1], np.int32), 200)
    queries = rng.uniform(-1, 1, (20, 3))
    pts = wp.array(points, dtype=wp.vec3d)
    grid = wp.HashGrid(4, 4, 4, dtype=wp.float64)
    grid.build(pts, 0.4, groups=wp.array(groups, dtype=wp.int32))
    near = _within(points, queries, 0.4)
    for g in (-2**31, -1, 7, 2**31 - 1, 12345):
        found = _collect(grid, queries, 0.4, wp.vec3d, group=g)
        for cand, close in zip(found, near):
            assert set(cand.tolist()) <= set(np.flatnonzero(groups == g))
            assert {j for j in close if groups[j] == g} <= set(cand.tolist())
    plain = wp.HashGrid(4, 4, 4, dtype=wp.float64)
    plain.build(pts, 0.4)
    for cand, close in zip(_collect(plain, queries, 0.4, wp.vec3d, group=7), near):
        assert close <= set(cand.tolist())  # a group on a grid built without groups: every point


@pytest.mark.parametrize("coordinate", [np.nan, np.inf, -np.inf, 1e20, -1e20, 2147483648.0, -2147483649.0])
def test_extreme_coordinates_are_found_once_by_a_query_at_the_point(coordinate):
    for dims in ((1, 1, 1), (3, 5, 7)):
        grid = wp.HashGrid(*dims)
        grid.build(wp.array([[coordinate] * 3], dtype=wp.vec3), 1.0)
        found = _collect(grid, np.array([[coordinate] * 3], np.float32), 0.0)
        np.testing.assert_array_equal(found[0], [0])


def test_coordinates_beyond_the_int32_cells_wrap_like_the_query():
    # a 1-D grid of 2 cells: the points at the int32 limits are in neighbouring virtual cells
    points = np.array([[2147483647.5, 0, 0], [2147483648.25, 0, 0], [-2147483647.5, 0, 0]])
    grid = wp.HashGrid(2, 1, 1, dtype=wp.float64)
    grid.build(wp.array(points, dtype=wp.vec3d), 1.0)
    found = _collect(grid, points, 1.0, wp.vec3d, group=0)  # no groups built: all points
    assert sorted(found[0].tolist())[:2] == [0, 1] and len(set(found[0].tolist())) == len(found[0])


def test_builds_are_deterministic_and_rebuilds_clear_the_old_cells():
    rng = np.random.default_rng(13)
    a = wp.array(rng.uniform(0, 5, (1000, 3)), dtype=wp.vec3)
    b = wp.array(rng.uniform(0, 5, (10, 3)), dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    sums = []
    for _ in range(2):
        grid.build(a, 0.5)
        rho = wp.zeros(1000, dtype=float)
        wp.launch(smooth_density, 1000, inputs=[grid.id, 0.5, a, rho])
        sums.append(rho.numpy().copy())
    np.testing.assert_array_equal(sums[0], sums[1])  # same neighbour order, same bits
    grid.build(b, 0.5)
    assert grid.num_points == 10
    found = _collect(grid, a.numpy()[:50], 0.5)
    assert all(c.max(initial=0) < 10 for c in found)  # nothing of the first build's 1000 points is left


def test_strided_and_multidimensional_points_build_like_contiguous_ones():
    rng = np.random.default_rng(17)
    points = rng.uniform(0, 3, (64, 3)).astype(np.float32)
    queries = rng.uniform(0, 3, (16, 3)).astype(np.float32)
    reference = wp.HashGrid(6, 6, 6)
    reference.build(wp.array(points, dtype=wp.vec3), 0.5)
    expected = [set(c.tolist()) for c in _collect(reference, queries, 0.5)]
    buffer = wp.zeros(128, dtype=wp.vec3)
    buffer.numpy()[::2] = points
    for view in (buffer[::2], wp.array(points.reshape(4, 4, 4, 3), dtype=wp.vec3)):
        grid = wp.HashGrid(6, 6, 6)
        grid.build(view, 0.5)
        assert [set(c.tolist()) for c in _collect(grid, queries, 0.5)] == expected


def test_a_captured_build_runs_at_each_replay_with_the_data_of_that_moment():
    points = wp.array([[0.0, 0.0, 0.0], [5.0, 0.0, 0.0]], dtype=wp.vec3)
    source = wp.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0]], dtype=wp.vec3)
    counts = wp.zeros(2, dtype=int)
    found = wp.full((2, CAP), -1, dtype=int)
    grid = wp.HashGrid(8, 8, 8)
    with wp.ScopedCapture() as capture:
        wp.copy(points, source)
        grid.build(points, 0.5)
        wp.launch(collect_f32, 2, inputs=[grid.id, points, 0.5, found, counts])
    assert grid.num_points == 0  # recorded, not run
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(counts.numpy(), [2, 2])
    source.assign([[0.0, 0.0, 0.0], [3.0, 0.0, 0.0]])
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(counts.numpy(), [1, 1])
    with pytest.raises(HashGridCaptureError, match="reserve before capture"), wp.ScopedCapture():
        grid.reserve(8)


def test_reserve_allocates_for_later_builds():
    grid = wp.HashGrid(4, 4, 4)
    grid.reserve(100, with_groups=True)
    assert grid.reserved and grid.num_points == 0
    points = wp.array(np.zeros((100, 3)), dtype=wp.vec3)
    grid.build(points, 1.0, groups=wp.zeros(100, dtype=wp.int32))
    assert grid.num_points == 100
    with pytest.raises(HashGridError, match="must not be negative"):
        grid.reserve(-1)
    for huge in (2**31, 1 << 62, 1 << 70):  # was numpy's OverflowError or MemoryError, naming no argument
        with pytest.raises(HashGridError, match=rf"num_points must be at most 2\*\*31 - 1 .* got {huge}"):
            grid.reserve(huge)
    assert grid.num_points == 100 and grid.reserved  # the grid as it was


def test_gradients_flow_through_a_neighbour_sum():
    rng = np.random.default_rng(19)
    x = rng.uniform(0, 2, (60, 3))
    h = 0.6
    points = wp.array(x, dtype=wp.vec3, requires_grad=True)
    grid = wp.HashGrid(4, 4, 4)
    grid.build(points, h)
    rho = wp.zeros(60, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(smooth_density, 60, inputs=[grid.id, h, points, rho])
    tape.backward(grads={rho: wp.ones(60, dtype=float)})

    def loss(y):
        d2 = ((y[:, None] - y[None]) ** 2).sum(-1)
        return (np.where(d2 < h * h, h * h - d2, 0.0) ** 3).sum()

    xf = points.numpy().astype(np.float64)
    numeric = np.zeros((4, 3))
    for i in range(4):
        for a in range(3):
            e = np.zeros_like(xf)
            e[i, a] = 1e-6
            numeric[i, a] = (loss(xf + e) - loss(xf - e)) / 2e-6
    np.testing.assert_allclose(points.grad.numpy()[:4], numeric, rtol=1e-3, atol=1e-6)


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_runs_queries_as_the_cpu_does():
    rng = np.random.default_rng(23)
    points = rng.uniform(-2, 2, (300, 3)).astype(np.float32)
    queries = rng.uniform(-2, 2, (40, 3)).astype(np.float32)
    grid = wp.HashGrid(5, 5, 5)
    grid.build(wp.array(points, dtype=wp.vec3), 0.4)
    on_cpu = _collect(grid, queries, 0.4)
    with config.override(target="cuda-emulation"):
        emulated = _collect(grid, queries, 0.4)
    for a, b in zip(on_cpu, emulated):
        np.testing.assert_array_equal(a, b)


# -- errors a user can cause ---------------------------------------------------------------------------
def test_grid_construction_errors():
    with pytest.raises(HashGridTypeError, match="dtype must be float16, float32 or float64, got int32"):
        wp.HashGrid(4, 4, 4, dtype=wp.int32)
    with pytest.raises(HashGridTypeError, match="dimensions must be integers, got int, float, int"):
        wp.HashGrid(4, 4.0, 4)
    with pytest.raises(HashGridTypeError, match="dimensions must be integers, got bool, int, int"):
        wp.HashGrid(True, 4, 4)  # operator.index(True) is 1: a flag is not a size
    with pytest.raises(HashGridTypeError, match="dimensions must be integers, got int, int, bool"):
        wp.HashGrid(4, 4, np.True_)
    with pytest.raises(HashGridError, match=r"must be positive, got \(4, 0, 4\)"):
        wp.HashGrid(4, 0, 4)
    with pytest.raises(RuntimeError, match="cell count exceeds supported limit: 1291 \\* 1291 \\* 1291"):
        wp.HashGrid(1291, 1291, 1291)
    with pytest.raises(TypeError, match="exists in kernels only"):
        wp.HashGridQuery()
    with pytest.raises(TypeError, match=r"HashGridQuery\[int32\]"):
        wp.HashGridQuery[wp.int32]


def test_build_errors_name_the_problem_and_keep_the_last_build():
    grid = wp.HashGrid(4, 4, 4)
    good = wp.array(np.zeros((3, 3)), dtype=wp.vec3)
    grid.build(good, 1.0)
    cases = [
        (HashGridTypeError, "should have type vec3f .* got vec3d", (wp.zeros(3, dtype=wp.vec3d), 1.0)),
        (HashGridTypeError, r"should be a brickwork array of vec3f, got ndarray \(convert it: wp.array\(points, "
                            r"dtype=wp.vec3f\)\)", (np.zeros((3, 3)), 1.0)),
        (HashGridError, "cell width must be positive and finite, got 0.0", (good, 0.0)),
        (HashGridError, "cell width must be positive and finite, got -1", (good, -1)),
        (HashGridError, "cell width must be positive and finite, got nan", (good, float("nan"))),
        (HashGridTypeError, "radius must be a number, got str", (good, "1")),
    ]
    for cls, message, args in cases:
        with pytest.raises(cls, match=message):
            grid.build(*args)
    with pytest.raises(HashGridError, match="groups should be an array of type wp.int32, got float32"):
        grid.build(good, 1.0, groups=wp.zeros(3, dtype=float))
    with pytest.raises(HashGridError, match=r"groups must have the same length as points \(3\), got 2"):
        grid.build(good, 1.0, groups=wp.zeros(2, dtype=wp.int32))
    assert grid.num_points == 3 and grid.groups is None  # the failed builds changed nothing
    assert [c.tolist() for c in _collect(grid, np.zeros((1, 3), np.float32), 0.5)] == [[0, 1, 2]]


def _kernel_error(source_kernel, inputs, dim=1):
    with pytest.raises(wp.KernelTypeError) as info:
        wp.launch(source_kernel, dim, inputs=inputs)
    return str(info.value)


def test_kernel_errors_name_the_argument_and_the_line():
    grid = wp.HashGrid(2, 2, 2)

    @wp.kernel
    def not_a_variable(grid: wp.uint64, out: wp.array(dtype=int)):
        query = wp.hash_grid_query(grid, wp.vec3(0.0), 1.0)
        wp.hash_grid_query_next(query, out[0])

    message = _kernel_error(not_a_variable, [grid.id, wp.zeros(1, dtype=int)])
    assert "hash_grid_query_next() writes its index argument, which must be a local variable, got 'out[0]'" in message
    assert "test_hash_grid.py" in message and "wp.hash_grid_query_next(query, out[0])" in message

    @wp.kernel
    def undeclared_index(grid: wp.uint64):
        query = wp.hash_grid_query(grid, wp.vec3(0.0), 1.0)
        while wp.hash_grid_query_next(query, j):  # noqa: F821 - the error under test
            pass

    assert "stores the index in 'j', which must be a variable that already holds an int32" in _kernel_error(
        undeclared_index, [grid.id])

    @wp.kernel
    def float_index(grid: wp.uint64):
        query = wp.hash_grid_query(grid, wp.vec3(0.0), 1.0)
        j = 0.0
        wp.hash_grid_query_next(query, j)

    assert "the index variable 'j' holds a float32; it must hold an int32" in _kernel_error(float_index, [grid.id])

    @wp.kernel
    def not_a_query(grid: wp.uint64):
        q = 0
        j = 0
        wp.hash_grid_query_next(q, j)

    assert "the query must come from hash_grid_query(), got int32" in _kernel_error(not_a_query, [grid.id])

    @wp.kernel
    def mixed_precision(grid: wp.uint64):
        for i in wp.hash_grid_query(grid, wp.vec3(0.0), wp.float64(1.0)):
            pass

    assert "a radius of the point's scalar type" in _kernel_error(mixed_precision, [grid.id])
    assert "got uint64, vec3f, float64" in _kernel_error(mixed_precision, [grid.id])

    @wp.kernel
    def float_loop_variable(grid: wp.uint64):
        i = 0.0
        for i in wp.hash_grid_query(grid, wp.vec3(0.0), 1.0):  # noqa: B007 - the error under test
            pass

    assert "variable 'i' has type float32" in _kernel_error(float_loop_variable, [grid.id])


@pytest.mark.parametrize("width", [1e-45, 1e-300, 1e300])
def test_a_width_beyond_float32_builds_without_warnings_and_queries_find_every_neighbour(width):
    """1 / width overflows (or the width rounds to 0 or infinity) in float32, as in Warp, which builds such
    grids: numpy warned "overflow encountered in scalar divide" (an error under -W error) before the build."""
    rng = np.random.default_rng(0)
    points = rng.uniform(-3, 3, (40, 3)).astype(np.float32)
    points[:5] = 0.0  # 0 * inf: NaN, cell 0
    grid = wp.HashGrid(4, 4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grid.build(wp.array(points, dtype=wp.vec3), width)
    assert grid.num_points == 40
    queries = points[:8]
    for cand, near in zip(_collect(grid, queries, 1.0), _within(points, queries, np.float32(1.0))):
        assert len(cand) == len(set(cand.tolist())) and near <= set(cand.tolist())

"""A CUDA hash grid's build (hash_grid_build.build_on_device, runtime/device_sort.py): its kernels run on the CPU
and on the cuda-emulation target with the GPU's chunk, digit and scan parameters (and smaller ones, so that
small inputs take many chunks and scan levels) and give the numpy build's tables; with the fake CUDA driver,
a device build launches those kernels on the device and copies nothing to the host."""

import contextlib
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config, cuda_driver
from brickwork.jit import nvrtc
from brickwork.runtime import device_sort, hash_grid_build
from brickwork.runtime.device_sort import Plan
from brickwork.runtime.hash_grid import DESCRIPTOR, HashGridError
from brickwork.runtime.launch import launcher

from . import hash_grid_reference as reference
from .cuda_fake import FakeDriver, installed

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
POINT_TYPES = {wp.float16: wp.vec3h, wp.float32: wp.vec3, wp.float64: wp.vec3d}
SMALL = Plan(items=3, segment=4)  # 300 points: 100 chunks, a count table of 25600 entries scanned in 8 levels


@contextlib.contextmanager
def _on_device(plan=None):
    """CPU grids build as CUDA grids do (the device sort, launched on the CPU), with ``plan`` (else the GPU's)."""
    with mock.patch.object(hash_grid_build, "on_device", lambda device: True), \
            mock.patch.object(device_sort, "GPU", plan or device_sort.GPU):
        yield


def _check_tables(grid, xyz, width, groups, dtype=wp.float32):
    order, starts, ends, sorted_groups = reference.tables(xyz, width, grid.dims, dtype is wp.float64, groups)
    n = len(xyz)
    tables = {name: table.numpy() for name, table in grid._tables.items()}
    np.testing.assert_array_equal(tables["point_ids"][:n], order)
    np.testing.assert_array_equal(tables["cell_starts"], starts)
    np.testing.assert_array_equal(tables["cell_ends"], ends)
    if groups is not None:
        np.testing.assert_array_equal(tables["groups"][:n], sorted_groups)
    assert grid.num_points == n


# -- the sort ----------------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 200), items=st.integers(1, 9), segment=st.integers(2, 9),
       bits=st.sampled_from([4, 8]), passes=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 28)), min_size=1,
                                                     max_size=3),
       two_words=st.booleans(), spread=st.sampled_from([2, 300, 2**31]))
def test_the_device_sort_is_the_stable_sort_by_its_digits(seed, n, items, segment, bits, passes, two_words, spread):
    """Any plan: keys with ties (spread 2), few and many distinct values, negative ones (their uint32 bits); the
    words come out sorted with the positions."""
    rng = np.random.default_rng(seed)
    words = [rng.integers(-spread, spread, n, dtype=np.int64).astype(np.int32) for _ in range(1 + two_words)]
    passes = [(w % len(words), shift) for w, shift in passes]
    plan = Plan(bits=bits, items=items, segment=segment)
    outs = [wp.full(n + 2, -7, dtype=wp.int32) for _ in range(1 + len(words))]  # larger: the rest left alone
    device_sort.sort([wp.array(w, dtype=wp.int32) for w in words], passes, n, outs[0], outs[1:],
                     hash_grid_build.Scratch().get, launcher(wp.get_device("cpu")), plan)
    digits = [(words[w].view(np.uint32) >> np.uint32(s)) & np.uint32((1 << bits) - 1) for w, s in passes]
    expected = np.lexsort([np.arange(n), *digits]) if n else np.zeros(0, np.int64)
    for out, values in zip(outs, [np.arange(n), *words]):
        np.testing.assert_array_equal(out.numpy(), np.concatenate([values[expected], [-7, -7]]))


@pytest.mark.parametrize(("bound", "shifts"), [(0, [0]), (1, [0]), (256, [0]), (257, [0, 8]), (2**24, [0, 8, 16]),
                                                (2**31 - 1, [0, 8, 16, 24]), (2**32, [0, 8, 16, 24])])
def test_a_plan_sorts_by_the_digits_its_keys_have(bound, shifts):
    assert Plan().digits(bound) == shifts
    assert Plan(bits=16).digits(bound) == shifts[::2]


def test_a_plan_has_about_items_per_chunk_up_to_its_chunk_limit():
    plan = Plan(items=64, max_chunks=100)
    assert [plan.chunks(n) for n in (0, 1, 64, 65, 6400, 10**6)] == [1, 1, 1, 2, 100, 100]
    assert device_sort.GPU.chunks(10**6) == 15625 and device_sort.GPU.bits == 8


@pytest.mark.parametrize("n", [0, 1, 4, 5, 17, 64, 65, 1000])
@pytest.mark.parametrize("segment", [2, 4, 64])
def test_the_scan_gives_exclusive_prefix_sums_at_every_depth(n, segment):
    values = np.random.default_rng(n).integers(0, 50, n + 3).astype(np.int32)
    a = wp.array(values, dtype=wp.int32)
    device_sort.exclusive_scan(a, n, hash_grid_build.Scratch().get, launcher(wp.get_device("cpu")),
                               segment)
    expected = np.concatenate([np.cumsum(values[:n]) - values[:n], values[n:]])  # entries past n untouched
    np.testing.assert_array_equal(a.numpy(), expected)


# -- the grid's build with the device sort ---------------------------------------------------------------------------
def _inputs(kind: str, n: int, rng):
    if kind == "random":
        return rng.uniform(-3, 3, (n, 3))
    if kind == "clustered":  # most points in two cells, a few far away (wrapped)
        xyz = rng.normal(0.0, 0.05, (n, 3)) + rng.choice([0.0, 1.0], (n, 1))
        xyz[::17] = rng.uniform(-1e4, 1e4, (len(xyz[::17]), 3))
        return xyz
    if kind == "tied":  # three distinct points, many times each
        return np.array([[0.1, 0.2, 0.3], [1.5, -0.5, 2.0], [0.1, 0.2, 0.3 + 1e-3]])[rng.integers(0, 3, n)]
    xyz = rng.uniform(-2, 2, (n, 3))  # special coordinates: NaN to cell 0, infinities and huge values clamped
    flat = xyz.reshape(-1)
    flat[rng.integers(0, flat.size, n)] = rng.choice([np.nan, np.inf, -np.inf, 3e9, -3e9], n)
    return xyz


@pytest.mark.compiles_for_cuda
@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
@pytest.mark.parametrize("kind", ["random", "clustered", "tied", "special"])
@pytest.mark.parametrize("plan", [SMALL, device_sort.GPU], ids=["small", "gpu"])
def test_the_device_build_gives_the_numpy_tables_on_each_target(target, kind, plan):
    """Every kernel of the device build runs here on ``target`` (the emulation's instances compile for sm_90),
    with the GPU's plan and a small one (many chunks and scan levels for 300 points)."""
    rng = np.random.default_rng(len(kind))
    xyz = _inputs(kind, 300, rng)
    groups = rng.choice([-2**31, -1, 0, 2, 255, 256, 65536, 2**31 - 1], 300).astype(np.int32)
    grid = wp.HashGrid(5, 4, 3)
    grid.build(wp.array(xyz[::-1], dtype=wp.vec3), 0.4)  # the CPU's sort by whole cells: the device's zeroes all
    with config.override(target=target), _on_device(plan):
        for g in (None, groups, None):  # grouped, then not: the old cells are cleared
            grid.build(wp.array(xyz, dtype=wp.vec3), 0.4, groups=None if g is None else wp.array(g, dtype=wp.int32))
            _check_tables(grid, xyz, 0.4, g)
        grid.build(wp.zeros(0, dtype=wp.vec3), 0.4)  # empty: every cell cleared
        _check_tables(grid, np.zeros((0, 3)), 0.4, None)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 400), dims=st.tuples(*[st.integers(1, 40)] * 3),
       width=st.floats(0.05, 2.0), dtype=st.sampled_from(list(POINT_TYPES)), grouped=st.booleans(),
       kind=st.sampled_from(["random", "clustered", "tied", "special"]), small=st.booleans())
def test_property_the_device_build_orders_points_as_numpy_does(seed, n, dims, width, dtype, grouped, kind, small):
    rng = np.random.default_rng(seed)
    xyz = _inputs(kind, n, rng)
    if dtype is wp.float16:
        with np.errstate(over="ignore", invalid="ignore"):  # beyond float16's range: infinite, as the grid holds them
            xyz = xyz.astype(np.float16).astype(np.float64)
    groups = rng.integers(-2**31, 2**31, n).astype(np.int32) if grouped else None
    grid = wp.HashGrid(*dims, dtype=dtype)
    with _on_device(SMALL if small else None):
        grid.build(wp.array(xyz, dtype=POINT_TYPES[dtype]), width,
                   groups=None if groups is None else wp.array(groups, dtype=wp.int32))
    _check_tables(grid, xyz, width, groups, dtype)


def test_device_and_cpu_builds_of_one_grid_take_turns_and_reserve_keeps_working():
    """Rebuilds of other sizes (larger than the reserve, smaller, empty), each sort clearing what the other left."""
    rng = np.random.default_rng(41)
    grid = wp.HashGrid(30, 20, 10)
    grid.reserve(50, with_groups=True)
    for n, device, grouped in ((40, True, True), (500, False, False), (20000, False, True), (700, True, False),
                               (30, True, True), (0, False, False), (90, True, False), (25000, True, True)):
        xyz = rng.uniform(0, 10, (n, 3))
        groups = rng.integers(0, 4, n).astype(np.int32) if grouped else None
        with mock.patch.object(hash_grid_build, "on_device", lambda d, device=device: device):
            grid.build(wp.array(xyz, dtype=wp.vec3), 0.5, groups=None if groups is None else wp.array(groups,
                                                                                                     dtype=wp.int32))
        _check_tables(grid, xyz, 0.5, groups)


# -- on a CUDA device (the fake driver: launches recorded, not run) -----------------------------------------------------
class _Watching(FakeDriver):
    """A fake driver that counts the bytes copied to the host and uploaded."""

    def __init__(self):
        super().__init__()
        self.downloads: list = []
        self.uploads: list = []

    def copy_to_host(self, ordinal, dst_host, src, nbytes):
        self.downloads.append(nbytes)
        super().copy_to_host(ordinal, dst_host, src, nbytes)

    def copy_to_device(self, ordinal, dst, src_host, nbytes, stream=None):
        self.uploads.append(nbytes)
        super().copy_to_device(ordinal, dst, src_host, nbytes, stream)


def _recording(grid, launched: list):
    """Record each kernel the grid launches, checking that its arrays are on the grid's device."""
    launch = grid._launch

    def record(kernel, dim, *inputs):
        for a in inputs:
            assert not isinstance(a, wp.array) or a.device == grid.device, (kernel.key, a.device)
        launched.append((kernel.key.split(".")[-1], dim))
        launch(kernel, dim, *inputs)

    grid._launch = record


@needs_nvrtc
def test_a_device_build_launches_its_kernels_on_the_device_and_copies_nothing_to_the_host():
    rng = np.random.default_rng(29)
    with installed(_Watching()) as fake:
        points = wp.array(rng.uniform(-1, 1, (5000, 3)), dtype=wp.vec3, device="cuda:0")
        groups = wp.array(rng.integers(-3, 3, 5000).astype(np.int32), dtype=wp.int32, device="cuda:0")
        grid = wp.HashGrid(30, 40, 50, device="cuda:0")
        grid_id = grid.id
        launched: list = []
        _recording(grid, launched)
        fake.uploads.clear()
        grid.build(points, 0.05, groups=groups)
        assert fake.downloads == [] and fake.uploads == [64]  # the descriptor only
        # 60000 cells: 2 digit passes; the groups' bits: 4; each pass counts in 79 chunks, scans their 20224
        # counters in 3 levels (4 launches: the 5 sums of the second are added by the threads that use them),
        # scatters (the last pass into the tables); before: the 4 tables zeroed, after: the ranges
        scan = [("_segment_sums", 316), ("_segment_sums", 5), ("_segment_scan", 5), ("_segment_scan", 316)]
        one_pass = [("_count", 79), *scan, ("_scatter", 79)]
        zeros = [("_zero", 60000), ("_zero", 60000), ("_zero", 5000), ("_zero", 5000)]
        assert launched == [*zeros, ("_cells", 5000), *one_pass * 6, ("_sorted_ranges", 5000)]
        assert len(fake.launches) == len(launched)
        # one thread per point (per chunk, per segment), or 4 for short bodies (passes/gpu_grid.py)
        assert all(grid_dim in (-(-d // 256), -(-d // 1024)) for (_, d), (_, _, grid_dim, _, _) in
                   zip(launched, fake.launches))

        launched.clear()
        fake.uploads.clear()
        grid.build(points, 0.05, groups=groups)  # the same sizes: not even the descriptor is uploaded
        assert fake.uploads == [] and fake.downloads == []
        assert launched[0] == ("_clear", 5000) and launched[1] == ("_cells", 5000)

        launched.clear()
        grid.reserve(9000)
        more = wp.zeros(8000, dtype=wp.vec3, device="cuda:0")  # a memset: no upload
        grid.build(more, 0.1)  # larger, no groups: the new point_ids zeroed, the last cells cleared, 2 passes
        assert launched[:3] == [("_zero", 9000), ("_clear", 5000), ("_cells", 8000)]
        assert len(launched) == 3 + 2 * 6 + 1 and launched[-1] == ("_sorted_ranges", 8000)  # a pass: 6 launches
        assert fake.downloads == [] and fake.uploads == [64]  # the new descriptor
        descriptor = np.frombuffer(_device_bytes(fake, grid.id, 64), DESCRIPTOR)[0]
        assert grid.id == grid_id and descriptor["num_points"] == 8000 and descriptor["has_groups"] == 0
        assert descriptor["point_ids"] == grid._tables["point_ids"].ptr and grid._tables["point_ids"].shape == (9000,)
        assert descriptor["cell_starts"] == grid._tables["cell_starts"].ptr and descriptor["groups"] == 0
        np.testing.assert_array_equal(descriptor["dim"], [30, 40, 50])
        assert descriptor["inv_f"] == np.float32(1.0) / np.float32(0.1)
        with pytest.raises(HashGridError, match=r"points must live on the same device as this HashGrid \(cuda:0\), "
                                                r"got points on cpu"):
            grid.build(wp.zeros(3, dtype=wp.vec3), 0.3)


@needs_nvrtc
def test_a_device_build_captured_in_a_graph_launches_at_each_replay():
    with installed(_Watching()) as fake:
        points = wp.zeros(100, dtype=wp.vec3, device="cuda:0")
        grid = wp.HashGrid(4, 4, 4, device="cuda:0")
        with wp.ScopedCapture() as capture:
            grid.build(points, 0.5)
        assert fake.launches == [] and grid.num_points == 0  # recorded, not run
        wp.capture_launch(capture.graph)
        first = len(fake.launches)
        wp.capture_launch(capture.graph)
        # the second replay zeroes no table (3 launches) but clears the first one's cells (1)
        assert first == 9 and len(fake.launches) == 2 * first - 2 and grid.num_points == 100
        assert fake.downloads == []


def _device_bytes(fake, ptr, n):
    base = max(b for b in fake.memory if b <= ptr)
    return bytes(fake.memory[base][ptr - base:ptr - base + n])


# -- on a real GPU (marker cuda_device: skipped without one) ---------------------------------------------------------
def on_a_gpu(test):
    """Marker ``cuda_device``, skipped without a GPU or NVRTC."""
    no_gpu = pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device (driver and GPU) on this machine")
    return pytest.mark.cuda_device(no_gpu(needs_nvrtc(test)))


@pytest.mark.parametrize("kind", ["random", "clustered", "tied", "special"])
@pytest.mark.parametrize("dims", [(64, 64, 64), (300, 300, 300)])
@on_a_gpu
def test_on_a_gpu_the_device_build_gives_the_cpu_builds_tables(kind, dims):
    """200k points (3125 chunks), with and without groups, then rebuilds smaller, larger and empty; 2^18 and
    27 million cells (3 and 4 digit passes)."""
    rng = np.random.default_rng(len(kind) + dims[0])
    grids = {device: wp.HashGrid(*dims, device=device) for device in ("cpu", "cuda:0")}
    for n, grouped in ((200_000, False), (200_000, True), (1000, True), (300_000, False), (0, False)):
        xyz = _inputs(kind, n, rng)
        groups = rng.integers(-2**31, 2**31, n).astype(np.int32) if grouped else None
        tables = {}
        for device, grid in grids.items():
            grid.build(wp.array(xyz, dtype=wp.vec3, device=device), 0.1,
                       groups=None if groups is None else wp.array(groups, dtype=wp.int32, device=device))
            tables[device] = {name: table.numpy() for name, table in grid._tables.items()}
        for name in ("point_ids", "groups") if grouped else ("point_ids",):
            np.testing.assert_array_equal(tables["cuda:0"][name][:n], tables["cpu"][name][:n])
        for name in ("cell_starts", "cell_ends"):
            np.testing.assert_array_equal(tables["cuda:0"][name], tables["cpu"][name])
    _check_tables(grids["cuda:0"], np.zeros((0, 3)), 0.1, None)

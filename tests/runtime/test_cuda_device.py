"""Kernels run on a real CUDA device against numpy and against the CPU target (marker ``cuda_device``;
skipped without a GPU; ``scripts/gpu_check.sh`` runs them on a machine with one)."""

import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
from brickwork import cuda_driver
from brickwork.jit import nvrtc

pytestmark = [
    pytest.mark.cuda_device,
    pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device (driver and GPU) on this machine"),
    pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')"),
]

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "targets"))
import cuda_corpus  # noqa: E402

DEV = "cuda:0"


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def test_saxpy_matches_numpy():
    n = 1_000_003  # not a multiple of the block size: the bounds guard matters
    rng = np.random.default_rng(1)
    xh, yh = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    x, y = wp.array(xh, device=DEV), wp.array(yh, device=DEV)
    wp.launch(saxpy, dim=n, inputs=[2.5, x, y], device=DEV)
    np.testing.assert_array_equal(y.numpy(), np.float32(2.5) * xh + yh)
    np.testing.assert_array_equal(x.numpy(), xh)


def test_a_captured_graph_replays_its_launches_and_writes_on_the_device():
    n = 4097
    x, y = wp.full(n, 1.0, device=DEV), wp.zeros(n, device=DEV)
    s = wp.Stream(DEV)
    with wp.ScopedCapture(device=DEV) as capture:
        y.fill_(0.5)
        wp.launch(saxpy, dim=n, inputs=[2.0, x, y], device=DEV)
        wp.launch(saxpy, dim=n, inputs=[1.0, y, x], device=DEV)
    wp.synchronize()
    np.testing.assert_array_equal(y.numpy(), 0.0)  # nothing ran during the capture
    wp.capture_launch(capture.graph)
    wp.capture_launch(capture.graph, stream=s)
    s.synchronize()
    # each replay: y = 0.5 + 2 x, then x = y + x
    np.testing.assert_array_equal(y.numpy(), np.float32(0.5 + 2 * 4.5))
    np.testing.assert_array_equal(x.numpy(), np.float32(4.5 + 9.5))


@wp.kernel
def scale_add(s: float, c: float, x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = s * x[i] + c


def test_a_graph_of_launches_only_replays_as_a_cuda_graph_with_the_values_of_launch_by_launch():
    n = 3001
    rng = np.random.default_rng(7)
    xh, yh = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    x, y = wp.array(xh, device=DEV), wp.array(yh, device=DEV)
    s = wp.Stream(DEV)
    with wp.ScopedCapture(device=DEV) as capture:
        for k in range(10):  # 20 launches, each reading what the one before wrote
            wp.launch(saxpy, dim=n, inputs=[0.5, x, y], device=DEV)
            wp.launch(scale_add, dim=n - k, inputs=[0.25, float(k), x], device=DEV)
    wp.synchronize()
    np.testing.assert_array_equal(x.numpy(), xh)  # nothing ran during the capture

    def replay_on_host(xh, yh):
        xh, yh = xh.copy(), yh.copy()
        for k in range(10):
            yh = np.float32(0.5) * xh + yh
            xh[:n - k] = np.float32(0.25) * xh[:n - k] + np.float32(k)
        return xh, yh

    for how in ("current stream", "stream", "scoped stream"):
        if how == "current stream":
            wp.capture_launch(capture.graph)
        elif how == "stream":
            wp.capture_launch(capture.graph, stream=s)
        else:
            with wp.ScopedStream(s):
                wp.capture_launch(capture.graph)
        wp.synchronize()
        xh, yh = replay_on_host(xh, yh)
        np.testing.assert_allclose(x.numpy(), xh, rtol=1e-5)
        np.testing.assert_allclose(y.numpy(), yh, rtol=1e-5)
    from brickwork.runtime.cuda_graph import CudaGraph

    assert isinstance(capture.graph._cuda_graph, CudaGraph)  # one cuGraphLaunch per replay, not 20 launches


def test_fills_and_device_copies_are_nodes_of_the_cuda_graph_with_the_values_of_the_host():
    # memsets of 8 bits (zero_), 32 bits (float32), 2-D memsets (float64: two words, vec3: three), and
    # device-to-device copies, in order with the launches that read and write the same arrays
    n = 1001
    rng = np.random.default_rng(3)
    xh = rng.random(n, dtype=np.float32)
    x, y = wp.array(xh, device=DEV), wp.zeros(n, device=DEV)
    d, v = wp.zeros(n, dtype=wp.float64, device=DEV), wp.zeros(n, dtype=wp.vec3, device=DEV)
    s = wp.Stream(DEV)
    with wp.ScopedCapture(device=DEV) as capture:
        y.fill_(0.5)
        wp.launch(saxpy, dim=n, inputs=[2.0, x, y], device=DEV)
        wp.copy(x, y, dest_offset=1, src_offset=0, count=n - 1)
        d.zero_()
        d.fill_(1.25)
        v.fill_(wp.vec3(1.0, -2.0, 3.5))
        y.assign(x)
    assert capture.graph.cuda_nodes == len(capture.graph) == 7
    wp.synchronize()
    np.testing.assert_array_equal(x.numpy(), xh)  # nothing ran during the capture
    for replay in (lambda: wp.capture_launch(capture.graph), lambda: wp.capture_launch(capture.graph, stream=s)):
        replay()
        wp.synchronize()
        yh = np.float32(2.0) * xh + np.float32(0.5)
        xh = np.concatenate([xh[:1], yh[:-1]])
        np.testing.assert_array_equal(x.numpy(), xh)
        np.testing.assert_array_equal(y.numpy(), xh)
    np.testing.assert_array_equal(d.numpy(), np.full(n, 1.25))
    np.testing.assert_array_equal(v.numpy(), np.tile(np.float32([1.0, -2.0, 3.5]), (n, 1)))
    from brickwork.runtime.cuda_graph import CudaGraph

    assert isinstance(capture.graph._cuda_graph, CudaGraph)  # one cuGraphLaunch: the fills and copies are in it


def test_fills_outside_a_capture_are_memsets_ordered_with_the_launches_of_their_stream():
    # types/device_fill.py: no upload; a fill on a stream runs after the launch before it and before the one
    # after it, and numpy() (the legacy stream) sees it
    n = 4099
    s = wp.Stream(DEV)
    x, y = wp.full(n, 1.5, device=DEV), wp.zeros(n, device=DEV)
    d = wp.full(n, -2.25, dtype=wp.float64, device=DEV)
    v = wp.full(n, wp.vec3(1.0, -2.0, 3.5), device=DEV)
    h = wp.full(n, 3.0, dtype=wp.float16, device=DEV)
    with wp.ScopedStream(s):
        wp.launch(saxpy, dim=n, inputs=[2.0, x, y], device=DEV)  # y = 3
        x.fill_(0.25)
        wp.launch(saxpy, dim=n, inputs=[4.0, x, y], device=DEV)  # y = 4
        m = wp.full((7, 3), wp.mat22d(1.0, 2.0, 3.0, 4.0), device=DEV)  # eight words: on the host
    np.testing.assert_array_equal(y.numpy(), np.full(n, 4.0, dtype=np.float32))
    np.testing.assert_array_equal(x.numpy(), np.full(n, 0.25, dtype=np.float32))
    np.testing.assert_array_equal(d.numpy(), np.full(n, -2.25))
    np.testing.assert_array_equal(v.numpy(), np.tile(np.float32([1.0, -2.0, 3.5]), (n, 1)))
    np.testing.assert_array_equal(h.numpy(), np.full(n, 3.0, dtype=np.float16))
    np.testing.assert_array_equal(m.numpy(), np.tile(np.float64([[1.0, 2.0], [3.0, 4.0]]), (7, 3, 1, 1)))
    for a in (x, d, v, h, m):
        a.zero_()
        assert not a.numpy().any()


def test_every_point_of_a_3d_and_4d_launch_runs_once():
    a = wp.zeros((5, 7, 300), dtype=float, device=DEV)
    wp.launch(cuda_corpus.launch_3d, dim=a.shape, inputs=[a], device=DEV)
    k, j, i = np.meshgrid(np.arange(5), np.arange(7), np.arange(300), indexing="ij")
    np.testing.assert_array_equal(a.numpy(), k * 100 + j * 10 + i)
    b = wp.zeros((2, 3, 4, 5), dtype=wp.int32, device=DEV)
    wp.launch(cuda_corpus.launch_4d, dim=b.shape, inputs=[b], device=DEV)
    idx = np.indices((2, 3, 4, 5)).sum(axis=0) + 5
    np.testing.assert_array_equal(b.numpy(), idx)


@pytest.mark.parametrize("dtype", [wp.int32, wp.uint32, wp.int64, wp.uint64, wp.float32, wp.float64])
def test_atomic_add_sums_every_thread(dtype):
    a = wp.zeros(4, dtype=dtype, device=DEV)
    wp.launch(cuda_corpus.atomics_arith, dim=4096, inputs=[a, dtype(3)], device=DEV)
    # a[i % 4] += 3 by every thread (then a[0] -= the old values seen, which depends on the order)
    np.testing.assert_array_equal(a.numpy()[1:], np.full(3, 1024 * 3))


def test_atomic_cas_has_one_winner_and_a_cas_loop_applies_every_update():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lang"))
    import test_atomic_cas as cas

    n = 100_000
    owner, won = wp.zeros(1, dtype=wp.int32, device=DEV), wp.zeros(n, dtype=wp.int32, device=DEV)
    wp.launch(cas.claim, dim=n, inputs=[owner, won], device=DEV)
    winners = np.flatnonzero(won.numpy())
    assert len(winners) == 1 and owner.numpy()[0] == winners[0] + 1
    a = wp.array(np.array([1.0], dtype=np.float32), device=DEV)
    wp.launch(cas.double_it, dim=100, inputs=[a], device=DEV)
    assert a.numpy()[0] == 2.0 ** 100


@pytest.mark.parametrize("dtype", [wp.int32, wp.uint32, wp.int64, wp.uint64, wp.float32, wp.float64])
def test_atomic_min_max_exch(dtype):
    a = wp.array(np.array([100, 0, 7, 9], dtype=wp.dtype_to_numpy(dtype)), dtype=dtype, device=DEV)
    wp.launch(cuda_corpus.atomics_minmax, dim=64, inputs=[a, dtype(42)], device=DEV)
    out = a.numpy()
    assert out[0] == 42 and out[1] == 42 and out[3] == 42 and out[2] in (9, 42)


@pytest.mark.parametrize("dtype", cuda_corpus.ATOMIC_BITS)
def test_atomic_bits_match_the_cpu(dtype):
    init = np.arange(12, dtype=wp.dtype_to_numpy(dtype)).reshape(3, 4)
    a, c = wp.array(init, dtype=dtype, device=DEV), wp.array(init, dtype=dtype)
    wp.launch(cuda_corpus.atomics_bits, dim=(3, 4), inputs=[a, dtype(5)], device=DEV)
    wp.launch(cuda_corpus.atomics_bits, dim=(3, 4), inputs=[c, dtype(5)])
    np.testing.assert_array_equal(a.numpy(), c.numpy())


@pytest.mark.parametrize("dtype", cuda_corpus.FLOATS)
def test_arithmetic_matches_the_cpu(dtype):
    rng = np.random.default_rng(2)
    np_t = wp.dtype_to_numpy(dtype)
    xh, yh = rng.uniform(0.5, 2.0, 999).astype(np_t), rng.uniform(0.5, 2.0, 999).astype(np_t)
    xd, yd = wp.array(xh, dtype=dtype, device=DEV), wp.array(yh, dtype=dtype, device=DEV)
    xc, yc = wp.array(xh, dtype=dtype), wp.array(yh, dtype=dtype)
    wp.launch(cuda_corpus.arithmetic, dim=999, inputs=[xd, yd, dtype(0.75)], device=DEV)
    wp.launch(cuda_corpus.arithmetic, dim=999, inputs=[xc, yc, dtype(0.75)])
    # + - * / are correctly rounded on both targets and neither contracts them into fused multiply-adds
    np.testing.assert_array_equal(yd.numpy(), yc.numpy())


@pytest.mark.parametrize("dtype", cuda_corpus.FLOATS)
def test_math_builtins_match_the_cpu(dtype):
    np_t = wp.dtype_to_numpy(dtype)
    xh = np.linspace(0.05, 0.95, 777).astype(np_t)
    xd, yd = wp.array(xh, dtype=dtype, device=DEV), wp.zeros(777, dtype=dtype, device=DEV)
    xc, yc = wp.array(xh, dtype=dtype), wp.zeros(777, dtype=dtype)
    wp.launch(cuda_corpus.float_math, dim=777, inputs=[xd, yd], device=DEV)
    wp.launch(cuda_corpus.float_math, dim=777, inputs=[xc, yc])
    rtol = {wp.float16: 2e-2, wp.float32: 1e-4, wp.float64: 1e-10}[dtype]  # CUDA's libm vs the host's
    np.testing.assert_allclose(yd.numpy().astype(np.float64), yc.numpy().astype(np.float64), rtol=rtol, atol=rtol)


def test_structs_and_device_functions_match_the_cpu():
    n = 300
    ps = [cuda_corpus.Particle() for _ in range(n)]
    for k, p in enumerate(ps):
        p.pos, p.vel, p.mass, p.alive, p.count = wp.vec3(k, 0.0, 1.0), wp.vec3(0.0, 1.0, 0.0), wp.float64(2.0), k % 2 == 0, k
    results = []
    for device in (DEV, "cpu"):
        arr = wp.array(ps, dtype=cuda_corpus.Particle, device=device)
        scene = cuda_corpus.Scene()
        scene.gravity = wp.vec3(0.0, -9.8, 0.0)
        scene.data = wp.array(np.linspace(1.0, 2.0, n, dtype=np.float32), device=device)
        scene.p = ps[3]
        wp.launch(cuda_corpus.structs, dim=n, inputs=[arr, scene, 0.01], device=device)
        results.append((arr.numpy(), scene.data.numpy()))
    for got, want in zip(results[0], results[1]):
        for name in got.dtype.names or [None]:
            g, w = (got, want) if name is None else (got[name], want[name])
            np.testing.assert_allclose(g, w, rtol=1e-6)


def test_random_numbers_match_the_cpu():
    out = [wp.zeros(512, device=d) for d in (DEV, "cpu")]
    vec = [wp.zeros(512, dtype=wp.vec3, device=d) for d in (DEV, "cpu")]
    ints = [wp.zeros(512, dtype=wp.int32, device=d) for d in (DEV, "cpu")]
    for d, o, v, k in zip((DEV, "cpu"), out, vec, ints):
        wp.launch(cuda_corpus.random, dim=512, inputs=[7, o, v, k], device=d)
    np.testing.assert_array_equal(ints[0].numpy(), ints[1].numpy())  # integer PCG: identical streams
    np.testing.assert_allclose(out[0].numpy(), out[1].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(vec[0].numpy(), vec[1].numpy(), rtol=1e-5, atol=1e-6)


def test_float16_storage_is_ieee_half():
    h = np.array([0.1, 65504.0, 6e-8, -2.5], dtype=np.float16)
    a = wp.array(h, dtype=wp.float16, device=DEV)
    np.testing.assert_array_equal(a.numpy().view(np.uint16), h.view(np.uint16))


def test_debug_mode_raises_bounds_errors_on_the_device():
    @wp.kernel
    def shifted(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i + 1] = 1.0

    a = wp.zeros(4, device=DEV)
    with wp.config.override(mode="debug"):
        with pytest.raises(wp.BoundsError, match=r"index \(4\) is out of bounds for shape \(4\)"):
            wp.launch(shifted, dim=4, inputs=[a], device=DEV)
        wp.launch(shifted, dim=3, inputs=[a], device=DEV)  # the record was cleared
    np.testing.assert_array_equal(a.numpy(), [0.0, 1.0, 1.0, 1.0])


def test_an_unset_struct_array_field_read_in_a_branch_raises_a_bounds_error_on_the_device():
    """The field checks of ir/field_checks.py (a release build): the device records the access, the next wait for
    the device raises it with the kernel's file:line (tests/targets/test_cuda_field_checks.py checks the same through
    a fake driver); the launch itself does not wait."""
    from . import test_field_access_checks as fields

    ss = wp.zeros(3, dtype=fields.Samples, device=DEV)
    s = fields.Samples()
    s.scale, s.values = 1.0, wp.array(np.arange(3, dtype=np.float32), device=DEV)
    ss[0] = s
    unset = fields.Samples()
    unset.scale = 1.0
    ss[1] = unset  # the branch is taken, the field unset; element 2 (scale 0) does not take it
    out = wp.full(3, -1.0, dtype=float, device=DEV)
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device=DEV)
    with pytest.raises(wp.BoundsError, match=r"index \(1\) is out of bounds for shape \(0\) at .*test_field_access_checks"
                                             r"\.py:\d+ \(an array held in a struct's field"):
        wp.synchronize()
    assert out.numpy()[0] == 1.0 and out.numpy()[2] == -1.0
    wp.launch(fields.read_in_branch, dim=1, inputs=[ss, out], device=DEV)  # the record was cleared: no error
    wp.synchronize()
    wp.launch(fields.read_in_branch, dim=3, inputs=[ss, out], device=DEV)
    with pytest.raises(wp.BoundsError, match=r"index \(1\) is out of bounds"):
        out.numpy()  # a copy to the host waits too


def test_cuda_array_interface_is_readable_by_torch_or_cupy():
    a = wp.array(np.arange(10, dtype=np.float32), device=DEV)
    try:
        import torch

        t = torch.as_tensor(a, device="cuda")
        np.testing.assert_array_equal(t.cpu().numpy(), np.arange(10))
        d = torch.from_dlpack(a)  # DLPack: the same memory
        d[0] = 42.0
        assert a.numpy()[0] == 42.0
        t2 = torch.arange(6, dtype=torch.float32, device="cuda").reshape(2, 3)
        for w in (wp.array(t2), wp.from_dlpack(t2)):  # and the other way: brickwork views torch's memory
            assert w.ptr == t2.data_ptr() and w.shape == (2, 3)
            np.testing.assert_array_equal(w.numpy(), np.arange(6).reshape(2, 3))
        wp.launch(_double, dim=6, inputs=[wp.array(t2.view(-1))], device=DEV)
        wp.synchronize()
        np.testing.assert_array_equal(t2.cpu().numpy(), 2 * np.arange(6).reshape(2, 3))
        return
    except ImportError:
        pass
    cupy = pytest.importorskip("cupy", reason="neither torch nor cupy is installed")
    np.testing.assert_array_equal(cupy.asarray(a).get(), np.arange(10))
    c = cupy.arange(4, dtype=cupy.float32)
    w = wp.array(c)  # brickwork views CuPy's memory
    assert w.ptr == c.data.ptr
    wp.launch(_double, dim=4, inputs=[w], device=DEV)
    wp.synchronize()
    np.testing.assert_array_equal(c.get(), [0.0, 2.0, 4.0, 6.0])


@wp.kernel
def _double(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 2.0


@wp.kernel
def _offset(x: wp.array(dtype=wp.float64), d: wp.float64):
    i = wp.tid()
    x[i] = x[i] + d


def test_kernels_built_together_by_load_module_run_from_their_shared_cubin():
    """wp.load_module(device=...) builds this module's kernels together (small units share an NVRTC run and
    a cubin, each kernel renamed): each launch must find its own kernel there."""
    from brickwork.targets.cuda import build

    wp.load_module(device=DEV)
    before = build.nvrtc_calls
    a = wp.array(np.arange(5, dtype=np.float32), device=DEV)
    b = wp.array(np.arange(3, dtype=np.float64), device=DEV)
    wp.launch(_double, 5, inputs=[a], device=DEV)
    wp.launch(_offset, 3, inputs=[b, wp.float64(0.5)], device=DEV)
    wp.launch(saxpy, 5, inputs=[1.0, a, a], device=DEV)
    assert build.nvrtc_calls == before  # all three were built by load_module
    np.testing.assert_array_equal(a.numpy(), 4 * np.arange(5, dtype=np.float32))
    np.testing.assert_array_equal(b.numpy(), np.arange(3) + 0.5)


@wp.kernel
def _hash_grid_sums(grid: wp.uint64, points: wp.array(dtype=wp.vec3d), h: wp.float64,
                    out: wp.array(dtype=wp.float64), counts: wp.array(dtype=int)):
    i = wp.tid()
    p = points[i]
    s = wp.float64(0.0)
    n = 0
    for j in wp.hash_grid_query(grid, p, h):
        d = wp.length(p - points[j])
        if d <= h:
            s += (h - d) * (h - d)
            n += 1
    out[i] = s
    counts[i] = n


def test_hash_grid_queries_on_the_device_match_the_cpu_bit_for_bit():
    """The device grid's build (on the device) gives the CPU build's tables, so each query visits the same
    candidates in the same order: float64 sums equal the CPU's."""
    rng = np.random.default_rng(31)
    xyz = rng.uniform(-3, 3, (20000, 3))
    results = {}
    for device in ("cpu", DEV):
        points = wp.array(xyz, dtype=wp.vec3d, device=device)
        grid = wp.HashGrid(32, 32, 32, device=device, dtype=wp.float64)
        grid.build(points, 0.25)
        out = wp.zeros(len(xyz), dtype=wp.float64, device=device)
        counts = wp.zeros(len(xyz), dtype=int, device=device)
        wp.launch(_hash_grid_sums, len(xyz), inputs=[grid.id, points, 0.25, out, counts], device=device)
        results[device] = (out.numpy(), counts.numpy())
    np.testing.assert_array_equal(results[DEV][1], results["cpu"][1])
    np.testing.assert_array_equal(results[DEV][0], results["cpu"][0])
    d = np.linalg.norm(xyz[:200, None] - xyz[None], axis=-1)
    np.testing.assert_array_equal(results["cpu"][1][:200], (d <= 0.25).sum(axis=1))


@wp.kernel
def _tiled_matmul_softmax(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(8, 8), dtype=float)
    for k in range(a.shape[1] // 8):
        ta = wp.tile_load(a, shape=(8, 8), offset=(i * 8, k * 8))
        tb = wp.tile_load(b, shape=(8, 8), offset=(k * 8, j * 8))
        wp.tile_matmul(ta, tb, acc)
    e = wp.tile_map(wp.exp, acc * 0.01)
    s = wp.tile_sum(e)
    wp.tile_store(c, e / s[0], offset=(i * 8, j * 8))


def test_tiled_kernels_on_the_device_match_the_cpu():
    """A tile is one thread's on a GPU too: the same loops, so the device computes the CPU's values (to the
    rounding of exp and of the fused multiply-adds NVRTC may form)."""
    rng = np.random.default_rng(5)
    a, b = rng.random((32, 24), dtype=np.float32), rng.random((24, 40), dtype=np.float32)
    results = {}
    for device in ("cpu", DEV):
        c = wp.zeros((32, 40), dtype=float, device=device)
        wp.launch_tiled(_tiled_matmul_softmax, dim=[4, 5], inputs=[wp.array(a, device=device),
                                                                   wp.array(b, device=device), c],
                        block_dim=64, device=device)
        results[device] = c.numpy()
    np.testing.assert_allclose(results[DEV], results["cpu"], rtol=1e-5)


def test_a_device_trees_refit_on_the_gpu_gives_the_cpu_trees_bounds():
    rng = np.random.default_rng(12)
    lo = rng.uniform(-5, 5, (20000, 3)).astype(np.float32)
    moved = lo + rng.uniform(-1, 1, lo.shape).astype(np.float32)
    moved[7, 1] = np.nan
    pts = rng.uniform(-1, 1, (500, 3)).astype(np.float32)
    tris = rng.integers(0, 500, (900, 3)).astype(np.int32).reshape(-1)

    def host(table):
        return np.frombuffer((table if isinstance(table, np.ndarray) else table.numpy()).tobytes(), np.float32)

    trees = {}
    for device in ("cpu", DEV):
        lowers = wp.array(lo, dtype=wp.vec3, device=device)
        bvh = wp.Bvh(lowers, wp.array(lo + 1, dtype=wp.vec3, device=device), leaf_size=2, constructor="median")
        lowers.assign(moved)
        bvh.refit()
        mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3, device=device), wp.array(tris, dtype=wp.int32, device=device),
                       bvh_constructor="median")
        mesh.points = wp.array(pts * 2, dtype=wp.vec3, device=device)
        trees[device] = [host(tree._storage.tables[name]) for tree in (bvh, mesh)
                         for name in ("node_lowers", "node_uppers", "item_lowers")]
    for cpu, gpu in zip(trees["cpu"], trees[DEV]):
        np.testing.assert_array_equal(gpu, cpu)


@wp.kernel
def _box_hits(bvh: wp.uint64, lowers: wp.array(dtype=wp.vec3), uppers: wp.array(dtype=wp.vec3),
              counts: wp.array(dtype=int), sums: wp.array(dtype=int)):
    i = wp.tid()
    for j in wp.bvh_query_aabb(bvh, lowers[i], uppers[i]):
        counts[i] += 1
        sums[i] += j


@wp.kernel
def _ray_faces(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
               faces: wp.array(dtype=int)):
    i = wp.tid()
    q = wp.mesh_query_ray(mesh, starts[i], dirs[i], 100.0)
    faces[i] = wp.where(q.result, q.face, -1)


def test_an_lbvh_built_on_the_gpu_is_the_cpus_and_answers_its_queries():
    rng = np.random.default_rng(13)
    lo = np.concatenate([rng.normal(size=(150000, 3)), np.zeros((5000, 3))]).astype(np.float32)  # many ties
    lo[11, 2] = np.nan
    moved = lo + rng.uniform(-0.1, 0.1, lo.shape).astype(np.float32)
    pts = rng.uniform(-1, 1, (5000, 3)).astype(np.float32)
    tris = rng.integers(0, 5000, (9000, 3)).astype(np.int32).reshape(-1)
    q_lo = rng.normal(size=(2000, 3)).astype(np.float32)
    starts = rng.uniform(-3, 3, (2000, 3)).astype(np.float32)
    dirs = rng.normal(size=(2000, 3)).astype(np.float32)
    results = {}
    for device in ("cpu", DEV):
        lowers = wp.array(lo, dtype=wp.vec3, device=device)
        bvh = wp.Bvh(lowers, wp.array(lo + 0.05, dtype=wp.vec3, device=device), leaf_size=4, constructor="lbvh")
        table = bvh._storage.tables["item_lowers"]
        got = [np.frombuffer(bvh._storage.tables[name].tobytes() if device == "cpu" else
                             bvh._storage.tables[name].numpy().tobytes(), np.int32)
               for name in ("node_lowers", "node_uppers", "node_parents", "primitive_indices")]
        got.append(np.array([bvh._tree.max_depth]))
        lowers.assign(moved)
        bvh.rebuild()
        assert bvh._storage.tables["item_lowers"] is table or device == "cpu"  # the same size: reused
        counts, sums = wp.zeros(2000, dtype=int, device=device), wp.zeros(2000, dtype=int, device=device)
        wp.launch(_box_hits, 2000, [bvh.id, wp.array(q_lo, dtype=wp.vec3, device=device),
                                     wp.array(q_lo + 0.3, dtype=wp.vec3, device=device), counts, sums], device=device)
        mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3, device=device), wp.array(tris, dtype=wp.int32, device=device),
                       bvh_constructor="lbvh")
        faces = wp.zeros(2000, dtype=int, device=device)
        wp.launch(_ray_faces, 2000, [mesh.id, wp.array(starts, dtype=wp.vec3, device=device),
                                      wp.array(dirs, dtype=wp.vec3, device=device), faces], device=device)
        results[device] = got + [counts.numpy(), sums.numpy(), faces.numpy()]
    assert results["cpu"][-3].sum() > 0
    for cpu, gpu in zip(results["cpu"], results[DEV]):
        np.testing.assert_array_equal(gpu, cpu)


def test_sorts_one_after_another_reuse_their_work_memory_and_sort_as_numpy():
    """radix_sort_pairs keeps its work arrays between calls (runtime/device_scratch.py): sorts of several counts and
    key widths launched back to back, without waiting in between, each give numpy's stable order."""
    from brickwork.utils import radix_sort_pairs

    rng = np.random.default_rng(11)
    cases = []
    for n, dtype in ((5000, np.int32), (300, np.int32), (7000, np.float64), (5000, np.uint64), (1, np.int32)):
        keys = (rng.integers(-50, 50, 2 * n) * (1 + rng.random(2 * n) * (dtype == np.float64))).astype(dtype)
        values = np.arange(2 * n, dtype=np.int64 if np.dtype(dtype).itemsize == 8 else np.int32)
        k, v = wp.array(keys, device=DEV), wp.array(values, device=DEV)
        radix_sort_pairs(k, v, n)
        cases.append((keys, values, n, k, v))
    for keys, values, n, k, v in cases:
        order = np.argsort(keys[:n], kind="stable")
        np.testing.assert_array_equal(k.numpy()[:n], keys[:n][order])
        np.testing.assert_array_equal(v.numpy()[:n], values[:n][order])
        np.testing.assert_array_equal(v.numpy()[n:], values[n:])

"""Plain kernels on the emulation target ("cuda-emulation"): one thread per launch point in blocks of 256,
the last block guarded. A sample of the kernel-language tests re-run there, and the mapping's own
edges (launch sizes around the block size, 1 to 4 launch dimensions, early returns, assigned
parameters, the same kernel on both targets)."""

import importlib
import inspect

import numpy as np
import pytest

import brickwork as wp
from brickwork import config

EMULATION = dict(target="cuda-emulation")
SAMPLED = ["test_warp_wrong_results", "test_atomic_types", "test_generics_seed", "test_warp_vector_extras"]


def _sample():
    out = []
    for name in SAMPLED:
        module = importlib.import_module(f"lang.{name}")
        for attr, fn in sorted(vars(module).items()):
            if attr.startswith("test_") and inspect.isfunction(fn) and not inspect.signature(fn).parameters \
                    and not hasattr(fn, "pytestmark"):
                out.append(pytest.param(fn, id=f"{name}.{attr}"))
    return out


@pytest.mark.parametrize("test", _sample())
def test_kernel_language_sample(test):
    with config.override(**EMULATION):
        test()


@wp.kernel
def fill4(a: wp.array4d(dtype=wp.int32), base: wp.int32):
    b, k, j, i = wp.tid()
    if i == 1 and j == 0:
        return  # an early return of one thread
    base = base + b  # an assigned parameter: each thread's own copy
    a[b, k, j, i] = base * 1000 + k * 100 + j * 10 + i


@wp.kernel
def count(n: wp.array(dtype=wp.int32), hits: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_add(hits, 0, 1)
    n[i] = i * 3


@pytest.mark.parametrize("size", [1, 255, 256, 257, 1000, 1023, 1024, 1025, 3001])
def test_every_launch_point_runs_once(size):
    """The guard of the last block (a block runs 4 x 256 points of this short body, the last thread's
    points up to the end): exactly ``size`` points write, each its own."""
    n = wp.zeros(size + 300, dtype=wp.int32)
    hits = wp.zeros(1, dtype=wp.int32)
    with config.override(**EMULATION):
        wp.launch(count, dim=size, inputs=[n, hits])
    assert hits.numpy()[0] == size
    np.testing.assert_array_equal(n.numpy()[:size], 3 * np.arange(size))
    assert not n.numpy()[size:].any()


@wp.kernel
def guarded_reads(x: wp.array(dtype=float), y: wp.array(dtype=float), flags: wp.array(dtype=wp.int32),
                  z: wp.array(dtype=float)):
    i = wp.tid()
    n = x.shape[0]
    # the reads under a condition must stay under it (x[i + 1] is out of bounds at the last point)
    y[i] = x[i] + (x[i + 1] if i + 1 < n else 100.0) + wp.float32(flags[i] != 0)
    z[i] = y[i] * 2.0  # a store that reads the point's first store: after it, in each point's order


@pytest.mark.parametrize("size", [5, 1024, 2500])
def test_points_interleaved_in_a_thread_keep_each_points_order_and_conditions(size):
    from brickwork import pipeline

    _, meta = pipeline.generate(guarded_reads, guarded_reads.concrete_types(), "g", pipeline.target_named("cuda-emulation"))
    assert meta["gpu_launch"]["per_thread"] == 4
    rng = np.random.default_rng(size)
    x0 = rng.normal(size=size).astype(np.float32)
    flags0 = (rng.random(size) < 0.5).astype(np.int32)
    x, y, flags = wp.array(x0, dtype=float), wp.zeros(size, dtype=float), wp.array(flags0, dtype=wp.int32)
    z = wp.zeros(size, dtype=float)
    with config.override(**EMULATION, mode="debug"):  # bounds-checked
        wp.launch(guarded_reads, dim=size, inputs=[x, y, flags, z])
    nxt = np.append(x0[1:], np.float32(100.0))
    want = x0 + nxt + (flags0 != 0).astype(np.float32)
    np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(z.numpy(), want * np.float32(2.0))


@wp.func
def _steps_to_one(n: int):
    steps = 0
    while n != 1:  # a loop: inlined into each point's copy, it would be one more copy for NVRTC
        n = wp.where(n % 2 == 0, n // 2, 3 * n + 1)
        steps += 1
    return steps


@wp.kernel
def collatz_steps(n: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = _steps_to_one(n[i])


@wp.kernel
def curl_of(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.curlnoise(wp.rand_init(3), p[i])


def test_a_short_body_calling_a_loop_or_a_long_builtin_runs_one_point_per_thread():
    """A call counts as what it runs: a @func with a loop, or a builtin whose runtime function is long (noise, a
    tree walk), makes the body long, so it runs one point per thread (four copies of the call were four inlined
    loops for NVRTC); the values are the CPU's."""
    from brickwork import pipeline

    target = pipeline.target_named("cuda-emulation")
    for k in (collatz_steps, curl_of):
        _, meta = pipeline.generate(k, k.concrete_types(), "one", target)
        assert "per_thread" not in meta["gpu_launch"], k.key
    n0 = np.arange(1, 1201, dtype=np.int32)
    got = {}
    for t in ("cpu", "cuda-emulation"):
        out = wp.zeros(len(n0), dtype=wp.int32)
        with config.override(target=t):
            wp.launch(collatz_steps, dim=len(n0), inputs=[wp.array(n0, dtype=wp.int32), out])
        got[t] = out.numpy()

    def steps(n):
        s = 0
        while n != 1:
            n, s = (n // 2 if n % 2 == 0 else 3 * n + 1), s + 1
        return s

    np.testing.assert_array_equal(got["cuda-emulation"], [steps(int(v)) for v in n0])
    np.testing.assert_array_equal(got["cpu"], got["cuda-emulation"])


def test_four_dimensional_launch_matches_the_cpu():
    shape = (2, 3, 4, 5)
    got = {}
    for target in ("cpu", "cuda-emulation"):
        a = wp.full(shape, -1, dtype=wp.int32)
        with config.override(target=target):
            wp.launch(fill4, dim=shape, inputs=[a, 7])
        got[target] = a.numpy()
    b, k, j, i = np.indices(shape)
    want = np.where((i == 1) & (j == 0), -1, (7 + b) * 1000 + k * 100 + j * 10 + i)
    np.testing.assert_array_equal(got["cuda-emulation"], want)
    np.testing.assert_array_equal(got["cpu"], want)


@wp.kernel
def fill4_hits(a: wp.array4d(dtype=wp.int32), hits: wp.array4d(dtype=wp.int32)):
    b, k, j, i = wp.tid()
    wp.atomic_add(hits, b, k, j, i, 1)
    a[b, k, j, i] = b * 1000000 + k * 10000 + j * 100 + i


@wp.kernel
def fill3_hits(a: wp.array3d(dtype=wp.int32), hits: wp.array3d(dtype=wp.int32)):
    k, j, i = wp.tid()
    wp.atomic_add(hits, k, j, i, 1)
    a[k, j, i] = k * 10000 + j * 100 + i


@wp.kernel
def fill2_hits(a: wp.array2d(dtype=wp.int32), hits: wp.array2d(dtype=wp.int32)):
    j, i = wp.tid()
    wp.atomic_add(hits, j, i, 1)
    a[j, i] = j * 1000 + i


@pytest.mark.parametrize("shape", [(16, 64), (30, 64), (7, 8, 96), (8, 32, 120), (1, 16, 64), (2, 3, 4, 64),
                                   (3, 4, 8, 32), (3, 300), (4, 31), (70, 33), (5, 7, 40), (2, 3, 5, 33), (2, 2, 2, 8)])
def test_tiled_launches_run_every_point_once(shape):
    """Launches of 2+ dimensions with a last extent of 32 or more run in tiles of 32 x 8 or 32 x 4 x 2
    threads where the tiles are at least three quarters full (partial tiles at the edges: (30, 64) in y,
    (7, 8, 96) in z, (8, 32, 120) in x), others in rows of 256 points: either way each point once."""
    from brickwork.targets.cuda.geometry import point_tiles

    kernel = {2: fill2_hits, 3: fill3_hits, 4: fill4_hits}[len(shape)]
    a, hits = wp.full(shape, -1, dtype=wp.int32), wp.zeros(shape, dtype=wp.int32)
    with config.override(**EMULATION):
        wp.launch(kernel, dim=shape, inputs=[a, hits])
    np.testing.assert_array_equal(hits.numpy(), 1)
    scale = {2: (1000, 1), 3: (10000, 100, 1), 4: (1000000, 10000, 100, 1)}[len(shape)]
    want = sum(s * c for s, c in zip(scale, np.indices(shape)))
    np.testing.assert_array_equal(a.numpy(), want)
    assert (point_tiles(shape, 256) is None) == (shape in ((3, 300), (4, 31), (70, 33), (5, 7, 40), (2, 3, 5, 33),
                                                           (2, 2, 2, 8)))


def test_point_tiles_cover_the_launch_with_blocks_of_256_threads():
    from brickwork.targets.cuda.geometry import point_tiles

    assert point_tiles((300,), 256) is None  # one dimension: rows of 256 points
    assert point_tiles((3, 31), 256) is None  # narrower than a warp: rows of 256 points
    assert point_tiles((1024, 1024), 256) == ((32, 128, 1), (32, 8, 1))
    assert point_tiles((512, 512, 512), 256) == ((16, 128, 256), (32, 4, 2))  # the hand-written stencil's blocks
    assert point_tiles((1, 16, 64), 256) == ((2, 2, 1), (32, 8, 1))  # one plane: no depth to the tile
    assert point_tiles((2, 3, 4, 64), 256) == ((2, 1, 4), (32, 4, 2))  # z: 2 leading x 2 tiles of depth 2
    assert point_tiles((3, 300), 256) is None  # 3 of the tile's 8 rows: most threads would idle
    assert point_tiles((64, 33), 256) is None  # 33 of 64 columns
    assert point_tiles((8, 65536 * 8, 32), 256) is None  # y beyond CUDA's 65535 blocks
    assert point_tiles((2**17 * 2, 4, 32), 256) is None  # z beyond it
    assert point_tiles((2, 2**30), 256) is None  # a coordinate of the last tile would pass int32


def test_the_emulation_tiles_a_launch_as_the_cuda_host_does(tmp_path):
    """The emulation's C++ copy of ``point_tiles`` gives Python's geometry for every shape tried."""
    import itertools
    import subprocess

    from brickwork.jit.toolchain import _find_compiler
    from brickwork.targets.cuda.geometry import POINT_TILES_CPP, point_tiles

    extents = [1, 2, 3, 31, 32, 33, 64, 300, 65535 * 4, 65536 * 8]
    shapes = [s for nd in (1, 2, 3, 4) for s in itertools.product(extents[:4] + extents[6:8], repeat=nd)]
    shapes += [(8, 65536 * 8, 32), (65535 * 2, 4, 32), (65536 * 2, 4, 32), (2, 2**30), (2, 2**30 - 1), (3, 65535 * 8, 40),
               (16, 64), (30, 64), (7, 8, 96), (8, 32, 120), (2, 3, 4, 64), (1024, 1024)]
    main = ["#include <cstdint>", "#include <cstdio>", POINT_TILES_CPP, "int main() {"]
    for shape in shapes:
        n = ", ".join(f"{x}LL" for x in shape)
        main += [f"    {{ const int64_t n[] = {{{n}}}; tiles t{{}};",
                 f"      if (point_tiles(n, {len(shape)}, 256, t)) std::printf(\"%lld %lld %lld %d %d %d\\n\", "
                 "(long long)t.grid[0], (long long)t.grid[1], (long long)t.grid[2], t.block[0], t.block[1], t.block[2]);",
                 "      else std::printf(\"none\\n\"); }"]
    (tmp_path / "tiles.cpp").write_text("\n".join(main + ["}"]) + "\n")
    subprocess.run([_find_compiler(), "-O1", "-o", str(tmp_path / "tiles"), str(tmp_path / "tiles.cpp")], check=True)
    got = subprocess.run([str(tmp_path / "tiles")], capture_output=True, text=True, check=True).stdout.splitlines()
    want = ["none" if (t := point_tiles(s, 256)) is None else " ".join(map(str, t[0] + t[1])) for s in shapes]
    assert got == want and "none" in want and len(set(want)) > 10


@wp.kernel
def fill4_wide(a: wp.array4d(dtype=wp.int32), base: wp.int32):  # fill4, built with the 64-bit decode below
    b, k, j, i = wp.tid()
    if i == 1 and j == 0:
        return
    base = base + b
    a[b, k, j, i] = base * 1000 + k * 100 + j * 10 + i


def test_the_64_bit_decode_of_large_launches_finds_the_same_points(monkeypatch):
    """Launches of 2^31 points or more decode the thread index in 64-bit arithmetic (below, 32-bit
    unsigned): with the threshold lowered to one point the 64-bit branch runs, with the same result."""
    from brickwork.passes import gpu_grid

    monkeypatch.setattr(gpu_grid, "NARROW_POINTS", 1)
    shape = (2, 3, 4, 5)
    a = wp.full(shape, -1, dtype=wp.int32)
    with config.override(**EMULATION):
        wp.launch(fill4_wide, dim=shape, inputs=[a, 7])
    b, k, j, i = np.indices(shape)
    np.testing.assert_array_equal(a.numpy(), np.where((i == 1) & (j == 0), -1, (7 + b) * 1000 + k * 100 + j * 10 + i))
    from brickwork import pipeline

    text, _ = pipeline.generate(fill4_wide, fill4_wide.concrete_types(), "fill4_wide",
                                pipeline.target_named("cuda-emulation"))
    assert "(int64_t)(n3)), int64_t(1LL)))) {" in text  # the branch tests the lowered threshold


def test_meta_records_the_launch_geometry():
    """The instance metadata says how a GPU launches it (docs/architecture.md)."""
    from brickwork import pipeline

    _, meta = pipeline.generate(count, count.concrete_types(), "count", pipeline.target_named("cuda-emulation"))
    assert meta["gpu_launch"] == {"grid": "points", "block": 256, "shared_bytes": 0, "arena": None, "per_thread": 4}
    _, meta = pipeline.generate(fill4, fill4.concrete_types(), "fill4", pipeline.target_named("cuda-emulation"))
    assert meta["gpu_launch"] == {"grid": "points", "block": 256, "shared_bytes": 0, "arena": None, "tiles": True}
    _, meta = pipeline.generate(count, count.concrete_types(), "count", pipeline.target_named("cpu"))
    assert "gpu_launch" not in meta


def test_unknown_target_is_rejected():
    from brickwork import pipeline

    with pytest.raises(ValueError, match="unknown target 'cuda-x'"):
        pipeline.target_named("cuda-x")


def test_bounds_checks_on_emulation():
    """Debug mode works on the emulation target: an out-of-bounds write of one thread raises after the launch."""
    n = wp.zeros(10, dtype=wp.int32)
    hits = wp.zeros(1, dtype=wp.int32)
    with config.override(mode="debug", **EMULATION), pytest.raises(wp.BoundsError, match=r"index \(10\) is out of bounds for shape \(10\)"):
        wp.launch(count, dim=11, inputs=[n, hits])


@pytest.mark.parametrize("value,ok", [("cuda-emulation", True), ("CPU", True), ("cuda", False), ("gpu", False)])
def test_brickwork_target_environment_variable(monkeypatch, value, ok):
    monkeypatch.setenv("BRICKWORK_TARGET", value)
    if ok:
        assert config._env_target("BRICKWORK_TARGET") == value.lower()
    else:
        with pytest.raises(ValueError, match=f"BRICKWORK_TARGET='{value}' must be one of cpu, cuda-emulation"):
            config._env_target("BRICKWORK_TARGET")

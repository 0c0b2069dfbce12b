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


@pytest.mark.parametrize("size", [1, 255, 256, 257, 1000])
def test_every_launch_point_runs_once(size):
    """The guard of the last block: exactly ``size`` threads write, each its own point."""
    n = wp.zeros(size + 300, dtype=wp.int32)
    hits = wp.zeros(1, dtype=wp.int32)
    with config.override(**EMULATION):
        wp.launch(count, dim=size, inputs=[n, hits])
    assert hits.numpy()[0] == size
    np.testing.assert_array_equal(n.numpy()[:size], 3 * np.arange(size))
    assert not n.numpy()[size:].any()


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
    assert meta["gpu_launch"] == {"grid": "points", "block": 256, "shared_bytes": 0, "arena": None}
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

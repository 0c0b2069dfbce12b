"""Small instances share compiler runs (``jit.batch``), each still its own cache entry."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, pipeline
from brickwork.errors import ToolchainError
from brickwork.jit import batch, cache
from brickwork.jit import compile as jit
from brickwork.lang.instance import describe_types


@wp.kernel
def scale(x: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    x[i] = s * x[i]


@wp.kernel
def shift_left(x: wp.array(dtype=wp.int32)):
    i = wp.tid()
    x[i] = x[i + 1]


def _job(kernel, types, mode="release"):
    label = f"{kernel.key}[{describe_types(types)}]"
    text, meta = pipeline.generate(kernel, types, label, mode=mode)
    key = pipeline.cache_key(pipeline.key_parts(kernel, types, mode))
    return key, text, label, dict(meta, mode=mode)


def test_combine_gives_each_unit_its_namespace_and_entry_points():
    a = '#include "brickwork.h"\nnamespace {\nstruct S { int v; };\n}\nextern "C" BW_EXPORT int bw_entry(const char* b) { return 0; }\n'
    b = a.replace("int v;", "double v;") + 'extern "C" BW_EXPORT int bw_bounds_error(char* t, int n) { return 0; }\n'
    text, symbols = batch.combine([a, b])
    assert symbols == [{"bw_entry": "bw_entry_b0"}, {"bw_entry": "bw_entry_b1", "bw_bounds_error": "bw_bounds_error_b1"}]
    assert text.count('#include "brickwork.h"') == 1 and text.startswith('#include "brickwork.h"')
    assert "namespace bw_batch_0 {" in text and "namespace bw_batch_1 {" in text
    assert "#define bw_entry bw_entry_b1" in text and "#undef bw_bounds_error" in text


@pytest.mark.parametrize(("sizes", "workers", "most"), [
    ([100] * 10, 2, 8), ([100] * 20, 2, 8), ([50_000, 100, 100, 100], 2, 8), ([100] * 3, 4, 8), ([100] * 5, 2, 1),
])
def test_groups_cover_every_job_once_within_the_limits(sizes, workers, most):
    groups = batch.groups(sizes, workers, most)
    assert sorted(i for g in groups for i in g) == list(range(len(sizes)))
    assert all(len(g) <= most for g in groups)
    assert all(len(g) == 1 for g in groups if any(sizes[i] >= batch.LARGE_UNIT for i in g))
    small = [g for g in groups if all(sizes[i] < batch.LARGE_UNIT for i in g)]
    assert len(small) >= min(workers, sum(s < batch.LARGE_UNIT for s in sizes))  # the workers all get a share


def test_a_batch_publishes_one_entry_per_instance_that_runs_like_a_lone_build(root):
    types = [wp.float16, wp.float32, wp.float64]
    jobs = [_job(scale, [wp.array(dtype=T), T]) for T in types]
    before = jit.compiler_calls
    with config.override(compile_batch=8, compile_jobs=2):
        results = jit.compile_many(jobs)
    assert jit.compiler_calls - before == 2  # three small instances over the two groups of two workers
    target = pipeline.current_target()
    for (key, text, label, _), (path, meta), T in zip(jobs, results, types):
        entry_lib = cache.lookup(key)[0]
        assert os.path.samefile(path, entry_lib)  # the entry's library, under a pinned name (cache.pin)
        assert meta.get("batch", 1) in (1, 2) and meta["label"] == label
        with open(os.path.join(os.path.dirname(entry_lib), "kernel.cpp")) as f:
            assert f.read() == text  # each entry keeps its own source
        with open(os.path.join(os.path.dirname(entry_lib), "meta.json")) as f:
            assert json.load(f)["sha256"] == hashlib.sha256(open(path, "rb").read()).hexdigest()
        entry = target.load(path, meta)
        assert entry is not None
    # and through the public API (a fresh instance table finds these entries)
    for T in types:
        x = wp.array([1, 2, 3], dtype=T)
        wp.launch(scale, dim=3, inputs=[x, T(3)])
        assert x.numpy().tolist() == [3, 6, 9]


def test_a_unit_that_does_not_compile_leaves_its_error_with_its_own_instance(root):
    good = _job(scale, [wp.array(dtype=wp.float32), wp.float32])
    bad = (hashlib.sha256(b"bad").hexdigest()[:40], "this is not C++;\n", "broken", {"tid_dims": 1})
    before = jit.compiler_calls
    # (no precompiled header: against one, a failing unit is compiled once more without it)
    with config.override(compile_batch=8, compile_jobs=1, pch=False):
        ok, err = jit.compile_many([good, bad])
    assert jit.compiler_calls - before == 3  # the batch, then each alone
    assert isinstance(err, ToolchainError) and "broken" in str(err) and "scale" not in str(err)
    path, meta = ok
    assert "batch" not in meta and os.path.exists(path)


def test_debug_mode_bounds_errors_name_their_kernel_from_a_batch(root):
    with config.override(mode="debug", compile_batch=8, compile_jobs=1):
        wp.overload(scale, [wp.array(dtype=wp.float64), wp.float64])
        wp.overload(shift_left, [wp.array(dtype=wp.int32)])
        x = wp.array(np.arange(4, dtype=np.int32), dtype=wp.int32)
        with pytest.raises(wp.BoundsError, match=r"kernel 'shift_left': index \(4\) is out of bounds"):
            wp.launch(shift_left, dim=4, inputs=[x])
        y = wp.array(np.ones(3), dtype=wp.float64)
        wp.launch(scale, dim=3, inputs=[y, wp.float64(2.0)])
        assert y.numpy().tolist() == [2.0, 2.0, 2.0]


def test_an_unsafe_entry_fails_its_own_job_only(root):
    from brickwork.jit.cache import UnsafeCacheError

    good = _job(scale, [wp.array(dtype=wp.float32), wp.float32])
    other = _job(scale, [wp.array(dtype=wp.float64), wp.float64])
    planted = root / other[0][:2] / other[0]
    planted.mkdir(parents=True)
    os.chmod(root, 0o700)
    os.chmod(planted, 0o777)  # writable by others: never loaded
    with config.override(compile_batch=8, compile_jobs=1):
        ok, err = jit.compile_many([good, other])
    assert isinstance(err, UnsafeCacheError) and other[0] in str(err)
    path, _ = ok
    assert os.path.exists(path)


def test_a_job_whose_key_another_process_locks_waits_for_it_outside_the_batch(root):
    """Two processes building the same module both compiled every kernel of it (a batch took no key lock);
    now a batch locks its keys without waiting, and a job whose lock is held waits for that build alone."""
    import threading
    import time

    jobs = [_job(scale, [wp.array(dtype=T), T]) for T in (wp.float16, wp.float32, wp.float64)]
    cache.ensure_root(str(root))
    held = cache.try_key_lock(jobs[1][0])  # as another process building float32's instance
    assert held is not None and cache.try_key_lock(jobs[1][0]) is None
    before = jit.compiler_calls
    results: list = []
    with config.override(compile_batch=8, compile_jobs=1):
        worker = threading.Thread(target=lambda: results.extend(jit.compile_many(jobs)), daemon=True)
        worker.start()
        try:
            deadline = time.monotonic() + 120
            while (cache.lookup(jobs[0][0]) is None or cache.lookup(jobs[2][0]) is None) and \
                    time.monotonic() < deadline:
                time.sleep(0.05)
            assert cache.lookup(jobs[0][0])[1]["batch"] == 2  # the other two, in one run
            time.sleep(0.2)
            assert worker.is_alive() and cache.lookup(jobs[1][0]) is None  # float32's waits for the lock
        finally:
            cache.unlock_key(held)
            worker.join(120)
    assert not worker.is_alive() and jit.compiler_calls - before == 2
    assert [os.path.exists(r[0]) for r in results] == [True, True, True]
    assert "batch" not in cache.lookup(jobs[1][0])[1]  # built alone once the lock was free

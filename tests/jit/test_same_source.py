"""Instances with the same generated source share one compiler run (``jit.same_source``)."""

from __future__ import annotations

import hashlib
import logging
import os
from typing import Any

import pytest

import brickwork as wp
from brickwork import config, pipeline
from brickwork.jit import cache, same_source
from brickwork.jit import compile as jit
from brickwork.lang.instance import describe_types

from .conftest import TRIVIAL, new_process


@wp.kernel
def triple(x: wp.array(dtype=Any)):
    i = wp.tid()
    x[i] = x[i] * x.dtype(3)


@wp.kernel
def triple_again(x: wp.array(dtype=Any)):  # a kernel of its own, not yet loaded by another test
    i = wp.tid()
    x[i] = x[i] * x.dtype(3)


def _key(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:40]


def _job(types, key: str | None = None, kernel=triple):
    label = f"{kernel.key}[{describe_types([types[0].dtype])}]"  # as a launch labels it
    text, meta = pipeline.generate(kernel, types, label)
    real = pipeline.cache_key(pipeline.key_parts(kernel, types, "release"))
    return key or real, text, label, dict(meta, mode="release")


def _index(root, source: str):
    return root / "by-source" / same_source.digest(jit.settings().identity(), source)


def test_an_instance_with_the_source_of_an_entry_copies_its_library_and_runs(root, caplog):
    types = [wp.array(dtype=wp.float32)]
    key, text, label, meta = _job(types)
    other = _key("the same source under another key")
    before = jit.compiler_calls
    jit.build(other, text, label, meta)
    assert jit.compiler_calls == before + 1
    x = wp.array([1, 2, 3], dtype=wp.float32)
    with caplog.at_level(logging.INFO, logger="brickwork"):
        wp.launch(triple, dim=3, inputs=[x])  # its own key misses: a copy, no compiler run
    assert jit.compiler_calls == before + 1
    assert [r.getMessage() for r in caplog.records if r.name == "brickwork"] == [
        "triple[float32] for cpu: same code as a built instance, its library reused (no compiler run)"]
    assert x.numpy().tolist() == [3, 6, 9]
    path, found = cache.lookup(key)
    assert found["same_source_as"] == other and found["compile_seconds"] == 0.0
    with open(path, "rb") as f, open(cache.lookup(other)[0], "rb") as g:
        assert f.read() == g.read()
    with open(os.path.join(os.path.dirname(path), cache.SOURCE)) as f:
        assert f.read() == text


def test_an_entry_of_a_batch_lends_its_library_with_its_renamed_entry_points(root):
    types = [[wp.array(dtype=T)] for T in (wp.float16, wp.float32, wp.float64)]
    jobs = [_job(t, _key(f"batch {n}"), triple_again) for n, t in enumerate(types)]
    with config.override(compile_batch=8, compile_jobs=1):
        jit.compile_many(jobs)
    assert all(cache.lookup(job[0])[1].get("batch") == 3 for job in jobs)
    before = jit.compiler_calls
    for T in (wp.float16, wp.float32, wp.float64):
        x = wp.array([1, 2, 3], dtype=T)
        wp.launch(triple_again, dim=3, inputs=[x])
        assert x.numpy().tolist() == [3, 6, 9]
    assert jit.compiler_calls == before
    for job, t in zip(jobs, types):
        found = cache.lookup(_job(t, kernel=triple_again)[0])[1]
        assert found["same_source_as"] == job[0] and found["symbols"] == cache.lookup(job[0])[1]["symbols"]


def test_jobs_of_one_call_with_the_same_source_make_one_compiler_run(root):
    _, text, label, meta = _job([wp.array(dtype=wp.float64)])
    keys = [_key(f"twin {n}") for n in range(3)]
    before = jit.compiler_calls
    with config.override(compile_batch=8, compile_jobs=2):
        results = jit.compile_many([(k, text, label, meta) for k in keys])
    assert jit.compiler_calls == before + 1
    metas = [meta for _, meta in results]
    assert all(os.path.samefile(path, cache.lookup(k)[0]) for (path, _), k in zip(results, keys))
    assert "same_source_as" not in metas[0] and [m["same_source_as"] for m in metas[1:]] == keys[:1] * 2
    assert len({m["sha256"] for m in metas}) == 1


@pytest.mark.parametrize("damage", ["missing entry", "not a key", "corrupt library"])
def test_a_stale_or_damaged_index_costs_one_compiler_run(quick_build, root, damage):
    first = _key("first")
    quick_build(first)
    index = _index(root, TRIVIAL)
    if damage == "missing entry":
        index.write_text(_key("never built"))
    elif damage == "not a key":
        index.write_text("../../elsewhere")
    else:
        lib = root / first[:2] / first / cache.LIBRARY
        lib.write_bytes(lib.read_bytes() + b"\0")
    new_process()
    second = _key("second")
    before = jit.compiler_calls
    path, meta = quick_build(second)
    assert jit.compiler_calls == before + 1 and "same_source_as" not in meta
    assert index.read_text() == second  # the index now names the entry just built
    assert cache.lookup(second) == (path, meta)


def test_an_index_others_can_write_is_refused_and_nothing_is_published(quick_build, root):
    quick_build(_key("first"))
    os.chmod(root / "by-source", 0o777)
    new_process()
    second = _key("second")
    with pytest.raises(cache.UnsafeCacheError, match=f"entry {root / 'by-source'}: it is writable by group"):
        quick_build(second)
    assert cache.lookup(second) is None
    assert not [n for n in os.listdir(root) if n.startswith(".build-")]


def test_the_source_digest_covers_the_compiler_and_the_source():
    a = same_source.digest("g++ -O3", TRIVIAL)
    assert a == same_source.digest("g++ -O3", TRIVIAL)
    assert a != same_source.digest("g++ -O2", TRIVIAL)
    assert a != same_source.digest("g++ -O3", TRIVIAL + "\n")


def test_clearing_the_cache_removes_the_index(quick_build, root):
    quick_build(_key("first"))
    assert (root / "by-source").is_dir()
    assert cache.clear() == 1
    assert not root.exists()

"""Large units start compiling while the rest of a build is generated (``jit.early``), and a loop body can be
expected ahead of its first call (``la.outer.expect``), so that it compiles with the first kernel that does."""

from __future__ import annotations

import importlib
import threading

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, la
from brickwork.errors import LaunchError
from brickwork.jit import batch
from brickwork.jit import compile as jit
from brickwork.jit.early import EarlyCompiles

la_outer = importlib.import_module("brickwork.la.outer")  # la.outer is also the function's name


def _job(label: str, source: str) -> tuple:
    return (f"key-{label}", source, label, {})


def test_a_large_unit_compiles_before_the_build_finishes_and_the_small_ones_share_one_call():
    big_started = threading.Event()
    calls = []

    def compile_many(jobs):
        calls.append([job[2] for job in jobs])
        if jobs[0][2] == "big":
            big_started.set()
        return [(f"lib-{job[2]}", {"label": job[2]}) for job in jobs]

    early = EarlyCompiles(compile_many)
    large = "x" * batch.LARGE_UNIT
    jobs = [_job("big", large), _job("small", "int a;"), _job("same", large), _job("tiny", "int b;")]
    early.offer(0, jobs[0])
    assert big_started.wait(30)  # started at its offer, while the others are still to be generated
    for n, job in enumerate(jobs[1:], 1):
        early.offer(n, job)
    results = early.finish(jobs)
    assert results == [(f"lib-{job[2]}", {"label": job[2]}) for job in jobs]
    # the unit of the same text as the early one: after it (a copy of its library), not side by side
    assert calls == [["big"], ["small", "tiny"], ["same"]]
    assert early.pool is None  # its threads are gone


def test_a_build_of_one_instance_starts_nothing_early():
    calls = []
    early = EarlyCompiles(lambda jobs: calls.append(len(jobs)) or [("lib", {})] * len(jobs), enabled=False)
    job = _job("big", "x" * batch.LARGE_UNIT)
    early.offer(0, job)
    assert early.pool is None and calls == []
    assert early.finish([job]) == [("lib", {})] and calls == [1]


def _space():
    return la.IndexSpace.box(la.bvoi, la.logical_flat, 1, 2, 2, 2, 1)  # one block, 2x2x2 cells, M 4x4x4


def _adding(out, amount: float):
    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = out[b, k, j, i] + amount
    return body


def test_an_expected_body_is_built_with_the_next_kernel_that_compiles(root):
    out = wp.zeros((1, 4, 4, 4), dtype=wp.float32)
    space = _space()
    first, second = _adding(out, 1.0), _adding(out, 10.0)  # one code, two compile-time values: two kernels
    la_outer.expect(space, second)
    before = jit.compiler_calls
    la.outer(space, first)
    built = jit.compiler_calls
    assert built > before
    la.outer(space, second)
    assert jit.compiler_calls == built  # built with the first (side by side), loaded already
    inside = np.zeros((4, 4, 4), dtype=np.float32)
    inside[1:3, 1:3, 1:3] = 11.0
    np.testing.assert_array_equal(out.numpy()[0], inside)


def test_expecting_a_body_with_module_builds_off_builds_nothing_ahead(root, monkeypatch):
    monkeypatch.setattr(config, "compile_module", False)
    out = wp.zeros((1, 4, 4, 4), dtype=wp.float32)
    space = _space()
    first, second = _adding(out, 2.0), _adding(out, 20.0)
    la_outer.expect(space, second)
    before = jit.compiler_calls
    la.outer(space, first)
    la.outer(space, second)
    assert jit.compiler_calls == before + 2
    assert out.numpy()[0, 1, 1, 1] == 22.0 and out.numpy()[0, 0, 0, 0] == 0.0


def test_expecting_a_body_checks_the_space_as_outer_does(root):
    out = wp.zeros((1, 4, 4, 4), dtype=wp.float32)
    with pytest.raises(LaunchError, match="la.outer needs an la.IndexSpace, got str"):
        la_outer.expect("blocks", _adding(out, 1.0))
    assert not out.numpy().any()


def test_a_body_s_key_covers_its_captured_values_types_not_their_values():
    """A captured runtime value is a launch argument: the hydro stage's key held the time step it reads from a
    captured vector, so its key at its first launch differed from the one it was expected (built) under, and a
    warm run with another first time step missed the cache."""
    from brickwork.targets import keys
    from brickwork.types.generic import type_of_value

    coef = wp.vec3d(1.0, 2.0, 3.0)
    out = wp.zeros((1, 4, 4, 4), dtype=wp.float64)

    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = coef[0] * coef[1]

    kernel = la_outer._prepared(_space(), body, "outer", False)[0]
    inst = kernel.get_instance(tuple(type_of_value(v) for v in kernel.captured()))

    def key():
        return keys.cache_key(keys.key_parts(kernel, inst.arg_types, inst.mode, inst.target_object()))

    first = key()
    coef = wp.vec3d(4.0, 5.0, 6.0)
    assert key() == first
    assert kernel.captured()[0] == wp.vec3d(4.0, 5.0, 6.0)  # the value the next launch passes

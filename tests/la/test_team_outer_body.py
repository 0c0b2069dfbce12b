"""What a team's outer body (outside ``la.inner`` / ``par_for_inner``) does once per team on the CPU, on the
GPU mapping (the emulation target) too: a fixed-size local array it fills is the thread's own, so every
thread fills it (it was filled on thread 0 only and read as zeros elsewhere); a value an atomic or a
memory-writing function gives is taken by thread 0 and shared (it ran on every thread); in a condition or
loop bound it is refused on GPU targets. ``continue`` in an inner loop ends the visit on every tag pair; ``break`` is
refused (it failed in the C++ compiler)."""

from __future__ import annotations

import la_model as M
import numpy as np
import pytest

import brickwork as wp
from brickwork import config, la

TARGETS = ["cpu", "cuda-emulation"]
pytestmark = pytest.mark.compiles_for_cuda
NB, N, NG = 2, 4, 1
SHAPE = (NB, N + 2 * NG, N + 2 * NG, N + 2 * NG)


def _space(lt=la.bvoi, it=la.logical_coords):
    return la.IndexSpace.box(lt, it, NB, N, N, N, NG, backend=la.team)


def _interior(a):
    return a[:, NG:-NG, NG:-NG, NG:-NG]


@pytest.mark.parametrize("target", TARGETS)
def test_a_local_array_filled_in_the_outer_body_is_every_threads(target):
    out = wp.zeros(SHAPE, dtype=wp.float64)

    @wp.func
    def fill(c: wp.array(dtype=wp.float64)):
        c[2] = c[2] + wp.float64(10.0)

    def body(rng, b):
        coef = wp.zeros(shape=3, dtype=wp.float64)
        coef[0] = wp.float64(1.0)
        coef[1] = wp.float64(2.0)
        coef[2] = wp.float64(3.0)
        fill(coef)
        wp.atomic_add(coef, 0, wp.float64(100.0))
        for k, j, i in la.inner(rng):
            out[b, k, j, i] = coef[i % 3]

    with config.override(target=target):
        la.outer(_space(), body)
    want = np.zeros(SHAPE)
    i = np.arange(SHAPE[3])
    _interior(want)[...] = np.array([101.0, 2.0, 13.0])[i % 3][NG:-NG]
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("target", TARGETS)
def test_a_local_array_filled_in_a_par_for_outer_team_is_every_threads(target):
    out = wp.zeros(8, dtype=wp.int32)

    def team(member, b):
        tab = wp.zeros(shape=4, dtype=wp.int32)
        for c in range(4):
            tab[c] = c + 10

        def inner(i):
            out[i] = tab[i % 4]

        wp.par_for_inner(member, 0, 7, inner)

    with config.override(target=target):
        wp.par_for_outer("tables", 0, 0, (0, 0), team)
    assert out.numpy().tolist() == [10, 11, 12, 13, 10, 11, 12, 13]


@pytest.mark.parametrize("target", TARGETS)
def test_an_atomics_result_in_the_outer_body_is_taken_once_per_team(target):
    """``slot = wp.atomic_add(...)`` in the outer body: once per team on the CPU; on the GPU mapping thread 0
    takes it and shares the value through a shared slot (it ran once per thread: 256 increments for 2)."""
    counter = wp.zeros(1, dtype=wp.int32)
    out = wp.zeros(SHAPE, dtype=wp.float64)

    @wp.func
    def bump(c: wp.array(dtype=wp.int32), k: int) -> int:
        c[0] = c[0] + k
        return c[0]

    def body(rng, b):
        slot = wp.atomic_add(counter, 0, 1)
        total = bump(counter, 10)
        for k, j, i in la.inner(rng):
            out[b, k, j, i] = wp.float64(slot * 100 + total)

    with config.override(target=target):
        la.outer(_space(), body)
    assert counter.numpy().tolist() == [2 * 11]
    got = sorted({float(v) for v in _interior(out.numpy()).reshape(NB, -1)[:, 0]})
    per_block = [set(np.unique(_interior(out.numpy())[blk])) for blk in range(NB)]
    assert all(len(values) == 1 for values in per_block)  # every thread of a team saw the same value
    assert len(got) == NB and all(v % 100 > 0 for v in got)


def test_an_atomic_in_a_condition_of_the_outer_body_is_refused_on_gpu_targets():
    counter = wp.zeros(1, dtype=wp.int32)
    out = wp.zeros(SHAPE, dtype=wp.float64)

    def body(rng, b):
        if wp.atomic_add(counter, 0, 1) == 0:
            for k, j, i in la.inner(rng):
                out[b, k, j, i] = wp.float64(1.0)

    la.outer(_space(), body)
    assert counter.numpy().tolist() == [NB]
    with config.override(target="cuda-emulation"), pytest.raises(
            wp.TargetUnsupportedError, match=r"wp.atomic_add at .*test_team_outer_body.py:\d+ is called in a "
                                             r"condition or loop bound of a team's outer body .*assign its value to a "
                                             r"local first"):
        la.outer(_space(), body)
    assert counter.numpy().tolist() == [NB]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
def test_continue_ends_the_visit_on_every_tag_pair(lt, it, target):
    u = wp.array(np.arange(np.prod(SHAPE), dtype=np.float64).reshape(SHAPE))
    out = wp.zeros(SHAPE, dtype=wp.float64)

    def body(rng, b):
        for k, j, i in la.inner(rng):
            if (i + j) % 2 == 0:
                continue
            out[b, k, j, i] = u[b, k, j, i]

    with config.override(target=target):
        la.outer(_space(lt, it), body)
    want = np.zeros(SHAPE)
    kk, jj, ii = np.meshgrid(*(np.arange(s) for s in SHAPE[1:]), indexing="ij")
    keep = (ii + jj) % 2 == 1
    _interior(want)[...] = np.where(_interior(keep[None]), _interior(u.numpy()), 0.0)
    got = out.numpy()
    if it is la.memory:  # its visits also reach ghost cells (by the flat memory box): compare the interior
        got, want = _interior(got), _interior(want)
    np.testing.assert_array_equal(got, want)


def test_break_in_an_inner_loop_is_refused():
    out = wp.zeros(SHAPE, dtype=wp.float64)

    def body(rng, b):
        for k, j, i in la.inner(rng):
            if i > 2:
                break
            out[b, k, j, i] = wp.float64(1.0)

    with pytest.raises(wp.KernelSyntaxError, match="break in a la.inner loop: its visits are independent .* use "
                                                   "continue to end this visit"):
        la.outer(_space(), body)
    assert not out.numpy().any()


@pytest.mark.parametrize("target", TARGETS)
def test_an_atomics_result_in_a_par_for_outer_team_is_taken_once(target):
    counter = wp.zeros(1, dtype=wp.int32)
    out = wp.zeros((3, 8), dtype=wp.int32)

    def team(member, b):
        slot = wp.atomic_add(counter, 0, 1)

        def inner(i):
            out[b, i] = slot

        wp.par_for_inner(member, 0, 7, inner)

    with config.override(target=target):
        wp.par_for_outer("slots", 0, 0, (0, 2), team)
    assert counter.numpy().tolist() == [3]
    rows = out.numpy()
    assert sorted(rows[:, 0].tolist()) == [0, 1, 2] and (rows == rows[:, :1]).all()


@pytest.mark.parametrize("target", TARGETS)
def test_a_break_and_a_continue_of_a_loop_around_a_barrier(target):
    """The same for every thread, as the barrier requires: the emulation refused both ("break of a loop that
    encloses a block barrier") though CUDA compiles them."""
    u = wp.array(np.ones(SHAPE))
    out = wp.zeros(SHAPE, dtype=wp.float64)

    def body(rng, b):
        for it in range(10):
            if it == 1:
                continue  # skips the second pass
            if it == 4:
                break  # after passes 0, 2 and 3
            for k, j, i in la.inner(rng):
                out[b, k, j, i] = out[b, k, j, i] + u[b, k, j, i] * wp.float64(it + 1)
            rng.team_barrier()

    with config.override(target=target):
        la.outer(_space(), body)
    want = np.zeros(SHAPE)
    _interior(want)[...] = 1.0 + 3.0 + 4.0
    np.testing.assert_array_equal(out.numpy(), want)

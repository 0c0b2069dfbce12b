"""Team loops misused (attacker round 17, lead 3). A team_barrier() inside a loop whose iterations the team's threads
share out is refused when the body is compiled: rng.team_barrier() inside la.inner, or member.team_barrier() inside
a par_for_inner body, compiled; on the cuda-emulation target the first wrote 2 of 8 cells and the second 1 of 4
elements, silently, and on a GPU not every thread reaches such a barrier (a thread may have no iteration), which
hangs the block. A constant negative scratch pad size is refused too. No compile: the refusals come while the body
is typed."""

from __future__ import annotations

import pytest

import brickwork as wp
from brickwork import la

out = wp.zeros((1, 4, 4, 4), dtype=wp.float64)
row = wp.zeros(4, dtype=wp.float64)


def barrier_in_inner_loop(rng, b):
    for idx in la.inner(rng):
        k, j, i = rng.get_kji(idx)
        rng.team_barrier()
        out[b, k, j, i] = wp.float64(1.0)


def barrier_in_inner_body(rng, b):
    def visit(k, j, i):
        if k > 0:
            rng.team_barrier()
        out[b, k, j, i] = wp.float64(1.0)
    la.inner(rng, visit)


def barrier_in_team_loop(member, b):
    def load(i):
        member.team_barrier()
        row[i] = wp.float64(1.0)
    wp.par_for_inner(member, 0, 3, load)


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
@pytest.mark.parametrize(("body", "where", "line"), [(barrier_in_inner_loop, "a la.inner loop", "for idx in la.inner(rng):"),
                                                     (barrier_in_inner_body, "a la.inner body", "la.inner(rng, visit)")])
def test_a_barrier_inside_an_inner_loop_is_refused(target, body, where, line):
    out.zero_()
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 1, 2, 2, 2, 1, backend=la.team)
    with wp.config.override(target=target), pytest.raises(wp.KernelTypeError) as e:
        la.outer(space, body)
    text = str(e.value)
    assert f"team_barrier() inside {where}: its iterations are shared out among the team's threads" in text
    assert "put the barrier between the loops" in text and line in text and __file__ in text
    assert out.numpy().sum() == 0.0


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
def test_a_barrier_inside_a_par_for_inner_body_is_refused(target):
    row.zero_()
    with wp.config.override(target=target), pytest.raises(wp.KernelTypeError) as e:
        wp.par_for_outer("barrier_in_team_loop", 32, 0, (0, 1), barrier_in_team_loop)
    assert "team_barrier() inside a par_for_inner body" in str(e.value)
    assert "wp.par_for_inner(member, 0, 3, load)" in str(e.value)
    assert row.numpy().tolist() == [0.0] * 4


def negative_pad(member, b):
    pad = wp.ScratchPad2D(member.team_scratch(0), wp.float64, 3, -2)
    row[b] = wp.float64(pad.shape[1])


def test_a_constant_negative_pad_size_is_refused():
    """It ran as an empty pad whose shape said -2 (the arena counts a negative size as 0 bytes)."""
    row.zero_()
    with pytest.raises(wp.KernelValueError) as e:
        wp.par_for_outer("negative_pad", 64, 0, (0, 1), negative_pad)
    assert r"ScratchPad2D: sizes must not be negative, got (3, -2)" in str(e.value)
    assert "wp.ScratchPad2D(member.team_scratch(0), wp.float64, 3, -2)" in str(e.value)
    assert row.numpy().tolist() == [0.0] * 4


def runtime_negative_pad(member, b):
    n = b - 2  # -2 and -1: known only inside the kernel
    pad = wp.ScratchPad1D(member.team_scratch(0), wp.float64, n)
    row[b] = wp.float64(pad.shape[0])

    def fill(i):
        row[2 + b] = wp.float64(7.0)
        pad[i] = wp.float64(7.0)
    wp.par_for_inner(member, 0, n - 1, fill)


def test_a_negative_pad_size_computed_in_the_kernel_is_an_empty_pad():
    """Kept (attacker round 18, lead 2): a size computed in the kernel is not known before the launch (the CUDA
    host checks only sizes made of launch arguments, and the CPU could only abort the process, as it does for a pad
    past 2**61 bytes); the pad has no memory, its shape says the size, and a loop over it runs nothing."""
    row.zero_()
    wp.par_for_outer("runtime_negative_pad", 64, 0, (0, 2), runtime_negative_pad)
    assert row.numpy().tolist() == [-2.0, -1.0, 0.0, 0.0]

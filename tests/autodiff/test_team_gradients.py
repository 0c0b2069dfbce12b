"""Gradients through nested parallelism (``par_for_outer`` teams, ``par_for_inner`` loops, team scratch
pads and team barriers), on the CPU and on the GPU-emulation target (a team is a block of threads
sharing its pads there), against central finite differences of a numpy model."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import gpu_compile
from brickwork import config

TARGETS = ("cpu", "cuda-emulation")
NB, NJ, N = 2, 3, 6  # outer ranges (b, j); each row has N + 2 cells, 1..N updated


def _finite_differences(model, x, w, h=1e-6):
    """d sum(w * model(x)) / dx by central differences."""
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += h
        down[idx] -= h
        grad[idx] = (np.sum(w * model(up)) - np.sum(w * model(down))) / (2 * h)
    return grad


def _backward(run, out, w):
    tape = wp.Tape()
    with tape:
        run()
    tape.backward(grads={out: wp.array(w, dtype=wp.float64)})


@pytest.mark.parametrize("target", TARGETS)
def test_scratch_pad_producer_consumer(target):
    """row = u * u over the row grown by one cell on each side, a barrier, out = row[i - 1] + c row[i + 1]
    row[i]: the consumer's reverse adds into neighbouring adjoint slots, the producer's hands them to u."""
    rng = np.random.default_rng(1)
    un = rng.random((NB, NJ, N + 2)) + 0.5
    w = rng.random((NB, NJ, N + 2))
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    out = wp.zeros((NB, NJ, N + 2), dtype=wp.float64, requires_grad=True)
    c = wp.float64(1.5)

    def smooth(member, b, j):
        row = wp.ScratchPad1D(member.team_scratch(0), wp.float64, N + 2)

        def load(i):
            row[i] = u[b, j, i] * u[b, j, i]
        wp.par_for_inner(member, 0, N + 1, load)
        member.team_barrier()

        def store(i):
            out[b, j, i] = row[i - 1] + c * row[i + 1] * row[i]
        wp.par_for_inner(member, 1, N, store)

    def model(x):
        row = x * x
        y = np.zeros_like(x)
        y[..., 1:-1] = row[..., :-2] + 1.5 * row[..., 2:] * row[..., 1:-1]
        return y

    with config.override(target=target):
        _backward(lambda: wp.par_for_outer("smooth", 8 * (N + 2), 0, NB, NJ, smooth), out, w)
    np.testing.assert_allclose(out.numpy(), model(un), rtol=1e-14)
    np.testing.assert_allclose(u.grad.numpy(), _finite_differences(model, un, w), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("target", TARGETS)
def test_scratch_pad_2d_with_a_loop_and_a_branch_in_the_inner_body(target):
    """A two-row ScratchPad2D (row 0: u**p by a runtime loop, row 1: sin(v) where v > 0, else 0), a barrier,
    out = s[0, i + 1] s[1, i - 1] + s[0, i]; the loop's bound a launch argument."""
    rng = np.random.default_rng(2)
    un = rng.random((NB, NJ, N + 2)) + 0.5
    vn = rng.random((NB, NJ, N + 2)) - 0.5
    w = rng.random((NB, NJ, N + 2))
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    v = wp.array(vn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros((NB, NJ, N + 2), dtype=wp.float64, requires_grad=True)

    npow = wp.int32(3)  # a brickwork scalar: a launch argument, so the loop's bound is a runtime value

    def stage(member, b, j):
        s = wp.ScratchPad2D(member.team_scratch(0), wp.float64, 2, N + 2)

        def load(i):
            p = wp.float64(1.0)
            for _ in range(npow):
                p = p * u[b, j, i]
            s[0, i] = p
            s[1, i] = wp.float64(0.0)
            if v[b, j, i] > wp.float64(0.0):
                s[1, i] = wp.sin(v[b, j, i])
        wp.par_for_inner(member, 0, N + 1, load)
        member.team_barrier()

        def store(i):
            out[b, j, i] = s[0, i + 1] * s[1, i - 1] + s[0, i]
        wp.par_for_inner(member, 1, N, store)

    def model(x, y):
        s0, s1 = x ** 3, np.where(y > 0, np.sin(y), 0.0)
        r = np.zeros_like(x)
        r[..., 1:-1] = s0[..., 2:] * s1[..., :-2] + s0[..., 1:-1]
        return r

    with config.override(target=target):
        _backward(lambda: wp.par_for_outer("stage", 16 * (N + 2), 0, NB, NJ, stage), out, w)
    np.testing.assert_allclose(out.numpy(), model(un, vn), rtol=1e-14)
    np.testing.assert_allclose(u.grad.numpy(), _finite_differences(lambda x: model(x, vn), un, w), rtol=1e-7,
                               atol=1e-9)
    np.testing.assert_allclose(v.grad.numpy(), _finite_differences(lambda y: model(un, y), vn, w), rtol=1e-7,
                               atol=1e-9)


def _scaled_rows(u, out):
    def scaled(member, b, j):
        scale = u[b, j, 0] * wp.float64(3.0)  # once per team, used by every iteration

        def store(i):
            out[b, j, i] = scale * u[b, j, i] * u[b, j, i]
        wp.par_for_inner(member, 1, N, store)
    return scaled


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda-emulation", marks=pytest.mark.compiles_for_cuda(
    check=gpu_compile.where("_adj_sum_", "bw::atomic_add(", "__syncthreads();")))])  # sums in the team's pads
def test_a_team_value_used_by_the_iterations(target):
    """The adjoint of a value of the team body sums what every reversed iteration adds to it: on the CPU a
    team is one thread; on a GPU target every thread of the team holds the value, and the iterations'
    additions are summed in a pad of the team's arena, then handed to each thread's adjoint."""
    rng = np.random.default_rng(3)
    un, w = rng.random((NB, NJ, N + 2)) + 0.5, rng.random((NB, NJ, N + 2))
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    out = wp.zeros((NB, NJ, N + 2), dtype=wp.float64, requires_grad=True)

    def model(x):
        y = np.zeros_like(x)
        y[..., 1:-1] = 3.0 * x[..., :1] * x[..., 1:-1] ** 2
        return y

    with config.override(target=target):
        _backward(lambda: wp.par_for_outer("scaled", 0, 0, NB, NJ, _scaled_rows(u, out)), out, w)
    np.testing.assert_allclose(u.grad.numpy(), _finite_differences(model, un, w), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda-emulation", marks=pytest.mark.compiles_for_cuda)])
def test_team_values_used_by_two_loops_by_component_and_by_the_team_body(target):
    """A vector team value read by component in two par_for_inner loops (its sums gathered and cleared after
    each reversed loop), a scalar one read by the iterations and by the team body itself (a store once per
    team), and a pad between the loops."""
    rng = np.random.default_rng(4)
    un, w = rng.random((NB, NJ, N + 2)) + 0.5, rng.random((NB, NJ, N + 2))
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    out = wp.zeros((NB, NJ, N + 2), dtype=wp.float64, requires_grad=True)

    def body(member, b, j):
        c = wp.vec2d(u[b, j, 0] * u[b, j, 0], wp.sin(u[b, j, N + 1]))
        s = u[b, j, 1] + u[b, j, 2]
        out[b, j, 0] = s * s  # a team-level use of s
        row = wp.ScratchPad1D(member.team_scratch(0), wp.float64, N + 2)

        def load(i):
            row[i] = c[0] * u[b, j, i] + s
        wp.par_for_inner(member, 1, N, load)
        member.team_barrier()

        def store(i):
            out[b, j, i] = row[i] * c[1] + c[0] * s
        wp.par_for_inner(member, 1, N, store)

    def model(x):
        y = np.zeros_like(x)
        c0, c1 = x[..., :1] ** 2, np.sin(x[..., N + 1:])
        s = x[..., 1:2] + x[..., 2:3]
        y[..., :1] = s * s
        y[..., 1:-1] = (c0 * x[..., 1:-1] + s) * c1 + c0 * s
        return y

    with config.override(target=target):
        _backward(lambda: wp.par_for_outer("two_loops", 8 * (N + 2), 0, NB, NJ, body), out, w)
    np.testing.assert_allclose(out.numpy(), model(un), rtol=1e-14)
    # gradients up to 40: the differences' rounding is about 1e-8
    np.testing.assert_allclose(u.grad.numpy(), _finite_differences(model, un, w), rtol=1e-6, atol=1e-7)


@wp.struct
class Scales:
    a: wp.float64
    v: wp.vec3d


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda-emulation", marks=pytest.mark.compiles_for_cuda)])
def test_struct_and_tuple_team_values_used_by_the_iterations(target):
    """A struct and a tuple of the team body read by the iterations field by field, by component and whole:
    on a GPU target each float part gets its own pad in the team's arena. Against finite differences."""
    rng = np.random.default_rng(6)
    un, w = rng.random((NB, NJ, N + 2)) + 0.5, rng.random((NB, NJ, N + 2))
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    out = wp.zeros((NB, NJ, N + 2), dtype=wp.float64, requires_grad=True)

    def body(member, b, j):
        sc = Scales()
        sc.a = u[b, j, 0] * wp.float64(3.0)
        sc.v = wp.vec3d(u[b, j, 1], u[b, j, 0] * u[b, j, 0], wp.float64(2.0))
        pair = (u[b, j, N + 1], sc.a * sc.a)

        def store(i):
            d = sc
            p0, p1 = pair
            out[b, j, i] = d.a * u[b, j, i] + sc.v[1] * p0 + p1 * sc.v[0] + d.v[2]
        wp.par_for_inner(member, 1, N, store)

    def model(x):
        y = np.zeros_like(x)
        a, v0, v1 = 3.0 * x[..., :1], x[..., 1:2], x[..., :1] ** 2
        y[..., 1:-1] = a * x[..., 1:-1] + v1 * x[..., N + 1:] + a * a * v0 + 2.0
        return y

    with config.override(target=target):
        _backward(lambda: wp.par_for_outer("struct_scale", 0, 0, NB, NJ, body), out, w)
    np.testing.assert_allclose(out.numpy()[..., 1:-1], model(un)[..., 1:-1], rtol=1e-14)
    np.testing.assert_allclose(u.grad.numpy(), _finite_differences(model, un, w), rtol=1e-6, atol=1e-8)


def _pad_in_a_loop(u, out):
    def body(member, b, j):
        for _ in range(2):
            row = wp.ScratchPad1D(member.team_scratch(0), wp.float64, N + 2)

            def load(i):
                row[i] = u[b, j, i]
            wp.par_for_inner(member, 0, N + 1, load)
            member.team_barrier()

            def store(i):
                out[b, j, i] = row[i]
            wp.par_for_inner(member, 0, N + 1, store)
    return body


def _pad_rewritten(u, out):
    def body(member, b, j):
        row = wp.ScratchPad1D(member.team_scratch(0), wp.float64, N + 2)

        def load(i):
            row[i] = u[b, j, i]
        wp.par_for_inner(member, 0, N + 1, load)
        member.team_barrier()

        def store(i):
            out[b, j, i] = row[i]
        wp.par_for_inner(member, 0, N + 1, store)
        member.team_barrier()

        def square(i):
            row[i] = row[i] * row[i]
        wp.par_for_inner(member, 0, N + 1, square)
    return body


@pytest.mark.parametrize("make, words", [(_pad_in_a_loop, "allocated inside a loop has no adjoint"),
                                         (_pad_rewritten, "scratch pad 'row' is written after it is read")])
def test_pads_whose_values_the_replay_cannot_keep_are_refused(make, words):
    """A pad allocated in a loop (a new pad per iteration), or written again after it was read: the backward
    kernel replays every stage before reversing any, so it cannot hold those values; the backward launch
    is refused, naming the pad, and no gradient is written."""
    un = np.arange(1.0, 1.0 + NB * NJ * (N + 2)).reshape(NB, NJ, N + 2)
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    out = wp.zeros((NB, NJ, N + 2), dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.par_for_outer("pads", 8 * (N + 2), 0, NB, NJ, make(u, out))
    with pytest.raises(wp.KernelNotDifferentiableError, match=words):
        tape.backward(grads={out: wp.array(np.ones((NB, NJ, N + 2)), dtype=wp.float64)})
    np.testing.assert_array_equal(out.numpy(), un)
    assert not u.grad.numpy().any()


@pytest.mark.parametrize("target", TARGETS)
def test_vector_pad_and_an_early_return_in_the_inner_body(target):
    """A pad of vec3d, and a ``return`` that ends one iteration early (cell 3 is left as it was)."""
    rng = np.random.default_rng(4)
    un, w = rng.random((NB, NJ, N + 2)) + 0.5, rng.random((NB, NJ, N + 2))
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    out = wp.zeros((NB, NJ, N + 2), dtype=wp.float64, requires_grad=True)

    def body(member, b, j):
        pad = wp.ScratchPad1D(member.team_scratch(0), wp.vec3d, N + 2)

        def load(i):
            x = u[b, j, i]
            pad[i] = wp.vec3d(x, x * x, wp.float64(1.0))
        wp.par_for_inner(member, 0, N + 1, load)
        member.team_barrier()

        def store(i):
            if i == 3:
                return
            out[b, j, i] = wp.dot(pad[i - 1], pad[i + 1])
        wp.par_for_inner(member, 1, N, store)

    def model(x):
        y = np.zeros_like(x)
        left, right = x[..., :-2], x[..., 2:]
        y[..., 1:-1] = left * right + left ** 2 * right ** 2 + 1.0
        y[..., 3] = 0.0
        return y

    with config.override(target=target):
        _backward(lambda: wp.par_for_outer("vec_pad", 24 * (N + 2), 0, NB, NJ, body), out, w)
    np.testing.assert_allclose(out.numpy(), model(un), rtol=1e-14)
    np.testing.assert_allclose(u.grad.numpy(), _finite_differences(model, un, w), rtol=1e-7, atol=1e-9)

"""Gradients through the loop abstraction: outer bodies, inner loops, per-point scratch and team
barriers, under every tag pair, on the CPU and on the GPU-emulation target, against exact
derivatives computed with numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brickwork as wp
import gpu_compile
from brickwork import config, la

NB, N, NG = 2, 4, 1
SHAPE = (NB, N + 2 * NG, N + 2 * NG, N + 2 * NG)
LOGICAL = (slice(None), slice(NG, NG + N), slice(NG, NG + N), slice(NG, NG + N))

PAIRS = [(loop, inner) for loop in ("bvoi", "bovi", "boiv") for inner in ("logical_flat", "logical_coords", "memory")
         if not (loop == "boiv" and inner == "memory")]
TARGETS = ("cpu", "cuda-emulation")


def _space(loop, inner, halo, target, dims=(), count=1):
    ninner = la.i_pencil if loop != "boiv" else 1
    backend = la.team if target != "cpu" else None  # la.raw is host-only
    space = la.IndexSpace.box(getattr(la, loop), getattr(la, inner), NB, N, N, N, NG, ninner=ninner, backend=backend)
    space.add_per_point_scratch(wp.float64, halo=halo, dims=dims, count=count)
    return space


def _shift(a, di):
    """b[..., i] = a[..., i + di] (zero where i + di leaves the array)."""
    out = np.zeros_like(a)
    if di > 0:
        out[..., :-di] = a[..., di:]
    elif di < 0:
        out[..., -di:] = a[..., :di]
    else:
        out[...] = a
    return out


def _logical_mask():
    m = np.zeros(SHAPE)
    m[LOGICAL] = 1.0
    return m


def _backward(run, out, w, *wrt):
    tape = wp.Tape()
    with tape:
        run()
    tape.backward(grads={out: wp.array(w, dtype=wp.float64)})
    return [a.grad.numpy().copy() for a in wrt]


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda-emulation", marks=pytest.mark.compiles_for_cuda(
    check=gpu_compile.contains("bw::atomic_add(&(")))])  # the slice's threads share its adjoint scratch
@pytest.mark.parametrize("loop, inner", PAIRS)
def test_scratch_producer_consumer(loop, inner, target):
    """s = u*u over the slice grown by +-1 in i, a barrier, out = s[i-1] + 2 s[i+1] * c: the adjoint
    scatters into neighbouring adjoint-scratch slots, then the producer's reverse reads them."""
    rng = np.random.default_rng(3)
    un = rng.random(SHAPE) + 0.5
    w = rng.random(SHAPE)
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(SHAPE, dtype=wp.float64, requires_grad=True)
    space = _space(loop, inner, la.halo.pm_i, target)
    dx = space.get_delta(wp.X1DIR)
    c = wp.float64(2.0)

    def body(rng_, b):
        hr = rng_.add_halo(la.halo.pm_i)
        s = la.get_per_point_scratch(wp.float64, hr)
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            s[idx] = u[b, k, j, i] * u[b, k, j, i]
        rng_.team_barrier()
        for idx in la.inner(rng_):
            k, j, i = rng_.get_kji(idx)
            out[b, k, j, i] = s[idx - dx] + c * s[idx + dx]

    with config.override(target=target):
        (gu,) = _backward(lambda: la.outer(space, body), out, w, u)
    ww = w * _logical_mask()
    expect = 2.0 * un * (_shift(ww, 1) + 2.0 * _shift(ww, -1))
    np.testing.assert_allclose(gu, expect, rtol=1e-13, atol=1e-14)
    s = un * un
    np.testing.assert_allclose(out.numpy()[LOGICAL], (_shift(s, -1) + 2.0 * _shift(s, 1))[LOGICAL], rtol=1e-14)


@pytest.mark.parametrize("target, loop, inner", [("cpu", "bvoi", "logical_coords"), ("cpu", "bovi", "logical_flat"),
                                                 ("cpu", "boiv", "logical_flat"),
                                                 ("cuda-emulation", "boiv", "logical_flat")])
def test_component_scratch_branches_and_loops(loop, inner, target):
    """Two-component scratch (zeroed first), a branch and a dynamic loop inside a visit, and a value of
    the outer body used by every visit."""
    rng = np.random.default_rng(4)
    un = rng.random(SHAPE) + 0.5
    vn = rng.random(SHAPE) - 0.5
    w = rng.random(SHAPE)
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    v = wp.array(vn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(SHAPE, dtype=wp.float64, requires_grad=True)
    space = _space(loop, inner, la.halo.pm_i, target, dims=(2,))
    dx = space.get_delta(wp.X1DIR)
    npow = 3

    def body(rng_, b):
        scale = u[b, 0, 0, 0] + wp.float64(1.0)         # once per slice, used by every visit
        hr = rng_.add_halo(la.halo.pm_i)
        s = la.get_per_point_scratch(wp.float64, hr, dims=(2,))
        s.zero()
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            p = wp.float64(1.0)
            for _ in range(npow):
                p = p * u[b, k, j, i]
            s[0, idx] = p
            if v[b, k, j, i] > wp.float64(0.0):
                s[1, idx] = wp.sin(v[b, k, j, i])
        rng_.team_barrier()
        for idx in la.inner(rng_):
            k, j, i = rng_.get_kji(idx)
            out[b, k, j, i] = scale * (s[0, idx + dx] - s[0, idx]) + s[1, idx - dx] * s[0, idx]

    with config.override(target=target):
        gu, gv = _backward(lambda: la.outer(space, body), out, w, u, v)
    ww = w * _logical_mask()
    scale = un[:, 0, 0, 0] + 1.0
    sc = scale[:, None, None, None]
    s0 = un ** 3
    s1 = np.where(vn > 0, np.sin(vn), 0.0)
    expect_out = sc * (_shift(s0, 1) - s0) + _shift(s1, -1) * s0
    np.testing.assert_allclose(out.numpy()[LOGICAL], expect_out[LOGICAL], rtol=1e-13)
    # d/ds0: from s0[i+1] (scale), s0[i] (-scale + s1[i-1]); d/ds1 from s1[i-1]
    ds0 = sc * _shift(ww, -1) + ww * (-sc + _shift(s1, -1))
    ds1 = _shift(ww * s0, 1)
    expect_u = 3.0 * un ** 2 * ds0
    expect_u[:, 0, 0, 0] += (ww * (_shift(s0, 1) - s0)).sum(axis=(1, 2, 3))
    expect_v = np.where(vn > 0, np.cos(vn), 0.0) * ds1
    np.testing.assert_allclose(gu, expect_u, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gv, expect_v, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("target", ["cpu", pytest.param("cuda-emulation", marks=pytest.mark.compiles_for_cuda)])
@pytest.mark.parametrize("loop, inner", [("bvoi", "logical_flat"), ("bovi", "memory"), ("boiv", "logical_coords")])
def test_outer_reduce_sum_is_a_loss(loop, inner, target):
    """loss = sum over the logical cells of u^2 v, reduced with la.outer_reduce into an array: each
    folded value gets the loss's adjoint."""
    rng = np.random.default_rng(6)
    un, vn = rng.random(SHAPE), rng.random(SHAPE)
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    v = wp.array(vn, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    space = _space(loop, inner, la.halo.none, target).with_reducer(la.Sum(wp.float64))

    def body(rng_, b):
        def value(k, j, i):
            return u[b, k, j, i] * u[b, k, j, i] * v[b, k, j, i]
        la.inner_reduce(rng_, value)

    with config.override(target=target):
        tape = wp.Tape()
        with tape:
            la.outer_reduce(space, body, out=loss)
        tape.backward(loss)
    mask = _logical_mask()
    np.testing.assert_allclose(loss.numpy()[0], (un * un * vn * mask).sum(), rtol=1e-13)
    np.testing.assert_allclose(u.grad.numpy(), 2.0 * un * vn * mask, rtol=1e-13)
    np.testing.assert_allclose(v.grad.numpy(), un * un * mask, rtol=1e-13)


@wp.kernel
def store_scaled(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(100.0) * x[0]


@pytest.mark.parametrize("reducer", ["Sum", "Min", "Max", "Prod"])
def test_a_reduction_into_out_overwrites_it_for_the_gradient_too(reducer):
    """out[0] written by a kernel, then overwritten by a reduction (twice): the kernel's input gets no
    gradient, the second reduction's values get out's, the first reduction's none; the tape zeroes out.grad."""
    rng = np.random.default_rng(9)
    un = rng.random(SHAPE) + 0.5
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    x = wp.array([3.0], dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    space = _space("bvoi", "logical_flat", la.halo.none, "cpu").with_reducer(getattr(la, reducer)(wp.float64))

    def squares(rng_, b):
        la.inner_reduce(rng_, lambda k, j, i: u[b, k, j, i] * u[b, k, j, i])

    def cubes(rng_, b):
        la.inner_reduce(rng_, lambda k, j, i: u[b, k, j, i] * u[b, k, j, i] * u[b, k, j, i])

    tape = wp.Tape()
    with tape:
        wp.launch(store_scaled, 1, inputs=[x, loss])
        la.outer_reduce(space, squares, out=loss)  # overwritten next: gets nothing back
        la.outer_reduce(space, cubes, out=loss)
    tape.backward(loss)
    mask = _logical_mask()
    cells = un[mask.astype(bool)]
    reduce = {"Sum": np.sum, "Min": np.min, "Max": np.max, "Prod": np.prod}[reducer]
    np.testing.assert_allclose(loss.numpy()[0], reduce(cells ** 3), rtol=1e-12)
    assert x.grad.numpy()[0] == 0.0
    if reducer == "Sum":
        np.testing.assert_allclose(u.grad.numpy(), 3.0 * un ** 2 * mask, rtol=1e-13)
    assert loss in tape.gradients
    tape.zero()
    assert loss.grad.numpy()[0] == 0.0 and not u.grad.numpy().any()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("reducer, pick", [("Min", np.argmin), ("Max", np.argmax)])
@pytest.mark.parametrize("loop, inner", [("bvoi", "logical_flat"), ("bovi", "memory"), ("boiv", "logical_coords")])
def test_outer_reduce_min_max_gradient_reaches_the_winning_cell(loop, inner, reducer, pick, target):
    """loss = min (or max) over the logical cells of u^2 v: the gradient is that of the winning cell's
    value, and nothing flows to the other cells."""
    rng = np.random.default_rng(7)
    un, vn = rng.random(SHAPE) + 0.5, rng.random(SHAPE) + 0.5
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    v = wp.array(vn, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    space = _space(loop, inner, la.halo.none, target).with_reducer(getattr(la, reducer)(wp.float64))

    def body(rng_, b):
        def value(k, j, i):
            return u[b, k, j, i] * u[b, k, j, i] * v[b, k, j, i]
        la.inner_reduce(rng_, value)

    with config.override(target=target):
        tape = wp.Tape()
        with tape:
            la.outer_reduce(space, body, out=loss)
        tape.backward(loss)
    mask = _logical_mask()
    values = np.where(mask, un * un * vn, np.inf if reducer == "Min" else -np.inf)
    at = np.unravel_index(pick(values), SHAPE)
    assert loss.numpy()[0] == values[at]
    du, dv = np.zeros(SHAPE), np.zeros(SHAPE)
    du[at], dv[at] = 2.0 * un[at] * vn[at], un[at] * un[at]
    np.testing.assert_allclose(u.grad.numpy(), du, rtol=1e-13)
    np.testing.assert_allclose(v.grad.numpy(), dv, rtol=1e-13)


def _others_product(values, mask):
    """d prod / d v for every logical cell: the product of the other logical cells' values (numpy)."""
    inside = values[mask > 0]
    expect = np.zeros(values.shape)
    others = np.array([np.prod(np.delete(inside, n)) for n in range(inside.size)])
    expect[mask > 0] = others
    return expect


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("zeros", [0, 1, 2, 3])
@pytest.mark.parametrize("loop, inner", [("bvoi", "logical_flat"), ("bovi", "memory"), ("boiv", "logical_coords")])
def test_outer_reduce_prod_gradient_is_the_product_of_the_others(loop, inner, zeros, target):
    """loss = prod over the logical cells of u v (values of both signs, near 1 so the product stays
    finite): each cell's gradient is the product of the other cells' values, also with zeros among them
    (one zero: only that cell gets a gradient; two or more: none does); ghost cells get nothing."""
    rng = np.random.default_rng(8 + zeros)
    un = rng.uniform(0.9, 1.1, SHAPE) * rng.choice([-1.0, 1.0], SHAPE)
    vn = rng.uniform(0.9, 1.1, SHAPE)
    mask = _logical_mask()
    cells = np.argwhere(mask > 0)
    for c in cells[rng.choice(len(cells), zeros, replace=False)]:
        un[tuple(c)] = 0.0
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    v = wp.array(vn, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    space = _space(loop, inner, la.halo.none, target).with_reducer(la.Prod(wp.float64))

    def body(rng_, b):
        la.inner_reduce(rng_, lambda k, j, i: u[b, k, j, i] * v[b, k, j, i])

    with config.override(target=target):
        tape = wp.Tape()
        with tape:
            la.outer_reduce(space, body, out=loss)
        tape.backward(grads={loss: wp.array([3.0], dtype=wp.float64)})
    values = np.where(mask > 0, un * vn, 1.0)
    np.testing.assert_allclose(loss.numpy()[0], np.prod(values), rtol=1e-12)
    d_value = 3.0 * _others_product(values, mask)
    if zeros >= 2:
        assert not u.grad.numpy().any() and not v.grad.numpy().any()
    np.testing.assert_allclose(u.grad.numpy(), d_value * vn, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(v.grad.numpy(), d_value * un, rtol=1e-12, atol=1e-300)
    if zeros == 1:
        assert np.count_nonzero(v.grad.numpy()) == 0 and np.count_nonzero(u.grad.numpy()) == 1


_PROD_U = wp.zeros(SHAPE, dtype=wp.float64, requires_grad=True)  # one array: one compiled body for every example


def _prod_body(rng_, b):
    la.inner_reduce(rng_, lambda k, j, i: _PROD_U[b, k, j, i])


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([0.0, -1.25, -0.5, 0.75, 1.0, 2.0]), min_size=N ** 3 * NB, max_size=N ** 3 * NB))
def test_outer_reduce_prod_gradient_property(values):
    """For any logical values (zeros among them drawn often): the gradient of the product is, cell by
    cell, the product of the other cells, and the product is the one numpy computes."""
    un = np.zeros(SHAPE)
    un[LOGICAL] = np.reshape(values, (NB, N, N, N))
    _PROD_U.numpy()[...] = un
    _PROD_U.grad.zero_()
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    space = _space("bvoi", "logical_flat", la.halo.none, "cpu").with_reducer(la.Prod(wp.float64))
    tape = wp.Tape()
    with tape:
        la.outer_reduce(space, _prod_body, out=loss)
    tape.backward(loss)
    mask = _logical_mask()
    inside = np.where(mask > 0, un, 1.0)
    assert loss.numpy()[0] == pytest.approx(np.prod(inside), rel=1e-13)
    np.testing.assert_allclose(_PROD_U.grad.numpy(), _others_product(inside, mask), rtol=1e-13, atol=0)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("reducer, pick", [("MinLoc", np.argmin), ("MaxLoc", np.argmax)])
@pytest.mark.parametrize("loop, inner", [("bvoi", "logical_coords"), ("bovi", "logical_flat"), ("boiv", "logical_flat")])
def test_outer_reduce_minloc_maxloc_value_gradient_reaches_the_winning_cell(loop, inner, reducer, pick, target):
    """loss = MinLoc (MaxLoc) over the logical cells of sin(u) w into an array of (value, b, k, j, i): the
    value's gradient goes to the winning cell (the location has none); a tie goes to the first cell in
    slice order, as the reported location does."""
    rng = np.random.default_rng(9)
    un, wn = rng.random(SHAPE) + 0.5, rng.random(SHAPE) + 0.5
    mask = _logical_mask()
    values = np.where(mask > 0, np.sin(un) * wn, np.inf if reducer == "MinLoc" else -np.inf)
    at = np.unravel_index(pick(values), SHAPE)
    tie = (1, *at[1:])  # the same cell of block 1 (or block 0): a later one in slice order
    tie = tie if tie != at else (0, *at[1:])
    un[tie], wn[tie] = un[at], wn[at]
    first = min(at, tie)
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    w = wp.array(wn, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=la.reducers.value_loc(wp.float64), requires_grad=True)
    space = _space(loop, inner, la.halo.none, target).with_reducer(getattr(la, reducer)(wp.float64))

    def body(rng_, b):
        la.inner_reduce(rng_, lambda k, j, i: wp.sin(u[b, k, j, i]) * w[b, k, j, i])

    with config.override(target=target):
        tape = wp.Tape()
        with tape:
            la.outer_reduce(space, body, out=loss)
        g = np.zeros(1, dtype=loss.grad.numpy().dtype)
        g["value"], g["b"], g["k"] = 2.0, 7, 7  # a location's gradient is ignored
        loss.grad.numpy()[...] = g
        tape.backward()
    result = loss.numpy()[0]
    assert result["value"] == values[at] and tuple(int(result[f]) for f in "bkji") == first
    du, dw = np.zeros(SHAPE), np.zeros(SHAPE)
    du[first], dw[first] = 2.0 * np.cos(un[first]) * wn[first], 2.0 * np.sin(un[first])
    np.testing.assert_allclose(u.grad.numpy(), du, rtol=1e-13)
    np.testing.assert_allclose(w.grad.numpy(), dw, rtol=1e-13)


def test_scratch_slots_no_producer_wrote_give_no_nan_gradients():
    """bvoi + la.memory: the consumer's memory spans cross ghost cells whose per-point scratch no producer
    wrote. The backward pass's replay zeroes its scratch first, so slots left with NaN by an earlier team
    in the thread's arena cannot turn 0 * NaN into NaN gradients: every gradient is finite and equals the
    formula's (whether the arena holds NaN at those slots without the zeroing depends on the teams before)."""
    f64 = wp.float64
    nb, nx, ny, nz, ng = 2, 5, 4, 3, 1
    shape = (nb, nz + 2 * ng, ny + 2 * ng, nx + 2 * ng)
    inside = (slice(None), slice(ng, -ng), slice(ng, -ng), slice(ng, -ng))
    space = la.IndexSpace.box(la.bvoi, la.memory, nb, nx, ny, nz, ng, ninner=7)
    d = space.get_delta(wp.X1DIR)
    un = 0.5 + np.random.default_rng(0).random(shape)
    u = wp.array(un, dtype=f64, requires_grad=True)
    out = wp.zeros(shape, dtype=f64, requires_grad=True)

    def body(rng, b):
        hr = rng.add_halo(la.halo.pm_i)
        s = la.get_per_point_scratch(f64, hr)
        t = la.get_per_point_scratch(f64, hr)
        for idx in la.inner(hr):
            k, j, i = rng.get_kji(idx)
            s[idx] = u[b, k, j, i] * u[b, k, j, i]
            t[idx] = u[b, k, j, i] + f64(1.0)
        rng.team_barrier()
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = s[idx - d] * t[idx + d] + s[idx] * u[b, k, j, i]

    def poison(member, team):
        pad = wp.ScratchPad1D(member.team_scratch(0), wp.float64, 2048)

        def fill(i):
            pad[i] = f64(0.0) / f64(0.0)

        wp.par_for_inner(member, 0, 2047, fill)

    weights = np.zeros(shape)
    weights[inside] = 1.0
    with config.override(num_threads=1):  # one thread: the arenas the teams and slices use are the same
        wp.par_for_outer("poison", 8 * 2048, 0, 16, poison)
        tape = wp.Tape()
        with tape:
            la.outer(space, body)
        wp.par_for_outer("poison", 8 * 2048, 0, 16, poison)
        tape.backward(grads={out: wp.array(weights, dtype=f64)})
    g = u.grad.numpy()
    assert np.isfinite(g).all()
    expect = 3.0 * un ** 2 * weights  # d/du of the sum over the interior of u[i-1]^2 (u[i+1] + 1) + u^3
    for i in range(ng, ng + nx):
        expect[..., i - 1] += (2.0 * un[..., i - 1] * (un[..., i + 1] + 1.0)) * weights[..., i]
        expect[..., i + 1] += un[..., i - 1] ** 2 * weights[..., i]
    np.testing.assert_allclose(g, expect, rtol=1e-13)

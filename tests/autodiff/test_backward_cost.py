"""What backward kernels cost: forward-only programs build no adjoint code; a guarded stencil's backward
kernel runs its interior without the guard; periodic (``%``) indices add plainly inside the box where
they are row offsets and atomically outside it. Gradients against numpy for every launch shape,
including launches larger than the arrays the indices wrap around and gradients not wanted."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import ir, pipeline
from brickwork.passes.adjoint_normal_form import normal_form
from brickwork.passes.adjoint_wrap import periodic_interior


@wp.kernel
def lap3(u: wp.array3d(dtype=wp.float64), out: wp.array3d(dtype=wp.float64)):
    i, j, k = wp.tid()
    if i > 0 and j > 0 and k > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1 and k < u.shape[2] - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1]
                        + u[i, j, k + 1] - wp.float64(6.0) * u[i, j, k])


@wp.kernel
def periodic1(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    """out[i] from a's neighbours around i, modulo a's size (the launch may be longer than a)."""
    i = wp.tid()
    n = a.shape[0]
    left = a[(i + n - 1) % n]
    out[i] = wp.float64(2.0) * left * left + wp.float64(3.0) * a[(i + 1) % n] - a[i % n]


@wp.kernel
def periodic_const(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = a[(i + 9) % 7] * a[(i + 2) % 7]


@wp.kernel
def periodic_param(a: wp.array(dtype=wp.vec3d), m: int, out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    out[i] = wp.cw_mul(a[(i + m - 2) % m], a[i % m])


@wp.kernel
def periodic2(a: wp.array2d(dtype=wp.float64), out: wp.array2d(dtype=wp.float64)):
    i, j = wp.tid()
    n = a.shape[0]
    m = a.shape[1]
    out[i, j] = a[(i + 1) % n, j % m] * a[i % n, (j + m - 1) % m] + a[(i + n - 1) % n, (j + 1) % m]


@wp.kernel
def not_periodic(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    """Indices that are not tid() + c modulo an invariant: every scatter stays atomic."""
    i = wp.tid()
    n = a.shape[0]
    out[i] = a[(i * i) % n] + a[(i - n) % n + n - 1] * wp.float64(i % 2)


def _source(kernel, mode="release:adjoint"):
    inst = kernel.get_instance(kernel.concrete_types())
    text, _ = pipeline.generate(inst.kernel, inst.arg_types, inst.label, mode=mode)
    return text


def _function(text: str, name: str) -> str:
    start = text.index(f" void {name}(")
    return text[start:text.index("\n}\n", start)]


# -- forward-only programs ----------------------------------------------------------------------------


def test_forward_launches_build_no_adjoint_instance_and_no_adjoint_code():
    u = wp.array(np.ones((5, 5, 5)), dtype=wp.float64, requires_grad=True)
    out = wp.zeros((5, 5, 5), dtype=wp.float64, requires_grad=True)
    with wp.Tape():
        wp.launch(lap3, (5, 5, 5), inputs=[u, out])
    inst = lap3.get_instance(lap3.concrete_types())
    assert inst._adjoint is None  # recording a launch builds nothing for the backward pass
    forward = _source(lap3, mode="release")
    assert "adj_" not in forward and "_ad_" not in forward and "tape" not in forward
    backward = _source(lap3)
    assert "v_adj_u" in backward and "v_adj_out" in backward


# -- a guarded stencil --------------------------------------------------------------------------------


def _lap3_adjoint(g):
    adj = np.zeros_like(g)
    gi = g[1:-1, 1:-1, 1:-1]
    adj[1:-1, 1:-1, 1:-1] -= 6.0 * gi
    adj[:-2, 1:-1, 1:-1] += gi
    adj[2:, 1:-1, 1:-1] += gi
    adj[1:-1, :-2, 1:-1] += gi
    adj[1:-1, 2:, 1:-1] += gi
    adj[1:-1, 1:-1, :-2] += gi
    adj[1:-1, 1:-1, 2:] += gi
    return adj


def test_guarded_stencil_backward_runs_its_interior_without_the_guard():
    text = _source(lap3)
    interior = _function(text, "body_interior")
    # neither the guard nor the tests that a gradient is wanted; only the launch's test whether the store's
    # adjoint is kept (the same at every point)
    tests = [line for line in interior.splitlines() if "if (" in line]
    assert len(tests) == 1 and "v__bw_keep" in tests[0]
    assert "atomic" not in text
    assert "for (int pass = use_gather ? 2 : 0; pass < 2; ++pass)" in text  # the scatter form's phases


def test_guarded_stencil_backward_gathers_one_store_per_point_without_a_test():
    """The transposed stencil: each interior point sums what its neighbours send it, one read-modify-write
    of adj_u (the scatter form has seven), no ``if``; outside the box the boundary only assigns locals."""
    text = _source(lap3)
    gather = _function(text, "body_gather")
    assert "if (" not in gather
    assert gather.count("bw::at<UNIT>(v_adj_u,") == 2  # one store: adj_u[q] = adj_u[q] + sum
    assert gather.count("bw::at<UNIT>(v_adj_out,") == 7
    assert "bw::at<UNIT>(v_u," not in gather  # a linear stencil's adjoint needs no value of u
    assert _function(text, "body_interior").count("bw::at<UNIT>(v_adj_u,") == 14  # the fallback: 7 scatters
    assert "#pragma omp simd\n" in text[text.index("if (use_gather) {"):text.index("body_gather<UNIT>(")]


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 4), (3, 3, 3), (7, 5, 9), (12, 4, 17)])
@pytest.mark.parametrize("wanted", ["both", "u only", "out only"])
def test_guarded_stencil_gradient_equals_numpy(shape, wanted):
    rng = np.random.default_rng(sum(shape))
    g = rng.standard_normal(shape)
    u = wp.array(rng.standard_normal(shape), dtype=wp.float64)
    out = wp.zeros(shape, dtype=wp.float64)
    adj_u = wp.array(np.full(shape, 0.5), dtype=wp.float64) if wanted != "out only" else None
    adj_out = wp.array(g, dtype=wp.float64) if wanted != "u only" else None
    wp.launch(lap3, shape, inputs=[u, out], adj_inputs=[adj_u, adj_out], adjoint=True)
    if adj_u is not None:
        expect = 0.5 + (_lap3_adjoint(g) if adj_out is not None else 0.0)
        np.testing.assert_allclose(adj_u.numpy(), expect, rtol=1e-12, atol=1e-12)
    if adj_out is not None:
        np.testing.assert_array_equal(adj_out.numpy(), g)  # read, never written


# -- periodic indices ---------------------------------------------------------------------------------


def _periodic1_adjoint(a, g):
    n, adj = a.size, np.zeros_like(a)
    for i in range(g.size):
        left = (i + n - 1) % n
        adj[left] += 4.0 * a[left] * g[i]
        adj[(i + 1) % n] += 3.0 * g[i]
        adj[i % n] -= g[i]
    return adj


def test_periodic_backward_adds_plainly_in_the_box_and_atomically_outside():
    text = _source(periodic1)
    assert "atomic" not in _function(text, "body_interior")
    assert "atomic" in _function(text, "body")
    # the box's contributions are gathered (passes/adjoint_gather.py), then the other points add atomically
    assert "atomic" not in _function(text, "body_gather") and "atomic" not in _function(text, "body_rim")
    assert "for (int pass = use_gather ? 1 : 0; pass < 2; ++pass)" in text
    assert "atomic" in _source(not_periodic)  # nothing it cannot prove is rewritten
    assert "body_interior" not in _source(not_periodic)


@pytest.mark.parametrize("n, launch", [(1, 1), (2, 2), (3, 3), (5, 5), (64, 64), (257, 257), (9, 4), (4, 9),
                                       (7, 50), (100, 301)])
def test_periodic_gradient_equals_numpy_for_launches_of_any_size(n, launch):
    rng = np.random.default_rng(n * 1000 + launch)
    a_np, g = rng.standard_normal(n), rng.standard_normal(launch)
    a = wp.array(a_np, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(launch, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(periodic1, launch, inputs=[a, out])
    tape.backward(grads={out: wp.array(g, dtype=wp.float64)})
    np.testing.assert_allclose(a.grad.numpy(), _periodic1_adjoint(a_np, g), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("launch", [1, 6, 7, 8, 40])
def test_periodic_constant_modulus_gradient_equals_numpy(launch):
    rng = np.random.default_rng(launch)
    a_np, g = rng.standard_normal(7), rng.standard_normal(launch)
    a, out = wp.array(a_np, dtype=wp.float64), wp.zeros(launch, dtype=wp.float64)
    adj_a = wp.zeros(7, dtype=wp.float64)
    wp.launch(periodic_const, launch, inputs=[a, out], adj_inputs=[adj_a, wp.array(g, dtype=wp.float64)],
              adjoint=True)
    expect = np.zeros(7)
    for i in range(launch):
        expect[(i + 9) % 7] += a_np[(i + 2) % 7] * g[i]
        expect[(i + 2) % 7] += a_np[(i + 9) % 7] * g[i]
    np.testing.assert_allclose(adj_a.numpy(), expect, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("m, launch", [(2, 2), (3, 10), (16, 16), (16, 11)])
def test_periodic_parameter_modulus_on_vectors_and_a_gradient_not_wanted(m, launch):
    rng = np.random.default_rng(m + launch)
    a_np, g = rng.standard_normal((m, 3)), rng.standard_normal((launch, 3))
    a = wp.array(a_np, dtype=wp.vec3d)
    out = wp.zeros(launch, dtype=wp.vec3d)
    adj_a = wp.zeros(m, dtype=wp.vec3d)
    wp.launch(periodic_param, launch, inputs=[a, m, out], adj_inputs=[adj_a, 0, wp.array(g, dtype=wp.vec3d)],
              adjoint=True)
    expect = np.zeros((m, 3))
    for i in range(launch):
        expect[(i + m - 2) % m] += a_np[i % m] * g[i]
        expect[i % m] += a_np[(i + m - 2) % m] * g[i]
    np.testing.assert_allclose(adj_a.numpy(), expect, rtol=1e-12, atol=1e-12)
    # no gradient wanted for a: the launch runs, and leaves the adjoint of out as it was
    adj_out = wp.array(g, dtype=wp.vec3d)
    wp.launch(periodic_param, launch, inputs=[a, m, out], adj_inputs=[None, 0, adj_out], adjoint=True)
    np.testing.assert_array_equal(adj_out.numpy(), g)


@pytest.mark.parametrize("shape, launch", [((4, 5), (4, 5)), ((6, 3), (6, 3)), ((3, 4), (7, 9)), ((1, 1), (2, 2))])
def test_periodic_2d_gradient_equals_numpy(shape, launch):
    rng = np.random.default_rng(shape[0] * 7 + launch[1])
    a_np, g = rng.standard_normal(shape), rng.standard_normal(launch)
    a, out = wp.array(a_np, dtype=wp.float64), wp.zeros(launch, dtype=wp.float64)
    adj_a = wp.zeros(shape, dtype=wp.float64)
    wp.launch(periodic2, launch, inputs=[a, out], adj_inputs=[adj_a, wp.array(g, dtype=wp.float64)], adjoint=True)
    n, m = shape
    expect = np.zeros(shape)
    for i in range(launch[0]):
        for j in range(launch[1]):
            p, q, r = ((i + 1) % n, j % m), (i % n, (j + m - 1) % m), ((i + n - 1) % n, (j + 1) % m)
            expect[p] += a_np[q] * g[i, j]
            expect[q] += a_np[p] * g[i, j]
            expect[r] += g[i, j]
    np.testing.assert_allclose(adj_a.numpy(), expect, rtol=1e-12, atol=1e-12)


def test_the_box_stops_where_an_int32_partial_sum_could_wrap():
    inst = periodic1.get_instance(periodic1.concrete_types())
    typed, _ = pipeline.type_instance(inst.kernel, inst.arg_types, inst.label)
    box = periodic_interior(normal_form(typed).fn)
    assert ir.printer.expr(box.lower[0]) == "max[nw](max[nw](int64(1), int64(-1)), int64(0))"  # i - 1, i + 1, i
    upper = ir.printer.expr(box.upper[0])
    for bound in ("sub[nw](int64(a.shape[0]), int64(-1))",  # i - 1 < n
                  "sub[nw](int64(a.shape[0]), int64(1))",  # i + 1 < n
                  "sub[nw](int64(2147483648), mul[nw](int64(1), int64(a.shape[0])))",  # i + n <= 2**31 - 1
                  "int64(2147483647)"):  # i + 1 <= 2**31 - 1
        assert bound in upper


def test_mods_that_are_not_offsets_in_a_box_are_left_alone():
    inst = not_periodic.get_instance(not_periodic.concrete_types())
    typed, _ = pipeline.type_instance(inst.kernel, inst.arg_types, inst.label)
    assert periodic_interior(normal_form(typed).fn) is None


# -- builtins differentiated through their definition ----------------------------------------------


@wp.kernel
def svd3_loss(a: wp.array(dtype=wp.mat33d), out: wp.array(dtype=wp.float64)):
    U, S, V = wp.svd3(a[0])
    out[0] = S[0] + wp.float64(2.0) * S[1] + U[0, 1] * V[1, 2]


@wp.kernel
def quat_from_matrix_loss(a: wp.array(dtype=wp.mat33d), w: wp.array(dtype=wp.quatd), out: wp.array(dtype=wp.float64)):
    out[0] = wp.dot(wp.quat_from_matrix(a[0]), w[0])


def test_an_expansion_evaluates_each_shared_value_once():
    # quat_from_matrix's definition: its four comparisons once each (they were printed 108 times, once per
    # use in the branches of the four components), its four branches' square roots once each (19 in all
    # before, 7 now with normalize's)
    text = _source(quat_from_matrix_loss)
    assert text.count("bw::ge(") == 4 and text.count("bw::sqrt(") < 10
    # svd3's: its backward source is an eighth of what it was when its definition and its rule's shared
    # values were printed as trees (126 000 characters)
    assert len(_source(svd3_loss)) < 20000


def test_expansion_gradients_equal_finite_differences():
    rng = np.random.default_rng(3)
    m = rng.normal(size=(3, 3))
    w = rng.normal(size=4)

    def loss(k, mat):
        a = wp.array(mat[None], dtype=wp.mat33d, requires_grad=True)
        out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
        inputs = [a, wp.array(w[None], dtype=wp.quatd), out] if k is quat_from_matrix_loss else [a, out]
        tape = wp.Tape()
        with tape:
            wp.launch(k, 1, inputs=inputs)
        tape.backward(out)
        return out.numpy()[0], a.grad.numpy()[0]

    for k in (quat_from_matrix_loss, svd3_loss):
        _, grad = loss(k, m)
        fd = np.zeros((3, 3))
        for i in range(3):
            for j in range(3):
                up, down = m.copy(), m.copy()
                up[i, j] += 1e-6
                down[i, j] -= 1e-6
                fd[i, j] = (loss(k, up)[0] - loss(k, down)[0]) / 2e-6
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7)

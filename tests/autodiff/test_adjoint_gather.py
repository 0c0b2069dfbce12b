"""Backward stencils in gather form (passes/adjoint_gather.py): gradients against numpy for 1-D, 2-D and
3-D stencils in float32 and float64, launches smaller than, as large as and larger than the arrays,
asymmetric offsets, two written arrays with weights from another array, kernels the rule must leave
alone, and the run-time fallback to the scatter form when gradient arrays overlap; a property over
random stencils compares the gather form with numpy and with the scatter form of the same stencil."""

from __future__ import annotations

import importlib.util
import itertools
import re
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import pipeline


@wp.kernel
def lap1(u: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i > 0 and i < u.shape[0] - 1:
        out[i] = u[i - 1] - wp.float64(2.0) * u[i] + u[i + 1]


@wp.kernel
def lap1_f32(u: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < 1 or i >= u.shape[0] - 1:
        return
    out[i] = u[i - 1] - 2.0 * u[i] + u[i + 1]


@wp.kernel
def lap2(u: wp.array2d(dtype=wp.float64), out: wp.array2d(dtype=wp.float64)):
    i, j = wp.tid()
    if i > 0 and j > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - wp.float64(4.0) * u[i, j]


@wp.kernel
def lap3_f32(u: wp.array3d(dtype=wp.float32), out: wp.array3d(dtype=wp.float32)):
    i, j, k = wp.tid()
    if i > 0 and j > 0 and k > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1 and k < u.shape[2] - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1]
                        + u[i, j, k + 1] - 6.0 * u[i, j, k])


@wp.kernel
def lap3_f64(u: wp.array3d(dtype=wp.float64), out: wp.array3d(dtype=wp.float64)):
    i, j, k = wp.tid()
    if i > 0 and j > 0 and k > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1 and k < u.shape[2] - 1:
        out[i, j, k] = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1]
                        + u[i, j, k + 1] - wp.float64(6.0) * u[i, j, k])


@wp.kernel
def asym2(u: wp.array2d(dtype=wp.float64), out: wp.array2d(dtype=wp.float64)):
    """Offsets -1..2 in i and -2..1 in j: the gather box is not centred."""
    i, j = wp.tid()
    if i >= 1 and i < u.shape[0] - 2 and j >= 2 and j < u.shape[1] - 1:
        out[i, j] = (wp.float64(2.0) * u[i + 2, j] - u[i, j - 2] + wp.float64(0.5) * u[i - 1, j + 1]
                     + wp.float64(3.0) * u[i, j])


@wp.kernel
def weighted2(u: wp.array2d(dtype=wp.float64), w: wp.array2d(dtype=wp.float64), out: wp.array2d(dtype=wp.float64)):
    """Two written gradients, each contribution weighted by the other array (w[i, j] * adj_out[i, j])."""
    i, j = wp.tid()
    if i > 0 and j > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = w[i, j] * (u[i - 1, j] - u[i, j + 1]) + w[i + 1, j] * u[i, j] * u[i, j]


@wp.kernel
def lap_else(u: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    """Writes outside the box too: the boundary's points run after the gather."""
    i = wp.tid()
    if i > 0 and i < u.shape[0] - 1:
        out[i] = u[i - 1] + u[i + 1]
    elif i < u.shape[0]:
        out[i] = wp.float64(2.0) * u[i]


@wp.kernel
def pair1(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i > 0 and i < a.shape[0] - 1:
        out[i] = a[i - 1] + wp.float64(2.0) * b[i + 1]


@wp.kernel
def in_place1(u: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    """The adjoint of out is read and written: the rule must not apply."""
    i = wp.tid()
    if i > 0 and i < u.shape[0] - 1:
        out[i] = out[i] + u[i - 1] - u[i + 1]


@wp.kernel
def heavy1(u: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    """Contributions through exp and sqrt: too dear to recompute, the rule must not apply."""
    i = wp.tid()
    if i > 0 and i < u.shape[0] - 1:
        out[i] = wp.exp(u[i - 1]) * wp.sqrt(u[i + 1])


@wp.kernel
def long1(u: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    """Cheap operations, but too many of them in one contribution's slice."""
    i = wp.tid()
    if i > 0 and i < u.shape[0] - 1:
        x = u[i - 1]
        y = x * x + x
        y = y * y + x
        y = y * y + x
        y = y * y + x
        y = y * y + x
        y = y * y + x
        y = y * y + x
        y = y * y + x
        y = y * y + x
        out[i] = y * u[i + 1]


def _source(kernel) -> str:
    inst = kernel.get_instance(kernel.concrete_types())
    text, _ = pipeline.generate(inst.kernel, inst.arg_types, inst.label, mode="release:adjoint")
    return text


def _box(shape, launch, low, high):
    """Slices of the guard's box: low[d] <= i < shape[d] - high[d], within the launch."""
    return tuple(slice(lo, max(lo, min(n - hi, m))) for n, m, lo, hi in zip(shape, launch, low, high))


def _shifted(box, offset):
    return tuple(slice(s.start + c, s.stop + c) for s, c in zip(box, offset))


def _linear_adjoint(shape, launch, low, high, terms, g):
    """adj_u of out[tid] = sum of w * u[tid + offset] over the guard's box, for the output adjoint g."""
    adj = np.zeros(shape)
    box = _box(shape, launch, low, high)
    for offset, w in terms:
        adj[_shifted(box, offset)] += w * g[box]
    return adj


LAP = {1: [((-1,), 1.0), ((0,), -2.0), ((1,), 1.0)],
       2: [((-1, 0), 1.0), ((1, 0), 1.0), ((0, -1), 1.0), ((0, 1), 1.0), ((0, 0), -4.0)],
       3: [(o, 1.0) for o in ((-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1))]
       + [((0, 0, 0), -6.0)]}


def _launch_shapes(shape):
    """A launch smaller than the array, as large, and larger."""
    return [tuple(max(1, n - 2) for n in shape), shape, tuple(n + 3 for n in shape)]


@pytest.mark.parametrize("kernel, shape, dtype", [
    (lap1, (37,), np.float64), (lap1_f32, (50,), np.float32), (lap2, (13, 11), np.float64),
    (lap3_f32, (9, 7, 12), np.float32), (lap3_f64, (8, 10, 6), np.float64), (lap3_f64, (3, 3, 3), np.float64)])
@pytest.mark.parametrize("which", [0, 1, 2])
def test_laplacian_gradients_equal_numpy(kernel, shape, dtype, which):
    assert "body_gather" in _source(kernel)
    launch = _launch_shapes(shape)[which]
    rng = np.random.default_rng(len(shape) * 100 + which)
    u = wp.array(rng.standard_normal(shape).astype(dtype))
    out = wp.zeros(shape, dtype=wp.float32 if dtype == np.float32 else wp.float64)
    g = rng.standard_normal(shape).astype(dtype)
    adj_out = wp.array(g)
    start = rng.standard_normal(shape).astype(dtype)
    adj_u = wp.array(start.copy())
    wp.launch(kernel, launch, inputs=[u, out], adj_inputs=[adj_u, adj_out], adjoint=True)
    ones = (1,) * len(shape)
    expect = start + _linear_adjoint(shape, launch, ones, ones, LAP[len(shape)], g.astype(np.float64))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(adj_u.numpy(), expect, rtol=tol, atol=tol)
    np.testing.assert_array_equal(adj_out.numpy(), g)  # read, never written


@pytest.mark.parametrize("shape, launch", [((12, 15), (12, 15)), ((9, 8), (5, 6)), ((7, 9), (11, 14)),
                                           ((4, 4), (4, 4)), ((3, 2), (3, 2))])
def test_asymmetric_offsets_equal_numpy(shape, launch):
    assert "body_gather" in _source(asym2)
    rng = np.random.default_rng(shape[0] * 31 + launch[1])
    u = wp.array(rng.standard_normal(shape))
    g = rng.standard_normal(shape)
    adj_u = wp.zeros(shape, dtype=wp.float64)
    wp.launch(asym2, launch, inputs=[u, wp.zeros(shape, dtype=wp.float64)], adj_inputs=[adj_u, wp.array(g)],
              adjoint=True)
    terms = [((2, 0), 2.0), ((0, -2), -1.0), ((-1, 1), 0.5), ((0, 0), 3.0)]
    expect = _linear_adjoint(shape, launch, (1, 2), (2, 1), terms, g)
    np.testing.assert_allclose(adj_u.numpy(), expect, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape, launch", [((10, 9), (10, 9)), ((6, 7), (4, 5)), ((5, 5), (8, 9))])
def test_two_written_arrays_weighted_by_another_array(shape, launch):
    assert "body_gather" in _source(weighted2)
    rng = np.random.default_rng(shape[0] + launch[0])
    u_np, w_np, g = (rng.standard_normal(shape) for _ in range(3))
    adj_u, adj_w = wp.zeros(shape, dtype=wp.float64), wp.zeros(shape, dtype=wp.float64)
    wp.launch(weighted2, launch, inputs=[wp.array(u_np), wp.array(w_np), wp.zeros(shape, dtype=wp.float64)],
              adj_inputs=[adj_u, adj_w, wp.array(g)], adjoint=True)
    eu, ew = np.zeros(shape), np.zeros(shape)
    for i, j in itertools.product(range(1, min(shape[0] - 1, launch[0])), range(1, min(shape[1] - 1, launch[1]))):
        eu[i - 1, j] += w_np[i, j] * g[i, j]
        eu[i, j + 1] -= w_np[i, j] * g[i, j]
        eu[i, j] += 2.0 * w_np[i + 1, j] * u_np[i, j] * g[i, j]
        ew[i, j] += (u_np[i - 1, j] - u_np[i, j + 1]) * g[i, j]
        ew[i + 1, j] += u_np[i, j] ** 2 * g[i, j]
    np.testing.assert_allclose(adj_u.numpy(), eu, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(adj_w.numpy(), ew, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n, launch", [(20, 20), (20, 12), (20, 30), (2, 2), (3, 5)])
def test_a_boundary_that_writes_runs_after_the_gather(n, launch):
    text = _source(lap_else)
    assert "body_gather" in text and "for (int pass = use_gather ? 1 : 0; pass < 2; ++pass)" in text
    rng = np.random.default_rng(n + launch)
    g = rng.standard_normal(n)
    adj_u = wp.zeros(n, dtype=wp.float64)
    wp.launch(lap_else, launch, inputs=[wp.array(rng.standard_normal(n)), wp.zeros(n, dtype=wp.float64)],
              adj_inputs=[adj_u, wp.array(g)], adjoint=True)
    expect = _linear_adjoint((n,), (launch,), (1,), (1,), [((-1,), 1.0), ((1,), 1.0)], g)
    for i in range(min(n, launch)):
        if not 0 < i < n - 1:
            expect[i] += 2.0 * g[i]
    np.testing.assert_allclose(adj_u.numpy(), expect, rtol=1e-12, atol=1e-12)


def test_kernels_outside_the_rule_keep_the_scatter_form_and_their_gradients():
    rng = np.random.default_rng(5)
    n = 40
    u_np, g = rng.uniform(0.5, 2.0, n), rng.standard_normal(n)
    for kernel in (in_place1, heavy1, long1):
        assert "body_gather" not in _source(kernel), kernel.key
        assert "body_interior" in _source(kernel)  # still split, still phased plain adds
    adj_u = wp.zeros(n, dtype=wp.float64)
    wp.launch(in_place1, n, inputs=[wp.array(u_np), wp.zeros(n, dtype=wp.float64)],
              adj_inputs=[adj_u, wp.array(g)], adjoint=True)
    np.testing.assert_allclose(adj_u.numpy(), _linear_adjoint((n,), (n,), (1,), (1,), [((-1,), 1.0), ((1,), -1.0)],
                                                              g), rtol=1e-12, atol=1e-12)
    adj_u = wp.zeros(n, dtype=wp.float64)
    wp.launch(heavy1, n, inputs=[wp.array(u_np), wp.zeros(n, dtype=wp.float64)], adj_inputs=[adj_u, wp.array(g)],
              adjoint=True)
    expect = np.zeros(n)
    expect[:-2] += np.exp(u_np[:-2]) * np.sqrt(u_np[2:]) * g[1:-1]
    expect[2:] += np.exp(u_np[:-2]) * 0.5 / np.sqrt(u_np[2:]) * g[1:-1]
    np.testing.assert_allclose(adj_u.numpy(), expect, rtol=1e-12, atol=1e-12)


def test_same_gradient_array_passed_twice_falls_back_to_the_scatter_form():
    text = _source(pair1)
    assert "body_gather" in text
    test = next(line for line in text.splitlines() if "const bool use_gather" in line)
    pairs = {frozenset(m.split(", ")) for m in re.findall(r"!may_overlap\(([^)]*)\)", test)}
    assert pairs == {frozenset(p) for p in (("v_adj_a", "v_adj_b"), ("v_adj_a", "v_adj_out"), ("v_adj_b", "v_adj_out"))}
    n = 33
    g = np.random.default_rng(1).standard_normal(n)
    shared = wp.array(np.full(n, 0.25))
    wp.launch(pair1, n, inputs=[wp.zeros(n, dtype=wp.float64)] * 3, adj_inputs=[shared, shared, wp.array(g)],
              adjoint=True)
    expect = 0.25 + _linear_adjoint((n,), (n,), (1,), (1,), [((-1,), 1.0)], g) \
        + _linear_adjoint((n,), (n,), (1,), (1,), [((1,), 2.0)], g)
    np.testing.assert_allclose(shared.numpy(), expect, rtol=1e-12, atol=1e-12)


def test_gradient_arrays_sharing_memory_with_what_the_gather_reads():
    """adj_u and adj_out interleaved in one buffer: their spans overlap (the scatter form runs), their
    elements do not (the gradient is still exact)."""
    shape = (6, 7, 8)
    rng = np.random.default_rng(2)
    g = rng.standard_normal(shape)
    buf = wp.zeros((*shape, 2), dtype=wp.float64)
    adj_u, adj_out = buf[:, :, :, 0], buf[:, :, :, 1]
    wp.launch(lap3_f64, shape, inputs=[wp.array(g), wp.zeros(shape, dtype=wp.float64)],
              adj_inputs=[wp.zeros(shape, dtype=wp.float64), wp.array(g)], adjoint=True)  # warm, separate arrays
    host = np.zeros((*shape, 2))
    host[..., 1] = g
    buf.assign(host)
    wp.launch(lap3_f64, shape, inputs=[wp.array(g), wp.zeros(shape, dtype=wp.float64)],
              adj_inputs=[adj_u, adj_out], adjoint=True)
    expect = _linear_adjoint(shape, shape, (1, 1, 1), (1, 1, 1), LAP[3], g)
    np.testing.assert_allclose(buf.numpy()[..., 0], expect, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(buf.numpy()[..., 1], g)


# -- a property: random stencils, gather against numpy and against the scatter form ---------------------


def _stencil_module(tmp_path, name, terms, dims):
    """Two kernels of the stencil ``terms``: ``gather`` (the rule applies) and ``scatter`` (each term times
    sqrt(one), one == 1.0: the same values, but a slice the rule refuses)."""
    idx = ["i", "j"][:dims]
    low = [max([0] + [-o[d] for o, _ in terms]) for d in range(dims)]
    high = [max([0] + [o[d] for o, _ in terms]) for d in range(dims)]
    guard = " and ".join([f"{v} >= {lo}" for v, lo in zip(idx, low)]
                         + [f"{v} < u.shape[{d}] - {hi}" for d, (v, hi) in enumerate(zip(idx, high))])

    def at(o):
        return ", ".join(f"{v} + {c}" if c >= 0 else f"{v} - {-c}" for v, c in zip(idx, o))

    expr = " + ".join(f"wp.float64({w!r}) * u[{at(o)}]" for o, w in terms)
    arr = "wp.array(dtype=wp.float64)" if dims == 1 else "wp.array2d(dtype=wp.float64)"
    tid = idx[0] if dims == 1 else ", ".join(idx)
    lines = ["import brickwork as wp", ""]
    for kind, factor in (("gather", ""), ("scatter", " * wp.sqrt(one)")):
        lines += ["@wp.kernel", f"def {kind}(u: {arr}, one: wp.float64, out: {arr}):", f"    {tid} = wp.tid()",
                  f"    if {guard}:", f"        out[{tid}] = ({expr}){factor}", ""]
    path = tmp_path / f"{name}.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module, low, high


_offsets = st.integers(-2, 2)


@settings(max_examples=4, deadline=None)
@given(dims=st.sampled_from([1, 2]), data=st.data())
def test_random_stencils_gather_equals_numpy_and_the_scatter_form(tmp_path_factory, dims, data):
    n_terms = data.draw(st.integers(1, 4))
    offsets = data.draw(st.lists(st.tuples(*[_offsets] * dims), min_size=n_terms, max_size=n_terms, unique=True))
    weights = data.draw(st.lists(st.sampled_from([1.0, -2.0, 0.5, 3.0]), min_size=n_terms, max_size=n_terms))
    shape = tuple(data.draw(st.integers(1, 12)) for _ in range(dims))
    launch = tuple(data.draw(st.integers(1, 14)) for _ in range(dims))
    terms = list(zip(offsets, weights))
    name = f"bw_gather_case_{abs(hash((dims, tuple(terms)))):x}"
    module, low, high = _stencil_module(tmp_path_factory.mktemp("stencils"), name, terms, dims)
    assert "body_gather" in _source(module.gather) and "body_gather" not in _source(module.scatter)
    rng = np.random.default_rng(len(terms))
    u, g = wp.array(rng.standard_normal(shape)), rng.standard_normal(shape)
    results = []
    for kernel in (module.gather, module.scatter):
        adj_u = wp.zeros(shape, dtype=wp.float64)
        wp.launch(kernel, launch, inputs=[u, 1.0, wp.zeros(shape, dtype=wp.float64)],
                  adj_inputs=[adj_u, 0.0, wp.array(g)], adjoint=True)
        results.append(adj_u.numpy())
    expect = _linear_adjoint(shape, launch, low, high, terms, g)
    np.testing.assert_allclose(results[0], expect, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-12)

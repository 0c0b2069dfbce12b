"""Gradients of outer-body values: a value computed in the outer body of a bvoi/bovi slice (outside its
inner loops) and used by the visits. On a GPU target every thread of the slice holds the value and runs
some of the visits, so the value's adjoint is the sum of every thread's part (summed through the
slice's shared memory); on the CPU one thread runs the slice. Checked against exact derivatives
(numpy), central differences on the GPU emulation, and the CPU's gradient."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
import gpu_compile
from brickwork import config, la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

NB, N, NG = 2, 4, 1
SHAPE = (NB, N + 2 * NG, N + 2 * NG, N + 2 * NG)
LOGICAL = (slice(None), slice(NG, NG + N), slice(NG, NG + N), slice(NG, NG + N))
TARGETS = ("cpu", "cuda-emulation")
PAIRS = [("bvoi", "logical_flat"), ("bvoi", "memory"), ("bovi", "logical_coords"), ("bovi", "memory")]


def _space(loop, inner, target):
    backend = la.team if target != "cpu" else None
    space = la.IndexSpace.box(getattr(la, loop), getattr(la, inner), NB, N, N, N, NG, ninner=la.i_pencil,
                              backend=backend)
    space.add_per_point_scratch(wp.float64, halo=la.halo.pm_i, count=1)
    return space


def _run(space, u, v, out):
    dx = space.get_delta(wp.X1DIR)

    def body(rng_, b):
        # slice values: a scalar and a vector computed from arrays, used by the visits of two stages
        scale = u[b, 1, 1, 1] * u[b, 1, 1, 1] + wp.float64(1.0)
        tilt = wp.vec2d(v[b, 1, 1, 2], wp.sin(v[b, 1, 2, 1]))
        hr = rng_.add_halo(la.halo.pm_i)
        s = la.get_per_point_scratch(wp.float64, hr)
        for idx in la.inner(hr):
            k, j, i = rng_.get_kji(idx)
            s[idx] = scale * u[b, k, j, i] + tilt[1]
        rng_.team_barrier()
        twice = scale * tilt[0]  # a slice value computed from slice values, between the stages
        for idx in la.inner(rng_):
            k, j, i = rng_.get_kji(idx)
            out[b, k, j, i] = s[idx - dx] * s[idx + dx] + twice * v[b, k, j, i] + wp.dot(tilt, tilt)

    la.outer(space, body)


def _forward_numpy(un, vn):
    scale = (un[:, 1, 1, 1] ** 2 + 1.0)[:, None, None, None]
    t0, t1 = vn[:, 1, 1, 2][:, None, None, None], np.sin(vn[:, 1, 2, 1])[:, None, None, None]
    s = scale * un + t1
    s_left, s_right = np.roll(s, 1, axis=3), np.roll(s, -1, axis=3)  # logical cells never wrap (NG = 1)
    out = s_left * s_right + scale * t0 * vn + t0 * t0 + t1 * t1
    mask = np.zeros(SHAPE)
    mask[LOGICAL] = 1.0
    return out * mask


def _gradients(loop, inner, target, un, vn, w):
    u = wp.array(un, dtype=wp.float64, requires_grad=True)
    v = wp.array(vn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(SHAPE, dtype=wp.float64, requires_grad=True)
    space = _space(loop, inner, target)
    with config.override(target=target):
        tape = wp.Tape()
        with tape:
            _run(space, u, v, out)
        tape.backward(grads={out: wp.array(w, dtype=wp.float64)})
    return out.numpy().copy(), u.grad.numpy().copy(), v.grad.numpy().copy()


def _loss(loop, inner, target, un, vn, w):
    u, v = wp.array(un, dtype=wp.float64), wp.array(vn, dtype=wp.float64)
    out = wp.zeros(SHAPE, dtype=wp.float64)
    with config.override(target=target):
        _run(_space(loop, inner, target), u, v, out)
    return float((w * out.numpy()).sum())


def _data(seed=4):
    rng = np.random.default_rng(seed)
    return rng.random(SHAPE), rng.random(SHAPE), rng.random(SHAPE)


@pytest.mark.parametrize("loop, inner", PAIRS)
# the slice values' adjoint sums are read after a barrier
@pytest.mark.compiles_for_cuda(check=gpu_compile.where("_adj_sum_", "__syncthreads();"))
def test_slice_values_used_by_visits_on_the_gpu_emulation(loop, inner):
    """The emulation's gradient equals the CPU's, central differences (every input along a random
    direction, and single cells that reach the slice values), and the forward values numpy's."""
    un, vn, w = _data()
    out, gu, gv = _gradients(loop, inner, "cuda-emulation", un, vn, w)
    np.testing.assert_allclose(out[LOGICAL], _forward_numpy(un, vn)[LOGICAL], rtol=1e-13)
    cpu_out, cpu_gu, cpu_gv = _gradients(loop, inner, "cpu", un, vn, w)
    np.testing.assert_allclose(gu, cpu_gu, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gv, cpu_gv, rtol=1e-12, atol=1e-13)
    assert gu[:, 1, 1, 1].all() and gv[:, 1, 1, 2].all() and gv[:, 1, 2, 1].all()  # the slice values' sources

    h = 1e-6
    rng = np.random.default_rng(9)
    du, dv = rng.standard_normal(SHAPE), rng.standard_normal(SHAPE)
    fd = (_loss(loop, inner, "cuda-emulation", un + h * du, vn + h * dv, w)
          - _loss(loop, inner, "cuda-emulation", un - h * du, vn - h * dv, w)) / (2 * h)
    assert float((gu * du).sum() + (gv * dv).sum()) == pytest.approx(fd, rel=1e-7)
    for name, cell in (("u", (0, 1, 1, 1)), ("v", (1, 1, 1, 2)), ("v", (0, 1, 2, 1))):
        up, down = [x.copy() for x in (un, vn)], [x.copy() for x in (un, vn)]
        which = 0 if name == "u" else 1
        up[which][cell] += h
        down[which][cell] -= h
        fd = (_loss(loop, inner, "cuda-emulation", *up, w) - _loss(loop, inner, "cuda-emulation", *down, w)) / (2 * h)
        assert (gu if name == "u" else gv)[cell] == pytest.approx(fd, rel=1e-7), (name, cell)


def test_slice_value_from_a_pack_view_on_the_gpu_emulation():
    """A mesh scheme whose outer body reads a weight from the fields (through a pack view) and scales
    every visit by it, under a tape with ghost exchanges: the emulation's gradient equals the CPU's and
    central differences."""
    pkg = Package("p")
    pkg.add_field("q", Metadata("Cell", "FillGhost"))
    pkg.add_field("r", Metadata("Cell"))
    mesh = Mesh(nx=(16, 8), block_nx=(8, 8), nghost=1, packages=[pkg], boundaries="periodic")
    md = mesh.mesh_data()
    q, r = VarTag("q"), VarTag("r")
    pack = PackDescriptor(mesh, [q, r]).get_pack(md)

    def spaces(target):
        backend = la.team if target != "cpu" else None
        return la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior,
                             nblocks=pack.get_nblocks(), md=md, backend=backend)

    def run(target, q0):
        mesh.data("q")[...] = q0
        space = spaces(target)
        dx = space.get_delta(wp.X1DIR)

        def smooth(rng_, b):
            pv = la.make_pack_view(rng_, pack)
            wgt = wp.float64(0.1) + pv[q(), 0, 3, 3] * pv[q(), 0, 3, 3]  # one cell of the block: a slice value
            for idx in la.inner(rng_):
                pv[r(), idx] = pv[q(), idx] + wgt * (pv[q(), idx + dx] - pv[q(), idx - dx])

        def copy_back(rng_, b):
            pv = la.make_pack_view(rng_, pack)
            for idx in la.inner(rng_):
                pv[q(), idx] = pv[r(), idx]

        with config.override(target=target):
            for _ in range(2):
                mesh.fill_ghosts()
                la.outer(space, smooth)
                la.outer(space, copy_back)
        return mesh.data("q").copy()

    rng = np.random.default_rng(2)
    q0 = 1.0 + 0.3 * rng.random(mesh.data("q").shape)
    w = np.zeros_like(q0)
    w[:, :, :, 1:-1, 1:-1] = rng.random(w[:, :, :, 1:-1, 1:-1].shape)
    grads = {}
    for target in TARGETS:
        tape = wp.Tape()
        with tape:
            run(target, q0)
        mesh.field("q").grad[...] = w
        tape.backward()
        grads[target] = mesh.field("q").grad.copy()
        tape.zero()
    np.testing.assert_allclose(grads["cuda-emulation"], grads["cpu"], rtol=1e-12, atol=1e-13)
    h = 1e-6
    for cell in [(0, 0, 0, 3, 3), (1, 0, 0, 3, 3), (0, 0, 0, 5, 2)]:
        up, down = q0.copy(), q0.copy()
        up[cell] += h
        down[cell] -= h
        fd = (float((w * run("cuda-emulation", up)).sum()) - float((w * run("cuda-emulation", down)).sum())) / (2 * h)
        assert grads["cuda-emulation"][cell] == pytest.approx(fd, rel=1e-7), cell


@pytest.mark.parametrize("loop, inner", [("bvoi", "logical_coords"), ("bovi", "logical_flat")])
@pytest.mark.compiles_for_cuda
def test_matrix_slice_value_read_by_element_and_row(loop, inner):
    """A matrix slice value whose visits read an element, a row and the whole matrix: each read's
    adjoint lands in its components of the slice's sum."""
    rng = np.random.default_rng(8)

    def body_of(u, out):
        def body(rng_, b):
            m = wp.mat22d(u[b, 1, 1, 1], u[b, 1, 1, 2], u[b, 1, 2, 1], u[b, 2, 1, 1])
            for idx in la.inner(rng_):
                k, j, i = rng_.get_kji(idx)
                x = u[b, k, j, i]
                out[b, k, j, i] = m[0, 1] * x + wp.dot(m[1], wp.vec2d(x, x * x)) + wp.determinant(m) * x
        return body

    _check_emulation_gradient(loop, inner, body_of, rng.random(SHAPE), rng.random(SHAPE))


def _check_emulation_gradient(loop, inner, body_of, un, w):
    """The gradient of sum(w * out) through the outer body ``body_of(u, out)`` on the GPU emulation equals
    the CPU's, and central differences at a few cells."""

    def run(target, x, grads):
        u = wp.array(x, dtype=wp.float64, requires_grad=grads)
        out = wp.zeros(SHAPE, dtype=wp.float64, requires_grad=grads)
        space = _space(loop, inner, target)
        body = body_of(u, out)
        with config.override(target=target):
            tape = wp.Tape()
            with tape:
                la.outer(space, body)
            if grads:
                tape.backward(grads={out: wp.array(w, dtype=wp.float64)})
        return float((w * out.numpy()).sum()), (u.grad.numpy().copy() if grads else None)

    _, g = run("cuda-emulation", un, True)
    _, cpu = run("cpu", un, True)
    np.testing.assert_allclose(g, cpu, rtol=1e-12, atol=1e-13)
    h = 1e-6
    for cell in [(0, 1, 1, 1), (1, 1, 1, 2), (0, 1, 2, 1), (1, 2, 1, 1), (0, 3, 2, 4)]:
        up, down = un.copy(), un.copy()
        up[cell] += h
        down[cell] -= h
        fd = (run("cuda-emulation", up, False)[0] - run("cuda-emulation", down, False)[0]) / (2 * h)
        assert g[cell] == pytest.approx(fd, rel=1e-7), cell


@wp.struct
class Coefficients:
    a: wp.float64
    tilt: wp.vec2d
    steps: wp.int32


@pytest.mark.parametrize("loop, inner", [("bovi", "logical_flat"), ("bvoi", "memory")])
@pytest.mark.compiles_for_cuda
def test_struct_and_tuple_slice_values_used_by_visits(loop, inner):
    """A struct computed in the outer body (a float field, a vector field read by component, an integer
    field) and a tuple, read by the visits field by field and whole (a copy): on a GPU target each of their
    float parts gets its own sum over the slice's threads. Against the CPU and central differences."""
    rng = np.random.default_rng(5)

    def body_of(u, out):
        def body(rng_, b):
            c = Coefficients()
            c.a = u[b, 1, 1, 1] * wp.float64(3.0)
            c.tilt = wp.vec2d(u[b, 1, 1, 2], wp.sin(u[b, 1, 2, 1]))
            c.steps = 2
            pair = (u[b, 2, 1, 1] * u[b, 2, 1, 1], c.a + wp.float64(1.0))
            for idx in la.inner(rng_):
                k, j, i = rng_.get_kji(idx)
                d = c  # a whole copy of the slice value
                p0, p1 = pair  # a tuple is unpacked
                out[b, k, j, i] = (d.a * u[b, k, j, i] + c.tilt[1] * wp.float64(c.steps) + p0 * p1
                                   + d.tilt[0] * u[b, k, j, i] * u[b, k, j, i])
        return body

    _check_emulation_gradient(loop, inner, body_of, rng.random(SHAPE) + 0.5, rng.random(SHAPE))

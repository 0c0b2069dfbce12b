"""An ``la.outer`` / ``la.outer_reduce`` launch whose index space would take an access that the body makes at
every cell out of its array is refused before the body runs (``ir/range_bounds.py``): the blocks ``b`` runs
over and the logical box an undilated ``la.inner`` loop visits (``logical_coords``' k, j, i, or
``rng.get_kji(idx)`` of ``logical_flat``) bound the arrays' shapes. A ``LaunchError`` names the access, its
file and line, the box and the shape; nothing is written. In-range launches give numpy's values."""

import math
import struct
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import la

HERE = __file__.rsplit("/", 1)[-1]
F = wp.zeros((1, 1, 1, 1), dtype=wp.float64)  # what the bodies read and write (rebound by the tests)
OUT = wp.zeros((1, 1, 1, 1), dtype=wp.float64)
LOOPS = (la.bovi, la.bvoi, la.boiv)


def _line(text: str) -> int:
    with open(__file__) as f:
        return next(n for n, line in enumerate(f, 1) if text in line)


def coords_body(rng, b):
    for k, j, i in la.inner(rng):
        OUT[b, k, j, i] = F[b, k, j, i + 1] * wp.float64(2.0)  # coords access


def flat_body(rng, b):
    for idx in la.inner(rng):
        k, j, i = rng.get_kji(idx)
        OUT[b, k, j, i] = F[b, k, j, i - 1] + F[b, k - 1, j, i]  # flat access


def guarded_body(rng, b):
    for k, j, i in la.inner(rng):
        if k < OUT.shape[1] and j < OUT.shape[2] and i < OUT.shape[3]:
            OUT[b, k, j, i] = wp.float64(1.0)


def halo_body(rng, b):
    hr = rng.add_halo(la.halo.pm_i)
    for idx in la.inner(hr):
        k, j, i = rng.get_kji(idx)
        OUT[b, k, j, i] = F[b, k, j, i] + wp.float64(1.0)  # halo access


def halo_coords_body(rng, b):
    hr = rng.add_halo(la.halo.minus_j)
    for k, j, i in la.inner(hr):
        OUT[b, k, j, i] = F[b, k, j, i] * wp.float64(3.0)  # minus_j access


def reduce_body(rng, b):
    la.inner_reduce(rng, lambda k, j, i: F[b, k, j, i + 1])  # reduce access


def _arrays(nb, n, ng, out_shape=None, seed=0):
    global F, OUT
    m = n + 2 * ng
    F = wp.array(np.random.default_rng(seed).random((nb, m, m, m)), dtype=wp.float64)
    OUT = wp.zeros(out_shape or (nb, m, m, m), dtype=wp.float64)
    return F.numpy(), ng, ng + n


def _refused(call, arrays=None) -> str:
    """The message of the LaunchError ``call()`` raises, having changed none of ``arrays`` (default F, OUT)."""
    arrays = (F, OUT) if arrays is None else arrays
    before = [a.numpy().copy() for a in arrays]
    with pytest.raises(wp.LaunchError) as info:
        call()
    for a, old in zip(arrays, before):
        np.testing.assert_array_equal(a.numpy(), old)
    return str(info.value)


@pytest.mark.parametrize("loop", LOOPS, ids=lambda t: t.name)
def test_an_array_smaller_than_the_logical_box_is_refused(loop):
    _arrays(2, 4, 1, out_shape=(2, 4, 4, 4))  # the box reaches cell 4 of a 6-cell memory box
    space = la.IndexSpace.box(loop, la.logical_coords, 2, 4, 4, 4, 1)
    message = _refused(lambda: la.outer(space, coords_body))
    assert f"{HERE}:{_line('# coords access')}" in message
    assert "b in 0..1, k in 1..4, j in 1..4, i in 1..4" in message
    assert "'OUT'" in message and "index k on axis 1 to 1..4" in message and "(2, 4, 4, 4)" in message


@pytest.mark.parametrize("loop", LOOPS, ids=lambda t: t.name)
def test_too_few_blocks_and_stencils_past_the_ghosts_are_refused(loop):
    f, lo, hi = _arrays(3, 4, 1, out_shape=(2, 6, 6, 6))
    space = la.IndexSpace.box(loop, la.logical_flat, 3, 4, 4, 4, 1)
    assert "index b on axis 0 to 0..2" in _refused(lambda: la.outer(space, flat_body))
    f, lo, hi = _arrays(3, 4, 0)  # no ghost cells: i - 1 and k - 1 reach -1
    space = la.IndexSpace.box(loop, la.logical_flat, 3, 4, 4, 4, 0)
    message = _refused(lambda: la.outer(space, flat_body))
    assert f"{HERE}:{_line('# flat access')}" in message and "i - 1" in message and "-1..2" in message
    f, lo, hi = _arrays(3, 4, 1)
    space = la.IndexSpace.box(loop, la.logical_flat, 3, 4, 4, 4, 1)
    la.outer(space, flat_body)
    expected = np.zeros_like(f)
    s = slice(lo, hi)
    expected[:, s, s, s] = f[:, s, s, lo - 1:hi - 1] + f[:, lo - 1:hi - 1, s, s]
    np.testing.assert_array_equal(OUT.numpy(), expected)


@pytest.mark.parametrize("backend", (la.raw, la.team), ids=lambda t: t.name)
def test_in_range_launches_give_numpys_values(backend):
    f, lo, hi = _arrays(2, 5, 2)
    space = la.IndexSpace.box(la.bovi, la.logical_coords, 2, 5, 5, 5, 2, backend=backend)
    la.outer(space, coords_body)
    expected = np.zeros_like(f)
    s = slice(lo, hi)
    expected[:, s, s, s] = 2.0 * f[:, s, s, lo + 1:hi + 1]
    np.testing.assert_array_equal(OUT.numpy(), expected)


def test_a_guarded_access_stays_unchecked():
    _arrays(1, 4, 1, out_shape=(1, 3, 3, 3))
    space = la.IndexSpace.box(la.bvoi, la.logical_coords, 1, 4, 4, 4, 1)
    la.outer(space, guarded_body)
    expected = np.zeros((1, 3, 3, 3))
    expected[0, 1:, 1:, 1:] = 1.0
    np.testing.assert_array_equal(OUT.numpy(), expected)


@pytest.mark.parametrize("loop", LOOPS, ids=lambda t: t.name)
def test_an_inner_loop_over_a_range_grown_by_a_halo_checks_the_grown_box(loop):
    _arrays(2, 4, 1, out_shape=(2, 6, 6, 5))  # the box grown by pm_i reaches i = 5
    space = la.IndexSpace.box(loop, la.logical_flat, 2, 4, 4, 4, 1)
    message = _refused(lambda: la.outer(space, halo_body))
    assert f"{HERE}:{_line('# halo access')}" in message and "k in 1..4, j in 1..4, i in 0..5" in message
    assert "index i on axis 3 to 0..5" in message
    f, lo, hi = _arrays(2, 4, 1)
    la.outer(space, halo_body)
    expected = np.zeros_like(f)
    expected[:, lo:hi, lo:hi, :] = f[:, lo:hi, lo:hi, :] + 1.0
    np.testing.assert_array_equal(OUT.numpy(), expected)
    _arrays(2, 4, 1, out_shape=(2, 6, 6, 6))
    space = la.IndexSpace.box(loop, la.logical_coords, 2, 4, 4, 4, 1)
    la.outer(space, halo_coords_body)  # j from 0: in bounds, though the undilated box starts at 1
    expected = np.zeros_like(f)
    expected[:, lo:hi, lo - 1:hi, lo:hi] = 3.0 * F.numpy()[:, lo:hi, lo - 1:hi, lo:hi]
    np.testing.assert_array_equal(OUT.numpy(), expected)


@pytest.mark.parametrize("loop", LOOPS, ids=lambda t: t.name)
def test_an_inner_reduce_body_is_checked_too(loop):
    f, lo, hi = _arrays(2, 4, 0)  # no ghosts: i + 1 reaches 4 of 4
    space = la.IndexSpace.box(loop, la.logical_coords, 2, 4, 4, 4, 0).with_reducer(la.Sum(wp.float64))
    message = _refused(lambda: la.outer_reduce(space, reduce_body))
    assert f"{HERE}:{_line('# reduce access')}" in message and "i + 1" in message and "1..4" in message
    f, lo, hi = _arrays(2, 4, 1)
    space = la.IndexSpace.box(loop, la.logical_coords, 2, 4, 4, 4, 1).with_reducer(la.Sum(wp.float64))
    assert la.outer_reduce(space, reduce_body) == pytest.approx(f[:, lo:hi, lo:hi, lo + 1:hi + 1].sum(), rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(nb=st.integers(1, 3), n=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4)),
       ng=st.integers(0, 2), shrink=st.tuples(*[st.integers(0, 2)] * 4))
def test_a_launch_is_refused_exactly_when_an_access_leaves_its_array(nb, n, ng, shrink):
    global F, OUT
    nx, ny, nz = n
    memory = (nb, nz + 2 * ng, ny + 2 * ng, nx + 2 * ng)
    F = wp.array(np.random.default_rng(nb).random(memory), dtype=wp.float64)
    OUT = wp.zeros(tuple(max(m - s, 1) for m, s in zip(memory, shrink)), dtype=wp.float64)
    space = la.IndexSpace.box(la.bvoi, la.logical_coords, nb, nx, ny, nz, ng)
    last = (nb - 1, ng + nz - 1, ng + ny - 1, ng + nx - 1)  # the greatest b, k, j, i
    outside = any(x >= m for x, m in zip(last, OUT.shape)) or last[3] + 1 >= memory[3]
    if outside:
        _refused(lambda: la.outer(space, coords_body))
        return
    la.outer(space, coords_body)
    f, expected = F.numpy(), np.zeros(OUT.shape)
    ks, js, is_ = (slice(ng, ng + m) for m in (nz, ny, nx))
    expected[:, ks, js, is_] = 2.0 * f[:, ks, js, ng + 1:ng + nx + 1]
    np.testing.assert_array_equal(OUT.numpy(), expected)


@pytest.fixture
def fake_gpu():
    """A CUDA device through the fake driver (tests/runtime/cuda_fake.py): launches are packed and recorded,
    not run; NVRTC compiles them."""
    from brickwork.jit import nvrtc

    if not nvrtc.is_available():
        pytest.skip("NVRTC is not installed (pip install 'brickwork[cuda]')")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from runtime.cuda_fake import FakeDriver, installed

    with installed(FakeDriver()) as fake, wp.ScopedDevice("cuda:0"):
        yield fake


@pytest.mark.parametrize("loop", LOOPS, ids=lambda t: t.name)
def test_a_cuda_launch_checks_the_blocks_its_kernel_runs(fake_gpu, loop):
    """On the CUDA target's path (the packer of a CUDA launch, its header's extents): an in-range body runs
    with the space's block count as the kernel's first extent, the one the check bounds b by; a launch over
    more blocks than an array holds is refused before anything is launched or written."""
    _arrays(3, 4, 1)
    space = la.IndexSpace.box(loop, la.logical_flat, 3, 4, 4, 4, 1, backend=la.team)
    la.outer(space, flat_body)
    [(_, _, grid, block, params)] = fake_gpu.launches
    extents = struct.unpack_from("<4q", params, 0)
    assert extents[0] == 3 and math.prod(extents) == {"bvoi": 3, "bovi": 3 * 4, "boiv": 3 * 64}[loop.name]
    reduced = la.IndexSpace.box(loop, la.logical_coords, 3, 4, 4, 4, 1, backend=la.team)
    la.outer_reduce(reduced.with_reducer(la.Sum(wp.float64)), reduce_body)
    assert struct.unpack_from("<q", fake_gpu.launches[1][4], 0)[0] == 3
    _arrays(3, 4, 1, out_shape=(2, 6, 6, 6))
    launched = len(fake_gpu.launches)
    message = _refused(lambda: la.outer(space, flat_body))
    assert "index b on axis 0 to 0..2" in message and "'OUT' has shape (2, 6, 6, 6)" in message
    assert len(fake_gpu.launches) == launched

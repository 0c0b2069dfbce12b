"""The loop abstraction, nested parallelism, reductions, backward kernels and streams on a real CUDA
device, against numpy and the CPU target (marker ``cuda_device``; skipped without a GPU;
``scripts/gpu_check.sh`` runs them). The same kernels are compiled by NVRTC and their GPU mapping is
executed on the emulation target in every ``make test`` (tests/targets/test_cuda_loop_abstraction.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, cuda_driver, la
from brickwork.jit import nvrtc

pytestmark = [
    pytest.mark.cuda_device,
    pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device (driver and GPU) on this machine"),
    pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (pip install 'brickwork[cuda]')"),
]

TESTS = Path(__file__).resolve().parents[1]
for sub in ("la", "la_reduce", "autodiff"):
    if str(TESTS / sub) not in sys.path:
        sys.path.insert(0, str(TESTS / sub))

import la_model as M  # noqa: E402
import test_la_emulation as la_emulation  # noqa: E402
import test_la_reductions as cpu_reductions  # noqa: E402
import test_team_gradients as team_gradients  # noqa: E402

DEV = "cuda:0"


@pytest.fixture
def on_gpu():
    with wp.ScopedDevice(DEV):
        yield


@pytest.mark.parametrize("limit", [0, 1 << 30], ids=["global-arena", "shared-arena"])
@pytest.mark.parametrize("lt,it", M.TAG_PAIRS, ids=M.TAG_IDS)
def test_scratch_stencil_with_a_barrier_matches_numpy(on_gpu, lt, it, limit):
    """Scratch over a halo range written by one inner loop, read by another after team_barrier() at
    offsets other threads wrote; the arena in shared or in global memory."""
    geo = M.Geo(3, (2, 5, 2, 7, 2, 40), (8, 10, 43), via_box=True)  # more cells than threads per block; ng=2 (box)
    with config.override(gpu_shared_limit=limit):
        space = M.make_space(lt, it, geo, ninner=37, backend=la.team)
        got, want = la_emulation.run_stencil(space, geo, M.DIAG, seed=4)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("geo", [
    M.Geo(3, (2, 5, 2, 7, 2, 40), (8, 10, 43), via_box=True),  # a grid of rows: x the row, y the block, z the plane
    M.Geo(1, (0, 65535, 1, 2, 0, 1), (65536, 4, 2)),  # more planes than z holds: the grid of slices, its z of 2
], ids=["grid-of-rows", "past-z-limit"])
def test_i_pencil_slices_find_their_row_on_each_grid(on_gpu, geo):
    """A bovi i_pencil slice reads its block, plane and row from the grid of rows, or divides its outer index
    on the grid of slices it falls back to."""
    space = M.make_space(la.bovi, la.logical_flat, geo, ninner=la.i_pencil, backend=la.team)
    got, want = la_emulation.run_stencil(space, geo, la.halo.none, seed=5)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("lt, it", cpu_reductions.TAG_PAIRS, ids=[f"{a.name}-{b.name}" for a, b in
                                                                cpu_reductions.TAG_PAIRS])
def test_every_reducer_matches_numpy(on_gpu, lt, it):
    cpu_reductions.test_every_reducer_matches_numpy(lt, it, la.team)


def test_a_sum_is_the_same_bits_every_run_and_equals_the_emulation(on_gpu):
    rng = np.random.default_rng(3)
    data = (rng.random(cpu_reductions.SHAPE) * 2 - 1) ** 3 * 1e3
    c = cpu_reductions
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, c.NB, c.NX, c.NY, c.NZ, c.NG, backend=la.team)
    space = space.with_reducer(la.Sum(wp.float32))
    cpu_reductions.values = wp.array(data, dtype=wp.float32)
    results = {np.float32(la.outer_reduce(space, cpu_reductions.fold_idx)).tobytes() for _ in range(4)}
    assert len(results) == 1
    with wp.ScopedDevice("cpu"), config.override(target="cuda-emulation"):
        cpu_reductions.values = wp.array(data, dtype=wp.float32, device="cpu")
        emulated = np.float32(la.outer_reduce(space, cpu_reductions.fold_idx)).tobytes()
    assert results == {emulated}  # the same tree and the same slice order


@pytest.mark.parametrize("limit", [0, 1 << 20], ids=["global-arena", "shared-arena"])
def test_par_for_outer_teams_with_scratch_and_a_barrier(on_gpu, limit):
    n = 300
    uh = np.random.default_rng(0).random((6, n))
    u = wp.array(uh, dtype=wp.float64)
    out = wp.zeros((6, n), dtype=wp.float64)
    count = wp.zeros(6, dtype=wp.int32)

    def body(member, j):
        pad = wp.ScratchPad1D(member, wp.float64, n)

        def produce(i):
            pad[i] = u[j, i] * wp.float64(2.0)

        wp.par_for_inner(member, 0, n - 1, produce)
        member.team_barrier()

        def consume(i):
            out[j, i] = pad[(i + 1) % n] - pad[i]

        wp.par_for_inner(member, 0, n - 1, consume)
        wp.atomic_add(count, j, 1)

    with config.override(gpu_shared_limit=limit):
        wp.par_for_outer(8 * n, 0, 6, body)
    np.testing.assert_array_equal(out.numpy(), np.roll(2.0 * uh, -1, axis=1) - 2.0 * uh)
    np.testing.assert_array_equal(count.numpy(), np.ones(6))


@wp.kernel
def power_loop(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    p = wp.float64(1.0)
    for _ in range(n):
        p = p * x[i]
    wp.atomic_add(out, 0, p)


def test_backward_kernel_with_a_tape_stack_matches_the_exact_gradient(on_gpu):
    xn = np.linspace(0.5, 1.2, 1000)
    x = wp.array(xn, dtype=wp.float64, requires_grad=True)
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(power_loop, 1000, inputs=[x, 7, out])
    tape.backward(out)
    np.testing.assert_allclose(out.numpy()[0], np.sum(xn ** 7), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 7 * xn ** 6, rtol=1e-12)


def test_team_values_the_iterations_use_differentiate_on_the_device(on_gpu):
    """par_for_outer team values read by the par_for_inner iterations: their adjoints summed atomically in a
    pad of the team's arena (shared memory), against finite differences. The tests' target argument is the
    host-side one ("cpu"); the scoped device makes every array and launch a CUDA one."""
    team_gradients.test_a_team_value_used_by_the_iterations("cpu")
    team_gradients.test_team_values_used_by_two_loops_by_component_and_by_the_team_body("cpu")
    team_gradients.test_struct_and_tuple_team_values_used_by_the_iterations("cpu")


@wp.kernel
def axpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def test_streams_and_events_order_work(on_gpu):
    n = 1 << 20
    x = wp.array(np.ones(n, dtype=np.float32))
    y = wp.zeros(n)
    s1, s2 = wp.Stream(), wp.Stream()
    start, end = wp.Event(enable_timing=True), wp.Event(enable_timing=True)
    s1.record_event(start)
    for _ in range(10):
        wp.launch(axpy, dim=n, inputs=[1.0, x, y], stream=s1)
    s1.record_event(end)
    s2.wait_stream(s1)
    z = wp.zeros(n)
    wp.copy(z, y, stream=s2)  # after the ten launches on s1
    with wp.ScopedStream(s2):
        wp.launch(axpy, dim=n, inputs=[1.0, x, z])
    s2.synchronize()
    assert s1.is_complete and s2.is_complete and end.is_complete
    assert wp.get_event_elapsed_time(start, end) > 0.0
    np.testing.assert_array_equal(z.numpy(), np.full(n, 11.0, dtype=np.float32))
    np.testing.assert_array_equal(y.numpy(), np.full(n, 10.0, dtype=np.float32))


def _sum_of(values):
    def body(rng, b):
        def cell(k, j, i):
            return values[b, k, j, i]

        la.inner_reduce(rng, cell)

    return body


def test_reductions_queued_on_two_streams_at_once_give_each_its_sum(on_gpu):
    """``la.outer_reduce`` keeps its partials per stream: reductions queued on two streams at once, neither
    waiting for the other, give each its own sum every time (with one buffer for both, a stream's fold could
    read the other's partials)."""
    rng = np.random.default_rng(3)
    data = (rng.random((8, 16, 16, 16)), rng.random((8, 16, 16, 16)) + 1.0)
    space = la.IndexSpace.box(la.bovi, la.logical_coords, 8, 16, 16, 16, 0).with_reducer(la.Sum(wp.float64))
    bodies = [_sum_of(wp.array(d, dtype=wp.float64)) for d in data]
    streams = (wp.Stream(), wp.Stream())
    outs = [[wp.zeros(1, dtype=wp.float64) for _ in range(20)] for _ in streams]
    for r in range(20):
        for s, stream in enumerate(streams):
            with wp.ScopedStream(stream, sync_enter=False):
                la.outer_reduce(space, bodies[s], out=outs[s][r])
    wp.synchronize()
    for s, d in enumerate(data):
        got = {o.numpy()[0] for o in outs[s]}
        assert len(got) == 1 and got.pop() == pytest.approx(d.sum(), rel=1e-12)

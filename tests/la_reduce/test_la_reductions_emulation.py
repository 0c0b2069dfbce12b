"""Reductions of the loop abstraction on the emulation target ("cuda-emulation"): a slice is a thread
block, each thread folds its cells, the block combines the threads' values by a tree in shared memory,
the host folds the slice partials in order. Checked against numpy; MinLoc/MaxLoc ties and run-to-run
bit equality checked exactly."""

import numpy as np
import pytest
import test_la_reductions as cpu_tests

import brickwork as wp
import gpu_compile
from brickwork import config, la

EMULATION = dict(target="cuda-emulation")
# every GPU-mapped instance these tests build also compiles for CUDA (tests/gpu_compile.py)
pytestmark = pytest.mark.compiles_for_cuda
NB, NX, NY, NZ, NG = cpu_tests.NB, cpu_tests.NX, cpu_tests.NY, cpu_tests.NZ, cpu_tests.NG


# a block's tree in shared memory (boiv: a thread per cell, partials per point)
@pytest.mark.parametrize("lt, it", gpu_compile.checked(
    cpu_tests.TAG_PAIRS, [f"{a.name}-{b.name}" for a, b in cpu_tests.TAG_PAIRS], lambda lt, it: lt is not la.boiv,
    gpu_compile.contains("sh__gpu_red_bytes[128 * sizeof(")))
def test_every_reducer_matches_numpy(lt, it):
    """Sum, Min, Max, Prod, MinLoc, MaxLoc for every tag pair (ghosts hold NaN/huge: never folded)."""
    with config.override(**EMULATION):
        cpu_tests.test_every_reducer_matches_numpy(lt, it, la.team)


@pytest.mark.parametrize("lt, it", cpu_tests.TAG_PAIRS, ids=[f"{a.name}-{b.name}" for a, b in cpu_tests.TAG_PAIRS])
def test_min_and_max_skip_nan_where_sum_propagates_it(lt, it):
    """As on the CPU: the threads' values and the block's tree join with the same NaN-skipping min/max."""
    with config.override(**EMULATION):
        cpu_tests.test_min_and_max_skip_nan_where_sum_propagates_it(lt, it, la.team)


@pytest.mark.parametrize("dtype, np_dtype", [(wp.int32, np.int32), (wp.int64, np.int64), (wp.float32, np.float32)])
def test_integer_and_single_precision(dtype, np_dtype):
    """Spaces built while the target is a device target default to the team backend."""
    with config.override(**EMULATION):
        cpu_tests.test_integer_and_single_precision(dtype, np_dtype)


def test_scratch_producer_barrier_and_two_inner_reduce_calls():
    values, inner = cpu_tests.field(wp.float64, np.float64, np.nan)
    space = la.IndexSpace.box(la.bovi, la.memory, NB, NX, NY, NZ, NG, ninner=9, backend=la.team)
    space.add_per_point_scratch(wp.float64)
    rspace = space.with_reducer(la.Sum(wp.float64))

    def body(rng, b):
        s = la.get_per_point_scratch(wp.float64, rng)
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            s[idx] = values[b, k, j, i] * wp.float64(2.0)
        rng.team_barrier()
        la.inner_reduce(rng, lambda idx: s[idx])
        la.inner_reduce(rng, lambda idx: s[idx])

    with config.override(**EMULATION):
        np.testing.assert_allclose(la.outer_reduce(rspace, body), 4 * inner.sum(), rtol=1e-12)


@pytest.mark.parametrize("lt", [la.bvoi, la.bovi], ids=["bvoi", "bovi"])
def test_min_loc_ties_keep_the_first_cell(lt):
    """Equal values in many cells (of many threads): MinLoc/MaxLoc give the first cell in (b, k, j, i)
    order, as the CPU's in-order fold does."""
    data = np.full(cpu_tests.SHAPE, 5.0)
    data[1, NG + 2, NG + 1, NG + 3] = data[1, NG + 2, NG + 4, NG + 0] = data[0, NG + 2, NG + 4, NG + 5] = 1.0
    data[0, NG + 1, NG + 0, NG + 2] = data[1, NG, NG, NG] = 9.0
    cpu_tests.values = wp.array(data, dtype=wp.float64)
    want = {}
    for target in ("cpu", "cuda-emulation"):
        with config.override(target=target):
            for reducer in (la.MinLoc(wp.float64), la.MaxLoc(wp.float64)):
                space = la.IndexSpace.box(lt, la.logical_coords, NB, NX, NY, NZ, NG, ninner=11, backend=la.team)
                want[(target, type(reducer).__name__)] = la.outer_reduce(space.with_reducer(reducer),
                                                                         cpu_tests.fold_kji)
    assert want[("cuda-emulation", "MinLoc")] == (1.0, (0, NG + 2, NG + 4, NG + 5)) == want[("cpu", "MinLoc")]
    assert want[("cuda-emulation", "MaxLoc")] == (9.0, (0, NG + 1, NG + 0, NG + 2)) == want[("cpu", "MaxLoc")]


def test_sum_is_bitwise_equal_run_to_run():
    """The block tree and the in-order combine fix the order of every addition: the same bits every run,
    with one or two OS threads running blocks."""
    rng = np.random.default_rng(3)
    cpu_tests.values = wp.array((rng.random(cpu_tests.SHAPE) * 2 - 1) ** 3 * 1e3, dtype=wp.float32)
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, NB, NX, NY, NZ, NG, backend=la.team)
    space = space.with_reducer(la.Sum(wp.float32))
    results = set()
    with config.override(**EMULATION):
        for threads in (1, 2, 1, 2):
            with config.override(num_threads=threads, parallel_threshold=1):
                results.add(np.float32(la.outer_reduce(space, cpu_tests.fold_idx)).tobytes())
    assert len(results) == 1


def _sum_in_the_gpus_order(cells: np.ndarray, block: int = 128, warp: int = 32) -> np.float32:
    """The float32 sum of one slice's cells (in the order the team visits them) as the block adds them:
    thread t folds cells t, t + block, ... in order; rounds across warps through shared memory (thread t
    adds t + s's value, s = block / 2, ..., warp); then lane t of warp 0 adds lane t + s's value for
    s = warp / 2, ..., 1 (a lane past the warp keeps its own), as ``__shfl_down_sync`` gives it."""
    acc = np.zeros(block, np.float32)
    for start in range(0, len(cells), block):
        chunk = cells[start:start + block]
        acc[:len(chunk)] += chunk
    step = block // 2
    while step >= warp:
        acc[:step] = acc[:step] + acc[step:2 * step]
        step //= 2
    lanes = acc[:warp].copy()
    while step >= 1:
        partner = lanes.copy()
        partner[:warp - step] = lanes[step:]
        lanes = lanes + partner
        step //= 2
    return lanes[0]


def gpu_order_case(nx: int, device=None):
    """``(sum, want)``: a float32 ``la.Sum`` over bvoi slices of values of mixed magnitude on the current
    target, and the bits a GPU's order gives (each slice's partial, then the partials in slice order)."""
    nb, ny, nz, ng = 3, 11, 5, 1
    rng = np.random.default_rng(11)
    shape = (nb, nz + 2 * ng, ny + 2 * ng, nx + 2 * ng)
    data = ((rng.random(shape) * 2 - 1) ** 3 * 10.0 ** rng.integers(-4, 5, size=shape)).astype(np.float32)
    cpu_tests.values = wp.array(data, dtype=wp.float32, device=device)
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, nb, nx, ny, nz, ng, backend=la.team)
    got = np.float32(la.outer_reduce(space.with_reducer(la.Sum(wp.float32)), cpu_tests.fold_idx))
    partials = [_sum_in_the_gpus_order(data[b, ng:-ng, ng:-ng, ng:-ng].ravel()) for b in range(nb)]
    want = partials[0]
    for p in partials[1:]:
        want = np.float32(want + p)
    in_order = np.float32(0)
    for v in data[:, ng:-ng, ng:-ng, ng:-ng].ravel():
        in_order = np.float32(in_order + v)
    assert in_order.tobytes() != want.tobytes()  # the order shows in the bits
    return got, want


@pytest.mark.parametrize("nx", [16, 3], ids=["7-cells-a-thread", "fewer-cells-than-threads"])
def test_a_block_sum_has_the_bits_of_the_gpus_order(nx):
    """The emulation runs the block's rounds as a GPU does (shared memory across warps, then warp shuffles
    among lanes of 32): its float32 sum equals, bit for bit, a numpy reference that adds in that order, where
    an order-sensitive sum of values of mixed magnitude differs in the CPU's order."""
    with config.override(**EMULATION):
        got, want = gpu_order_case(nx)
    assert got.tobytes() == want.tobytes()

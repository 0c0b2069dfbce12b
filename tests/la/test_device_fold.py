"""The fold of a reduction's partials by the GPU mapping (``la.device_fold``) on the emulation target: a float
Sum in the documented order to the bit (a numpy model of the team's fold and tree), the same bits run to run,
Min/Max, integer sums and MinLoc/MaxLoc equal to the CPU's sequential fold; ``la.outer_reduce`` on the stand-in
CUDA driver: its launches, each kernel compiled for sm_90 by NVRTC."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, cuda_driver, la
from brickwork.la.device_fold import fold_rows

TEAM = 128  # threads of a team (docs/cuda.md)


def team_order_fold(row: np.ndarray, join):
    """The documented order: thread t folds values t, t + 128, ... from the identity (``join``'s first call
    gets None), then thread t joins t + 64's value, then t + 32's, ..., t + 1's."""
    acc = [None] * TEAM
    for t in range(TEAM):
        for c in range(t, len(row), TEAM):
            acc[t] = row[c] if acc[t] is None else join(acc[t], row[c])
    step = TEAM // 2
    while step:
        for t in range(step):
            if acc[t + step] is not None:
                acc[t] = acc[t + step] if acc[t] is None else join(acc[t], acc[t + step])
        step //= 2
    return acc[0]


def fold(reducer, values: np.ndarray, nrows: int, target: str | None):
    """``fold_rows`` of ``values`` (nrows x per) on ``target``: the rows' results, as numpy."""
    vt = reducer.value_type
    made = {}

    def buffer(name, n):
        return made.setdefault((name, n), wp.zeros(n, dtype=vt))

    with config.override(target=target or config.target):
        partials = wp.array(values.reshape(-1), dtype=vt)
        out = wp.zeros(nrows, dtype=vt)
        gpu = wp.get_device().is_cuda or config.target != "cpu"
        fold_rows(reducer, partials, nrows, values.size // nrows, out, buffer, gpu)
        return out.numpy()


ROWS = np.random.default_rng(11).standard_normal((3, 300)) * np.logspace(0, 12, 300)  # order matters to the bits


def test_a_float_sum_folds_in_the_documented_tree_order_to_the_bit():
    got = fold(la.Sum(wp.float64), ROWS, 3, "cuda-emulation")
    want = np.array([team_order_fold(row, lambda a, b: a + b) for row in ROWS])
    assert got.tobytes() == want.tobytes()
    again = fold(la.Sum(wp.float64), ROWS, 3, "cuda-emulation")
    assert again.tobytes() == got.tobytes()  # run to run
    sequential = fold(la.Sum(wp.float64), ROWS, 3, "cpu")
    np.testing.assert_allclose(got, sequential, rtol=1e-14)  # the CPU's in-order fold: the last bits may differ
    # the CPU keeps its order: value after value
    assert sequential.tobytes() == np.array([float(np.cumsum(row)[-1]) for row in ROWS]).tobytes()


@pytest.mark.parametrize("reducer, values", [
    (la.Max(wp.float64), ROWS),
    (la.Sum(wp.int32), np.arange(-900, 900, 2, dtype=np.int32).reshape(3, 300) * 1_000_003),  # wraps: exact
], ids=["max-f64", "sum-i32"])
def test_joins_that_associate_give_the_sequential_bits(reducer, values):
    got = fold(reducer, values, 3, "cuda-emulation")
    assert got.tobytes() == fold(reducer, values, 3, "cpu").tobytes()


def test_a_located_fold_keeps_the_first_partial_with_the_best_value():
    reducer = la.MinLoc(wp.float64)  # MaxLoc shares the kernels' code (the fake-driver test below launches it)
    vt = reducer.value_type
    rows = wp.zeros(2 * 260, dtype=vt).numpy()
    rng = np.random.default_rng(2)
    rows["value"] = rng.integers(-3, 4, rows.shape)  # many ties
    rows["b"], rows["k"], rows["j"], rows["i"] = rng.integers(0, 9, (4, rows.size))  # partials' own cells
    rows["value"][:260] = np.inf if reducer.join == "min" else -np.inf  # row 0: every partial the identity...
    rows["b"][:3] = -1  # ...the first ones unfound (location -1), as a slice of NaNs leaves
    got = fold(reducer, rows, 2, "cuda-emulation")
    want = fold(reducer, rows, 2, "cpu")
    assert got.tobytes() == want.tobytes()
    best = [np.argmin(r["value"]) if reducer.join == "min" else np.argmax(r["value"]) for r in rows.reshape(2, 260)]
    assert got.tolist() == [rows.reshape(2, 260)[r][best[r]].tolist() for r in range(2)]


def cube_sum(rng, b):
    la.inner_reduce(rng, lambda k, j, i: CUBE[b, k, j, i])


CUBE = None


def test_outer_reduce_on_emulation_is_reproducible_and_exact_where_the_join_associates():
    global CUBE
    values = np.random.default_rng(4).standard_normal((3, 6, 6, 6))
    with config.override(target="cuda-emulation"):
        CUBE = wp.array(values, dtype=wp.float64)
        space = la.IndexSpace.box(la.bovi, la.logical_flat, 3, 6, 6, 6, 0, ninner=la.i_pencil, backend=la.team)
        total = [la.outer_reduce(space.with_reducer(la.Sum(wp.float64)), cube_sum) for _ in range(2)]
        lowest = la.outer_reduce(space.with_reducer(la.MinLoc(wp.float64)), cube_sum)
    assert total[0] == total[1] and total[0] == pytest.approx(values.sum(), rel=1e-13)
    b, k, j, i = np.unravel_index(np.argmin(values), values.shape)
    assert lowest == (values.min(), (b, k, j, i))


def test_outer_reduce_on_a_gpu_launches_the_team_folds(fake_cuda):
    """On cuda:0 (stand-in driver, NVRTC compiling each kernel for sm_90): the slices' kernel, then one team
    fold per level (36 slice partials in 3 rows of 12, then the 3 block partials in one row); a MinLoc adds
    the pick of each level's partial."""
    global CUBE
    CUBE = wp.array(np.zeros((3, 6, 6, 6)), dtype=wp.float64)
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 3, 6, 6, 6, 0, ninner=la.i_pencil, backend=la.team)
    expected = {"sum": [(3, 128), (1, 128)],  # a team of 128 threads per row
                "maxloc": [(3, 128), (1, 256), (1, 128), (1, 256)]}  # each level's pick: a plain launch
    for reducer, name in ((la.Sum(wp.float64), "sum"), (la.MaxLoc(wp.float64), "maxloc")):
        first = len(fake_cuda.launches)
        la.outer_reduce(space.with_reducer(reducer), cube_sum, out=wp.zeros(1, dtype=reducer.value_type))
        launched = fake_cuda.launches[first:]
        assert launched[0][2] == (6, 3, 6)  # the slices: 6 rows of 6 planes of 3 blocks
        assert [(grid, block) for _, _, grid, block, _ in launched[1:]] == expected[name]


@pytest.mark.cuda_device
@pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device on this machine")
def test_on_a_cuda_device_the_fold_has_the_documented_bits():
    with wp.ScopedDevice("cuda:0"):
        total = fold(la.Sum(wp.float64), ROWS, 3, None)
        vt = la.MinLoc(wp.float64).value_type
        located = wp.zeros(600, dtype=vt).numpy()
        located["value"] = np.random.default_rng(3).integers(-2, 3, 600)
        located["i"] = np.arange(600)
        lowest = fold(la.MinLoc(wp.float64), located, 2, None)
    assert total.tobytes() == np.array([team_order_fold(row, lambda a, b: a + b) for row in ROWS]).tobytes()
    assert lowest.tobytes() == fold(la.MinLoc(wp.float64), located, 2, "cpu").tobytes()

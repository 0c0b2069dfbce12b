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
    with config.override(target=target or config.target):
        partials = wp.array(values.reshape(-1), dtype=vt)
        out = wp.zeros(nrows, dtype=vt)
        gpu = wp.get_device().is_cuda or config.target != "cpu"
        fold_rows(reducer, partials, nrows, values.size // nrows, out, gpu)
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


def located_rows(reducer, nrows: int, per: int, seed: int) -> np.ndarray:
    """Partials as a reduction's row holds them: their cells in (b, k, j, i) order along the row, many equal
    values, and some that found no cell (the identity's value, location -1); the last row all unfound."""
    rng = np.random.default_rng(seed)
    rows = wp.zeros(nrows * per, dtype=reducer.value_type).numpy()
    rows["value"] = rng.integers(-3, 4, rows.size)  # many ties, -0.0 among them for floats
    if reducer.dtype.is_float:
        rows["value"][rows["value"] == 0] *= np.where(rng.random((rows["value"] == 0).sum()) < 0.5, -1, 1)
    cells = np.sort(rng.choice(1 << 20, rows.size, replace=False))  # increasing along the rows
    rows["b"], rows["k"], rows["j"], rows["i"] = cells >> 15, (cells >> 10) & 31, (cells >> 5) & 31, cells & 31
    unfound = rng.random(rows.size) < 0.2
    unfound[(nrows - 1) * per:] = True
    rows["value"][unfound] = reducer.identity()
    for name in "bkji":
        rows[name][unfound] = -1
    return rows.reshape(nrows, per)


@pytest.mark.parametrize("reducer", [la.MinLoc(wp.float64), la.MaxLoc(wp.float32), la.MinLoc(wp.int32)],
                         ids=["minloc-f64", "maxloc-f32", "minloc-i32"])
def test_a_located_fold_keeps_the_first_partial_with_the_best_value(reducer):
    rows = located_rows(reducer, 3, 260, 2)
    got = fold(reducer, rows, 3, "cuda-emulation")
    want = fold(reducer, rows, 3, "cpu")
    assert got.tobytes() == want.tobytes()  # the sequential fold's partial, its value's bits and location
    pick = np.argmin if reducer.join == "min" else np.argmax  # numpy's: the first of the best
    assert got.tolist() == [r[pick(r["value"])].tolist() for r in rows]
    assert got[2]["b"] == -1 and got[2]["value"] == reducer.identity()  # nothing found: the identity


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
    fold per level (36 slice partials in 3 rows of 12, then the 3 block partials in one row), for a MaxLoc too:
    its partials fold with their locations in the same launch."""
    global CUBE
    CUBE = wp.array(np.zeros((3, 6, 6, 6)), dtype=wp.float64)
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 3, 6, 6, 6, 0, ninner=la.i_pencil, backend=la.team)
    for reducer in (la.Sum(wp.float64), la.MaxLoc(wp.float64)):
        first = len(fake_cuda.launches)
        la.outer_reduce(space.with_reducer(reducer), cube_sum, out=wp.zeros(1, dtype=reducer.value_type))
        launched = fake_cuda.launches[first:]
        assert launched[0][2] == (6, 3, 6)  # the slices: 6 rows of 6 planes of 3 blocks
        assert [(grid, block) for _, _, grid, block, _ in launched[1:]] == [(3, 128), (1, 128)]  # 128 per row


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

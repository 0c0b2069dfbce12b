"""benchmarks/hash_grid_cases.py: the HashGrid cases run in quick mode, every available peer agreeing with
the C reference (brickwork and C always; Numba and Warp where installed), and the build's check catches a
grid whose cells are not contiguous."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import hash_grid_cases  # noqa: E402
import run  # noqa: E402
from cases import CASES  # noqa: E402
from peers import make_peers  # noqa: E402


@pytest.fixture(scope="module")
def peers_and_contexts():
    peers = make_peers("brickwork", ["C", "numba", "warp"])
    contexts, notes = run.setup_peers(peers)
    for required in ("brickwork", "C"):
        if required not in contexts:
            pytest.skip(f"{required} unavailable: {notes}")
    yield peers, contexts
    contexts["C"].close()


@pytest.mark.parametrize("name", ["hash_grid_density_f32", "hash_grid_build_f32"])
def test_every_peer_agrees_with_c_and_is_timed(name, peers_and_contexts):
    peers, contexts = peers_and_contexts
    (case,) = [c for c in CASES if c.name == name]
    errors = []
    row = run.run_case(case, peers, contexts, quick=True, reps=1, min_time=0.0, errors=errors)
    assert errors == []
    for peer in contexts:
        if peer == "numpy":
            assert row.cells[peer].absent == "no numpy version"
        else:
            assert row.cells[peer].timing is not None, peer


def test_the_inputs_give_about_nine_points_per_cell_and_a_grid_of_the_box():
    for quick in (True, False):
        inputs = hash_grid_cases._inputs(quick)
        cells = inputs["side"] ** 3
        assert inputs["dims"] == (inputs["side"],) * 3
        assert 8.0 < len(inputs["points"]) / cells < 10.0


def test_the_build_check_refuses_a_cell_split_in_two():
    inputs = hash_grid_cases._inputs(True)
    good = np.argsort(hash_grid_cases._cells(inputs), kind="stable").astype(np.int32)
    bad = good.copy()
    bad[[0, -1]] = bad[[-1, 0]]  # the first and the last cell each split around the other's point
    want = hash_grid_cases._order_result(inputs, good)
    got = hash_grid_cases._order_result(inputs, bad)
    assert (np.sort(good) == np.arange(len(good))).all()
    assert len(got["runs"]) != len(want["runs"])

"""Launches that split their items by hand into one range per thread (``launch.split_threads``: a counting sort's
chunks, ``bsr_mm``'s rows on the CPU, a median tree's level-by-level build) take as many ranges as a launch runs
threads now: one below ``parallel_threshold`` and one while the starvation guard says the process is starved, with
the same results; ``brickwork info`` shows the guard's setting and the count in use."""

import os
import subprocess
import sys
from unittest import mock

import numpy as np
import pytest

import brickwork as wp
import brickwork.sparse as sp
from brickwork import config
from brickwork.runtime import bvh, bvh_build, bvh_whole, counting_sort, starvation
from brickwork.runtime.launch import split_threads
from brickwork.sparse import mm_cpu

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


class Guard:
    """A starvation guard that answers ``count`` (None: the count asked for) and records what was asked."""

    def __init__(self, count):
        self.count, self.asked = count, []

    def threads(self, n):
        self.asked.append(n)
        return self.count or n


@pytest.mark.parametrize(("items", "work", "starved", "expected"),
                         [(100, 10**6, False, 3), (2, 10**6, False, 2), (1, 10**6, False, 1), (0, 10**6, False, 1),
                          (100, 99, False, 1), (100, 10**6, True, 1)])
def test_split_threads_is_the_launch_count_capped_by_the_items(monkeypatch, items, work, starved, expected):
    guard = Guard(1 if starved else None)
    monkeypatch.setattr(starvation, "GUARD", guard)
    with config.override(num_threads=3, parallel_threshold=100, adaptive_threads=True):
        assert split_threads(items, work) == expected
    assert guard.asked == ([3] if items > 1 and work >= 100 else [])  # asked as a launch asks, only then
    with config.override(num_threads=3, parallel_threshold=100, adaptive_threads=False):
        assert split_threads(items, work) == min(3, max(items, 1)) if work >= 100 else 1
    assert len(guard.asked) == (1 if items > 1 and work >= 100 else 0)  # the guard off: never asked


def _sort(n, seed, **settings):
    """counting_sort over random 20-bit keys (two 16-bit digits), with the chunk counts it used."""
    keys = np.random.default_rng(seed).integers(0, 1 << 20, n).astype(np.int32)
    shapes, made = [], {}

    def work(name, shape):
        shapes.append((name, shape))
        made[name, shape] = made.get((name, shape)) or wp.empty(shape, dtype=wp.int32, device="cpu")
        return made[name, shape]

    out = wp.empty(n, dtype=wp.int32, device="cpu")
    with config.override(**settings):
        counting_sort.sort([(keys, counting_sort.DIGIT, 0), (keys, counting_sort.DIGIT, 16)], n, out, work)
    np.testing.assert_array_equal(out.numpy(), np.argsort(keys, kind="stable"))
    return {shape[0] for name, shape in shapes if name.startswith("counts")}


def test_counting_sort_takes_one_chunk_while_starved_or_below_the_threshold(monkeypatch):
    monkeypatch.setattr(starvation, "GUARD", Guard(None))
    assert _sort(5000, 1, num_threads=3, parallel_threshold=1, adaptive_threads=True) == {3}
    assert _sort(5000, 1, num_threads=3, parallel_threshold=5001, adaptive_threads=True) == {1}
    assert _sort(2, 4, num_threads=3, parallel_threshold=1, adaptive_threads=True) == {2}  # at most the items
    monkeypatch.setattr(starvation, "GUARD", Guard(1))
    assert _sort(5000, 1, num_threads=3, parallel_threshold=1, adaptive_threads=True) == {1}
    assert _sort(5000, 1, num_threads=3, parallel_threshold=1, adaptive_threads=False) == {3}


def _laplacian(n: int):
    """The 1-D Laplacian's tridiagonal matrix of ``n`` rows (float64) and its dense form."""
    rows = np.concatenate([np.arange(n), np.arange(1, n), np.arange(n - 1)]).astype(np.int32)
    cols = np.concatenate([np.arange(n), np.arange(n - 1), np.arange(1, n)]).astype(np.int32)
    vals = np.concatenate([np.full(n, 2.0), np.full(2 * n - 2, -1.0)]) * (1 + np.arange(3 * n - 2) % 7)
    A = sp.bsr_from_triplets(n, n, wp.array(rows), wp.array(cols), wp.array(vals, dtype=wp.float64))
    dense = np.zeros((n, n))
    np.add.at(dense, (rows, cols), vals)
    return A, dense


def _mm_chunks(monkeypatch, A, **settings):
    """A @ A on the row-by-row path, and the chunks it split the rows into (the rows of its markers / ncol)."""
    marks = []
    original = mm_cpu.product

    def product(x, y, z, alpha, beta, use_z, result, work):
        get = work.get
        work.get = lambda name, shape: marks.append(shape[0] // y.ncol) or get(name, shape) if name == "mark" \
            else get(name, shape)
        return original(x, y, z, alpha, beta, use_z, result, work)

    with monkeypatch.context() as m, config.override(**settings):
        m.setattr(mm_cpu, "product", product)
        C = sp.bsr_mm(A, A)
    nnz = C.nnz_sync()
    dense = np.zeros((A.nrow, A.ncol))
    rows = np.repeat(np.arange(A.nrow), np.diff(C.offsets.numpy()))
    dense[rows, C.columns.numpy()[:nnz]] = C.values.numpy()[:nnz]
    return set(marks), dense


def test_bsr_mm_on_the_cpu_splits_its_rows_as_the_launch_runs_threads(monkeypatch):
    A, dense = _laplacian(300)
    monkeypatch.setattr(starvation, "GUARD", Guard(None))
    free, by_three = _mm_chunks(monkeypatch, A, num_threads=3, parallel_threshold=1, adaptive_threads=True)
    assert free == {3}
    np.testing.assert_array_equal(by_three, dense @ dense)  # small integers: exact sums
    below, one = _mm_chunks(monkeypatch, A, num_threads=3, parallel_threshold=10**6, adaptive_threads=True)
    assert below == {1}
    monkeypatch.setattr(starvation, "GUARD", Guard(1))
    starved, serial = _mm_chunks(monkeypatch, A, num_threads=3, parallel_threshold=1, adaptive_threads=True)
    assert starved == {1}
    assert serial.tobytes() == by_three.tobytes() == one.tobytes()


def _whole(monkeypatch, guard, **settings):
    rng = np.random.default_rng(9)
    centers = rng.uniform(-5, 5, (600, 3))
    monkeypatch.setattr(starvation, "GUARD", guard)
    with config.override(**settings), mock.patch.object(bvh_build, "PARALLEL_MIN", 500), \
            mock.patch.object(bvh_whole, "shape", wraps=bvh_whole.shape) as one_launch:
        tree = bvh.shape_tree(centers, 2, None, None)
    return one_launch.called, tree


def test_a_median_tree_is_shaped_in_one_launch_while_starved(monkeypatch):
    by_levels, tree = _whole(monkeypatch, Guard(None), num_threads=2, parallel_threshold=1, adaptive_threads=True)
    assert not by_levels
    starved = Guard(1)
    one_launch, same = _whole(monkeypatch, starved, num_threads=2, parallel_threshold=1, adaptive_threads=True)
    assert one_launch and starved.asked
    assert same.num_nodes == tree.num_nodes
    for name in ("lo_i", "hi_i", "parents", "order", "leaves", "leaf_starts"):
        np.testing.assert_array_equal(np.asarray(getattr(same, name)), np.asarray(getattr(tree, name)), err_msg=name)
    assert not _whole(monkeypatch, Guard(1), num_threads=2, parallel_threshold=1, adaptive_threads=False)[0]


def _info(**env) -> list:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BRICKWORK_")}
    out = subprocess.run([sys.executable, "-c", "from brickwork.cli import main; raise SystemExit(main(['info']))"],
                         capture_output=True, text=True, timeout=300, env=dict(clean, PYTHONPATH=SRC, **env))
    assert out.returncode == 0, out.stderr
    return [line for line in out.stdout.splitlines() if line.startswith("adaptive:")]


def test_info_shows_the_guards_setting_and_the_count_in_use():
    on = _info(BRICKWORK_NUM_THREADS="2")
    assert len(on) == 1 and on[0] in ("adaptive:   on (BRICKWORK_ADAPTIVE_THREADS), 2 thread(s) in use now",
                                      "adaptive:   on (BRICKWORK_ADAPTIVE_THREADS), 1 thread(s) in use now")
    assert _info(BRICKWORK_NUM_THREADS="3", BRICKWORK_ADAPTIVE_THREADS="0") == [
        "adaptive:   off (BRICKWORK_ADAPTIVE_THREADS), 3 thread(s) in use now"]
    assert _info(BRICKWORK_NUM_THREADS="1") == ["adaptive:   on (BRICKWORK_ADAPTIVE_THREADS), 1 thread(s) in use now"]
    assert _info(BRICKWORK_ADAPTIVE_THREADS="maybe") == ["adaptive:   invalid (see setting:)"]
    assert _info(BRICKWORK_NUM_THREADS="x") == ["adaptive:   on"]

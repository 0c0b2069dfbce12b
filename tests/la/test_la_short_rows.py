"""Spaces whose rows are short compile their launch function for 256-bit vectors (``BW_SHORT_ROWS``),
spaces with long rows keep the command line's width; both compute the same values, and one body
serves both kinds of space with an instance each."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.la.outer import SHORT_ROW

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "targets"))
from vectorizer import capture_cpu_sources, vectorized_loops  # noqa: E402

G = 1


def flux_body(q, out):
    """A division per cell (the kind of loop whose short rows gain from narrower vectors)."""

    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            left = q[b, k, j, i - 1]
            here = q[b, k, j, i]
            out[b, k, j, i] = (here - left) / (here * here + left * left + q.dtype(1.0))

    return body


def expected(qn: np.ndarray) -> np.ndarray:
    want = np.zeros_like(qn)
    left, here = qn[:, G:-G, G:-G, :-2], qn[:, G:-G, G:-G, 1:-1]
    one = qn.dtype.type(1.0)
    want[:, G:-G, G:-G, 1:-1] = (here - left) / (here * here + left * left + one)
    return want


def run_capturing(monkeypatch, tmp_path, runs):
    """``la.outer(space, body)`` for each pair of ``runs``; the C++ of every instance generated (the
    list grows with later launches of the test)."""
    sources = capture_cpu_sources(monkeypatch, tmp_path)  # an empty cache: every source is generated
    for space, body in runs:
        la.outer(space, body)
    return sources


def arrays(n: int, dtype):
    rng = np.random.default_rng(n)
    qn = rng.standard_normal((2, 2 * G + 3, 2 * G + 2, n + 2 * G)).astype(dtype)
    return qn, wp.array(qn), wp.zeros(qn.shape, dtype=wp.float64 if dtype == np.float64 else wp.float32)


SHORT = "BW_SHORT_ROWS static void run("


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=lambda d: d.__name__)
def test_short_rows_use_256_bit_vectors_and_long_rows_the_command_lines(monkeypatch, tmp_path, dtype):
    short_n, long_n = 34, SHORT_ROW
    qs, q_short, out_short = arrays(short_n, dtype)
    ql, q_long, out_long = arrays(long_n, dtype)
    short = la.IndexSpace.box(la.bovi, la.logical_flat, 2, short_n, 2, 3, G)
    long_ = la.IndexSpace.box(la.bovi, la.logical_flat, 2, long_n, 2, 3, G)
    texts = run_capturing(monkeypatch, tmp_path, [(short, flux_body(q_short, out_short)),
                                                  (long_, flux_body(q_long, out_long))])
    np.testing.assert_array_equal(out_short.numpy(), expected(qs))
    np.testing.assert_array_equal(out_long.numpy(), expected(ql))
    short_text, long_text = texts
    assert SHORT in short_text
    assert SHORT not in long_text
    if platform.machine() not in ("x86_64", "AMD64"):
        return  # elsewhere the attribute is empty
    short_loops = vectorized_loops(short_text)  # skips unless the compiler is GCC
    assert max(width for _, _, width in short_loops) == 32, short_loops  # the main loop: 256 bits
    long_loops = vectorized_loops(long_text)
    assert max(width for _, _, width in long_loops) >= 32, long_loops


def test_one_body_gets_an_instance_per_kind_of_row(monkeypatch, tmp_path):
    """The same closure over a space with short rows, then over one with long rows: an instance each,
    each right (the kind of row is part of the instance key)."""
    n = SHORT_ROW + 2
    qn, q, out = arrays(n, np.float64)
    body = flux_body(q, out)
    short = la.IndexSpace.box(la.bvoi, la.logical_flat, 2, 40, 2, 3, G)  # the first 40 columns only
    long_ = la.IndexSpace.box(la.bvoi, la.logical_flat, 2, n, 2, 3, G)
    texts = run_capturing(monkeypatch, tmp_path, [(short, body)])
    want = expected(qn)
    got = out.numpy()
    np.testing.assert_array_equal(got[..., :G + 40], want[..., :G + 40])
    assert not got[..., G + 40:].any()
    la.outer(long_, body)  # the capture stays installed: ``texts`` gets its source
    np.testing.assert_array_equal(out.numpy(), want)
    assert [SHORT in t for t in texts] == [True, False]


def test_memory_tag_and_boiv_spaces_are_not_row_loops(monkeypatch, tmp_path):
    """The memory tag walks spans (a slice's memory, not a row), boiv one cell per slice: neither gets
    the short-row hint, whatever the row length."""
    qn, q, out = arrays(20, np.float64)
    spaces = [la.IndexSpace.box(la.bvoi, la.memory, 2, 20, 2, 3, G)]
    texts = run_capturing(monkeypatch, tmp_path, [(spaces[0], flux_body(q, out))])
    # the memory tag also visits ghost cells between rows: compare the interior rows only
    np.testing.assert_array_equal(out.numpy()[:, G:-G, G:-G, 1:-1], expected(qn)[:, G:-G, G:-G, 1:-1])
    assert texts and not any(SHORT in t for t in texts)

"""``la.outer`` and ``la.outer_reduce`` check a space and body once and keep the launch geometry
(``outer._prepared``): a later launch must still see every change of the space's boxes, blocks and
tags, and a space given a new closure at every call keeps a bounded memo."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.errors import LaunchError
from brickwork.la.indices import Indexer3D

la_outer_module = importlib.import_module("brickwork.la.outer")  # la.outer is also the function's name


def _marking_body(out):
    def body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = out[b, k, j, i] + 1

    return body


def _counting_body(rng, b):
    la.inner_reduce(rng, lambda idx: wp.float64(1.0))


def test_a_changed_box_or_block_count_is_seen_by_the_next_launch():
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, 2, 4, 3, 2, 1)
    out = wp.zeros((2, 4, 5, 6), dtype=wp.int32)
    body = _marking_body(out)
    la.outer(space, body)
    la.outer(space, body)
    want = np.zeros((2, 4, 5, 6), dtype=np.int32)
    want[:, 1:3, 1:4, 1:5] = 2
    np.testing.assert_array_equal(out.numpy(), want)
    space.L = Indexer3D(1, 1, 2, 2, 1, 4)  # one row
    la.outer(space, body)
    want[:, 1, 2, 1:5] += 1
    np.testing.assert_array_equal(out.numpy(), want)
    space.nblocks = 1
    la.outer(space, body)
    want[0, 1, 2, 1:5] += 1
    np.testing.assert_array_equal(out.numpy(), want)


def test_a_reduction_sees_a_changed_box():
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 3, 4, 3, 2, 1).with_reducer(la.Sum(wp.float64))
    assert la.outer_reduce(space, _counting_body) == 3 * 4 * 3 * 2
    assert la.outer_reduce(space, _counting_body) == 3 * 4 * 3 * 2
    space.L = Indexer3D(1, 2, 1, 1, 1, 2)
    assert la.outer_reduce(space, _counting_body) == 3 * 2 * 1 * 2


def test_new_closures_at_every_call_keep_the_memo_bounded():
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, 1, 2, 2, 2, 1)
    out = wp.zeros((1, 4, 4, 4), dtype=wp.int32)
    for _ in range(3 * la_outer_module._PREPARED_PER_SPACE):
        la.outer(space, _marking_body(out))
    assert len(space._prepared) <= la_outer_module._PREPARED_PER_SPACE
    assert (out.numpy()[0, 1:3, 1:3, 1:3] == 3 * la_outer_module._PREPARED_PER_SPACE).all()


def _halo_marking_body(out, halo):
    def body(rng, b):
        hr = rng.add_halo(halo)
        for idx in la.inner(hr):
            k, j, i = hr.get_kji(idx)
            out[b, k, j, i] = out[b, k, j, i] + 1

    return body


def test_closures_of_one_code_share_the_checked_geometry_each_with_its_own_arrays_and_halo():
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, 1, 2, 2, 2, 1)  # one ghost layer
    outs = [wp.zeros((1, 4, 4, 4), dtype=wp.int32) for _ in range(3)]
    for out in outs:
        la.outer(space, _halo_marking_body(out, la.halo.minus_i))
    assert len(space._prepared) == 2  # the first closure's own entry and its code's, which the others share
    kernels = [la_outer_module._prepared(space, _halo_marking_body(out, la.halo.minus_i), "outer", False)[0]
               for out in outs]
    assert kernels[0].instances is kernels[1].instances and kernels[0] is not kernels[1]
    want = np.zeros((1, 4, 4, 4), dtype=np.int32)
    want[0, 1:3, 1:3, 0:3] = 1
    for out in outs:
        np.testing.assert_array_equal(out.numpy(), want)
    wider = la.halo.make([(0, 0, -2), (0, 0, 0)])  # needs two ghost cells: checked, though the code's entry exists
    with pytest.raises(LaunchError, match=r"halo la.halo.make\(\[\(0, 0, -2\), \(0, 0, 0\)\]\) takes the logical box "
                                          r".* \(not enough ghost cells\)"):
        la.outer(space, _halo_marking_body(outs[0], wider))
    np.testing.assert_array_equal(outs[0].numpy(), want)  # nothing ran
    la.outer(space, _halo_marking_body(outs[0], la.halo.minus_i))
    np.testing.assert_array_equal(outs[0].numpy(), 2 * want)


TARGET = wp.zeros((1, 4, 4, 4), dtype=wp.int32)  # rebound by the test below
SHIFT = 1


def _global_body(rng, b):
    for idx in la.inner(rng):
        k, j, i = rng.get_kji(idx)
        TARGET[b, k, j, i] = TARGET[b, k, j, i] + SHIFT


def test_captured_values_are_read_at_every_launch(monkeypatch):
    """Closure cells and module globals are found once, but read at every launch: a rebound array
    receives the next launch, a changed Python number rebuilds the body with the new value, and a
    name that no longer holds an array is refused before anything runs."""
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, 1, 2, 2, 2, 1)
    first = TARGET
    la.outer(space, _global_body)
    second = wp.zeros((1, 4, 4, 4), dtype=wp.int32)
    monkeypatch.setitem(globals(), "TARGET", second)
    monkeypatch.setitem(globals(), "SHIFT", 5)
    la.outer(space, _global_body)
    assert (first.numpy()[0, 1:3, 1:3, 1:3] == 1).all() and (second.numpy()[0, 1:3, 1:3, 1:3] == 5).all()

    out = wp.zeros((1, 4, 4, 4), dtype=wp.int32)

    def closure_body(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = out[b, k, j, i] + 1

    la.outer(space, closure_body)
    before = out
    out = wp.zeros((1, 4, 4, 4), dtype=wp.int32)  # rebinds the closure cell
    la.outer(space, closure_body)
    assert (before.numpy()[0, 1:3, 1:3, 1:3] == 1).all() and (out.numpy()[0, 1:3, 1:3, 1:3] == 1).all()
    kept = out
    out = 3
    with pytest.raises(LaunchError, match="'out' no longer holds an array or typed value"):
        la.outer(space, closure_body)
    assert (kept.numpy()[0, 1:3, 1:3, 1:3] == 1).all()


FIXED = 3  # read by _two_constants_body, never changed


def _two_constants_body(rng, b):
    for k, j, i in la.inner(rng):
        TARGET[b, k, j, i] = FIXED + SHIFT


def test_the_recompilation_warning_names_the_values_that_changed(monkeypatch, caplog):
    """A body rebuilt three times for changed Python numbers warns once, naming those that changed only."""
    space = la.IndexSpace.box(la.bvoi, la.logical_flat, 1, 1, 1, 1, 1)
    monkeypatch.setitem(globals(), "TARGET", wp.zeros((1, 3, 3, 3), dtype=wp.int32))
    with caplog.at_level("WARNING", logger="brickwork"):
        for shift in range(5):
            monkeypatch.setitem(globals(), "SHIFT", shift)
            la.outer(space, _two_constants_body)
    assert TARGET.numpy()[0, 1, 1, 1] == FIXED + 4
    warnings = [r.getMessage() for r in caplog.records if "recompiled" in r.getMessage()]
    assert warnings == ["loop body '_two_constants_body' was recompiled 3 times because a captured Python value "
                        "changed (SHIFT): a Python number a body reads is compiled in, even as wp.float64(SHIFT) in "
                        "the body; bind the name to a typed scalar on the host (SHIFT = wp.float64(...), or "
                        "wp.int32(...)) or put the value in an array, to avoid recompiling"]

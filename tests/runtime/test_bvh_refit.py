"""The compiled refit of trees (runtime/bvh_refit.py) against the numpy bounds of a build (``Tree.bounds``):
NaN boxes, ties, leaf sizes, moved boxes; the node tables' child columns untouched. The refit a device tree runs
(one launch per level) on the CPU, on the emulation target and, launches recorded, with a fake CUDA driver."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.jit import nvrtc
from brickwork.runtime.bvh import BvhError


def _tables(bvh):
    t = bvh._storage.tables
    return t["node_lowers"], t["node_uppers"]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 200), leaf_size=st.integers(1, 5),
       nans=st.integers(0, 3), ties=st.booleans(), one_launch=st.booleans())
def test_a_refit_gives_the_bounds_of_a_new_build_over_the_moved_boxes(seed, n, leaf_size, nans, ties, one_launch):
    """In one launch on one thread, or (``one_launch`` False: as a tree of more than ``ONE_LAUNCH`` leaves) the
    boxes, the leaves of several items and the inner nodes in three launches."""
    from brickwork.runtime import bvh_refit

    with pytest.MonkeyPatch.context() as patch:
        if not one_launch:
            patch.setattr(bvh_refit, "ONE_LAUNCH", 0)
        _check_a_refit_over_moved_boxes(seed, n, leaf_size, nans, ties)


def _check_a_refit_over_moved_boxes(seed, n, leaf_size, nans, ties):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(-5, 5, (n, 3)).astype(np.float32)
    if ties:
        lo = np.round(lo)  # equal bounds, and zeros of both signs below
        lo[rng.random((n, 3)) < 0.2] = -0.0
    hi = lo + rng.uniform(0, 1, (n, 3)).astype(np.float32)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers, leaf_size=leaf_size)
    node_lo, node_hi = _tables(bvh)
    children = (node_lo[:, 3].view(np.int32).copy(), node_hi[:, 3].view(np.int32).copy())
    moved_lo = lo + rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    moved_lo.reshape(-1)[rng.integers(0, 3 * n, nans)] = np.nan
    moved_hi = moved_lo + 0.5
    lowers.assign(moved_lo)
    uppers.assign(moved_hi)
    bvh.refit()
    want_lo, want_hi = bvh._tree.bounds(moved_lo, moved_hi)
    np.testing.assert_array_equal(node_lo[:, :3], want_lo)  # NaN where numpy has NaN
    np.testing.assert_array_equal(node_hi[:, :3], want_hi)
    np.testing.assert_array_equal(node_lo[:, 3].view(np.int32), children[0])
    np.testing.assert_array_equal(node_hi[:, 3].view(np.int32), children[1])
    np.testing.assert_array_equal(bvh._storage.tables["item_lowers"], moved_lo)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), leaf_size=st.integers(1, 4),
       constructor=st.sampled_from(["median", "sah", "lbvh"]), grouped=st.booleans())
def test_the_leaf_of_each_item_held_alone_and_the_other_leaves_by_position(seed, n, leaf_size, constructor, grouped):
    """``Tree.single_tables``, which a refit takes to read the boxes in item order: each item whose leaf holds it
    alone names that leaf, the others -1; the other leaves in the order of their items' positions."""
    rng = np.random.default_rng(seed)
    lo = np.round(rng.uniform(-5, 5, (n, 3))).astype(np.float32)  # ties: leaves of several items at leaf_size 1
    groups = wp.array(rng.integers(0, 3, n).astype(np.int32)) if grouped else None
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 1, dtype=wp.vec3), constructor=constructor,
                 groups=groups, leaf_size=leaf_size)
    tree = bvh._tree
    tables = tree.single_tables
    want_leaf, others = np.full(n, -1), []
    for node in np.flatnonzero(tree.lo_i < 0):
        start, end = -(int(tree.lo_i[node]) + 1), int(tree.hi_i[node])
        if end - start == 1:
            want_leaf[tree.order[start]] = node
        else:
            others.append((start, node))
    np.testing.assert_array_equal(tables["item_leaf"].numpy(), want_leaf)
    np.testing.assert_array_equal(tables["multi"].numpy(), [node for _, node in sorted(others)])


@wp.kernel
def overlaps(bvh: wp.uint64, lower: wp.vec3, upper: wp.vec3, found: wp.array(dtype=int)):
    index = 0
    query = wp.bvh_query_aabb(bvh, lower, upper)
    while wp.bvh_query_next(query, index):
        found[index] = 1


def test_queries_after_a_refit_find_the_moved_boxes_and_a_tree_of_no_boxes_finds_none():
    lo = np.array([[0, 0, 0], [5, 5, 5], [9, 9, 9]], np.float32)
    lowers, uppers = wp.array(lo, dtype=wp.vec3), wp.array(lo + 1, dtype=wp.vec3)
    bvh = wp.Bvh(lowers, uppers)
    lowers.assign(lo[::-1].copy())
    uppers.assign(lo[::-1] + 1)
    bvh.refit()
    found = wp.zeros(3, dtype=int)
    wp.launch(overlaps, 1, inputs=[bvh.id, wp.vec3(8.5, 8.5, 8.5), wp.vec3(9.5, 9.5, 9.5), found])
    np.testing.assert_array_equal(found.numpy(), [1, 0, 0])  # box 0 moved to (9, 9, 9)
    empty = wp.Bvh(wp.zeros(0, dtype=wp.vec3), wp.zeros(0, dtype=wp.vec3))  # as Warp: a tree of no boxes
    empty.refit()
    none = wp.zeros(1, dtype=int)
    wp.launch(overlaps, 1, inputs=[empty.id, wp.vec3(-1e9, -1e9, -1e9), wp.vec3(1e9, 1e9, 1e9), none])
    assert empty._storage.descriptor["num_items"] == 0 and none.numpy()[0] == 0


# -- the refit a device tree runs on its device: one launch per level ------------------------------------------
def _level_refit(tree, lo, hi, device="cpu"):
    """``refit_by_levels`` of ``tree`` over boxes ``lo``/``hi`` on ``device``: the node bounds it writes."""
    from brickwork.runtime import bvh_refit

    dev = wp.get_device(device)
    items = [wp.zeros((len(lo), 3), dtype=wp.float32, device=dev) for _ in range(2)]
    bvh_refit.box_items(wp.array(lo, dtype=wp.vec3, device=dev), wp.array(hi, dtype=wp.vec3, device=dev), *items,
                        dev)
    nodes = [wp.full((tree.num_nodes, 4), 7.0, dtype=wp.float32, device=dev) for _ in range(2)]
    bvh_refit.refit_by_levels(tree.tables_on(dev), *items, *nodes, dev)
    np.testing.assert_array_equal(items[0].numpy(), lo)
    np.testing.assert_array_equal(items[1].numpy(), hi)
    np.testing.assert_array_equal(nodes[0].numpy()[:, 3], 7.0)  # the child columns are not written
    return nodes[0].numpy()[:, :3], nodes[1].numpy()[:, :3]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), leaf_size=st.integers(1, 4),
       constructor=st.sampled_from(["median", "sah"]), grouped=st.booleans(), nans=st.integers(0, 3))
def test_the_refit_by_levels_gives_the_bounds_of_the_build(seed, n, leaf_size, constructor, grouped, nans):
    rng = np.random.default_rng(seed)
    lo = np.round(rng.uniform(-5, 5, (n, 3))).astype(np.float32)  # ties
    hi = lo + rng.uniform(0, 1, (n, 3)).astype(np.float32)
    lo.reshape(-1)[rng.integers(0, 3 * n, nans)] = np.nan
    groups = wp.array(rng.integers(0, 4, n).astype(np.int32)) if grouped else None
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), constructor=constructor, groups=groups,
                 leaf_size=leaf_size)
    want = bvh._tree.bounds(lo, hi)
    got = _level_refit(bvh._tree, lo, hi)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    levels = bvh._tree.tables_on(wp.get_device("cpu"))["levels"]
    inner = np.concatenate([level.numpy() for level in levels]) if levels else np.zeros(0, np.int32)
    np.testing.assert_array_equal(np.sort(inner), np.flatnonzero(bvh._tree.lo_i >= 0))  # each inner node once


@pytest.mark.compiles_for_cuda
def test_the_gpu_mapping_of_the_refit_and_of_a_meshs_triangle_boxes_runs_as_the_cpu_does():
    from brickwork.runtime import bvh_refit

    rng = np.random.default_rng(3)
    lo = rng.uniform(-5, 5, (500, 3)).astype(np.float32)
    hi = lo + 0.5
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), leaf_size=2)
    with config.override(target="cuda-emulation"):
        got = _level_refit(bvh._tree, lo, hi)
    want = bvh._tree.bounds(lo, hi)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    pts = rng.uniform(-1, 1, (40, 3)).astype(np.float32)
    pts[5, 1] = np.nan
    tris = rng.integers(0, 40, (60, 3)).astype(np.int32)
    boxes = [wp.zeros((60, 3), dtype=wp.float32) for _ in range(2)]
    with config.override(target="cuda-emulation"):
        bvh_refit.triangle_items(wp.array(pts, dtype=wp.vec3), wp.array(tris.reshape(-1)), *boxes,
                                 wp.get_device("cpu"))
    np.testing.assert_array_equal(boxes[0].numpy(), pts[tris].min(axis=1))  # NaN where a corner is NaN
    np.testing.assert_array_equal(boxes[1].numpy(), pts[tris].max(axis=1))


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (the launches compile for CUDA)")
def test_a_device_trees_refit_runs_on_the_device_without_a_copy_through_the_host():
    from .cuda_fake import FakeDriver, installed

    rng = np.random.default_rng(4)
    lo = rng.uniform(-5, 5, (300, 3)).astype(np.float32)
    pts = rng.uniform(-1, 1, (30, 3)).astype(np.float32)
    tris = rng.integers(0, 30, (20, 3)).astype(np.int32)
    with installed(FakeDriver()) as fake:
        reads = []
        host_read = fake.copy_to_host
        fake.copy_to_host = lambda *a: (reads.append(a), host_read(*a))
        lowers = wp.array(lo, dtype=wp.vec3, device="cuda:0")
        bvh = wp.Bvh(lowers, wp.array(lo + 1, dtype=wp.vec3, device="cuda:0"), leaf_size=2)
        mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3, device="cuda:0"),
                       wp.array(tris.reshape(-1), dtype=wp.int32, device="cuda:0"))
        levels = len(bvh._tree.tables_on(bvh.device)["levels"])
        mesh_levels = len(mesh._tree.tables_on(mesh.device)["levels"])
        del reads[:], fake.launches[:], fake.stream_log[:]
        bvh.refit()
        assert len(fake.launches) == 2 + levels  # the item boxes, the leaves, one launch per level
        mesh.refit()
        assert len(fake.launches) == 2 + levels + 2 + mesh_levels
        assert reads == [] and not [e for e in fake.stream_log if e[0] == "upload"]  # nothing through the host
        ids = [bvh.id, mesh.id]
        mesh.points = wp.array(pts + 1, dtype=wp.vec3, device="cuda:0")  # its descriptor uploaded, then a refit
        assert len(fake.launches) == 2 + levels + 2 * (2 + mesh_levels)
        assert [bvh.id, mesh.id] == ids
        descriptor = fake.memory[max(b for b in fake.memory if b <= mesh.id)]
        offset = mesh.id - max(b for b in fake.memory if b <= mesh.id)
        stored = np.frombuffer(bytes(descriptor[offset:offset + 152]), mesh._storage.descriptor.dtype)[0]
        assert stored["points"] == mesh.points.ptr


@pytest.mark.parametrize("constructor", ["sah", "median", "lbvh"])
@pytest.mark.parametrize("new_n", [1, 5, 20])
def test_a_refit_over_replaced_bounds_of_another_length_is_refused_and_changes_nothing(constructor, new_n):
    """``lowers``/``uppers`` are plain attributes: replaced by arrays of another length, a refit broadcast one
    box over every item (1), raised numpy's broadcast error (5, 20), and on a device would write past the item
    tables. Now a BvhError naming both counts, the tree as it was; a rebuild takes the new boxes."""
    rng = np.random.default_rng(new_n)
    lo = rng.random((10, 3)).astype(np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 0.1, dtype=wp.vec3), constructor=constructor)
    before = [table.copy() for table in _tables(bvh)]
    new = rng.random((new_n, 3)).astype(np.float32)
    bvh.lowers, bvh.uppers = wp.array(new, dtype=wp.vec3), wp.array(new + 0.1, dtype=wp.vec3)
    with pytest.raises(BvhError) as info:
        bvh.refit()
    assert str(info.value) == (f"Bvh.refit: lowers and uppers hold {new_n} boxes, but the tree was built over 10; "
                               f"call rebuild() after changing the number of boxes")
    for table, old in zip(_tables(bvh), before):
        np.testing.assert_array_equal(table, old)
    bvh.rebuild()
    want_lo, _ = bvh._tree.bounds(new, new + 0.1)
    np.testing.assert_array_equal(_tables(bvh)[0][:, :3], want_lo)


@pytest.mark.parametrize(("replace", "words"), [
    (lambda bvh: setattr(bvh, "uppers", wp.zeros(3, dtype=wp.vec3)), "The same number of lower and upper bounds"),
    (lambda bvh: setattr(bvh, "lowers", wp.zeros(4, dtype=wp.vec3d)), "lowers should be a contiguous array of type "
                                                                       "wp.vec3, got vec3d"),
    (lambda bvh: setattr(bvh, "lowers", None), "lowers should be a contiguous array of type wp.vec3, got NoneType")])
@pytest.mark.parametrize("what", ["refit", "rebuild"])
def test_replaced_bounds_that_are_no_bounds_are_refused_by_refit_and_rebuild(replace, words, what):
    lo = np.random.default_rng(0).random((4, 3)).astype(np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 1, dtype=wp.vec3))
    before = [table.copy() for table in _tables(bvh)]
    replace(bvh)
    with pytest.raises(ValueError, match=f"^Bvh.{what}: {words}"):
        getattr(bvh, what)()
    for table, old in zip(_tables(bvh), before):
        np.testing.assert_array_equal(table, old)


def test_a_grouped_rebuild_over_boxes_of_another_length_is_refused():
    lo = np.zeros((6, 3), np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo, dtype=wp.vec3), groups=wp.array(np.arange(6) % 2,
                                                                                              dtype=wp.int32))
    bvh.lowers = bvh.uppers = wp.zeros(4, dtype=wp.vec3)
    with pytest.raises(ValueError, match=r"^Bvh.rebuild: lowers and uppers hold 4 boxes, but groups has 6 entries"):
        bvh.rebuild()


def test_a_captured_refit_over_bounds_replaced_after_the_capture_is_refused_at_the_replay():
    """The replay reads the attributes of that moment: a different number of boxes is refused there too (a device
    refit would write past the item tables), the tree unchanged."""
    lo = np.random.default_rng(1).random((6, 3)).astype(np.float32)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(lo + 1, dtype=wp.vec3))
    with wp.ScopedCapture() as capture:
        bvh.refit()
    before = [table.copy() for table in _tables(bvh)]
    bvh.lowers = bvh.uppers = wp.zeros(9, dtype=wp.vec3)
    with pytest.raises(BvhError, match=r"^Bvh.refit: lowers and uppers hold 9 boxes, but the tree was built over 6"):
        wp.capture_launch(capture.graph)
    for table, old in zip(_tables(bvh), before):
        np.testing.assert_array_equal(table, old)

"""The GPU box copy (``copies.copy_elements``: one element per thread, its box found from the plan's group
table) on the emulation target against numpy, the host's group table and box pieces exactly, and the
kernel NVRTC compiles for sm_90 and the stand-in driver launches (one launch per kind of element)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config, cuda_driver
from brickwork.device import CPU, get_device
from brickwork.jit import nvrtc
from brickwork.mesh import Mesh, Metadata, Package, ghost_cells
from brickwork.mesh import copies as copies_module
from brickwork.mesh.copies import GPU_GROUP, Copy, CopyProgram, box, gpu_pieces, group_table

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from runtime.cuda_fake import FakeDriver, installed  # noqa: E402


def _small_boxes(dst: np.ndarray, src: np.ndarray, rng, count: int, negate_every: int = 3, at=None):
    """``count`` copies of small random boxes of ``src`` (3-D) into ``dst``, some reversed or negated; the
    numpy result beside them. Destinations are disjoint (each a distinct plane), so order does not matter.
    ``at``: the (dst, src) addresses (default: the numpy arrays')."""
    dst_at, src_at = at or (dst.ctypes.data, src.ctypes.data)
    expected, out = dst.copy(), []
    nk, nj, ni = src.shape
    for n in range(count):
        lj, li = int(rng.integers(1, 4)), int(rng.integers(1, 9))  # 1 to 24 elements: groups straddle boxes
        sj, si = int(rng.integers(0, nj - lj + 1)), int(rng.integers(0, ni - li + 1))
        step = -1 if n % 2 else 1
        si_slice = slice(si, si + li) if step == 1 else slice(si + li - 1, si - 1 if si else None, -1)
        src_index = (int(rng.integers(0, nk)), slice(sj, sj + lj), si_slice)
        dst_index = (n, slice(0, lj), slice(1, 1 + li))
        negate = n % negate_every == 0
        expected[dst_index] = -src[src_index] if negate else src[src_index]
        out.append(Copy(dst.dtype, dst_at, box(dst.shape, dst_index), src_at, box(src.shape, src_index), negate))
    return out, expected


@pytest.mark.parametrize("dtype", [np.float64, np.uint16])  # negation of floats, and of unsigned values
def test_many_small_boxes_copy_as_numpy_on_emulation(dtype):
    rng = np.random.default_rng(5)
    src = (rng.standard_normal((3, 5, 9)) * 100).astype(dtype)
    dst = np.zeros((40, 4, 10), dtype=dtype)
    copies, expected = _small_boxes(dst, src, rng, 40)
    with config.override(target="cuda-emulation"):
        program = CopyProgram(copies, CPU)
        program.run()
    np.testing.assert_array_equal(dst, expected)
    (fn, items, (table, groups), nboxes, _), = program.launches  # one launch: one kind of element
    assert fn is copies_module.element_kernel(copies_module.copy_type(dtype), np.dtype(dtype).itemsize,
                                              np.dtype(dtype).kind == "u")
    assert nboxes == 40 and items == sum(int(np.prod(c.dst_box.counts)) for c in copies)
    first = table.numpy()[:, 3]
    # group g starts in the box holding item g * GPU_GROUP; the table ends with the last box
    want = [max(b for b in range(nboxes) if first[b] <= g) for g in range(0, items, GPU_GROUP)] + [nboxes - 1]
    assert groups.numpy().tolist() == want


def test_the_cpu_keeps_its_row_items_and_bisection():
    rng = np.random.default_rng(6)
    src = rng.standard_normal((3, 5, 9))
    dst = np.zeros((12, 4, 10))
    copies, expected = _small_boxes(dst, src, rng, 12)
    with config.override(target="cpu"):
        program = CopyProgram(copies, CPU)
        program.run()
    np.testing.assert_array_equal(dst, expected)
    assert [entry[0] for entry in program.launches] == [copies_module.copy_kernel(copies_module.float64, 8, False)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 80), min_size=1, max_size=40))
def test_property_each_item_finds_its_box_between_its_group_entries(sizes):
    """The bisection the kernel runs, between ``group_box[g]`` and ``group_box[g + 1]``, finds the box
    numpy's searchsorted over all boxes finds, for every item."""
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    items = int(sum(sizes))
    groups = group_table(first, items)
    assert len(groups) == -(-items // GPU_GROUP) + 1
    for t in range(items):
        lo, hi = int(groups[t // GPU_GROUP]), int(groups[t // GPU_GROUP + 1])
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if first[mid] <= t else (lo, mid - 1)
        assert lo == np.searchsorted(first, t, side="right") - 1


@pytest.mark.parametrize("counts, strides", [((20,), (1,)), ((3, 10), (12, 1)), ((2, 3, 4), (40, -5, 2)),
                                             ((9, 2), (3, 1))])
def test_pieces_of_a_box_over_the_limit_cover_it_once(counts, strides):
    limit, item = 7, 8
    pieces = gpu_pieces(counts, strides, strides, 10_000, 50_000, item, limit)

    def addresses(c, s, base):
        idx = np.indices(c).reshape(len(c), -1).T
        return sorted((base + item * (idx @ np.array(s))).tolist())

    assert all(int(np.prod(c)) < limit for c, _, _, _, _ in pieces)
    got = sorted(a for c, d, _, dst, _ in pieces for a in addresses(c, d, dst))
    assert got == addresses(counts, strides, 10_000)
    src = sorted(a for c, _, s, _, srcp in pieces for a in addresses(c, s, srcp))
    assert src == addresses(counts, strides, 50_000)
    assert gpu_pieces(counts, strides, strides, 0, 0, item, 10**6) == [(counts, strides, strides, 0, 0)]


def test_boxes_cut_into_pieces_copy_as_numpy_on_emulation(monkeypatch):
    monkeypatch.setattr(copies_module, "GPU_BOX_ELEMENTS", 7)
    rng = np.random.default_rng(8)
    src = rng.standard_normal((4, 6, 9))
    dst = np.zeros_like(src)
    index = (slice(0, 3), slice(1, 6), slice(8, 0, -1))
    expected = dst.copy()
    expected[1:4, 0:5, 0:8] = -src[index]
    copy = Copy(dst.dtype, dst.ctypes.data, box(dst.shape, (slice(1, 4), slice(0, 5), slice(0, 8))),
                src.ctypes.data, box(src.shape, index), True)
    with config.override(target="cuda-emulation"):
        program = CopyProgram([copy], CPU)
        program.run()
    np.testing.assert_array_equal(dst, expected)
    assert len(program) == 30  # each of the 3 x 5 rows of 8 elements: runs of 6 and 2 (fewer than 7)


# -- NVRTC and the stand-in driver -------------------------------------------------------------------------------
@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (the cuda extra)")
def test_the_device_exchange_launches_the_element_kernel_once_per_kind():
    pkg = Package("t")
    pkg.add_field("q", Metadata("Cell", "FillGhost", "Vector"), shape=(2,))
    with installed(FakeDriver()) as fake:
        mesh = Mesh((8, 8), (4, 4), nghost=2, boundaries="reflecting", packages=[pkg], device="cuda:0")
        mesh.fill_ghosts()  # builds the plan: the kernels compile to sm_90 cubins
        first = len(fake.launches)
        mesh.fill_ghosts()
        launched = len(fake.launches) - first
        exchange = ghost_cells.exchange_of(mesh, ghost_cells.ghost_fields(mesh, None))
        kernels = [entry[0] for program, _ in exchange.sweeps for entry in program.launches]
    assert launched == len(kernels) and 2 <= len(kernels) <= 4  # per sweep (x, y): plain and negated kinds
    assert all(fn in copies_module._ELEMENT_KERNELS.values() for fn in kernels)


@pytest.mark.cuda_device
@pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device on this machine")
def test_many_small_boxes_copy_as_numpy_on_a_cuda_device():
    rng = np.random.default_rng(9)
    src = rng.standard_normal((3, 5, 9))
    dst = np.zeros((200, 4, 10))
    on_src, on_dst = wp.array(src, device="cuda:0"), wp.zeros(dst.shape, dtype=wp.float64, device="cuda:0")
    copies, expected = _small_boxes(dst, src, rng, 200, at=(on_dst.ptr, on_src.ptr))
    CopyProgram(copies, get_device("cuda:0")).run()
    np.testing.assert_array_equal(on_dst.numpy(), expected)

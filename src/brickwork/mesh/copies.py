"""Box copies as compiled kernels on the mesh's device: the engine of the ghost exchange.

A *box* is a strided block of elements at an address: ``(address, counts, element strides)``,
counts and strides in C order, any rank. A copy moves one box into another of the same counts,
optionally negating (the flipped components of a reflecting wall). ``CopyProgram`` takes a list of
copies, simplifies each (dimensions of count 1 dropped, adjacent dimensions merged where both
boxes are contiguous across them; short aligned runs without negation become one wider element),
and writes one table per kind of element; ``run()`` is then one launch per kind, on the device that
holds the memory, with no host access to the data.

Work items: box ``b`` owns items ``[first[b], first[b + 1])``; an item copies ``rows`` rows of
``width`` elements: whole rows, several per item, on the CPU, where a row loop is cheap and the
items are few (``copy_boxes``: an item finds its box by bisection over ``first``); one element per
item on a GPU (``copy_elements``), so that a warp's lanes take neighbouring elements along i and
its loads and stores coalesce (the emulation target, which runs the GPU mapping on the CPU, uses the
GPU's items too). There a thread would wait for a chain of dependent loads in a bisection over all
boxes, so the plan also holds, per group of ``GPU_GROUP`` items, the box of its first item (computed
on the host once per plan): a thread reads its group's entry and the next and bisects only between
the two (none when the group lies in one box), then splits its offset in the box with 32-bit
divisions (a box of ``GPU_BOX_ELEMENTS`` elements or more is split on the host).

On the CPU a launch runs on several threads when it moves at least ``COPY_PARALLEL_FACTOR *
config.parallel_threshold`` elements (the kernel's ``work_per_item`` is set so that its work counts
elements): a parallel region of short copies costs more than it saves, but a ghost fill of many
blocks is bound by cache misses that two cores take in parallel (a 512^2 mesh of 64^2 blocks, 5
float64 fields, 2 threads: 0.97 -> 0.65-0.78 ms per fill).

Element types: a copy moves bits, so every numpy dtype maps to a kernel type of its size and kind
(floats stay floats so that negation flips the sign as numpy's does; complex values are pairs).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import config
from ..builtins.functions import FUNCTIONS as _FUNCTIONS
from ..frontend.array_pointers import global_array
from ..lang.function import func
from ..lang.kernel import kernel
from ..runtime.launch import launch
from ..types.arrays import array, array2d
from ..types.composite import vector
from ..types.scalars import float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64

#: Table columns of a box: destination and source address, negate, first item, rows per item,
#: width; count, destination and source stride of the innermost (i) and next (j) dimension; the
#: number of outer dimensions, then (count, dst stride, src stride) of each.
_HEAD = 13
MAX_OUTER = 5
#: Elements per work item on the CPU (rows are grouped up to this many).
CPU_ITEM_ELEMENTS = 4096
#: A copy launch runs on several threads from this many times ``config.parallel_threshold`` elements.
COPY_PARALLEL_FACTOR = 4
#: GPU items per entry of a plan's group table (a warp's): ``group_box[g]`` is the box of item ``g * GPU_GROUP``.
GPU_GROUP = 32
#: A GPU box holds fewer elements than this (its offsets are split in int32); a larger one is cut into pieces.
GPU_BOX_ELEMENTS = 2**31 - 1

# kernel builtins, by the names the kernels below call them
wp_tid, wp_min, wp_max = _FUNCTIONS["tid"], _FUNCTIONS["min"], _FUNCTIONS["max"]

_KIND_TYPES = {
    ("f", 2): float16, ("f", 4): float32, ("f", 8): float64,
    ("c", 8): vector(2, float32), ("c", 16): vector(2, float64),  # complex: a pair, both parts negated
    ("i", 1): int8, ("i", 2): int16, ("i", 4): int32, ("i", 8): int64,
    ("u", 1): uint8, ("u", 2): uint16, ("u", 4): uint32, ("u", 8): uint64, ("b", 1): uint8,
}


class Box(NamedTuple):
    """A strided block of elements: ``offset`` from a base address, counts and strides in elements."""

    offset: int
    counts: tuple
    strides: tuple


def box(shape: tuple, index: tuple) -> Box:
    """The ``Box`` that ``array[index]`` selects in a C-ordered array of ``shape`` (``index``: slices
    and ints, one per leading dimension)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    strides.reverse()
    offset, counts, steps = 0, [], []
    for d, n in enumerate(shape):
        sl = index[d] if d < len(index) else slice(None)
        if isinstance(sl, slice):
            start, stop, stride = sl.indices(n)
            counts.append(len(range(start, stop, stride)))
            steps.append(stride * strides[d])
            offset += start * strides[d]
        else:
            offset += int(sl) * strides[d]
    return Box(offset, tuple(counts), tuple(steps))


def simplify(counts, dst_strides, src_strides) -> tuple[tuple, tuple, tuple]:
    """Drop dimensions of count 1 and merge a dimension into the next inner one where both boxes
    step over it as over one longer run."""
    dims = [(c, d, s) for c, d, s in zip(counts, dst_strides, src_strides) if c != 1]
    merged: list[tuple[int, int, int]] = []
    for c, d, s in dims:
        merged.append((c, d, s))
        while len(merged) > 1:
            (c0, d0, s0), (c1, d1, s1) = merged[-2], merged[-1]
            if d0 == c1 * d1 and s0 == c1 * s1:
                merged[-2:] = [(c0 * c1, d1, s1)]
            else:
                break
    if not merged:
        merged = [(1, 1, 1)]
    return tuple(m[0] for m in merged), tuple(m[1] for m in merged), tuple(m[2] for m in merged)


def copy_type(dtype: np.dtype):
    """The kernel type copies of ``dtype`` values move."""
    dtype = np.dtype(dtype)
    t = _KIND_TYPES.get((dtype.kind, dtype.itemsize))
    if t is None:
        raise TypeError(f"ghost exchange: no kernel type copies {dtype} values")
    return t


@func
def box_of_item(boxes: array2d(dtype=int64), lo: int, hi: int, t: int64):
    """The last box among ``lo..hi`` of a box table whose first item (column 3) is at most ``t`` (bisection)."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if boxes[mid, 3] <= t:
            lo = mid
        else:
            hi = mid - 1
    return lo


@func
def item_start(boxes: array2d(dtype=int64), nboxes: int, t: int64, head: int64):
    """Where work item ``t`` of a box table starts (``boxes``: ``nboxes`` rows, the first ``head`` columns
    ending with the count of outer dimensions, then their triplets): its box, the elements in its row and its
    rows, and its first element's destination and source offsets (in elements)."""
    one = int64(1)
    b = box_of_item(boxes, 0, nboxes - 1, t)
    rows_per_item = boxes[b, 4]
    width = boxes[b, 5]
    ni = boxes[b, 6]
    nj = boxes[b, 9]
    nouter = int(boxes[b, head - one])
    q = t - boxes[b, 3]
    wchunks = (ni + width - one) // width
    rchunks = (nj + rows_per_item - one) // rows_per_item
    i0 = (q % wchunks) * width
    q = q // wchunks
    j0 = (q % rchunks) * rows_per_item
    q = q // rchunks
    doff = j0 * boxes[b, 10] + i0 * boxes[b, 7]
    soff = j0 * boxes[b, 11] + i0 * boxes[b, 8]
    for e in range(nouter):
        col = head + int64(3 * (nouter - 1 - e))  # innermost outer dimension first
        n = boxes[b, col]
        c = q % n
        q = q // n
        doff = doff + c * boxes[b, col + one]
        soff = soff + c * boxes[b, col + int64(2)]
    span = wp_min(i0 + width, ni) - i0
    rows = wp_min(j0 + rows_per_item, nj) - j0
    return b, span, rows, doff, soff


@func
def element_offsets(boxes: array2d(dtype=int64), b: int, t: int64, head: int):
    """The destination and source offsets (in elements) of GPU item ``t``, one element of box ``b`` of a box
    table (``head`` columns ending with the count of outer dimensions, then their triplets); the box holds
    fewer than ``GPU_BOX_ELEMENTS`` elements, so the element's place in it splits in int32."""
    q = int32(t - boxes[b, 3])
    ni = int32(boxes[b, 6])
    nj = int32(boxes[b, 9])
    i = q % ni
    q = q // ni
    j = q % nj
    q = q // nj
    doff = int64(j) * boxes[b, 10] + int64(i) * boxes[b, 7]
    soff = int64(j) * boxes[b, 11] + int64(i) * boxes[b, 8]
    nouter = int(boxes[b, head - 1])
    for e in range(nouter):
        col = head + 3 * (nouter - 1 - e)  # innermost outer dimension first
        n = int32(boxes[b, col])
        c = q % n
        q = q // n
        doff = doff + int64(c) * boxes[b, col + 1]
        soff = soff + int64(c) * boxes[b, col + 2]
    return doff, soff


@func
def gpu_box(boxes: array2d(dtype=int64), group_box: array(dtype=int32), t: int64):
    """The box of GPU item ``t``: between its group's entry of ``group_box`` and the next (module docstring)."""
    g = int(t // int64(GPU_GROUP))
    return box_of_item(boxes, int(group_box[g]), int(group_box[g + 1]), t)  # none but the group's first and last


_KERNELS: dict = {}


def cached_kernel(kernels: dict, build, T, item: int, unsigned: bool):
    """``build(T, item bytes, unsigned)``'s kernel, made once per element type (``kernels``: the cache)."""
    key = (T, item, unsigned)
    found = kernels.get(key)
    if found is None:
        found = kernels[key] = build(T, int64(item), unsigned)
    return found


def copy_kernel(T, item: int, unsigned: bool):
    """The box-copy kernel for element type ``T`` of ``item`` bytes (cached)."""
    return cached_kernel(_KERNELS, _copy_boxes, T, item, unsigned)


def _copy_boxes(T, ITEM, UNSIGNED):  # noqa: N803 - constants of the kernel
    @kernel
    def copy_boxes(boxes: array2d(dtype=int64), nboxes: int):
        one = int64(1)
        zero = int64(0)
        b, span, rows, doff, soff = item_start(boxes, nboxes, int64(wp_tid()), int64(_HEAD))
        dsi = boxes[b, 7]
        ssi = boxes[b, 8]
        dsj = boxes[b, 10]
        ssj = boxes[b, 11]
        # one array over the item's elements, from its lowest address (a source may run backwards)
        dlo = doff + wp_min(zero, (rows - one) * dsj) + wp_min(zero, (span - one) * dsi)
        dhi = doff + wp_max(zero, (rows - one) * dsj) + wp_max(zero, (span - one) * dsi)
        slo = soff + wp_min(zero, (rows - one) * ssj) + wp_min(zero, (span - one) * ssi)
        shi = soff + wp_max(zero, (rows - one) * ssj) + wp_max(zero, (span - one) * ssi)
        dst = array(ptr=uint64(boxes[b, 0] + dlo * ITEM), shape=(dhi - dlo + one,), dtype=T)
        src = array(ptr=uint64(boxes[b, 1] + slo * ITEM), shape=(shi - slo + one,), dtype=T)
        if boxes[b, 2] != zero:
            for jj in range(rows):
                d0 = doff - dlo + jj * dsj
                s0 = soff - slo + jj * ssj
                for ii in range(span):
                    v = src[s0 + ii * ssi]
                    if UNSIGNED:
                        dst[d0 + ii * dsi] = T(0) - v
                    else:
                        dst[d0 + ii * dsi] = -v
        else:
            for jj in range(rows):
                d0 = doff - dlo + jj * dsj
                s0 = soff - slo + jj * ssj
                for ii in range(span):
                    dst[d0 + ii * dsi] = src[s0 + ii * ssi]

    return copy_boxes


_ELEMENT_KERNELS: dict = {}


def element_kernel(T, item: int, unsigned: bool):
    """The GPU box-copy kernel for element type ``T`` of ``item`` bytes (cached): one element per thread,
    its box found from the plan's group table (``group_box``, see the module docstring)."""
    return cached_kernel(_ELEMENT_KERNELS, _copy_elements, T, item, unsigned)


def _copy_elements(T, ITEM, UNSIGNED):  # noqa: N803 - constants of the kernel
    @kernel
    def copy_elements(boxes: array2d(dtype=int64), group_box: array(dtype=int32)):
        t = int64(wp_tid())
        b = gpu_box(boxes, group_box, t)
        doff, soff = element_offsets(boxes, b, t, _HEAD)
        # the fields' device memory: loads and stores in the global form on a GPU (global_array)
        dst = global_array(ptr=uint64(boxes[b, 0] + doff * ITEM), shape=(1,), dtype=T)
        src = global_array(ptr=uint64(boxes[b, 1] + soff * ITEM), shape=(1,), dtype=T)
        if boxes[b, 2] != int64(0):
            if UNSIGNED:
                dst[0] = T(0) - src[0]
            else:
                dst[0] = -src[0]
        else:
            dst[0] = src[0]

    return copy_elements


def gpu_pieces(counts, dstr, sstr, dst: int, src: int, itemsize: int, limit: int | None = None):
    """A simplified box copy as copies of fewer than ``limit`` (``GPU_BOX_ELEMENTS``) elements each (the GPU
    kernel splits an element's offset in its box in int32): ``[(counts, dst strides, src strides, dst, src)]``,
    cut along the outermost dimension (a row longer than the limit: into runs)."""
    limit = GPU_BOX_ELEMENTS if limit is None else limit
    total = int(np.prod(counts, dtype=np.int64))
    if total < limit:
        return [(counts, dstr, sstr, dst, src)]
    inner = total // counts[0]
    out = []
    if len(counts) > 1 and inner >= limit:  # each outer index on its own
        for c in range(counts[0]):
            out += gpu_pieces(counts[1:], dstr[1:], sstr[1:], dst + c * dstr[0] * itemsize,
                              src + c * sstr[0] * itemsize, itemsize, limit)
        return out
    step = max(1, (limit - 1) // inner)
    for c in range(0, counts[0], step):
        n = min(step, counts[0] - c)
        out.append(((n, *counts[1:]), dstr, sstr, dst + c * dstr[0] * itemsize, src + c * sstr[0] * itemsize))
    return out


def group_table(first: np.ndarray, items: int) -> np.ndarray:
    """``group_box`` of a GPU plan: the box of item ``g * GPU_GROUP`` for every group ``g``, then the last
    box (``first``: each box's first item, ascending; boxes of no items never occur)."""
    starts = np.arange(0, items, GPU_GROUP, dtype=np.int64)
    boxes = np.searchsorted(first, starts, side="right") - 1
    return np.append(boxes, len(first) - 1).astype(np.int32)


class Copy(NamedTuple):
    """One box copy: numpy ``dtype``, destination and source (base address, ``Box``), negation."""

    dtype: np.dtype
    dst: int
    dst_box: Box
    src: int
    src_box: Box
    negate: bool = False


def broadcast_source(cp: Copy) -> Copy:
    """The copy with its source broadcast to the destination's counts, as numpy assignment does
    (an outflow wall copies one layer of cells into every ghost layer: stride 0)."""
    dst, src = cp.dst_box, cp.src_box
    if dst.counts == src.counts:
        return cp
    if len(dst.counts) != len(src.counts) or any(s not in (1, d) for d, s in zip(dst.counts, src.counts)):
        raise AssertionError(f"box copy of mismatched counts {dst.counts} <- {src.counts}")
    strides = tuple(st if s == d else 0 for d, s, st in zip(dst.counts, src.counts, src.strides))
    return cp._replace(src_box=Box(src.offset, dst.counts, strides))


#: Whole short runs copied as one wider element (no negation): kernel type by byte width.
_WIDE = {2: uint16, 4: uint32, 8: uint64, 16: vector(2, float64)}


def _widened(counts, dstr, sstr, dst: int, src: int, itemsize: int):
    """A copy whose innermost runs are short, contiguous and aligned, as a copy of one wider element per
    run: ``((kernel type, width, unsigned), simplified (counts, dst strides, src strides))``, or None.
    A narrow ghost column (``nghost`` values per row) then costs one element per row, and the row loop
    becomes the inner loop."""
    ni, width = counts[-1], counts[-1] * itemsize
    if ni == 1 or dstr[-1] != 1 or sstr[-1] != 1 or width not in _WIDE or dst % width or src % width:
        return None
    if any(d % ni for d in dstr[:-1]) or any(st % ni for st in sstr[:-1]):
        return None
    counts = (*counts[:-1], 1)
    dstr = (*(d // ni for d in dstr[:-1]), 1)
    sstr = (*(st // ni for st in sstr[:-1]), 1)
    kind = _WIDE[width]
    return (kind, width, kind in (uint16, uint32, uint64)), simplify(counts, dstr, sstr)


def gpu_items(device) -> bool:
    """Whether copies on ``device`` use the GPU's work items (one element each): on a CUDA device, and
    under the emulation target, which runs the GPU mapping on the CPU."""
    return device.is_cuda or config.target != "cpu"


def work_items(counts, dstr, sstr, gpu: bool) -> tuple[list, list, int]:
    """How a box of simplified ``counts`` (destination and source strides ``dstr``, ``sstr``) is cut into work
    items: ``(rows per item, width, ni, dst i stride, src i stride, nj, dst j stride, src j stride)``, the outer
    dimensions' ``(count, dst stride, src stride)`` flattened, and the number of items. ``gpu``: one element per
    item (``gpu_items``), else whole rows, up to ``CPU_ITEM_ELEMENTS`` elements per item."""
    if len(counts) == 1:  # a single row: a j dimension of one
        counts, dstr, sstr = (1, *counts), (0, *dstr), (0, *sstr)
    if len(counts) - 2 > MAX_OUTER:
        raise AssertionError(f"a box copy of {len(counts)} dimensions")
    nj, ni = counts[-2], counts[-1]
    if gpu:
        per_item, width = 1, 1
    else:
        per_item, width = max(1, CPU_ITEM_ELEMENTS // ni), ni
    items = int(np.prod(counts[:-2], dtype=np.int64)) * -(-nj // per_item) * -(-ni // width)
    outer = [v for dim in zip(counts[:-2], dstr[:-2], sstr[:-2]) for v in dim]
    return [per_item, width, ni, dstr[-1], sstr[-1], nj, dstr[-2], sstr[-2]], outer, items


class CopyProgram:
    """A fixed list of box copies on one device, run as one launch per kind of element."""

    def __init__(self, copies: list[Copy], device):
        self.device = device
        gpu = gpu_items(device)
        groups: dict = {}  # (kernel type, item size, unsigned) -> [(dst address, src address, counts, strides)]
        for cp in copies:
            if 0 in cp.dst_box.counts:
                continue
            cp = broadcast_source(cp)
            dtype = np.dtype(cp.dtype)
            counts, dstr, sstr = simplify(cp.dst_box.counts, cp.dst_box.strides, cp.src_box.strides)
            dst = cp.dst + cp.dst_box.offset * dtype.itemsize
            src = cp.src + cp.src_box.offset * dtype.itemsize
            key = (copy_type(dtype), dtype.itemsize, dtype.kind in "ub")
            wide = None if cp.negate else _widened(counts, dstr, sstr, dst, src, dtype.itemsize)
            if wide is not None:
                key, (counts, dstr, sstr) = wide
            pieces = gpu_pieces(counts, dstr, sstr, dst, src, key[1]) if gpu else [(counts, dstr, sstr, dst, src)]
            for counts, dstr, sstr, dst, src in pieces:
                groups.setdefault(key, []).append((dst, src, cp.negate, counts, dstr, sstr))
        self.launches = []  # (kernel, items, inputs, boxes, work per item)
        for (ctype, itemsize, unsigned), group in groups.items():
            rows = []
            first = elements = 0
            for dst, src, negate, counts, dstr, sstr in group:
                elements += int(np.prod(counts, dtype=np.int64))
                rows_cols, outer, items = work_items(counts, dstr, sstr, gpu)
                rows.append([dst, src, int(negate), first, *rows_cols, len(outer) // 3, *outer,
                             *[0] * (3 * MAX_OUTER - len(outer))])
                first += items
            table = np.array(rows, dtype=np.int64).reshape(len(rows), _HEAD + 3 * MAX_OUTER)
            if gpu:
                inputs = [array(table, dtype=int64, device=device),
                          array(group_table(table[:, 3], first), dtype=int32, device=device)]
                self.launches.append((element_kernel(ctype, itemsize, unsigned), first, inputs, len(rows), 1))
                continue
            # the launch's work (items * work_per_item) is its elements / COPY_PARALLEL_FACTOR
            work_per_item = elements / (first * COPY_PARALLEL_FACTOR) if first else 1
            self.launches.append((copy_kernel(ctype, itemsize, unsigned), first,
                                  [array(table, dtype=int64, device=device), len(rows)], len(rows), work_per_item))

    def __len__(self) -> int:
        return sum(launch[3] for launch in self.launches)

    def run(self) -> None:
        """Do every copy (one launch per kind of element)."""
        for fn, items, inputs, _, work_per_item in self.launches:
            fn.work_per_item = work_per_item  # the kernel is shared by every program copying its type
            # never on a tape: a differentiated exchange records its own adjoint (transposed copies)
            launch(fn, dim=items, inputs=inputs, device=self.device, record_tape=False)


class ZeroFill:
    """Sets fixed blocks of field storage arrays (host or device) to zero, on their device: box copies
    from one zero element (source stride 0), one launch per kind of element, no host access to the data.

    ``arrays``: storage arrays whose first axis is the block axis; ``lids``: the blocks to zero (None:
    every block)."""

    def __init__(self, arrays: list, device, lids=None):
        from . import storage

        self._zeros: dict = {}  # dtype -> one zero element (kept alive: the program holds its address)
        copies = []
        for arr in arrays:
            dtype = np.dtype(arr.dtype)
            zero = self._zeros.get(dtype)
            if zero is None:
                zero = self._zeros[dtype] = storage.zeros((1,), dtype, device)
            per_block = int(np.prod(arr.shape[1:], dtype=np.int64))
            runs = [(0, len(arr))] if lids is None else [(int(lid), 1) for lid in lids]
            for first, count in runs:
                n = count * per_block
                copies.append(Copy(dtype, storage.address(arr), Box(first * per_block, (n,), (1,)),
                                   storage.address(zero), Box(0, (n,), (0,))))
        self.program = CopyProgram(copies, device)

    def run(self) -> None:
        """Zero the blocks."""
        self.program.run()

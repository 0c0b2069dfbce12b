"""The adjoint of box copies (``copies.CopyProgram``) on gradient storage, as kernels on the gradients' device.

A forward copy ``dst <- src`` (negated for the flipped component at a reflecting wall, its source
broadcast along the ghost layers at an outflow wall) has the adjoint ``g[src] += g[dst]`` (negated
likewise; a broadcast source gets the sum of the ghosts it was copied to), then ``g[dst] = 0``, since
the copy overwrote the ghosts. ``TransposedProgram`` runs these on the gradients of one sweep of the
ghost exchange, where every copy writes ghosts of one direction and reads cells that no copy of the
sweep writes, so the copies' adjoints may run in any order.

Determinism, without atomics: a work item owns source elements and sums the ghosts of each (the ghost
layers of a broadcast source in order) before adding the sum, so within one launch no two items add into
one element. Where two copies of a sweep read one cell (a block of fewer cells than twice the ghost
layers, whose two sides' neighbours both read it), the copies are split into waves, launched one after
the other, in which no two copies share a source element. The sums are therefore the same bit for bit
from run to run, on the CPU (one or several threads), the emulation target and a GPU, which run these very
kernels (the CPU in rows per item; GPU targets one source element per item, found from the plan's group table as
``copies`` finds a GPU copy's box, the threads of a warp on neighbouring elements along i).

The tables (one row per copy, ``_HEAD`` columns then ``MAX_OUTER`` (count, ghost stride, source stride)
triplets) live on the gradients' device and are built once per exchange and gradient storage.
"""

from __future__ import annotations

import numpy as np

from ..frontend.array_pointers import global_array
from ..lang.kernel import kernel
from ..runtime.launch import launch
from ..types.arrays import array, array2d
from ..types.scalars import int32, int64, uint64
from .copies import (
    COPY_PARALLEL_FACTOR,
    MAX_OUTER,
    Copy,
    broadcast_source,
    cached_kernel,
    copy_type,
    element_offsets,
    gpu_box,
    gpu_items,
    gpu_pieces,
    group_table,
    item_start,
    simplify,
    work_items,
    wp_max,
    wp_min,
    wp_tid,
)

#: Table columns of a copy: ghost and source address, negate, first item, rows per item, width; count,
#: ghost and source stride of the innermost (i) and next (j) dimension; the count and ghost stride of the
#: ghost layers summed into one source element (1 and 0 for a copy without broadcast); the number of outer
#: dimensions, then (count, ghost stride, source stride) of each.
_HEAD = 15

_KERNELS: dict = {}


def add_back_kernel(T, item: int):
    """The kernel adding ghost gradients of element type ``T`` (``item`` bytes) back into their sources and
    clearing them (cached)."""
    return cached_kernel(_KERNELS, _add_back_boxes, T, item, False)


def _add_back_boxes(T, ITEM, _unsigned):  # noqa: N803 - constants of the kernel
    @kernel
    def add_back_boxes(boxes: array2d(dtype=int64), nboxes: int):
        one = int64(1)
        zero = int64(0)
        b, span, rows, goff, soff = item_start(boxes, nboxes, int64(wp_tid()), int64(_HEAD))
        gsi = boxes[b, 7]
        ssi = boxes[b, 8]
        gsj = boxes[b, 10]
        ssj = boxes[b, 11]
        nred = boxes[b, 12]
        gsr = boxes[b, 13]
        # one array over the item's elements each, from its lowest address (strides may be negative)
        glo = goff + wp_min(zero, (rows - one) * gsj) + wp_min(zero, (span - one) * gsi)
        glo = glo + wp_min(zero, (nred - one) * gsr)
        ghi = goff + wp_max(zero, (rows - one) * gsj) + wp_max(zero, (span - one) * gsi)
        ghi = ghi + wp_max(zero, (nred - one) * gsr)
        slo = soff + wp_min(zero, (rows - one) * ssj) + wp_min(zero, (span - one) * ssi)
        shi = soff + wp_max(zero, (rows - one) * ssj) + wp_max(zero, (span - one) * ssi)
        ghost = array(ptr=uint64(boxes[b, 0] + glo * ITEM), shape=(ghi - glo + one,), dtype=T)
        src = array(ptr=uint64(boxes[b, 1] + slo * ITEM), shape=(shi - slo + one,), dtype=T)
        negate = boxes[b, 2] != zero
        for jj in range(rows):
            g0 = goff - glo + jj * gsj
            s0 = soff - slo + jj * ssj
            for ii in range(span):
                at = g0 + ii * gsi
                total = ghost[at]
                ghost[at] = T(0)
                for r in range(one, nred):  # the ghost layers a broadcast source was copied to, in order
                    total = total + ghost[at + r * gsr]
                    ghost[at + r * gsr] = T(0)
                s = s0 + ii * ssi
                if negate:
                    src[s] = src[s] - total
                else:
                    src[s] = src[s] + total

    return add_back_boxes


_ELEMENT_KERNELS: dict = {}


def add_back_element_kernel(T, item: int):
    """The GPU kernel of ``add_back_kernel``: one source element per thread (neighbouring threads take neighbouring
    elements along i), its copy found from the plan's group table as ``copies.copy_elements`` finds its box, its
    ghost layers summed in the CPU kernel's order (cached)."""
    return cached_kernel(_ELEMENT_KERNELS, _add_back_elements, T, item, False)


def _add_back_elements(T, ITEM, _unsigned):  # noqa: N803 - constants of the kernel
    @kernel
    def add_back_elements(boxes: array2d(dtype=int64), group_box: array(dtype=int32)):
        zero = int64(0)
        t = int64(wp_tid())
        b = gpu_box(boxes, group_box, t)
        goff, soff = element_offsets(boxes, b, t, _HEAD)
        nred = boxes[b, 12]
        gsr = boxes[b, 13]
        reach = (nred - int64(1)) * gsr  # from the first ghost layer to the last (gsr may be negative)
        glo = goff + wp_min(zero, reach)
        ghost = global_array(ptr=uint64(boxes[b, 0] + glo * ITEM), shape=(wp_max(reach, -reach) + int64(1),),
                             dtype=T)  # the gradients' device memory: the global form on a GPU (global_array)
        src = global_array(ptr=uint64(boxes[b, 1] + soff * ITEM), shape=(1,), dtype=T)
        at = goff - glo
        total = ghost[at]
        ghost[at] = T(0)
        for r in range(int64(1), nred):  # the ghost layers a broadcast source was copied to, in order
            total = total + ghost[at + r * gsr]
            ghost[at + r * gsr] = T(0)
        if boxes[b, 2] != zero:
            src[0] = src[0] - total
        else:
            src[0] = src[0] + total

    return add_back_elements


def _addresses(base: int, bx, itemsize: int) -> np.ndarray:
    """The byte address of every element of box ``bx`` at ``base``."""
    offsets = np.zeros(1, dtype=np.int64)
    for count, stride in zip(bx.counts, bx.strides):
        offsets = (offsets[:, None] + np.arange(count, dtype=np.int64)[None, :] * stride).ravel()
    return base + (bx.offset + offsets) * itemsize


def waves(copies: list[Copy]) -> list[list[Copy]]:
    """``copies`` (forward copies of one sweep) split into waves, in order, in which no two copies read one
    source element: usually one wave. AssertionError where a copy's ghosts are another's ghosts or sources
    (a sweep's adjoint would then depend on the order of its copies)."""
    if len(copies) < 2:
        return [copies] if copies else []
    sources = [np.unique(_addresses(cp.src, cp.src_box, np.dtype(cp.dtype).itemsize)) for cp in copies]
    ghosts = np.concatenate([_addresses(cp.dst, cp.dst_box, np.dtype(cp.dtype).itemsize) for cp in copies])
    read = np.concatenate(sources)
    if np.unique(ghosts).size != ghosts.size or np.isin(ghosts, read).any():
        raise AssertionError("a ghost exchange sweep whose copies write the same ghosts, or ghosts another reads")
    owner = np.repeat(np.arange(len(copies)), [len(s) for s in sources])
    values, counts = np.unique(read, return_counts=True)
    shared = values[counts > 1]
    if not shared.size:
        return [copies]
    conflicts: dict[int, set] = {}
    at = np.isin(read, shared)
    groups: dict[int, list] = {}
    for address, c in zip(read[at].tolist(), owner[at].tolist()):
        groups.setdefault(address, []).append(c)
    for members in groups.values():
        for a in members:
            conflicts.setdefault(a, set()).update(m for m in members if m != a)
    wave_of: list[int] = []
    for c in range(len(copies)):  # first fit, in the copies' order: the same split every time
        taken = {wave_of[o] for o in conflicts.get(c, ()) if o < c}
        wave_of.append(next(w for w in range(len(copies)) if w not in taken))
    return [[cp for cp, w in zip(copies, wave_of) if w == k] for k in range(max(wave_of) + 1)]


class TransposedProgram:
    """The adjoints of a fixed list of box copies (one sweep of an exchange, on gradient storage) on one
    device: per wave (``waves``) one launch per kind of element."""

    def __init__(self, copies: list[Copy], device):
        self.device = device
        gpu = gpu_items(device)
        self.launches = []  # (kernel, items, table, row count (CPU) or group table (GPU), work per item)
        for wave in waves([cp for cp in copies if 0 not in cp.dst_box.counts]):
            groups: dict = {}  # (kernel type, item size) -> table rows
            for cp in wave:
                cp = broadcast_source(cp)
                dtype = np.dtype(cp.dtype)
                counts, gstr, sstr = simplify(cp.dst_box.counts, cp.dst_box.strides, cp.src_box.strides)
                summed = [d for d, (n, st) in enumerate(zip(counts, sstr)) if st == 0 and n > 1]
                if len(summed) > 1:
                    raise AssertionError(f"a box copy broadcast along {len(summed)} dimensions")
                nred, gsr = (counts[summed[0]], gstr[summed[0]]) if summed else (1, 0)
                keep = [d for d in range(len(counts)) if d not in summed] or None
                if keep is None:  # one source element: a row of one
                    counts, gstr, sstr = (1,), (1,), (1,)
                else:
                    counts, gstr, sstr = (tuple(v[d] for d in keep) for v in (counts, gstr, sstr))
                ghost = cp.dst + cp.dst_box.offset * dtype.itemsize
                src = cp.src + cp.src_box.offset * dtype.itemsize
                pieces = (gpu_pieces(counts, gstr, sstr, ghost, src, dtype.itemsize) if gpu
                          else [(counts, gstr, sstr, ghost, src)])
                for counts, gstr, sstr, ghost, src in pieces:
                    groups.setdefault((copy_type(dtype), dtype.itemsize), []).append(
                        (ghost, src, cp.negate, counts, gstr, sstr, nred, gsr))
            for (ctype, itemsize), group in groups.items():
                rows, first, elements = [], 0, 0
                for ghost, src, negate, counts, gstr, sstr, nred, gsr in group:
                    elements += int(np.prod(counts, dtype=np.int64)) * nred
                    cols, outer, items = work_items(counts, gstr, sstr, gpu)
                    rows.append([ghost, src, int(negate), first, *cols, nred, gsr, len(outer) // 3, *outer,
                                 *[0] * (3 * MAX_OUTER - len(outer))])
                    first += items
                table = np.array(rows, dtype=np.int64).reshape(len(rows), _HEAD + 3 * MAX_OUTER)
                on_device = array(table, dtype=int64, device=device)
                if gpu:
                    groups_at = array(group_table(table[:, 3], first), dtype=int32, device=device)
                    self.launches.append((add_back_element_kernel(ctype, itemsize), first, on_device, groups_at, 1))
                    continue
                work_per_item = elements / (first * COPY_PARALLEL_FACTOR) if first else 1
                self.launches.append((add_back_kernel(ctype, itemsize), first, on_device, len(rows), work_per_item))

    def run(self) -> None:
        """Add every ghost's gradient into its source and clear it (one launch per wave and kind of element)."""
        for fn, items, table, boxes_or_groups, work_per_item in self.launches:
            fn.work_per_item = work_per_item  # the kernel is shared by every program of its type
            # the CPU kernel takes the table's row count, the GPU's its group table
            launch(fn, dim=items, inputs=[table, boxes_or_groups], device=self.device, record_tape=False)

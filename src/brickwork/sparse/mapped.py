"""``BsrTripletMap`` and ``bsr_set_from_mapped_values``: new values for triplets whose topology was built once.

``bsr_set_from_triplets(..., build_mapping=...)`` records, for the triplets it was given, the sorted triplet
order, each block's end in that order and each triplet's block (-1: dropped); later values are summed from
that record without sorting again, in the same order (``"gather"``) or with atomics (``"atomic"``).
"""

from __future__ import annotations

from typing import Any

from ..runtime.warp_names import wp
from ..types.arrays import array
from ._types import check_array
from .matrix import BsrMatrix


@wp.kernel(enable_backward=False)
def _record(order: wp.array(dtype=int), starts: wp.array(dtype=int), ends: wp.array(dtype=int),
            indices: wp.array(dtype=int), blocks: wp.array(dtype=int)):
    b = wp.tid()
    ends[b] = starts[b + 1]
    indices[b] = order[b]
    for k in range(starts[b], starts[b + 1]):
        blocks[order[k]] = b


@wp.kernel(enable_backward=False)
def _fill(a: wp.array(dtype=int), value: int):
    a[wp.tid()] = value


@wp.kernel
def _gather(ends: wp.array(dtype=int), indices: wp.array(dtype=int), values: wp.array(dtype=Any),
            dest: wp.array(dtype=Any)):
    b = wp.tid()
    begin = 0
    if b > 0:
        begin = ends[b - 1]
    total = dest.dtype(0.0)
    if ends[b] > begin:
        total = values[indices[begin]]
    for k in range(begin + 1, ends[b]):
        total += values[indices[k]]
    dest[b] = total


@wp.kernel
def _scatter(blocks: wp.array(dtype=int), values: wp.array(dtype=Any), dest: wp.array(dtype=Any)):
    i = wp.tid()
    b = blocks[i]
    if b >= 0:
        wp.atomic_add(dest, b, values[i])


class BsrTripletMap:
    """Where each triplet of a ``bsr_set_from_triplets`` call went, for ``bsr_set_from_mapped_values``.

    ``capacity`` triplets of storage are allocated now (grown when a build needs more) on ``device``. The map
    stays valid while the destination's topology arrays are the ones it was built for.
    """

    def __init__(self, capacity: int = 0, device=None):
        self.triplet_count = 0
        self._storage = self._allocate(int(capacity), wp.get_device(device))
        self._dest = None  # (nrow, ncol, offsets ptr, columns ptr, row_counts ptr) of the built destination

    @staticmethod
    def _allocate(capacity: int, device) -> tuple:
        return tuple(wp.empty(capacity, dtype=int, device=device) for _ in range(3))

    @property
    def device(self):
        """The device of the map's storage."""
        return self._storage[0].device

    @property
    def capacity(self) -> int:
        """Triplets the map holds without growing."""
        return self._storage[0].shape[0]

    def _view(self, k: int) -> array:
        a = self._storage[k]
        return a if a.shape[0] == self.triplet_count else a[:self.triplet_count]

    @property
    def _block_ends(self) -> array:
        return self._view(0)

    @property
    def _triplet_indices(self) -> array:
        return self._view(1)

    @property
    def _triplet_blocks(self) -> array:
        return self._view(2)

    @staticmethod
    def _signature(dest: BsrMatrix) -> tuple:
        counts = 0 if dest.row_counts is None else dest.row_counts.ptr
        return (dest.nrow, dest.ncol, dest.offsets.ptr, dest.columns.ptr, counts)

    def bind(self, dest: BsrMatrix, n: int, plan, key_rows) -> None:
        """Record a build of ``n`` triplets into ``dest`` (``plan``: its sorted order and block ranges)."""
        if n > self.capacity:
            self._storage = self._allocate(n, self.device)
        self.triplet_count = n
        self._dest = self._signature(dest)
        if n:
            ends, indices, blocks = self._storage
            wp.launch(_fill, n, inputs=[blocks, -1], device=self.device, record_tape=False)
            wp.launch(_record, n, inputs=[plan.order, plan.starts, ends, indices, blocks], device=self.device,
                      record_tape=False)

    def validate(self, dest: BsrMatrix) -> None:
        """``ValueError`` unless ``dest`` has the size and topology arrays the map was built for (identities only:
        topology changed in place is not seen)."""
        if self._dest is None:
            raise ValueError("The triplet map has not been built; pass it to bsr_set_from_triplets() first")
        if self._signature(dest) != self._dest:
            raise ValueError("Destination BSR topology storage differs from that used to build the triplet map")


def prepare_mapping(build_mapping, dest: BsrMatrix, topology: str, prune: bool) -> BsrTripletMap:
    if build_mapping is True:
        mapping = BsrTripletMap(device=dest.device)
    elif isinstance(build_mapping, BsrTripletMap):
        mapping = build_mapping
        if mapping.device != dest.device:
            raise ValueError(f"The mapping and the destination must be on the same device, got {mapping.device} "
                             f"and {dest.device}")
    else:
        raise TypeError(f"build_mapping must be None, a bool or a BsrTripletMap, got {type(build_mapping).__name__}")
    if topology != "compact":
        raise ValueError('build_mapping requires topology="compact"')
    if prune:
        raise ValueError("build_mapping requires prune_numerical_zeros=False")
    return mapping


def bsr_set_from_mapped_values(dest: BsrMatrix, mapping: BsrTripletMap, values: array,
                               reduction: str = "gather") -> None:
    """Set ``dest``'s values from new triplet ``values`` through ``mapping`` (no topology work): ``"gather"``
    sums each block's triplets in ``bsr_set_from_triplets``' order, ``"atomic"`` adds each triplet."""
    from .triplets import block_values

    if not isinstance(mapping, BsrTripletMap):
        raise TypeError(f"bsr_set_from_mapped_values: 'mapping' must be a BsrTripletMap, got "
                        f"{type(mapping).__name__}")
    mapping.validate(dest)
    check_array(values, "values", "bsr_set_from_mapped_values", dest.device)
    if values.shape[0] != mapping.triplet_count:
        raise ValueError(f"Values must contain {mapping.triplet_count} triplets, got first dimension "
                         f"{values.shape[0]}")
    if not values.is_contiguous:
        raise ValueError("bsr_set_from_mapped_values: 'values' must be contiguous")
    values = block_values(values, dest.values.dtype, "bsr_set_from_mapped_values")
    if reduction not in ("gather", "atomic"):
        raise ValueError(f"Unsupported mapped reduction '{reduction}', expected 'gather' or 'atomic'")
    n = mapping.triplet_count
    if reduction == "gather":
        count = min(dest.nnz, n)
        if count:
            wp.launch(_gather, count, inputs=[mapping._block_ends, mapping._triplet_indices, values, dest.values],
                      device=dest.device)
        return
    if dest.nnz:
        dest.values[:dest.nnz].zero_()
    if n:
        wp.launch(_scatter, n, inputs=[mapping._triplet_blocks, values, dest.values], device=dest.device)

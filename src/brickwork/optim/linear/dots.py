"""``Dots``: a solver's inner products per batch, into columns of a small device array, in a fixed order."""

from __future__ import annotations

from ... import config
from ...runtime.launch import launch
from ...types.array_constructors import empty
from ...types.arrays import array
from . import kernels

#: Parts per batch of an inner product: enough threads to fill a GPU (one block's worth per batch), a few
#: on the CPU where the parts only spread the work over its threads.
_CUDA_PARTS = 256
_CPU_ENTRIES_PER_PART = 4096
_CPU_MAX_PARTS = 32


def part_count(device, max_length: int) -> int:
    if device.is_cuda:
        return max(1, min(_CUDA_PARTS, max_length))
    return max(1, min(_CPU_MAX_PARTS, max_length // _CPU_ENTRIES_PER_PART))


class Dots:
    """``columns`` result columns of ``batch_count`` values each (``values[col, batch]``) and the scratch
    of their partial sums. ``compute(a, b, col)`` stores the per-batch ``a . b`` in column ``col``."""

    def __init__(self, device, scalar, offsets: array, batch_count: int, max_length: int, columns: int,
                 rows: int = 0):
        self.device, self.offsets, self.batch_count = device, offsets, batch_count
        self.parts_per_batch = part_count(device, max_length)
        # consecutive runs on the CPU target; strided parts on a GPU and on cuda-emulation (the GPU's reads)
        self._contiguous = int(device.is_cpu and config.target == "cpu")
        self.values = empty((columns, batch_count), dtype=scalar, device=device)
        self._parts = empty((batch_count, self.parts_per_batch), dtype=scalar, device=device)
        # GMRES's dots of w against up to ``rows`` basis vectors at once
        self._row_parts = (empty((rows, batch_count, self.parts_per_batch), dtype=scalar, device=device)
                           if rows else None)

    def col(self, k: int = 0) -> array:
        return self.values[k]

    def compute(self, a: array, b: array, col: int = 0) -> array:
        launch(kernels.dot_parts, dim=(self.batch_count, self.parts_per_batch),
               inputs=[a, b, self.offsets, self._parts, self._contiguous], device=self.device, record_tape=False)
        out = self.values[col]
        launch(kernels.fold_parts, dim=self.batch_count, inputs=[self._parts, out], device=self.device,
               record_tape=False)
        return out

    def compute_rows(self, w: array, V: array, count: int, H: array, j: int) -> None:
        """``H[batch, k, j] = w . V[k]`` for ``k < count`` (per batch)."""
        parts = self._row_parts[:count]
        launch(kernels.dot_rows_parts, dim=(count, self.batch_count, self.parts_per_batch),
               inputs=[w, V, self.offsets, parts, self._contiguous], device=self.device, record_tape=False)
        launch(kernels.fold_rows_into_column, dim=(count, self.batch_count), inputs=[parts, H, j],
               device=self.device, record_tape=False)

"""``Dots``: a solver's inner products per batch, into columns of a small device array, in a fixed order."""

from __future__ import annotations

import numpy as np

from ... import config
from ...runtime.capture import is_capturing
from ...runtime.launch import launch
from ...types.array_constructors import empty
from ...types.arrays import array
from . import kernels
from ._common import LinearSolverValueError

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
    of their partial sums. ``compute(a, b, col)`` stores the per-batch ``a . b`` in column ``col``. With
    ``comm`` of several ranks (``LinearOperator.comm``), each holding a part of the vectors, every product
    is the sum of the ranks' parts, added in rank order (the same bits on every rank)."""

    def __init__(self, device, scalar, offsets: array, batch_count: int, max_length: int, columns: int,
                 rows: int = 0, comm=None):
        self.device, self.offsets, self.batch_count = device, offsets, batch_count
        self.comm = comm if comm is not None and comm.Get_size() > 1 else None
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
        if self.comm is not None:
            out.assign(self._over_ranks(out.numpy()))
        return out

    def compute_rows(self, w: array, V: array, count: int, H: array, j: int) -> None:
        """``H[batch, k, j] = w . V[k]`` for ``k < count`` (per batch)."""
        parts = self._row_parts[:count]
        launch(kernels.dot_rows_parts, dim=(count, self.batch_count, self.parts_per_batch),
               inputs=[w, V, self.offsets, parts, self._contiguous], device=self.device, record_tape=False)
        launch(kernels.fold_rows_into_column, dim=(count, self.batch_count), inputs=[parts, H, j],
               device=self.device, record_tape=False)
        if self.comm is not None:
            whole = H.numpy()
            whole[:, :count, j] = self._over_ranks(whole[:, :count, j])
            H.assign(whole)

    def _over_ranks(self, local: np.ndarray) -> np.ndarray:
        """The sum over the ranks of each rank's ``local`` values, in rank order."""
        if is_capturing():
            raise LinearSolverValueError("a solve whose operator spans several MPI ranks (LinearOperator comm) "
                                         "cannot be captured: its inner products are added over the ranks on "
                                         "the host")
        parts = self.comm.allgather(np.array(local))
        total = parts[0].copy()
        for part in parts[1:]:
            total += part
        return total

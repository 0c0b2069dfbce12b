"""Sums of the conserved variables over each block's interior, computed where the fields live.

``BlockSums(mesh, variables)`` compiles (once per precision) a kernel with one thread per (block,
variable, k plane) that adds up the plane's interior cells in float64; ``per_block()`` launches it
on the mesh's device and copies only the plane sums (``nblocks * nvars * nk`` numbers) to the host,
where each block's planes are added in k order. A run on a GPU thus writes its history line
without copying any field to the host.
"""

from __future__ import annotations

import numpy as np

import brickwork as wp
from brickwork.mesh import storage


def _sum_kernel(T, itemsize: int):
    ITEM = wp.int64(itemsize)

    @wp.kernel
    def plane_sums(fields: wp.array2d(dtype=wp.int64), box: wp.array(dtype=wp.int64),
                   out: wp.array3d(dtype=wp.float64)):
        b, v, k = wp.tid()
        nj = box[4]
        ni = box[5]
        plane = box[1] * box[2]
        nk_all = box[0]
        # the variable's storage of block b: address + b * (block stride in elements)
        base = fields[v, 0] + wp.int64(b) * fields[v, 1] * ITEM
        data = wp.array(ptr=wp.uint64(base), shape=(nk_all * plane,), dtype=T)
        acc = wp.float64(0.0)
        row0 = (wp.int64(k) + box[3]) * plane
        for j in range(nj):
            row = row0 + (box[6] + j) * box[2] + box[7]
            for i in range(ni):
                acc = acc + wp.float64(data[row + i])
        out[b, v, k] = acc

    return plane_sums


_KERNELS: dict = {}


class BlockSums:
    """Per-block interior sums of chosen (field, component) variables, on the mesh's device."""

    def __init__(self, mesh, variables: list[tuple[str, int]]):
        self.mesh = mesh
        dtypes = {mesh.field(name).spec.dtype for name, _ in variables}
        if len(dtypes) != 1:
            raise TypeError(f"BlockSums: the variables mix dtypes {sorted(map(str, dtypes))}")
        dtype = dtypes.pop()
        shape = mesh.cellbounds
        nk, nj, ni = mesh.field(variables[0][0]).extents
        rows = []
        for name, comp in variables:
            data = mesh.field(name).data
            slots = data.shape[1]
            rows.append((storage.address(data) + comp * nk * nj * ni * dtype.itemsize, slots * nk * nj * ni))
        dev = mesh.device
        self.fields = wp.array(np.array(rows, dtype=np.int64), dtype=wp.int64, device=dev)
        ks, js, is_ = (shape.is_active(d) and shape.ng or 0 for d in (3, 2, 1))
        self.counts = tuple(mesh.block_nx[d] for d in (2, 1, 0))  # interior (nk, nj, ni)
        box = [nk, nj, ni, ks, self.counts[1], self.counts[2], js, is_]
        self.box = wp.array(np.array(box, dtype=np.int64), dtype=wp.int64, device=dev)
        self.out = wp.zeros((len(mesh.blocks), len(variables), self.counts[0]), dtype=wp.float64, device=dev)
        key = np.dtype(dtype)
        if key not in _KERNELS:
            _KERNELS[key] = _sum_kernel(wp.dtype_from_numpy(key), key.itemsize)
        self.kernel = _KERNELS[key]

    def per_block(self) -> np.ndarray:
        """``(nblocks, nvars)`` float64 sums over each local block's interior cells."""
        wp.launch(self.kernel, dim=self.out.shape, inputs=[self.fields, self.box, self.out], device=self.mesh.device,
                  record_tape=False)  # a diagnostic, constant on a tape
        planes = self.out.numpy()
        sums = planes[:, :, 0].copy()
        for k in range(1, planes.shape[2]):
            sums += planes[:, :, k]
        return sums

"""``mesh.bc_xd = "hydrostatic"``: reflecting walls whose ghost pressure balances gravity along ``x_d``
(Athena++'s ``ProjectPressureInnerX2`` / ``OuterX2`` of its Rayleigh-Taylor problem, as a built-in kind).

A ghost cell ``m`` cells from the wall takes its mirror cell's state (the cell ``m`` from the wall inside):
the density, the passive scalars and the tangential velocity copied, the normal velocity reflected, and the
pressure projected down the column, ``p_ghost = p_mirror + g_out rho_mirror (2m + 1) dx``, with ``g_out`` the
gravity along the wall's outward normal: the weight of the gas between the two cell centres. On conserved
fields that is the reflecting wall's ghosts with ``g_out rho_mirror (2m + 1) dx / (gamma - 1)`` added to the
energy (the density and the speed are the mirror's, so is the kinetic energy).

The mesh calls a boundary function per field; the energy's reads its block's interior density from the mesh.
On the CPU that is the numpy function below, per block. On a GPU (and the emulation target) the mesh calls
``Wall.fill_device`` instead (mesh/boundary.py): one launch per field and side fills every block's ghosts on
that side where the fields live, one thread per ghost value (i fastest along an x2 or x3 wall), with the same
arithmetic in the same order as the numpy code (no contraction into fused multiply-adds on either target), so
the ghosts have the CPU's bits; no field is copied to the host.
"""

from __future__ import annotations

import numpy as np

import brickwork as wp
from brickwork.mesh import storage

#: the component of ``momentum`` normal to each direction's walls
NORMAL = {1: 0, 2: 1, 3: 2}


def walls(direction: int, gravity: tuple, gamma: float) -> dict:
    """The boundary functions of both sides of ``direction`` for ``Mesh(boundaries=...)``."""
    return {f"{where}_x{direction}": Wall(direction, where == "inner", gravity[direction - 1], gamma)
            for where in ("inner", "outer")}


def _rows(view, axis: int, index):
    at = [slice(None)] * 4
    at[axis] = index
    return view[tuple(at)]


class Wall:
    """The hydrostatic wall of one side of direction ``d`` (``lower``: the inner side) under gravity ``g`` along
    it: a boundary function (the host's, per block) with a ``fill_device`` method (a kernel, for all blocks)."""

    def __init__(self, d: int, lower: bool, g: float, gamma: float):
        self.d, self.lower, self.gamma = d, lower, gamma
        self.axis = 4 - d  # the view's axes: (component, k, j, i)
        self.g_out = -g if lower else g  # gravity along the outward normal
        self._launches: dict = {}  # (lids, field, its storage, the density's, device) -> (kernel, dim, inputs)

    def __call__(self, block, view, side, field):
        d, lower, axis = self.d, self.lower, self.axis
        ng, dx = block.mesh.nghost, block.coords.dx(d)
        density = None
        if field == "energy":
            density = storage.host(block.mesh.data("density"))[block.lid]
        if density is not None:  # at the wall, from the first two cells' as a geometric progression
            first, second = ((_rows(density, axis, ng), _rows(density, axis, ng + 1)) if lower
                             else (_rows(density, axis, -ng - 1), _rows(density, axis, -ng - 2)))
            at_wall = first * np.sqrt(first / second)
        for m in range(ng):  # ghost m from the wall, its mirror m inside
            ghost, mirror = (ng - 1 - m, ng + m) if lower else (-ng + m, -ng - 1 - m)
            ghosts = _rows(view, axis, ghost)
            ghosts[...] = _rows(view, axis, mirror)
            if field == "momentum":
                ghosts[NORMAL[d]] *= -1.0
            elif density is not None:
                ghosts += self.g_out * (2 * m + 1) * dx / (self.gamma - 1.0) * at_wall

    def fill_device(self, mesh, data, side, lids, field):
        """The ghosts of blocks ``lids`` of ``field`` (storage ``data``) on this side: one launch, its arguments
        worked out once per field storage."""
        density = mesh.data("density") if field == "energy" else data
        key = (lids, field, storage.address(data), storage.address(density), data.shape, mesh.device)
        found = self._launches.get(key)
        if found is None:
            found = self._launches[key] = self._launch(mesh, data, density, lids, field)
        kernel, dim, inputs = found
        wp.launch(kernel, dim=dim, inputs=inputs, device=mesh.device, record_tape=False)

    def _launch(self, mesh, data, density, lids, field) -> tuple:
        shape = data.shape  # (nblocks, nslots, nk, nj, ni)
        axis = self.axis + 1
        outer = int(np.prod(shape[1:axis]))  # the components and the axes before the wall's
        inner = int(np.prod(shape[axis + 1:]))  # the axes after it
        na, ng, nslots = shape[axis], mesh.nghost, shape[1]
        per_slot = outer // nslots
        flip = NORMAL[self.d] * per_slot if field == "momentum" else outer  # the first outer index negated
        on_device = wp.array(np.array(lids, dtype=np.int32), dtype=wp.int32, device=mesh.device)
        dx = float(mesh.blocks[lids[0]].coords.dx(self.d))  # the mesh's: the same on every block
        inputs = [on_device, wp.uint64(storage.address(data)), wp.uint64(storage.address(density)),
                  int(np.prod(shape[1:])), data.size, int(np.prod(density.shape[1:])), density.size,
                  na, inner, per_slot, ng, int(self.lower), flip, int(field == "energy"), float(self.g_out), dx,
                  float(self.gamma)]
        return _kernel(data.dtype), (len(lids), outer, ng, inner), inputs


_KERNELS: dict = {}


def _kernel(dtype):
    """The ghost kernel of field storage of ``dtype`` (float32 or float64), compiled once."""
    found = _KERNELS.get(np.dtype(dtype))
    if found is None:
        found = _KERNELS[np.dtype(dtype)] = _ghost_kernel(wp.dtype_from_numpy(np.dtype(dtype)))
    return found


def _ghost_kernel(T):  # noqa: N803 - the element type, a constant of the kernel
    @wp.kernel
    def hydrostatic_ghosts(lids: wp.array(dtype=wp.int32), field_at: wp.uint64, density_at: wp.uint64,
                           block: wp.int64, size: wp.int64, density_block: wp.int64, density_size: wp.int64,
                           na: int, inner: int, per_slot: int, ng: int, lower: int, flip: int, energy: int,
                           g_out: wp.float64, dx: wp.float64, gamma: wp.float64):
        # thread (n, o, m, r): block lids[n], outer index o (component, axes before the wall's), ghost m, inner r
        n, o, m, r = wp.tid()
        lid = wp.int64(lids[n])
        row = wp.int64(na * inner)  # the elements of one outer index
        ghost = ng - 1 - m
        mirror = ng + m
        near = ng  # the first two cells from the wall
        far = ng + 1
        if lower == 0:
            ghost = na - ng + m
            mirror = na - ng - 1 - m
            near = na - ng - 1
            far = na - ng - 2
        values = wp.array(ptr=field_at, shape=(size,), dtype=T)
        at = lid * block + wp.int64(o) * row + wp.int64(r)
        v = values[at + wp.int64(mirror * inner)]
        if o >= flip and o < flip + per_slot:
            v = v * T(-1.0)
        if energy != 0:  # the density at the wall, from the block's first two cells' (numpy's order)
            rho = wp.array(ptr=density_at, shape=(density_size,), dtype=T)
            cell = lid * density_block + wp.int64(o % per_slot) * row + wp.int64(r)
            first = rho[cell + wp.int64(near * inner)]
            second = rho[cell + wp.int64(far * inner)]
            at_wall = first * wp.sqrt(first / second)
            weight = T(g_out * wp.float64(2 * m + 1) * dx / (gamma - wp.float64(1.0)))
            v = v + weight * at_wall
        values[at + wp.int64(ghost * inner)] = v

    return hydrostatic_ghosts

"""``mesh.bc_xd = "hydrostatic"``: reflecting walls whose ghost pressure balances gravity along ``x_d``
(Athena++'s ``ProjectPressureInnerX2`` / ``OuterX2`` of its Rayleigh-Taylor problem, as a built-in kind).

A ghost cell ``m`` cells from the wall takes its mirror cell's state (the cell ``m`` from the wall inside):
the density, the passive scalars and the tangential velocity copied, the normal velocity reflected, and the
pressure projected down the column, ``p_ghost = p_mirror + g_out rho_mirror (2m + 1) dx``, with ``g_out`` the
gravity along the wall's outward normal: the weight of the gas between the two cell centres. On conserved
fields that is the reflecting wall's ghosts with ``g_out rho_mirror (2m + 1) dx / (gamma - 1)`` added to the
energy (the density and the speed are the mirror's, so is the kinetic energy).

The mesh calls a boundary function per field; the energy's reads its block's interior density from the mesh
(on a GPU, a host copy of the field per block and side: a cost per ghost fill).
"""

from __future__ import annotations

import numpy as np

from brickwork.mesh import storage

#: the component of ``momentum`` normal to each direction's walls
NORMAL = {1: 0, 2: 1, 3: 2}


def walls(direction: int, gravity: tuple, gamma: float) -> dict:
    """The boundary functions of both sides of ``direction`` for ``Mesh(boundaries=...)``."""
    return {f"{where}_x{direction}": _wall(direction, where == "inner", gravity[direction - 1], gamma)
            for where in ("inner", "outer")}


def _wall(d: int, lower: bool, g: float, gamma: float):
    axis = 4 - d  # the view's axes: (component, k, j, i)
    g_out = -g if lower else g  # gravity along the outward normal

    def rows(view, index):
        at = [slice(None)] * 4
        at[axis] = index
        return view[tuple(at)]

    def hydrostatic_wall(block, view, side, field):
        ng, dx = block.mesh.nghost, block.coords.dx(d)
        density = None
        if field == "energy":
            density = storage.host(block.mesh.data("density"))[block.lid]
        if density is not None:  # at the wall, from the first two cells' as a geometric progression
            first, second = (rows(density, ng), rows(density, ng + 1)) if lower else (rows(density, -ng - 1),
                                                                                       rows(density, -ng - 2))
            at_wall = first * np.sqrt(first / second)
        for m in range(ng):  # ghost m from the wall, its mirror m inside
            ghost, mirror = (ng - 1 - m, ng + m) if lower else (-ng + m, -ng - 1 - m)
            ghosts = rows(view, ghost)
            ghosts[...] = rows(view, mirror)
            if field == "momentum":
                ghosts[NORMAL[d]] *= -1.0
            elif density is not None:
                ghosts += g_out * (2 * m + 1) * dx / (gamma - 1.0) * at_wall

    return hydrostatic_wall

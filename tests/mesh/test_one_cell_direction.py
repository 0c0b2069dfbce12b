"""A direction one cell thick, as Parthenon and Athena++ spell a lower dimension (nx3 = 1 for 2-D): with ghost
cells it is refused by a message that says how brickwork spells that mesh (it said 'nghost=2 is wider than the
block', which sent a Parthenon user looking at the ghosts)."""

import pytest

from brickwork.mesh import Mesh


@pytest.mark.parametrize("nx, block_nx, message", [
    ((16, 1), (8, 1), r"^nx2=1 with nghost=2: a direction one cell thick has no room for ghost cells; a 1-D mesh is "
                      r"nx=\(16,\) \(where Parthenon and Athena\+\+ write nx2 = 1\)$"),
    ((16, 16, 1), (8, 8, 1), r"^nx3=1 with nghost=2: .* a 2-D mesh is nx=\(16, 16\) "),
    ((16, 1, 1), (8, 1, 1), r"^nx2=1 with nghost=2: .* a 1-D mesh is nx=\(16,\) "),
    ((16, 1, 16), (8, 1, 8), r"^nghost=2 is wider than the block \(block_nx2=1\)"),  # not a lower dimension
])
def test_a_direction_one_cell_thick_says_how_to_write_the_mesh(nx, block_nx, message):
    with pytest.raises(ValueError, match=message):
        Mesh(nx=nx, block_nx=block_nx, nghost=2)


def test_without_ghosts_a_direction_one_cell_thick_is_a_mesh():
    mesh = Mesh(nx=(16, 1), block_nx=(8, 1), nghost=0)
    assert mesh.ndim == 2 and mesh.nblocks_global == 2

"""A negative cell index on a host pack access (attacker round 18, lead 3): pack[b, var, k, j, -1] read and wrote
numpy's last cell, the far ghost cell (in a 1-D block of 4 cells and one ghost each side, i=-1 was i=5), where a
kernel's pack(b, v, k, j, i) has no such cell; negative block indices were already refused. Now an IndexError
naming the axis, for reads, writes and fluxes, with nothing written; slices (a host idiom, no kernel form) keep
numpy's meaning."""

import numpy as np
import pytest

from brickwork.mesh import Mesh, Metadata, Package, PackDescriptor, VarTag


def _pack():
    pkg = Package("p")
    pkg.add_field("rho", Metadata("Cell", "FillGhost", "WithFluxes"))
    mesh = Mesh(8, 4, nghost=1, packages=[pkg])
    rho = mesh.data("rho")
    rho[...] = np.arange(rho.size).reshape(rho.shape)
    return mesh, PackDescriptor(mesh, [VarTag("rho")], with_fluxes=True).get_pack(mesh.mesh_data())


@pytest.mark.parametrize("access", [
    lambda p: p[0, "rho", 0, 0, -1],
    lambda p: p.__setitem__((0, "rho", 0, 0, -1), 99.0),
    lambda p: p.__setitem__((0, "rho", 0, np.int64(-1), 0), 99.0),
    lambda p: p.flux(0, 1, "rho", 0, 0, -1),
    lambda p: p.flux.__setitem__((0, 1, "rho", 0, 0, -2), 99.0),
])
def test_a_negative_cell_index_is_refused_and_nothing_is_written(access):
    mesh, pack = _pack()
    before = mesh.data("rho").copy()
    with pytest.raises(IndexError, match=r"^pack cell index [ji]=-[12] is negative: cells count from 0 \(ghost cells "
                                         r"included\) and a negative index is not counted from the end$"):
        access(pack)
    assert np.array_equal(mesh.data("rho"), before)
    assert not np.any(pack.flux[0, 1, "rho"] == 99.0)


def test_cell_indices_from_zero_and_slices_keep_their_meaning():
    mesh, pack = _pack()
    assert pack[1, "rho", 0, 0, 5] == mesh.data("rho")[1, 0, 0, 0, 5] == 11.0
    assert pack[0, "rho", 0, 0, 1:-1].tolist() == [1.0, 2.0, 3.0, 4.0]
    pack[1, "rho", 0, 0, 0] = -7.0
    assert mesh.data("rho")[1, 0, 0, 0, 0] == -7.0

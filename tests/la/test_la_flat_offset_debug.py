"""Debug mode names what the one index of a view's out-of-bounds access is: a pack view's cell is a flat offset
into the block's storage, so ``pv[u(), idx + 2 * d2]`` on a mesh of one ghost layer said only "index (101) is out
of bounds for shape (100)", a number the body never wrote."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

u, v = VarTag("u"), VarTag("v")


def test_a_view_offset_past_the_ghost_layers_is_named_as_a_flat_offset():
    pkg = Package("w")
    pkg.add_field("u", Metadata("Cell", "FillGhost"))
    pkg.add_field("v", Metadata("Cell"))
    mesh = Mesh(nx=(16, 16), block_nx=(8, 8), nghost=1, packages=[pkg])  # blocks of 10 x 10 cells with ghosts
    mesh.data("u")[...] = 1.0
    md = mesh.mesh_data()
    pack = PackDescriptor(mesh, [u, v]).get_pack(md)
    space = la.IndexSpace(la.bovi, la.logical_flat, domain=IndexDomain.interior, nblocks=pack.get_nblocks(), md=md)
    d2 = space.get_delta(wp.X2DIR)

    def two_rows_up(rng, b):
        pv = la.make_pack_view(rng, pack)
        for idx in la.inner(rng):
            pv[v(), idx] = pv[u(), idx + 2 * d2]  # needs two ghost layers

    with config.override(mode="debug"), pytest.raises(wp.BoundsError) as e:
        la.outer(space, two_rows_up)
    line = two_rows_up.__code__.co_firstlineno + 3
    assert str(e.value).endswith(
        f"index (101) is out of bounds for shape (100) at {__file__}:{line} (the index is the cell's flat offset "
        f"into the block's storage of the variable, ghost cells included: an offset added to a view's index, such "
        f"as idx + 2 * d, reaches past the ghost layers)")
    # the rows whose read stays in the storage were written: the access out of bounds is the only one not made
    np.testing.assert_array_equal(mesh.data("v")[:, 0, 0, 1:7, 1:9], 1.0)

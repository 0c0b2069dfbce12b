"""``la.outer_reduce`` over mesh data of a subset of the blocks, or of the blocks in another order, on
one process: the blocks are folded in global block order and a location's ``b`` is the block's
global id, as on several ranks (docs/mpi.md), and each slot's result belongs to the block of the
pack it was computed from."""

import numpy as np
import pytest

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

q = VarTag("q")


@pytest.fixture(scope="module")
def mesh():
    pkg = Package("order")
    pkg.add_field("q", Metadata("Cell"))
    m = Mesh((32, 32), (8, 8), nghost=1, packages=[pkg])  # 16 blocks
    g = np.random.default_rng(0).random(m.data("q").shape)
    g *= 10.0 ** np.random.default_rng(1).integers(-6, 6, size=g.shape)  # magnitudes that make order matter
    g[:, 0, 0, 1, 1] = -5.0  # the same minimum in every block: MinLoc names the first block in gid order
    m.data("q")[...] = g
    return m


def reduce(mesh, space_blocks, pack_blocks, reducer):
    """``la.outer_reduce`` of q over the interior cells, the space over the mesh data of ``space_blocks``,
    the body's pack (and ``nblocks``) over that of ``pack_blocks``."""
    pack = PackDescriptor(mesh, [q]).get_pack(mesh.mesh_data(pack_blocks))
    space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior,
                          md=mesh.mesh_data(space_blocks), nblocks=pack.get_nblocks())

    def body(rng, b):
        v = la.make_pack_view(rng, pack)
        la.inner_reduce(rng, lambda idx: v[q(), idx])

    return la.outer_reduce(space.with_reducer(reducer), body)


def odd(mesh):
    return [b for b in mesh.blocks if b.gid % 2 == 1]


def test_minloc_over_a_subset_names_the_global_block(mesh):
    value, (b, k, j, i) = reduce(mesh, odd(mesh), odd(mesh), la.MinLoc(wp.float64))
    assert (value, b, k, j, i) == (-5.0, 1, 0, 1, 1)  # before: b = 0, the position in the subset
    assert mesh.data("q")[b, 0, k, j, i] == value
    value, (b, k, j, i) = reduce(mesh, odd(mesh), odd(mesh), la.MaxLoc(wp.float64))
    interior = mesh.data("q")[:, 0, 0, 1:-1, 1:-1]
    assert value == interior[1::2].max() == mesh.data("q")[b, 0, k, j, i] and b % 2 == 1


def test_blocks_in_reverse_order_fold_as_in_global_order(mesh):
    backwards = list(reversed(mesh.blocks))
    forward = reduce(mesh, None, None, la.Sum(wp.float64))
    assert reduce(mesh, backwards, backwards, la.Sum(wp.float64)) == forward  # the same bits
    np.testing.assert_allclose(forward, mesh.data("q")[:, 0, 0, 1:-1, 1:-1].sum(), rtol=1e-14)
    # the tie: every block holds -5, the first in global order wins (before: the last block, gid 15)
    assert reduce(mesh, backwards, backwards, la.MinLoc(wp.float64)) == (-5.0, (0, 0, 1, 1))


def test_a_pack_over_fewer_blocks_than_the_space_gives_its_own_blocks(mesh):
    """The space over every block, the pack (and nblocks) over the odd ones: slot b computes the pack's
    block b, so the location names that block."""
    total = reduce(mesh, None, odd(mesh), la.Sum(wp.float64))
    assert total == reduce(mesh, odd(mesh), odd(mesh), la.Sum(wp.float64))
    np.testing.assert_allclose(total, mesh.data("q")[1::2, 0, 0, 1:-1, 1:-1].sum(), rtol=1e-14)
    assert reduce(mesh, None, odd(mesh), la.MinLoc(wp.float64)) == (-5.0, (1, 0, 1, 1))  # before: b = 0


def test_a_box_space_keeps_the_slot_as_b():
    values = wp.array(np.arange(2 * 4 * 4 * 4, dtype=np.float64).reshape(2, 4, 4, 4)[::-1].copy())
    space = la.IndexSpace.box(la.bovi, la.logical_flat, 2, 2, 2, 2, 1).with_reducer(la.MinLoc(wp.float64))

    def body(rng, b):
        la.inner_reduce(rng, lambda k, j, i: values[b, k, j, i])

    assert la.outer_reduce(space, body) == (21.0, (1, 1, 1, 1))  # block 1 holds 0..63 (block 0 64..127)


def test_more_blocks_than_the_mesh_data_without_a_pack_is_refused(mesh):
    """Without a pack the slots are the mesh data's blocks: a slot past them belongs to no block."""
    values = wp.zeros((16, 10, 10), dtype=wp.float64)
    md = mesh.mesh_data(odd(mesh))
    space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, md=md, nblocks=9)

    def body(rng, b):
        la.inner_reduce(rng, lambda k, j, i: values[b, j, i])

    out = wp.full(1, 7.0, dtype=wp.float64)
    with pytest.raises(wp.LaunchError, match="visits 9 blocks but its mesh data holds 8"):
        la.outer_reduce(space.with_reducer(la.Sum(wp.float64)), body, out=out)
    assert out.numpy()[0] == 7.0


@pytest.mark.parametrize("reducer", [la.Min(wp.float64), la.MinLoc(wp.float64)])
def test_the_gradient_of_a_min_over_reordered_blocks_reaches_the_winning_cell(reducer):
    """The tape maps the winner's global id back to the slot that computed it (slot 1 here, gid 3)."""
    pkg = Package("grad")
    pkg.add_field("q", Metadata("Cell"))
    mesh = Mesh((16, 16), (4, 4), nghost=1, packages=[pkg])
    mesh.data("q")[...] = 1.0 + np.random.default_rng(2).random(mesh.data("q").shape)
    mesh.data("q")[3, 0, 0, 2, 3] = -1.0
    blocks = [mesh.blocks[g] for g in (5, 3, 9, 1)]
    pack = PackDescriptor(mesh, [q]).get_pack(mesh.mesh_data(blocks))
    space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior,
                          md=mesh.mesh_data(blocks), nblocks=4).with_reducer(reducer)

    def body(rng, b):
        v = la.make_pack_view(rng, pack)
        la.inner_reduce(rng, lambda idx: wp.float64(2.0) * v[q(), idx])

    grad = mesh.field("q").grad
    grad[...] = 0.0
    out = wp.zeros(1, dtype=reducer.value_type, requires_grad=True)
    tape = wp.Tape()
    with tape:
        la.outer_reduce(space, body, out=out)
    tape.backward(out)
    if reducer.with_location:
        assert out.numpy()[0]["value"] == -2.0 and out.numpy()[0]["b"] == 3
    else:
        assert out.numpy()[0] == -2.0
    want = np.zeros(grad.shape)
    want[3, 0, 0, 2, 3] = 2.0
    np.testing.assert_array_equal(grad, want)

"""Run under mpiexec: ``mesh.sum_over_ranks`` adds each rank's array up over the ranks, in place, and gives
the gradient of a parameter every rank's kernels read (a plain array) its whole value, which one process's
tape gives.

Every rank prints ``rank R sums equal`` when its sums are right, and the parameter's summed gradient
(``gradient [...]``, float.hex) for the test to compare between the ranks.
"""

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

pkg = Package("p")
pkg.add_field("q", Metadata("Cell", "FillGhost"), dtype=np.float64)
mesh = Mesh((16, 8), (4, 4), nghost=1, packages=[pkg], boundaries={"x1": "periodic", "x2": "periodic"})
rank, nranks = mesh.rank, mesh.nranks

# plain sums: every rank holds rank + 1 (times a pattern); afterwards every rank holds the total
ranks_total = nranks * (nranks + 1) // 2
floats = wp.array(np.arange(6.0) * (rank + 1), dtype=wp.float64)
ints = np.full((2, 3), rank + 1, dtype=np.int64)
vectors = wp.array([[1.0, 2.0, 3.0]] * 2, dtype=wp.vec3) if rank == 0 else wp.zeros(2, dtype=wp.vec3)
whole = wp.array(np.zeros(8), dtype=wp.float64)
view = whole[::2]  # a strided view: its elements only
view.numpy()[...] = rank + 1
mesh.sum_over_ranks(floats)
mesh.sum_over_ranks(ints)
mesh.sum_over_ranks(vectors)
mesh.sum_over_ranks(view)
assert np.array_equal(floats.numpy(), np.arange(6.0) * ranks_total)
assert np.array_equal(ints, np.full((2, 3), ranks_total))
assert np.array_equal(vectors.numpy(), [[1.0, 2.0, 3.0]] * 2)
assert np.array_equal(whole.numpy(), [ranks_total, 0] * 4)

# arrays of other shapes on some ranks: a ValueError on every rank, and nothing added
mine = np.full(2 + (rank == nranks - 1) * (nranks > 1), float(rank))
try:
    mesh.sum_over_ranks(mine)
    assert nranks == 1
except ValueError as e:
    assert "sum_over_ranks differs between the MPI ranks: shape is (2,) on rank 0 but (3,) on rank" in str(e), e
    assert np.array_equal(mine, np.full(len(mine), float(rank)))

# the gradient of a parameter that every rank's kernels read: loss = sum over the cells of c0 * q + c1 * q^2
rng = np.random.default_rng(3)
full_q = rng.random((len(mesh.block_list), *mesh.data("q").shape[1:]))
mesh.data("q")[...] = mesh.local_part(full_q)
q = VarTag("q")
md = mesh.mesh_data()
pack = PackDescriptor(mesh, [q]).get_pack(md)
space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior, md=md,
                      nblocks=pack.get_nblocks()).with_reducer(la.Sum(wp.float64))
c = wp.array([2.0, 3.0], dtype=wp.float64, requires_grad=True)


def energy(rng, b):
    v = la.make_pack_view(rng, pack)
    la.inner_reduce(rng, lambda idx: c[0] * v[q(), idx] + c[1] * v[q(), idx] * v[q(), idx])


loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
tape = wp.Tape()
with tape:
    la.outer_reduce(space, energy, out=loss)
tape.backward(loss)
mesh.sum_over_ranks(c.grad)
interior = full_q[:, 0, 0, 1:-1, 1:-1]
assert np.allclose(c.grad.numpy(), [interior.sum(), (interior ** 2).sum()], rtol=1e-13, atol=0)
print(f"rank {rank} sums equal\ngradient {[float(g).hex() for g in c.grad.numpy()]}", flush=True)

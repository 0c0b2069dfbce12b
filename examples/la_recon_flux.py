"""Reconstruction to flux with the loop abstraction: the full version of the reconstruction-to-flux
pattern of docs/loop_abstraction.md.

A 3-D mesh holds a cell field ``density`` declared ``WithFluxes``. One outer body computes the
x1 fluxes of Burgers' equation (f(u) = u^2 / 2) on every F1 face of every block:

1. a producer inner loop over the range extended by ``la.halo.minus_i`` reconstructs the
   density with PLM (minmod limiter) into two per-point scratch buffers: ``plus`` (the state at
   the cell's upper x1 face) and ``minus`` (at its lower x1 face);
2. ``team_barrier()`` orders the producer before the consumer;
3. a consumer inner loop over the base range computes the HLL flux through face i from
   ``plus[idx - dx1]`` (cell i-1) and ``minus[idx]`` (cell i) and writes it through
   ``make_flux_pack_view(idx_range, pack, X1DIR)``.

The result is checked against numpy doing the same arithmetic, first for the guide's tag pair
(bovi + logical_flat), then for the same body under other tag pairs and chunk sizes.

Run: ``python examples/la_recon_flux.py`` (or with ``PYTHONPATH=src`` from a checkout); on two MPI
ranks (the mesh has two blocks), ``mpiexec -n 2 python examples/la_recon_flux.py``: each rank computes
its own block, and rank 0 prints (the differences are the largest of every rank's).
"""

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

NG = 2  # PLM reads one neighbour on each side of the cells around a face: two ghosts

hydro = Package("hydro")
hydro.add_field("density", Metadata("Cell", "Independent", "FillGhost", "WithFluxes"))
mesh = Mesh(nx=(32, 16, 16), block_nx=(16, 16, 16), nghost=NG, packages=[hydro],
            boundaries={"x1": "periodic", "x2": "periodic", "x3": "periodic"})
rng = np.random.default_rng(2024)  # the same values on any number of ranks: drawn for every block, rows kept
everything = rng.random((len(mesh.block_list), *mesh.data("density").shape[1:])) - 0.5
mesh.data("density")[...] = mesh.local_part(everything)
mesh.fill_ghosts()

md = mesh.mesh_data()
rho = VarTag("density")
pack = PackDescriptor(mesh, [rho], with_fluxes=True).get_pack(md)


@wp.func
def minmod(a: wp.float64, b: wp.float64) -> wp.float64:
    return wp.where(a * b > wp.float64(0.0), wp.where(wp.abs(a) < wp.abs(b), a, b), wp.float64(0.0))


@wp.func
def hll(ul: wp.float64, ur: wp.float64) -> wp.float64:
    """HLL flux of Burgers' equation between the states left and right of a face."""
    fl = wp.float64(0.5) * ul * ul
    fr = wp.float64(0.5) * ur * ur
    sl = wp.min(wp.min(ul, ur), wp.float64(0.0))  # wave speeds, bounded by 0
    sr = wp.max(wp.max(ul, ur), wp.float64(0.0))
    return wp.where(sr - sl > wp.float64(0.0), (sr * fl - sl * fr + sl * sr * (ur - ul)) / (sr - sl),
                    wp.float64(0.0))


def make_space(loop_tag, inner_tag, ninner=la.ij_slab):
    """An index space over the F1 faces of the interior, with the scratch the body asks for."""
    space = la.IndexSpace(loop_tag, inner_tag, ninner=ninner, domain=IndexDomain.interior,
                          nblocks=pack.get_nblocks(), md=md, te=TE.F1)
    space.add_per_point_scratch(wp.float64, halo=la.halo.minus_i, count=2)  # plus and minus
    return space


def compute_fluxes(space):
    dx1 = space.get_delta(wp.X1DIR)  # one step in x1, in whatever index form the space uses

    def recon_flux(idx_range, b):
        halo_range = idx_range.add_halo(la.halo.minus_i)  # the faces' range plus one cell below in i
        s_plus = la.get_per_point_scratch(wp.float64, halo_range)
        s_minus = la.get_per_point_scratch(wp.float64, halo_range)
        pv = la.make_pack_view(idx_range, pack)
        for idx in la.inner(halo_range):  # producer: PLM states of every cell next to a face
            q = pv[rho(), idx]
            slope = minmod(q - pv[rho(), idx - dx1], pv[rho(), idx + dx1] - q)
            s_plus[idx] = q + wp.float64(0.5) * slope
            s_minus[idx] = q - wp.float64(0.5) * slope
        idx_range.team_barrier()  # the producer finishes before the consumer reads
        fv = la.make_flux_pack_view(idx_range, pack, wp.X1DIR)
        for idx in la.inner(idx_range):  # consumer: the face between cells i-1 and i
            fv[rho(), idx] = hll(s_plus[idx - dx1], s_minus[idx])

    mesh.field("density").flux[...] = 0.0
    la.outer(space, recon_flux)
    return mesh.field("density").flux[:, 0]  # the x1 slot, (nblocks, nk, nj, ni)


# --- the same arithmetic in numpy, on each block's storage ------------------------------------------


def reference_fluxes(q):
    def minmod_np(a, b):
        return np.where(a * b > 0, np.where(np.abs(a) < np.abs(b), a, b), 0.0)

    def hll_np(ul, ur):
        fl, fr = 0.5 * ul * ul, 0.5 * ur * ur
        sl = np.minimum(np.minimum(ul, ur), 0.0)
        sr = np.maximum(np.maximum(ul, ur), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(sr - sl > 0, (sr * fl - sl * fr + sl * sr * (ur - ul)) / (sr - sl), 0.0)

    slope = np.zeros_like(q)
    slope[..., 1:-1] = minmod_np(q[..., 1:-1] - q[..., :-2], q[..., 2:] - q[..., 1:-1])
    plus, minus = q + 0.5 * slope, q - 0.5 * slope
    flux = np.zeros_like(q)
    # faces i = NG .. NG + nx (the last one is stored in the first upper ghost slot)
    flux[:, NG:-NG, NG:-NG, NG:-NG + 1] = hll_np(plus[:, NG:-NG, NG:-NG, NG - 1:-NG],
                                                 minus[:, NG:-NG, NG:-NG, NG:-NG + 1])
    return flux


FACES = (slice(None), slice(NG, -NG), slice(NG, -NG), slice(NG, -NG + 1))


def report(message):
    """Print on rank 0 only (under mpiexec every rank runs this script)."""
    if mesh.rank == 0:
        print(message)


def largest(values):
    """The largest of every rank's ``values`` (each rank holds its own blocks)."""
    return max(mesh.comm.allgather(float(np.max(values))))


def main():
    expected = reference_fluxes(mesh.data("density")[:, 0])

    space = make_space(la.bovi, la.logical_flat)
    report(space)
    got = compute_fluxes(space)
    err = largest(np.abs(got - expected))
    report(f"bovi + logical_flat: max |brickwork - numpy| over all flux slots = {err:.3g}")
    assert err < 1e-14

    # The body is written once; every tag pair gives the same fluxes on the faces. The memory
    # tag also sweeps ghost cells inside its spans, so only the faces are compared.
    for loop_tag, inner_tag, ninner in [(la.bovi, la.logical_coords, la.i_pencil), (la.bovi, la.memory, 100),
                                        (la.bvoi, la.logical_flat, la.ij_slab), (la.bvoi, la.memory, la.ij_slab),
                                        (la.boiv, la.logical_flat, la.ij_slab)]:
        got = compute_fluxes(make_space(loop_tag, inner_tag, ninner))
        err = largest(np.abs(got[FACES] - expected[FACES]))
        report(f"{loop_tag.name} + {inner_tag.name} (ninner={getattr(ninner, 'name', ninner)}): max difference "
              f"on the faces = {err:.3g}")
        assert err < 1e-14


if __name__ == "__main__":
    main()

"""Two coupled scalars advected and diffused on a periodic 2-D block mesh: a package of your own with par_for.

    du/dt = -a . grad u + D lap u - r u
    dv/dt = -a . grad v + D lap v + r u

u decays into v at the rate r while both are carried by the constant velocity a and spread by the
diffusivity D. Explicit Euler steps of central differences (a Parthenon-style ``wp.par_for`` over a
pack, ghosts filled by ``mesh.fill_ghosts()``). From u = sin(2 pi (x + y)), v = 0, each Fourier mode
is multiplied by one complex factor per step, so the script checks u and v against the discrete solution
(to rounding) and against the exact one of the PDE (to the scheme's error), the total of u + v (a
deterministic ``la.outer_reduce`` sum: zero for ever) and max |u| (a ``la.Max`` reduction).
It writes VTK files, which ParaView opens without any extra package (``adv.pvd``: a time series), and a
restart file half way; with ``--check-restart`` it then runs the second half again from that file into
a new mesh and checks that the bits are the same.

Run: ``python examples/advection_diffusion.py [--n 64] [--block 16] [--steps 80] [--out DIR]``; on
several MPI ranks, ``mpiexec -n 2 python examples/advection_diffusion.py``: the same numbers and files.
"""

import argparse
import math
import os
import time

T_START = time.perf_counter()

import numpy as np  # noqa: E402

import brickwork as wp  # noqa: E402
from brickwork import la  # noqa: E402
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=64, help="cells per direction")
parser.add_argument("--block", type=int, default=16, help="cells per block and direction")
parser.add_argument("--steps", type=int, default=80)
parser.add_argument("--out", default="advection_diffusion_output", help="directory of the outputs (made if missing)")
parser.add_argument("--check-restart", action="store_true", help="run the second half again from the restart file")
args = parser.parse_args()
if args.n < 1 or args.block < 1 or args.steps < 2:
    parser.error("--n and --block must be at least 1, --steps at least 2")

AX, AY, D, R = 1.0, 0.5, 0.01, 0.5  # velocity, diffusivity, decay rate
dx = 1.0 / args.n
dt = 0.2 * min(dx * dx / (4 * D), dx / (abs(AX) + abs(AY)))  # within forward Euler's limits

pkg = Package("advection_diffusion")
pkg.add_field("u", Metadata("Cell", "Independent", "FillGhost"))
pkg.add_field("v", Metadata("Cell", "Independent", "FillGhost"))
pkg.add_field("u_new", Metadata("Cell", "Derived"))  # the step writes here, then copies back
pkg.add_field("v_new", Metadata("Cell", "Derived"))
u, v, u_new, v_new = VarTag("u"), VarTag("v"), VarTag("u_new"), VarTag("v_new")


def build() -> Mesh:
    return Mesh(nx=(args.n, args.n), block_nx=(args.block, args.block), nghost=1, packages=[pkg])


class Solver:
    """The package's update, copy and reductions over one mesh (the pack and the index space made once)."""

    def __init__(self, mesh: Mesh):
        self.mesh = mesh
        md = mesh.mesh_data()
        self.pack = PackDescriptor(mesh, [u, v, u_new, v_new]).get_pack(md)
        self.ib = mesh.cellbounds.get_bounds_i(IndexDomain.interior)
        self.jb = mesh.cellbounds.get_bounds_j(IndexDomain.interior)
        space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.ij_slab, domain=IndexDomain.interior,
                              nblocks=self.pack.get_nblocks(), md=md)
        self.sum_space = space.with_reducer(la.Sum(wp.float64))
        self.max_space = space.with_reducer(la.Max(wp.float64))
        self.update, self.copy_back = self._make_bodies()

    def _make_bodies(self):
        """The loop bodies, made once: the pack and the coefficients they read are passed at each launch."""
        pack = self.pack
        # Typed scalars: passed at each launch. A Python float would be compiled into the body.
        cx, cy = wp.float64(AX * dt / (2 * dx)), wp.float64(AY * dt / (2 * dx))
        cd, cr = wp.float64(D * dt / (dx * dx)), wp.float64(R * dt)

        def update(b, j, i):
            uc = pack[b, u(), 0, j, i]
            vc = pack[b, v(), 0, j, i]
            lap_u = (pack[b, u(), 0, j, i - 1] + pack[b, u(), 0, j, i + 1] + pack[b, u(), 0, j - 1, i]
                     + pack[b, u(), 0, j + 1, i] - wp.float64(4.0) * uc)
            lap_v = (pack[b, v(), 0, j, i - 1] + pack[b, v(), 0, j, i + 1] + pack[b, v(), 0, j - 1, i]
                     + pack[b, v(), 0, j + 1, i] - wp.float64(4.0) * vc)
            adv_u = (cx * (pack[b, u(), 0, j, i + 1] - pack[b, u(), 0, j, i - 1])
                     + cy * (pack[b, u(), 0, j + 1, i] - pack[b, u(), 0, j - 1, i]))
            adv_v = (cx * (pack[b, v(), 0, j, i + 1] - pack[b, v(), 0, j, i - 1])
                     + cy * (pack[b, v(), 0, j + 1, i] - pack[b, v(), 0, j - 1, i]))
            pack[b, u_new(), 0, j, i] = uc - adv_u + cd * lap_u - cr * uc
            pack[b, v_new(), 0, j, i] = vc - adv_v + cd * lap_v + cr * uc

        def copy_back(b, j, i):
            pack[b, u(), 0, j, i] = pack[b, u_new(), 0, j, i]
            pack[b, v(), 0, j, i] = pack[b, v_new(), 0, j, i]

        return update, copy_back

    def step(self):
        wp.par_for("update", self.pack.get_nblocks(), self.jb, self.ib, self.update)
        wp.par_for("copy_back", self.pack.get_nblocks(), self.jb, self.ib, self.copy_back)
        self.mesh.fill_ghosts()  # collective: the ghosts of u and v from the neighbours, periodic at the edges

    def total(self) -> float:
        """The sum of u + v over the mesh's interior cells (on every rank, the same bits for any ranks)."""
        pack = self.pack

        def cell_total(rng, b):
            la.inner_reduce(rng, lambda k, j, i: pack[b, u(), k, j, i] + pack[b, v(), k, j, i])

        return la.outer_reduce(self.sum_space, cell_total)

    def max_u(self) -> float:
        pack = self.pack

        def cell_abs_u(rng, b):
            la.inner_reduce(rng, lambda k, j, i: wp.abs(pack[b, u(), k, j, i]))

        return la.outer_reduce(self.max_space, cell_abs_u)


def initial_state(mesh: Mesh):
    ib = mesh.cellbounds.get_bounds_i(IndexDomain.interior)
    jb = mesh.cellbounds.get_bounds_j(IndexDomain.interior)
    # A host array of the whole field, assigned once: on a GPU mesh block.data("u") is a (read-only) host copy
    u0 = np.zeros(mesh.data("u").shape)
    for block in mesh.blocks:  # this rank's blocks; block.lid is its place on the storage's block axis
        x = block.coords.x_center(1)[ib.as_slice()]
        y = block.coords.x_center(2)[jb.as_slice()]
        u0[block.lid, 0, 0, jb.as_slice(), ib.as_slice()] = np.sin(2 * np.pi * (x[None, :] + y[:, None]))
    mesh.data("u")[...] = u0
    mesh.fill_ghosts()


def output(mesh: Mesh, n: int):
    mesh.write_vtk(f"{args.out}/adv.{n:05d}", ["u", "v"], time=n * dt, cycle=n, collection=f"{args.out}/adv.pvd")


os.makedirs(args.out, exist_ok=True)  # write_vtk and save_restart make no directory
mesh = build()
initial_state(mesh)
solver = Solver(mesh)
output(mesh, 0)
t_ready = time.perf_counter()
solver.step()
t_first = time.perf_counter()
half = args.steps // 2
restart = f"{args.out}/adv.rst.npz"
for n in range(2, args.steps + 1):
    if n - 1 == half:
        mesh.save_restart(restart, {"cycle": half})
    solver.step()
output(mesh, args.steps)
total, max_u = solver.total(), solver.max_u()
u_all, v_all = mesh.global_array("u"), mesh.global_array("v")  # (ny, nx) on rank 0, None elsewhere

if args.check_restart:  # a new mesh from the half-way file, the second half again: the same bits
    again = build()
    begun = again.load_restart(restart)["cycle"]
    second = Solver(again)
    for _ in range(begun + 1, args.steps + 1):
        second.step()
    same = (second.total(), second.max_u()) == (total, max_u)
    u_again, v_again = again.global_array("u"), again.global_array("v")
    if mesh.rank == 0:
        same = same and np.array_equal(u_again, u_all) and np.array_equal(v_again, v_all)
        print(f"restart at cycle {begun}, the second half again: {'the same bits' if same else 'DIFFERENT'}")
        assert same

if mesh.rank == 0:
    k = 2 * np.pi
    x = (np.arange(args.n) + 0.5) * dx
    mode = np.exp(1j * k * (x[None, :] + x[:, None]))
    # The step multiplies the mode by g = 1 + dt * (eigenvalue of the central differences):
    # advection -i (ax + ay) sin(k dx) / dx, diffusion -8 D sin^2(k dx / 2) / dx^2.
    eig = -1j * (AX + AY) * math.sin(k * dx) / dx - 8 * D * math.sin(k * dx / 2) ** 2 / dx**2
    n, t = args.steps, args.steps * dt
    discrete_u = np.imag((1 + dt * (eig - R)) ** n * mode)
    discrete_v = np.imag((1 + dt * eig) ** n * mode) - discrete_u
    decay = np.exp(-2 * k * k * D * t)  # the PDE: u + v = exp(-2 k^2 D t) sin(k (x + y - (ax + ay) t))
    exact_s = decay * np.sin(k * (x[None, :] + x[:, None] - (AX + AY) * t))
    exact_u = np.exp(-R * t) * exact_s
    discrete_error = max(np.abs(u_all - discrete_u).max(), np.abs(v_all - discrete_v).max())
    exact_error = max(np.abs(u_all - exact_u).max(), np.abs(v_all - (exact_s - exact_u)).max())
    print(f"{n} steps to t = {t:.6f} on {mesh.nranks} rank(s), {mesh.nblocks_global} blocks of {args.block}^2")
    print(f"max |u,v - discrete solution| = {discrete_error:.2e}, max |u,v - exact solution| = {exact_error:.2e}")
    print(f"total of u + v = {total:.3e} (0 at t = 0), max |u| = {max_u:.6f} (exact {np.abs(exact_u).max():.6f})")
    print(f"import to first step: {t_first - T_START:.2f} s (set-up {t_ready - T_START:.2f} s, first step "
          f"{t_first - t_ready:.2f} s; compiles included on a cold kernel cache)")
    print(f"outputs in {args.out}/ (open adv.pvd in ParaView)")
    assert discrete_error < 1e-12 and abs(total) < 1e-10

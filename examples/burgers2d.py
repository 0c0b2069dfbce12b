"""2-D inviscid Burgers with a manufactured source, stepped by a time loop of one's own (a Parthenon-style driver).

    du/dt + d(u^2/2)/dx + d(u^2/2)/dy = s(x, y, t)

The source is made so that u = 1 + A sin(2 pi (x - t)) cos(2 pi (y - t)) solves the equation (a
manufactured solution): s = 2 pi A^2 sin(a) cos(b) cos(a + b), a = 2 pi (x - t), b = 2 pi (y - t).
Finite volumes: minmod-limited linear reconstruction, Rusanov fluxes stored in the field's flux arrays
(``WithFluxes``), SSP-RK2 in time, the source at the cell centres. Each cycle does what a Parthenon
package's tasks would:

* ``estimate_timestep``: dt = cfl dx / max |u|, a ``la.Max`` reduction (Parthenon's EstimateTimestep;
  collective over MPI ranks, no Allreduce after it);
* per stage: ``mesh.fill_ghosts()`` (exchange between blocks, periodic x1, and on the x2 sides a user
  boundary function that sets the ghosts to the exact solution at the stage's time), ``calculate_fluxes``,
  ``flux_divergence`` with the source;
* ``fill_derived``: the derived field ``err`` = u - u_exact, for the outputs (Parthenon's FillDerived).

It writes VTK files with a ``.pvd`` series (``--format vtk``, no extra package) or HDF5 + XDMF (``--format
hdf5``, needs h5py), both for ParaView, and a restart file every ``--restart-every`` cycles; ``--restart FILE``
continues from one. ``--periodic`` makes x2 periodic too: then nothing crosses the boundary and, the source
summing to zero over the cells, the total of u stays at its initial value to rounding.

Run: ``python examples/burgers2d.py [--n 64] [--block 16] [--tlim 0.25] [--out DIR]``; on several MPI ranks,
``mpiexec -n 2 python examples/burgers2d.py``: the same numbers and files.
"""

import argparse
import math
import os
import time

T_START = time.perf_counter()

import numpy as np  # noqa: E402

import brickwork as wp  # noqa: E402
from brickwork import la  # noqa: E402
from brickwork.mesh import X1DIR, X2DIR, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=64, help="cells per direction")
parser.add_argument("--block", type=int, default=16, help="cells per block and direction")
parser.add_argument("--tlim", type=float, default=0.25, help="the end time")
parser.add_argument("--cfl", type=float, default=0.4)
parser.add_argument("--out", default="burgers2d_output", help="directory of the outputs (made if missing)")
parser.add_argument("--format", choices=("vtk", "hdf5"), default="vtk")
parser.add_argument("--output-every", type=int, default=10, help="cycles between outputs (and the last)")
parser.add_argument("--restart-every", type=int, default=10, help="cycles between restart files")
parser.add_argument("--restart", help="continue from this restart file")
parser.add_argument("--periodic", action="store_true", help="x2 periodic too (the total of u is conserved)")
args = parser.parse_args()
if args.n < 4 or args.block < 4 or not 0 < args.cfl <= 0.5 or not args.tlim > 0:
    parser.error("--n and --block must be at least 4, --cfl in (0, 0.5], --tlim positive")

AMPLITUDE = 0.5
TWO_PI = 2 * math.pi


def exact(x, y, t):
    """The manufactured solution (numpy)."""
    return 1.0 + AMPLITUDE * np.sin(TWO_PI * (x - t)) * np.cos(TWO_PI * (y - t))


# -- the package: its fields --------------------------------------------------------------------------------
pkg = Package("burgers")
pkg.add_field("u", Metadata("Cell", "Independent", "FillGhost", "WithFluxes"))
pkg.add_field("u0", Metadata("Cell", "Derived"))  # the cycle's start, for SSP-RK2's second stage
pkg.add_field("err", Metadata("Cell", "Derived"))  # filled before outputs: u - u_exact


def exact_ghosts(block, view, side):
    """The x2 boundaries: ghost cells hold the exact solution at the stage's time (a user boundary)."""
    jb = block.cellbounds.get_bounds_j(IndexDomain.entire)
    x = block.coords.x_center(1)
    y = block.coords.x_center(2)[jb.as_slice()]
    ng = block.mesh.nghost
    rows = slice(0, ng) if side == IndexDomain.inner_x2 else slice(jb.e + 1 - ng, jb.e + 1)
    view[0, 0, rows, :] = exact(x[None, :], y[rows, None], float(t_stage))


boundaries = {"x1": "periodic", "x2": "periodic" if args.periodic else exact_ghosts}
mesh = Mesh(nx=(args.n, args.n), block_nx=(args.block, args.block), nghost=2, boundaries=boundaries,
            packages=[pkg])
u, u0, err = VarTag("u"), VarTag("u0"), VarTag("err")
md = mesh.mesh_data()
pack = PackDescriptor(mesh, [u, u0, err], with_fluxes=True).get_pack(md)
ib = mesh.cellbounds.get_bounds_i(IndexDomain.interior)
jb = mesh.cellbounds.get_bounds_j(IndexDomain.interior)
ib_faces = (ib.s, ib.e + 1)  # the x1 faces of the interior cells: face i is the lower face of cell i
jb_faces = (jb.s, jb.e + 1)
dx = 1.0 / args.n
# the lower corner of each of this rank's blocks (pack block b is mesh.blocks[b]), for the source's x and y
x_lo = wp.array(np.array([blk.coords.xmin[0] for blk in mesh.blocks]), dtype=wp.float64)
y_lo = wp.array(np.array([blk.coords.xmin[1] for blk in mesh.blocks]), dtype=wp.float64)
max_space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.ij_slab, domain=IndexDomain.interior,
                          nblocks=pack.get_nblocks(), md=md).with_reducer(la.Max(wp.float64))
sum_space = max_space.with_reducer(la.Sum(wp.float64))

# Values that change every stage: brickwork-typed scalars, passed at each launch (a Python float would be
# compiled into the bodies, and each new value would compile them again).
dt = wp.float64(0.0)
t_stage = wp.float64(0.0)
weight = wp.float64(1.0)  # SSP-RK2: u = (1 - weight) u0 + weight (u + dt L(u))
DX = wp.float64(dx)


@wp.func
def minmod(a: wp.float64, b: wp.float64):
    return wp.where(a * b > wp.float64(0.0), wp.where(wp.abs(a) < wp.abs(b), a, b), wp.float64(0.0))


@wp.func
def rusanov(left: wp.float64, right: wp.float64):
    """The Rusanov (local Lax-Friedrichs) flux of u^2/2 between the states left and right of a face."""
    speed = wp.max(wp.abs(left), wp.abs(right))
    return wp.float64(0.25) * (left * left + right * right) - wp.float64(0.5) * speed * (right - left)


@wp.func
def face_flux(um2: wp.float64, um1: wp.float64, u00: wp.float64, up1: wp.float64):
    """The flux through the face between the cells of um1 and u00 (their neighbours um2, up1 for the slopes)."""
    left = um1 + wp.float64(0.5) * minmod(um1 - um2, u00 - um1)
    right = u00 - wp.float64(0.5) * minmod(u00 - um1, up1 - u00)
    return rusanov(left, right)


@wp.func
def source(x: wp.float64, y: wp.float64, t: wp.float64):
    a = wp.float64(TWO_PI) * (x - t)
    b = wp.float64(TWO_PI) * (y - t)
    amp = wp.float64(AMPLITUDE)
    return wp.float64(TWO_PI) * amp * amp * wp.sin(a) * wp.cos(b) * wp.cos(a + b)


# -- the tasks of one stage ------------------------------------------------------------------------------
def x1_fluxes(b, j, i):
    pack.flux[b, X1DIR, u(), 0, j, i] = face_flux(pack[b, u(), 0, j, i - 2], pack[b, u(), 0, j, i - 1],
                                                  pack[b, u(), 0, j, i], pack[b, u(), 0, j, i + 1])


def x2_fluxes(b, j, i):
    pack.flux[b, X2DIR, u(), 0, j, i] = face_flux(pack[b, u(), 0, j - 2, i], pack[b, u(), 0, j - 1, i],
                                                  pack[b, u(), 0, j, i], pack[b, u(), 0, j + 1, i])


def flux_divergence(b, j, i):
    x = x_lo[b] + (wp.float64(i - ib.s) + wp.float64(0.5)) * DX
    y = y_lo[b] + (wp.float64(j - jb.s) + wp.float64(0.5)) * DX
    divergence = (pack.flux(b, X1DIR, u(), 0, j, i + 1) - pack.flux(b, X1DIR, u(), 0, j, i)
                  + pack.flux(b, X2DIR, u(), 0, j + 1, i) - pack.flux(b, X2DIR, u(), 0, j, i)) / DX
    advanced = pack[b, u(), 0, j, i] + dt * (source(x, y, t_stage) - divergence)
    pack[b, u(), 0, j, i] = (wp.float64(1.0) - weight) * pack[b, u0(), 0, j, i] + weight * advanced


def save_start(b, j, i):
    pack[b, u0(), 0, j, i] = pack[b, u(), 0, j, i]


def fill_derived(b, j, i):
    x = x_lo[b] + (wp.float64(i - ib.s) + wp.float64(0.5)) * DX
    y = y_lo[b] + (wp.float64(j - jb.s) + wp.float64(0.5)) * DX
    a = wp.float64(TWO_PI) * (x - t_stage)
    c = wp.float64(TWO_PI) * (y - t_stage)
    pack[b, err(), 0, j, i] = pack[b, u(), 0, j, i] - (wp.float64(1.0) + wp.float64(AMPLITUDE) * wp.sin(a) * wp.cos(c))


def estimate_timestep(cfl: float) -> float:
    """cfl dx / max |u| over the mesh (every rank's blocks: the same value on every rank)."""
    def largest_speed(rng, b):
        la.inner_reduce(rng, lambda k, j, i: wp.abs(pack[b, u(), k, j, i]))

    return cfl * dx / la.outer_reduce(max_space, largest_speed)


def total_u() -> float:
    def cell_u(rng, b):
        la.inner_reduce(rng, lambda k, j, i: pack[b, u(), k, j, i])

    return la.outer_reduce(sum_space, cell_u) * dx * dx


def stage(t_value: float, w: float):
    global t_stage, weight
    t_stage, weight = wp.float64(t_value), wp.float64(w)
    mesh.fill_ghosts()  # collective: the exchange, periodic x1, the exact x2 ghosts at t_stage
    nb = pack.get_nblocks()
    wp.par_for("x1_fluxes", nb, jb, ib_faces, x1_fluxes)
    wp.par_for("x2_fluxes", nb, jb_faces, ib, x2_fluxes)
    wp.par_for("flux_divergence", nb, jb, ib, flux_divergence)


def cycle(t: float, step: float):
    """One SSP-RK2 step from t: u1 = u0 + dt L(u0, t), u = u0 / 2 + (u1 + dt L(u1, t + dt)) / 2."""
    global dt
    dt = wp.float64(step)
    wp.par_for("save_start", pack.get_nblocks(), jb, ib, save_start)
    stage(t, 1.0)
    stage(t + step, 0.5)


def output(t: float, n: int):
    global t_stage
    t_stage = wp.float64(t)
    wp.par_for("fill_derived", pack.get_nblocks(), jb, ib, fill_derived)
    stem = f"{args.out}/burgers.{n:05d}"
    if args.format == "vtk":
        mesh.write_vtk(stem, ["u", "err"], time=t, cycle=n, collection=f"{args.out}/burgers.pvd")
    else:
        mesh.write_output(stem, ["u", "err"], time=t, cycle=n)


def initial_state():
    u_init = np.zeros(mesh.data("u").shape)  # a host array of the whole field, written once (a GPU mesh too)
    for block in mesh.blocks:
        x = block.coords.x_center(1)[ib.as_slice()]
        y = block.coords.x_center(2)[jb.as_slice()]
        u_init[block.lid, 0, 0, jb.as_slice(), ib.as_slice()] = exact(x[None, :], y[:, None], 0.0)
    mesh.data("u")[...] = u_init


# -- the driver ------------------------------------------------------------------------------------------------
os.makedirs(args.out, exist_ok=True)  # outputs and restart files go into a directory that exists
if args.restart:
    state = mesh.load_restart(args.restart)
    t, n = state["time"], state["cycle"]
else:
    initial_state()
    t, n = 0.0, 0
    output(t, n)
total_start = total_u()
t_ready = time.perf_counter()
t_first = None
while t < args.tlim * (1 - 1e-12):
    step = min(estimate_timestep(args.cfl), args.tlim - t)
    cycle(t, step)
    t, n = t + step, n + 1
    if t_first is None:
        t_first = time.perf_counter()
    if n % args.restart_every == 0:
        mesh.save_restart(f"{args.out}/burgers.rst.{n:05d}.npz", {"time": t, "cycle": n})
    if n % args.output_every == 0 or t >= args.tlim * (1 - 1e-12):
        output(t, n)
total_end = total_u()

u_all = mesh.global_array("u")  # (ny, nx) on rank 0, None on the others: collective
if mesh.rank == 0:
    x = (np.arange(args.n) + 0.5) * dx
    error = np.abs(u_all - exact(x[None, :], x[:, None], t))
    print(f"{n} cycles to t = {t:.6f} on {mesh.nranks} rank(s), {mesh.nblocks_global} blocks of {args.block}^2")
    print(f"L1 error {error.mean():.4e}, max error {error.max():.4e}")
    print(f"total of u: {total_start:.17g} -> {total_end:.17g} (change {total_end - total_start:.3e})")
    if t_first is not None:
        print(f"import to first step: {t_first - T_START:.2f} s (set-up {t_ready - T_START:.2f} s, first cycle "
              f"{t_first - t_ready:.2f} s; compiles included on a cold kernel cache)")
    print(f"outputs in {args.out}/ (open burgers.pvd or the .xdmf files in ParaView)")

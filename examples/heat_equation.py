"""Heat diffusion on a 2-D block mesh with the loop abstraction, written for ParaView.

du/dt = kappa (d2u/dx2 + d2u/dy2) on the periodic unit square, explicit Euler steps of a 5-point
Laplacian. The initial state sin(2 pi x) sin(2 pi y) + 1 decays as exp(-8 pi^2 kappa t) towards 1;
the script checks the computed state against that solution, and the total heat (a deterministic
``la.outer_reduce`` sum) against its initial value, and writes ``mesh.write_output`` files every
``--every`` steps: open ``heat_output/heat.*.xdmf`` in ParaView ("Xdmf3 Reader") as a time series. With
``--vtk`` they are VTK files instead (``mesh.write_vtk``, no h5py needed): open ``heat_output/heat.pvd``.

Run: ``python examples/heat_equation.py [--n 128] [--block 32] [--steps 200] [--every 50] [--out DIR]``;
on several MPI ranks, ``mpiexec -n 4 python examples/heat_equation.py``: each rank steps its own blocks,
the sums and outputs gather every block (the results are bit for bit those of one process).
``--save-restart FILE`` ends by writing a restart file (``mesh.save_restart``), ``--restart FILE`` starts
from one and runs ``--steps`` more: 100 steps, a restart, 100 more give the bits of 200 straight.
"""

import argparse
import os

import numpy as np

import brickwork as wp
from brickwork import la
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag


def count(minimum: int):
    """An argparse type: an integer of at least ``minimum`` (a negative --steps ran no step, then failed the check)."""

    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    parse.__name__ = "int"  # argparse's word for a value that is no integer: "invalid int value: 'x'"
    return parse


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=count(1), default=128, help="cells per direction")
parser.add_argument("--block", type=count(1), default=32, help="cells per block and direction")
parser.add_argument("--steps", type=count(0), default=200)
parser.add_argument("--every", type=count(0), default=50, help="steps between outputs (0: none)")
parser.add_argument("--out", default="heat_output", help="directory of the outputs")
parser.add_argument("--vtk", action="store_true", help="write VTK files (heat.pvd, a time series) instead of HDF5")
parser.add_argument("--restart", help="a restart file to start from (of --save-restart, same --n and --block)")
parser.add_argument("--save-restart", help="write a restart file at the end")
args = parser.parse_args()

kappa = 0.1
pkg = Package("heat")
pkg.add_field("u", Metadata("Cell", "FillGhost"))
pkg.add_field("u_new", Metadata("Cell"))
mesh = Mesh(nx=(args.n, args.n), block_nx=(args.block, args.block), nghost=1, packages=[pkg])
dx = 1.0 / args.n
dt = 0.2 * dx * dx / kappa  # within explicit Euler's limit dx^2 / (4 kappa)

if args.restart:  # the state, the cycle and the initial total heat of the run that saved it
    saved = mesh.load_restart(args.restart)
    start, initial = saved["cycle"], saved["initial_heat"]
else:
    start = 0
    for block in mesh.blocks:
        x, y = block.coords.x_center(1), block.coords.x_center(2)
        mesh.data("u")[block.lid, 0, 0] = np.sin(2 * np.pi * x)[None, :] * np.sin(2 * np.pi * y)[:, None] + 1.0

md = mesh.mesh_data()
u, u_new = VarTag("u"), VarTag("u_new")
pack = PackDescriptor(mesh, [u, u_new]).get_pack(md)
space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.ij_slab, domain=IndexDomain.interior,
                      nblocks=pack.get_nblocks(), md=md)
di, dj = space.get_delta(wp.X1DIR), space.get_delta(wp.X2DIR)
c = wp.float64(kappa * dt / (dx * dx))


def step(rng, b):
    pv = la.make_pack_view(rng, pack)
    for idx in la.inner(rng):
        centre = pv[u(), idx]
        pv[u_new(), idx] = centre + c * (pv[u(), idx - di] + pv[u(), idx + di] + pv[u(), idx - dj]
                                         + pv[u(), idx + dj] - wp.float64(4.0) * centre)


def copy_back(rng, b):
    pv = la.make_pack_view(rng, pack)
    for idx in la.inner(rng):
        pv[u(), idx] = pv[u_new(), idx]


total_space = space.with_reducer(la.Sum(wp.float64))


def heat(rng, b):
    pv = la.make_pack_view(rng, pack)
    la.inner_reduce(rng, lambda idx: pv[u(), idx])


def output(n: int) -> None:
    if args.every and n % args.every == 0:
        if mesh.rank == 0:
            os.makedirs(args.out, exist_ok=True)
        mesh.comm.Barrier()  # the directory exists before any rank writes
        stem = os.path.join(args.out, f"heat.{n // args.every:05d}")
        if args.vtk:
            mesh.write_vtk(stem, fields="u", time=n * dt, cycle=n, collection=os.path.join(args.out, "heat.pvd"))
        else:
            mesh.write_output(stem, fields="u", time=n * dt, cycle=n)


if not args.restart:
    initial = la.outer_reduce(total_space, heat)
    output(0)
end = start + args.steps
for n in range(start + 1, end + 1):
    mesh.fill_ghosts("u")
    la.outer(space, step)
    la.outer(space, copy_back)
    output(n)
if args.save_restart:
    mesh.save_restart(args.save_restart, {"cycle": end, "initial_heat": initial})

t = end * dt
# explicit Euler damps the mode by (1 - 8 c sin^2(pi dx))^cycles, the exact solution by exp(-8 pi^2 kappa t)
amplitude = (1.0 - 8.0 * float(c) * np.sin(np.pi * dx) ** 2) ** end
err = 0.0
for block in mesh.blocks:
    x, y = block.coords.x_center(1)[1:-1], block.coords.x_center(2)[1:-1]
    want = amplitude * np.sin(2 * np.pi * x)[None, :] * np.sin(2 * np.pi * y)[:, None] + 1.0
    err = max(err, float(np.abs(mesh.data("u")[block.lid, 0, 0, 1:-1, 1:-1] - want).max()))
err = max(mesh.comm.allgather(err))
final = la.outer_reduce(total_space, heat)
if mesh.rank == 0:
    exact = np.exp(-8 * np.pi**2 * kappa * t)
    print(f"{end} steps to t = {t:.4g}: amplitude {amplitude:.6f} (the PDE's: {exact:.6f})")
    print(f"max |u - discrete solution| = {err:.3g}; total heat {initial:.12g} -> {final:.12g}")
    if args.every:
        print(f"outputs in {args.out}/ (open {'heat.pvd' if args.vtk else 'heat.*.xdmf'} in ParaView)")
assert err < 1e-10, err
assert abs(final - initial) <= 1e-9 * abs(initial), (initial, final)

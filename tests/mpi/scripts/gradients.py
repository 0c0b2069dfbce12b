"""Run under mpiexec: a tape over mesh stages with ghost exchanges between ranks gives the one-process gradient.

``python gradients.py OUT.npz``: every rank records a few stages of a 2-D scheme (flux, update and
copy-back outer bodies; ``fill_ghosts`` between, over periodic, reflecting and outflow sides) and of
the 1-D hydro application, runs the backward pass, and rank 0 writes the gradients of the initial
state, gathered in global block order, to ``OUT.npz``. Three losses: a weighted sum of the final
state seeded through ``Field.grad``, an ``la.outer_reduce`` Sum into an array (``tape.backward(loss)`` on
every rank), and an ``la.Max``. On one rank the script also checks the gradients (the hydro one's too)
against central finite differences. The test compares the files of 1, 2 and 4 ranks, and of 2 ranks on the GPU
emulation (``BRICKWORK_TARGET=cuda-emulation``).
"""

import sys

import numpy as np

import brickwork as wp
from brickwork import comm as C
from brickwork import config, la
from brickwork.apps import hydro
from brickwork.mesh import TE, IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag

world = C.world()
rank, size = world.Get_rank(), world.Get_size()
STEPS = 2


class Scheme:
    """q_t + (c q^2)_x = nu (q_yy + q_xy) on 4 blocks of 8x8: periodic in x1, reflecting below and outflow
    above in x2 (the cross term reads corner ghosts)."""

    def __init__(self):
        pkg = Package("burgers")
        pkg.add_field("q", Metadata("Cell", "FillGhost", "WithFluxes"))
        pkg.add_field("r", Metadata("Cell"))
        self.mesh = mesh = Mesh(nx=(16, 16), block_nx=(8, 8), nghost=2, packages=[pkg],
                                boundaries={"x1": "periodic", "inner_x2": "reflecting", "outer_x2": "outflow"})
        md = mesh.mesh_data()
        q, r = VarTag("q"), VarTag("r")
        pack = PackDescriptor(mesh, [q, r], with_fluxes=True).get_pack(md)
        faces = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior,
                              nblocks=pack.get_nblocks(), md=md, te=TE.F1)
        faces.add_per_point_scratch(wp.float64, halo=la.halo.minus_i, count=1)
        cells = la.IndexSpace(la.bvoi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior,
                              nblocks=pack.get_nblocks(), md=md)
        dx = faces.get_delta(wp.X1DIR)
        dy, cdx = cells.get_delta(wp.X2DIR), cells.get_delta(wp.X1DIR)
        c, dt, nu = wp.float64(0.8), wp.float64(0.05), wp.float64(0.1)

        def flux(rng, b):
            hr = rng.add_halo(la.halo.minus_i)
            s = la.get_per_point_scratch(wp.float64, hr)
            pv = la.make_pack_view(rng, pack)
            for idx in la.inner(hr):
                s[idx] = pv[q(), idx] * pv[q(), idx]
            rng.team_barrier()
            fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
            for idx in la.inner(rng):
                fv[q(), idx] = c * s[idx - dx]

        def update(rng, b):
            pv = la.make_pack_view(rng, pack)
            fv = la.make_flux_pack_view(rng, pack, wp.X1DIR)
            for idx in la.inner(rng):
                lap = pv[q(), idx + dy] - wp.float64(2.0) * pv[q(), idx] + pv[q(), idx - dy]
                cross = pv[q(), idx + dy + cdx] - pv[q(), idx + dy - cdx] - pv[q(), idx - dy + cdx] + pv[
                    q(), idx - dy - cdx]
                pv[r(), idx] = pv[q(), idx] - dt * (fv[q(), idx + cdx] - fv[q(), idx]) + nu * (lap + wp.float64(0.25) * cross)

        def copy_back(rng, b):
            pv = la.make_pack_view(rng, pack)
            for idx in la.inner(rng):
                pv[q(), idx] = pv[r(), idx]

        def square(rng, b):
            pv = la.make_pack_view(rng, pack)
            la.inner_reduce(rng, lambda idx: pv[q(), idx] * pv[q(), idx])

        def value(rng, b):
            pv = la.make_pack_view(rng, pack)
            la.inner_reduce(rng, lambda idx: pv[q(), idx])

        self.stages = [(faces, flux), (cells, update), (cells, copy_back)]
        reduce_space = la.IndexSpace(la.bovi, la.logical_flat, ninner=la.i_pencil, domain=IndexDomain.interior,
                                     nblocks=pack.get_nblocks(), md=md)
        self.sum = (reduce_space.with_reducer(la.Sum(wp.float64)), square)
        self.max = (reduce_space.with_reducer(la.Max(wp.float64)), value)

    def run(self, q0):
        self.mesh.data("q")[...] = q0
        for _ in range(STEPS):
            self.mesh.fill_ghosts()
            for space, body in self.stages:
                la.outer(space, body)
        return self.mesh.data("q").copy()


def global_random(mesh, seed, scale=1.0, offset=0.0):
    """The same random values on every rank count: drawn for every block, this rank's blocks kept."""
    rng = np.random.default_rng(seed)
    every = offset + scale * rng.random((len(mesh.block_list), *mesh.data("q").shape[1:]))
    return mesh.local_part(every)


scheme = Scheme()
mesh = scheme.mesh
q0 = global_random(mesh, 1, 0.2, 1.0)
w = global_random(mesh, 2)
w[:, :, :, :2] = w[:, :, :, -2:] = 0  # interior weights only: the final ghosts are stale
w[:, :, :, :, :2] = w[:, :, :, :, -2:] = 0
field = mesh.field("q")
results = {}


def scheme_gradients(loss_kind):
    """d(loss)/d(q0) of the scheme, this rank's blocks."""
    tape = wp.Tape()
    out = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with tape:
        scheme.run(q0)
        if loss_kind != "weighted":
            space, body = scheme.sum if loss_kind == "sum" else scheme.max
            la.outer_reduce(space, body, out=out)
    if loss_kind == "weighted":
        field.grad[...] = w
        tape.backward()
    else:
        tape.backward(out)  # every rank seeds the same gradient of the (same) result
    grad = field.grad.copy()
    tape.zero()
    return grad, out.numpy()[0]


def loss_of(loss_kind, x):
    final = scheme.run(x)
    if loss_kind == "weighted":
        return float(world.allreduce(float((w * final).sum())))
    space, body = scheme.sum if loss_kind == "sum" else scheme.max
    return la.outer_reduce(space, body)


for kind in ("weighted", "sum", "max"):
    grad, value = scheme_gradients(kind)
    whole = mesh.gather_blocks(grad)
    if rank == 0:
        results[f"scheme_{kind}"] = whole
    if size == 1:  # central differences of single cells, and along a random direction
        h = 1e-6
        for cell in [(0, 0, 0, 2, 2), (1, 0, 0, 9, 5), (2, 0, 0, 2, 9), (3, 0, 0, 9, 9), (0, 0, 0, 5, 9)]:
            up, down = q0.copy(), q0.copy()
            up[cell] += h
            down[cell] -= h
            fd = (loss_of(kind, up) - loss_of(kind, down)) / (2 * h)
            assert abs(grad[cell] - fd) <= 1e-6 * abs(fd) + 1e-9, (kind, cell, grad[cell], fd)
        direction = np.random.default_rng(3).standard_normal(q0.shape)
        fd = (loss_of(kind, q0 + h * direction) - loss_of(kind, q0 - h * direction)) / (2 * h)
        assert abs(float((grad * direction).sum()) - fd) <= 1e-6 * abs(fd), (kind, fd)
        print(f"{kind}: gradient equals central differences", flush=True)

# -- the hydro application: 1-D Sod on 4 blocks, outflow sides, PLM + HLLC, RK2 ----------------------
quiet = {"hdf5_dt": -1.0, "png_dt": -1.0, "restart_dt": -1.0, "history": False, "progress": False}
sim = hydro.Hydro(hydro.build_config({"problem": {"name": "sod"}, "mesh": {"nx": [32], "block_nx": [8]},
                                      "output": quiet}, [], source="gradients.py"))
sim.set_initial()
rng = np.random.default_rng(5)
u0 = {}
for name, v in sim.state().items():
    every = rng.random((len(sim.mesh.block_list), *v.shape[1:]))
    u0[name] = v * (1.0 + 0.05 * sim.mesh.local_part(every))
u0["momentum"] = u0["momentum"] + 0.01
for name, v in u0.items():
    sim.mesh.data(name)[...] = v
dt = 0.4 * sim.check()
weights = sim.mesh.local_part(rng.random((len(sim.mesh.block_list), *u0["density"].shape[1:])))
tape = wp.Tape()
with tape:
    for name, v in u0.items():
        sim.mesh.data(name)[...] = v
    for _ in range(STEPS):
        sim.check()
        sim.step(dt)
sim.mesh.field("density").grad[...] = weights
tape.backward()
for name in u0:
    whole = sim.mesh.gather_blocks(sim.mesh.field(name).grad)
    if rank == 0:
        results[f"hydro_{name}"] = whole

if size == 1:  # central differences along a random direction of the whole initial state
    grads = {name: sim.mesh.field(name).grad.copy() for name in u0}
    direction = {name: np.random.default_rng(7).standard_normal(v.shape) for name, v in u0.items()}

    def hydro_loss(scale):
        for name, v in u0.items():
            sim.mesh.data(name)[...] = v + scale * direction[name]
        for _ in range(STEPS):
            sim.check()
            sim.step(dt)
        return float((weights * sim.mesh.data("density")).sum())

    # a small step: the limiters' and the upwinding's kinks lie within 1e-6 of this state along some directions
    # (steps of 1e-5 and 1e-6 differed by up to 4e-2 in the momentum's part; 1e-7 agrees to 1e-10 for three seeds)
    h = 1e-7
    fd = (hydro_loss(h) - hydro_loss(-h)) / (2 * h)
    along = sum(float((grads[name] * direction[name]).sum()) for name in u0)
    assert abs(along - fd) <= 1e-6 * abs(fd), ("hydro", along, fd)
    print("hydro: gradient equals central differences", flush=True)

if rank == 0:
    np.savez(sys.argv[1], **results)
print(f"rank {rank} of {size}: gradients done on {config.target}", flush=True)

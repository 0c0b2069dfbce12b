"""The hydro kernels, written with the loop abstraction (``brickwork.la``).

``HydroKernels`` builds the loop bodies of one scheme (precision, reconstruction, Riemann solver)
on one mesh and runs them:

* ``primitives()``: conserved -> primitive variables over every cell, ghosts included;
* ``fluxes(d)``: over the faces normal to ``d``: reconstruct the face states of each cell into
  per-point scratch over the range grown by one cell below (``add_halo(minus_d)``: those are the
  cells whose upper-face states the first face needs), ``team_barrier``, then solve the Riemann
  problem of every face and write the flux through a flux view; the stencil reads the primitive
  pack at offsets ``idx - 2 * dx`` etc.;
* ``update(a, b, dt)``: ``U = a * U0 + b * (U - dt * div F)`` over the interior (one SSP-RK stage;
  the first stage also saves ``U0 = U``);
* ``stage(a, b, dt)``: all of the above for one stage, a whole block per slice: primitives over
  the block and the ghosts the stencils read, then per direction the face states and the fluxes of
  the block's faces, then the update, every intermediate in per-point scratch (so a stage reads U
  and U0 and writes U once, instead of five passes over the mesh's prim and flux fields; the CPU
  default, see ``Hydro.fused``);
* ``min_dt()``: the CFL time step from the conserved variables through ``la.outer_reduce`` with
  ``la.Min``: a cell whose state is not finite or not physical (density or pressure <= 0) folds
  in -1, so the same reduction bounds the step and detects a bad state; it runs first as one over
  the largest signal rate (fewer divisions), the exact fold deciding only when that is not a normal
  rate; ``bad_cell()`` runs the exact fold with ``la.MinLoc`` to name the cell.

Every body is a closure over the precision ``T``, the direction constants and the chosen
functions: those are compile-time constants (part of each instance's key); packs and the small
``coef`` vector (stage weights, dt/dx, gamma) are passed at launch, the vector by value.
"""

from __future__ import annotations

import typing

import brickwork as wp
from brickwork import config, la
from brickwork.la.outer import expect, expect_reduce
from brickwork.mesh import TE, IndexDomain, PackDescriptor

from .characteristic import characteristic_faces
from .reconstruction import STENCIL_HALF_WIDTH, face_states
from .riemann import SOLVERS
from .row_fluxes import make_fluxes_across_rows
from .update_body import make_update
from .variables import density, density0, energy, energy0, momentum, momentum0, prim, scalars, scalars0

HALOS = {1: la.halo.minus_i, 2: la.halo.minus_j, 3: la.halo.minus_k}
FACES = {1: TE.F1, 2: TE.F2, 3: TE.F3}
LOOP_TAGS = {"bovi": la.bovi, "bvoi": la.bvoi}
#: Rates above this fall back to the exact CFL fold (one over them would lose precision as a subnormal)
RATE_LIMIT = 1e300


@wp.func
def primitive_state_and_inverse(r: typing.Any, m0: typing.Any, m1: typing.Any, m2: typing.Any, e: typing.Any,
                                gm1: typing.Any):
    """(density, velocity x3, pressure, 1 / density) of a cell's conserved variables; the primitives
    pass, the fused stage and the CFL steps share this arithmetic, so they agree bit for bit."""
    T = type(r)
    inv = T(1.0) / r
    vx = m0 * inv
    vy = m1 * inv
    vz = m2 * inv
    return r, vx, vy, vz, gm1 * (e - T(0.5) * r * (vx * vx + vy * vy + vz * vz)), inv


@wp.func
def primitive_state(r: typing.Any, m0: typing.Any, m1: typing.Any, m2: typing.Any, e: typing.Any, gm1: typing.Any):
    """(density, velocity x3, pressure) of a cell's conserved variables (``primitive_state_and_inverse``)."""
    r, vx, vy, vz, p, inv = primitive_state_and_inverse(r, m0, m1, m2, e, gm1)
    return r, vx, vy, vz, p


class HydroKernels:
    """The compiled pieces of one hydro scheme on one mesh.

    ``T`` is ``wp.float32`` or ``wp.float64`` (the dtype of every field); ``reconstruction`` is
    ``"plm"``, ``"ppm"`` or ``"weno5"``, ``limiter`` one of ``minmod, van_leer, mc`` (PLM only), ``riemann``
    ``"hlle"``, ``"hllc"``, ``"llf"`` or ``"roe"``; ``nscalars`` passive scalars (the field ``scalars``, primitive
    slots 5 and up) are reconstructed as the primitives and upwinded by the mass flux; with none, every body is
    the one of a run without scalars (each scalar statement sits under ``if NS > 0``, a constant). ``characteristic``:
    PLM, PPM or WENO5 in characteristic variables (characteristic.py), under ``if CHAR``, a constant likewise.
    """

    def __init__(self, mesh, T, gamma: float, reconstruction: str, limiter: str, riemann: str, cfl: float,
                 loop: str = "bovi", nscalars: int = 0, characteristic: bool = False):
        self.mesh = mesh
        self.T = T
        self.ndim = mesh.ndim
        self.nscalars = nscalars
        md = mesh.mesh_data()
        self.md = md
        extra, extra0 = ([scalars], [scalars0]) if nscalars else ([], [])
        self.cons_pack = PackDescriptor(mesh, [density, momentum, energy, *extra], with_fluxes=True).get_pack(md)
        self.cons0_pack = PackDescriptor(mesh, [density0, momentum0, energy0, *extra0]).get_pack(md)
        self.prim_pack = PackDescriptor(mesh, [prim]).get_pack(md)
        nb = self.cons_pack.get_nblocks()
        lt = LOOP_TAGS[loop]
        # A slice is a team: one thread on the CPU, which walks a whole slab (or block) with vector loops; a
        # thread block on a GPU, where one slab per team left 64 blocks of 128 threads for a 2048^2 mesh
        # (6 % of an H200's warps, 3 ms a flux pass): there (and on the emulation target, which runs the
        # GPU mapping) a slice is one row of cells.
        on_gpu = mesh.device.is_cuda or config.target == "cuda-emulation"
        slab, cube = (la.i_pencil, la.i_pencil) if on_gpu else (la.ij_slab, la.kji_cube)
        self.cells = la.IndexSpace(lt, la.logical_flat, ninner=slab, domain=IndexDomain.interior, md=md,
                                   nblocks=nb)
        self.all_cells = la.IndexSpace(lt, la.memory, ninner=cube, domain=IndexDomain.entire, md=md,
                                       nblocks=nb)
        self.faces = {d: la.IndexSpace(lt, la.logical_flat, ninner=slab, domain=IndexDomain.interior,
                                       te=FACES[d], md=md, nblocks=nb) for d in range(1, self.ndim + 1)}
        self.dt_space = self.cells.with_reducer(la.Min(T))
        self.bad_cell_space = self.cells.with_reducer(la.MinLoc(T))
        # coef: [a, b, dt/dx1, dt/dx2, dt/dx3, gamma, cfl, dx1, dx2, dx3], a vector the bodies capture: passed by
        # value in each launch's arguments, so a stage's new weights and dt need no copy to the device (an array
        # took two uploads per RK2 step on a GPU) and its kernels read them from the launch's parameters
        dx = [mesh.blocks[0].coords.dx(d) for d in (1, 2, 3)]
        self.coef = wp.types.vector(10, T)(0.0, 0.0, 0.0, 0.0, 0.0, gamma, cfl, *dx)
        self.dx = dx
        recon = face_states(reconstruction, limiter)
        # PLM, PPM or WENO5 in characteristic variables (characteristic.py): density, normal velocity and pressure
        # through this function, the other variables through recon; None (and never called) otherwise
        char = characteristic_faces(recon) if characteristic else None
        wide = STENCIL_HALF_WIDTH[reconstruction] == 2  # PPM and WENO5 read i-2..i+2, PLM i-1..i+1
        solver = SOLVERS[riemann]
        self._prim_body = self._make_primitives()
        # a GPU's row teams have no reconstruction to share across rows: there the faces between rows are
        # solved face by face (row_fluxes.py)
        self._flux_bodies = {d: (make_fluxes_across_rows if on_gpu and d > 1 else HydroKernels._make_fluxes)(
            self, d, recon, wide, solver, char) for d in range(1, self.ndim + 1)}
        self._update_bodies = (make_update(self, True), make_update(self, False))
        self._dt_body = self._make_dt()
        self._rate_body = self._make_rate()
        # One whole block per slice, so a stage's body may read its block's ghosts while it writes the
        # interior (no other slice touches that block). The stages run as a ring of rows (each a few
        # rows behind those it reads, scratch for a window of rows), row by row over the logical
        # cells: the memory tag's one span per block also computed the ghost columns between rows
        # (~5 % more cells in 2-D, ~40 % in 3-D) and was 3-5 % slower for 32^2-128^2 blocks (KH,
        # 2 threads).
        self.blocks = la.IndexSpace(lt, la.logical_flat, ninner=la.kji_cube, domain=IndexDomain.interior, md=md,
                                    nblocks=nb)
        width = STENCIL_HALF_WIDTH[reconstruction] + 1
        # On a GPU one fused stage serves every stage, told at launch whether it is the first (which also saves
        # U0 = U; a uniform branch): its two variants were near-identical units of 110-150k characters of CUDA,
        # both compiled by NVRTC at a run's first step. The CPU keeps a variant per stage (g++'s vector loops).
        #: on a GPU, ``tell_first(first)`` before each stage launch (``_make_stage``); None on the CPU
        self.tell_first = None
        if on_gpu:
            self._stage_bodies = (self._make_stage(None, recon, wide, solver, width, char),) * 2
        else:
            self._stage_bodies = tuple(self._make_stage(first, recon, wide, solver, width, char)
                                       for first in (True, False))

    # -- the loop bodies -----------------------------------------------------------------------------
    def _make_primitives(self):
        T, cons, w = self.T, self.cons_pack, self.prim_pack
        coef = self.coef
        NS = self.nscalars

        def cons_to_prim(rng, b):
            gm1 = coef[5] - T(1.0)
            u = la.make_pack_view(rng, cons)
            q = la.make_pack_view(rng, w)
            for idx in la.inner(rng):
                q[prim(0), idx], q[prim(1), idx], q[prim(2), idx], q[prim(3), idx], q[prim(4), idx] = primitive_state(
                    u[density(), idx], u[momentum(0), idx], u[momentum(1), idx], u[momentum(2), idx], u[energy(), idx],
                    gm1)
                if NS > 0:  # the concentrations s_n = (rho s_n) / rho, as the fused stage computes them
                    for n in range(NS):
                        q[prim(5 + n), idx] = u[scalars(n), idx] / u[density(), idx]

        return cons_to_prim

    def _make_fluxes(self, d, recon, wide, solver, char):
        T, cons, w, coef = self.T, self.cons_pack, self.prim_pack, self.coef
        space = self.faces[d]
        # One step in direction d as its flat memory offset. Kept as a plain int: a captured
        # MemoryOffset is not part of the kernel cache key, so two block sizes would share one
        # compiled body (reported); an int is, and means the same for a flat index.
        D = int(space.get_delta(d))
        HALO = HALOS[d]
        DIR = d
        VN, VT1, VT2 = 1 + (d - 1), 1 + d % 3, 1 + (d + 1) % 3  # prim slots: normal, transverse velocities
        MN, MT1, MT2 = VN - 1, VT1 - 1, VT2 - 1  # the same as momentum components
        D2 = 2 * D if wide else D  # PLM's functions ignore the outer pair of the five-cell stencil
        NS, NV = self.nscalars, 5 + self.nscalars  # passive scalars, and the primitives with them
        CHAR = char is not None

        def fluxes(rng, b):
            gamma = coef[5]
            hr = rng.add_halo(HALO)
            lower = la.get_per_point_scratch(T, hr, dims=(NV,))  # state at the cell's lower face
            upper = la.get_per_point_scratch(T, hr, dims=(NV,))  # state at the cell's upper face
            q = la.make_pack_view(rng, w)
            for idx in la.inner(hr):
                if CHAR:  # density, normal velocity and pressure limited together; the transverse velocities below
                    lower[0, idx], upper[0, idx], lower[VN, idx], upper[VN, idx], lower[4, idx], upper[4, idx] = char(
                        q[prim(0), idx - D2], q[prim(0), idx - D], q[prim(0), idx], q[prim(0), idx + D],
                        q[prim(0), idx + D2], q[prim(VN), idx - D2], q[prim(VN), idx - D], q[prim(VN), idx],
                        q[prim(VN), idx + D], q[prim(VN), idx + D2], q[prim(4), idx - D2], q[prim(4), idx - D],
                        q[prim(4), idx], q[prim(4), idx + D], q[prim(4), idx + D2], gamma)
                    lower[VT1, idx], upper[VT1, idx] = recon(q[prim(VT1), idx - D2], q[prim(VT1), idx - D],
                                                             q[prim(VT1), idx], q[prim(VT1), idx + D],
                                                             q[prim(VT1), idx + D2])
                    lower[VT2, idx], upper[VT2, idx] = recon(q[prim(VT2), idx - D2], q[prim(VT2), idx - D],
                                                             q[prim(VT2), idx], q[prim(VT2), idx + D],
                                                             q[prim(VT2), idx + D2])
                else:
                    lower[0, idx], upper[0, idx] = recon(q[prim(0), idx - D2], q[prim(0), idx - D], q[prim(0), idx],
                                                       q[prim(0), idx + D], q[prim(0), idx + D2])
                    lower[1, idx], upper[1, idx] = recon(q[prim(1), idx - D2], q[prim(1), idx - D], q[prim(1), idx],
                                                       q[prim(1), idx + D], q[prim(1), idx + D2])
                    lower[2, idx], upper[2, idx] = recon(q[prim(2), idx - D2], q[prim(2), idx - D], q[prim(2), idx],
                                                       q[prim(2), idx + D], q[prim(2), idx + D2])
                    lower[3, idx], upper[3, idx] = recon(q[prim(3), idx - D2], q[prim(3), idx - D], q[prim(3), idx],
                                                       q[prim(3), idx + D], q[prim(3), idx + D2])
                    lower[4, idx], upper[4, idx] = recon(q[prim(4), idx - D2], q[prim(4), idx - D], q[prim(4), idx],
                                                       q[prim(4), idx + D], q[prim(4), idx + D2])
                if NS > 0:
                    for c in range(5, NV):
                        lower[c, idx], upper[c, idx] = recon(q[prim(c), idx - D2], q[prim(c), idx - D],
                                                             q[prim(c), idx], q[prim(c), idx + D], q[prim(c), idx + D2])
            rng.team_barrier()
            f = la.make_flux_pack_view(rng, cons, DIR)
            for idx in la.inner(rng):
                m = idx - D  # the cell below the face: its upper state is the left state
                f0, f1, f2, f3, f4 = solver(upper[0, m], upper[VN, m], upper[VT1, m], upper[VT2, m], upper[4, m],
                                            lower[0, idx], lower[VN, idx], lower[VT1, idx], lower[VT2, idx],
                                            lower[4, idx], gamma)
                f[density(), idx] = f0
                f[momentum(MN), idx] = f1
                f[momentum(MT1), idx] = f2
                f[momentum(MT2), idx] = f3
                f[energy(), idx] = f4
                if NS > 0:  # upwinded by the mass flux: the left state's s when it flows up, else the right's
                    for n in range(NS):
                        f[scalars(n), idx] = f0 * wp.where(f0 >= T(0.0), upper[5 + n, m], lower[5 + n, idx])

        return fluxes

    def _make_stage(self, first, recon, wide, solver, width, char):
        """One whole SSP-RK stage of a block: primitives, the fluxes of every direction and the
        update, each in per-point scratch, so a stage reads U (and U0) and writes U once."""
        T, cons, cons0, coef = self.T, self.cons_pack, self.cons0_pack, self.coef
        space = self.blocks
        D1, D2, D3 = (int(space.get_delta(d)) for d in (1, 2, 3))
        NDIM = self.ndim
        FIRST = first  # None: the launch tells (stage_first, on a GPU)
        SWITCH = first is None
        flags = (wp.types.vector(1, wp.int32)(1), wp.types.vector(1, wp.int32)(0))  # the first stage, a later one
        stage_first = flags[1] if SWITCH else None  # the CPU's bodies capture nothing more

        def tell_first(value: bool) -> None:
            # the body's captured value, read at each launch: rebinding it costs a cell write, where setting a
            # vector's component cost ~14 us (load 13)
            nonlocal stage_first
            stage_first = flags[0 if value else 1]

        if SWITCH:
            self.tell_first = tell_first
        NS, NV = self.nscalars, 5 + self.nscalars  # passive scalars, and the primitives with them
        CHAR = char is not None
        # PLM's functions ignore the outer pair of the five-cell stencil: pass the inner pair twice
        E1, E2, E3 = (2 * D if wide else D for D in (D1, D2, D3))
        # the primitives each direction's reconstruction reads: a cross of `width` cells
        PRIM_HALO = la.halo.make(sorted({(0, 0, 0)} | {tuple(s * (c == d) for c in range(3))
                                                        for d in range(3) for s in range(-width, width + 1)}))

        def stage(rng, b):
            gamma = coef[5]
            gm1 = gamma - T(1.0)
            a = coef[0]
            wgt = coef[1]
            c1 = coef[2]
            c2 = coef[3]
            c3 = coef[4]
            u = la.make_pack_view(rng, cons)
            u0 = la.make_pack_view(rng, cons0)
            hp = rng.add_halo(PRIM_HALO)
            w = la.get_per_point_scratch(T, hp, dims=(NV,))
            for idx in la.inner(hp):
                r0 = u[density(), idx]
                r1 = u[momentum(0), idx]
                r2 = u[momentum(1), idx]
                r3 = u[momentum(2), idx]
                r4 = u[energy(), idx]
                # FIRST a constant (the CPU): only its branch compiles; SWITCH (a GPU): a uniform branch at run time
                if (stage_first[0] != 0) if SWITCH else FIRST:  # U0 = U here, not in the update: this loop's
                    # stores overlap its reads from memory
                    u0[density0(), idx] = r0
                    u0[momentum0(0), idx] = r1
                    u0[momentum0(1), idx] = r2
                    u0[momentum0(2), idx] = r3
                    u0[energy0(), idx] = r4
                w[0, idx], w[1, idx], w[2, idx], w[3, idx], w[4, idx] = primitive_state(r0, r1, r2, r3, r4, gm1)
                if NS > 0:
                    for sn in range(NS):
                        n = wp.static(sn)  # unrolled, as the reconstruction (below) and every scalar loop
                        rs = u[scalars(n), idx]
                        if (stage_first[0] != 0) if SWITCH else FIRST:
                            u0[scalars0(n), idx] = rs
                        w[5 + n, idx] = rs / r0  # as cons_to_prim
            rng.team_barrier()
            # per direction: the face states of the cells next to the slice's faces, then the fluxes
            # of its lower and upper faces, in conserved order (the solver's are rotated)
            h1 = rng.add_halo(la.halo.pm_i)
            lo1 = la.get_per_point_scratch(T, h1, dims=(NV,))
            up1 = la.get_per_point_scratch(T, h1, dims=(NV,))
            for idx in la.inner(h1):
                if CHAR:  # characteristic.py: density, normal velocity and pressure together
                    lo1[0, idx], up1[0, idx], lo1[1, idx], up1[1, idx], lo1[4, idx], up1[4, idx] = char(
                        w[0, idx - E1], w[0, idx - D1], w[0, idx], w[0, idx + D1], w[0, idx + E1],
                        w[1, idx - E1], w[1, idx - D1], w[1, idx], w[1, idx + D1], w[1, idx + E1],
                        w[4, idx - E1], w[4, idx - D1], w[4, idx], w[4, idx + D1], w[4, idx + E1], gamma)
                    lo1[2, idx], up1[2, idx] = recon(w[2, idx - E1], w[2, idx - D1], w[2, idx], w[2, idx + D1],
                                                     w[2, idx + E1])
                    lo1[3, idx], up1[3, idx] = recon(w[3, idx - E1], w[3, idx - D1], w[3, idx], w[3, idx + D1],
                                                     w[3, idx + E1])
                else:
                    for c in range(5):
                        lo1[c, idx], up1[c, idx] = recon(w[c, idx - E1], w[c, idx - D1], w[c, idx], w[c, idx + D1],
                                                         w[c, idx + E1])
                if NS > 0:
                    # the scalars' copies unrolled here (wp.static), for any count: a rolled loop over them nested
                    # in the cells' loop becomes g++'s vector loop in the cells' place (the fused 2-D stage ran
                    # 1.6-1.8x slower with one scalar). The CPU target unrolls plain constant loops only up to
                    # max_unroll (16) iterations: plain loops gave the same bits and speed up to 16 scalars, but
                    # 2.5x the time per cell with 17 (2-D PLM, 128^2, one thread)
                    for c in range(5, NV):
                        sc = wp.static(c)
                        lo1[sc, idx], up1[sc, idx] = recon(w[sc, idx - E1], w[sc, idx - D1], w[sc, idx],
                                                           w[sc, idx + D1], w[sc, idx + E1])
            rng.team_barrier()
            hf1 = rng.add_halo(la.halo.plus_i)
            f1 = la.get_per_point_scratch(T, hf1, dims=(NV,))
            for idx in la.inner(hf1):
                m = idx - D1
                f1[0, idx], f1[1, idx], f1[2, idx], f1[3, idx], f1[4, idx] = solver(
                    up1[0, m], up1[1, m], up1[2, m], up1[3, m], up1[4, m],
                    lo1[0, idx], lo1[1, idx], lo1[2, idx], lo1[3, idx], lo1[4, idx], gamma)
                if NS > 0:  # upwinded by the mass flux, as in _make_fluxes
                    for sc in range(5, NV):
                        c = wp.static(sc)  # unrolled, as the reconstruction's
                        f1[c, idx] = f1[0, idx] * wp.where(f1[0, idx] >= T(0.0), up1[c, m], lo1[c, idx])
            if NDIM >= 2:
                h2 = rng.add_halo(la.halo.pm_j)
                lo2 = la.get_per_point_scratch(T, h2, dims=(NV,))
                up2 = la.get_per_point_scratch(T, h2, dims=(NV,))
                for idx in la.inner(h2):
                    if CHAR:  # characteristic.py: density, normal velocity and pressure together
                        lo2[0, idx], up2[0, idx], lo2[2, idx], up2[2, idx], lo2[4, idx], up2[4, idx] = char(
                            w[0, idx - E2], w[0, idx - D2], w[0, idx], w[0, idx + D2], w[0, idx + E2],
                            w[2, idx - E2], w[2, idx - D2], w[2, idx], w[2, idx + D2], w[2, idx + E2],
                            w[4, idx - E2], w[4, idx - D2], w[4, idx], w[4, idx + D2], w[4, idx + E2], gamma)
                        lo2[1, idx], up2[1, idx] = recon(w[1, idx - E2], w[1, idx - D2], w[1, idx], w[1, idx + D2],
                                                         w[1, idx + E2])
                        lo2[3, idx], up2[3, idx] = recon(w[3, idx - E2], w[3, idx - D2], w[3, idx], w[3, idx + D2],
                                                         w[3, idx + E2])
                    else:
                        for c in range(5):
                            lo2[c, idx], up2[c, idx] = recon(w[c, idx - E2], w[c, idx - D2], w[c, idx], w[c, idx + D2],
                                                             w[c, idx + E2])
                    if NS > 0:  # unrolled, as in direction 1
                        for c in range(5, NV):
                            sc = wp.static(c)
                            lo2[sc, idx], up2[sc, idx] = recon(w[sc, idx - E2], w[sc, idx - D2], w[sc, idx],
                                                               w[sc, idx + D2], w[sc, idx + E2])
                rng.team_barrier()
                hf2 = rng.add_halo(la.halo.plus_j)
                f2 = la.get_per_point_scratch(T, hf2, dims=(NV,))
                for idx in la.inner(hf2):
                    m = idx - D2
                    f2[0, idx], f2[2, idx], f2[3, idx], f2[1, idx], f2[4, idx] = solver(
                        up2[0, m], up2[2, m], up2[3, m], up2[1, m], up2[4, m],
                        lo2[0, idx], lo2[2, idx], lo2[3, idx], lo2[1, idx], lo2[4, idx], gamma)
                    if NS > 0:
                        for sc in range(5, NV):
                            c = wp.static(sc)  # unrolled, as the reconstruction's
                            f2[c, idx] = f2[0, idx] * wp.where(f2[0, idx] >= T(0.0), up2[c, m], lo2[c, idx])
            if NDIM >= 3:
                h3 = rng.add_halo(la.halo.pm_k)
                lo3 = la.get_per_point_scratch(T, h3, dims=(NV,))
                up3 = la.get_per_point_scratch(T, h3, dims=(NV,))
                for idx in la.inner(h3):
                    if CHAR:  # characteristic.py: density, normal velocity and pressure together
                        lo3[0, idx], up3[0, idx], lo3[3, idx], up3[3, idx], lo3[4, idx], up3[4, idx] = char(
                            w[0, idx - E3], w[0, idx - D3], w[0, idx], w[0, idx + D3], w[0, idx + E3],
                            w[3, idx - E3], w[3, idx - D3], w[3, idx], w[3, idx + D3], w[3, idx + E3],
                            w[4, idx - E3], w[4, idx - D3], w[4, idx], w[4, idx + D3], w[4, idx + E3], gamma)
                        lo3[1, idx], up3[1, idx] = recon(w[1, idx - E3], w[1, idx - D3], w[1, idx], w[1, idx + D3],
                                                         w[1, idx + E3])
                        lo3[2, idx], up3[2, idx] = recon(w[2, idx - E3], w[2, idx - D3], w[2, idx], w[2, idx + D3],
                                                         w[2, idx + E3])
                    else:
                        for c in range(5):
                            lo3[c, idx], up3[c, idx] = recon(w[c, idx - E3], w[c, idx - D3], w[c, idx], w[c, idx + D3],
                                                             w[c, idx + E3])
                    if NS > 0:  # unrolled, as in direction 1
                        for c in range(5, NV):
                            sc = wp.static(c)
                            lo3[sc, idx], up3[sc, idx] = recon(w[sc, idx - E3], w[sc, idx - D3], w[sc, idx],
                                                               w[sc, idx + D3], w[sc, idx + E3])
                rng.team_barrier()
                hf3 = rng.add_halo(la.halo.plus_k)
                f3 = la.get_per_point_scratch(T, hf3, dims=(NV,))
                for idx in la.inner(hf3):
                    m = idx - D3
                    f3[0, idx], f3[3, idx], f3[1, idx], f3[2, idx], f3[4, idx] = solver(
                        up3[0, m], up3[3, m], up3[1, m], up3[2, m], up3[4, m],
                        lo3[0, idx], lo3[3, idx], lo3[1, idx], lo3[2, idx], lo3[4, idx], gamma)
                    if NS > 0:
                        for sc in range(5, NV):
                            c = wp.static(sc)  # unrolled, as the reconstruction's
                            f3[c, idx] = f3[0, idx] * wp.where(f3[0, idx] >= T(0.0), up3[c, m], lo3[c, idx])
            rng.team_barrier()
            for idx in la.inner(rng):
                r = u[density(), idx]
                m0 = u[momentum(0), idx]
                m1 = u[momentum(1), idx]
                m2 = u[momentum(2), idx]
                e = u[energy(), idx]
                d0 = c1 * (f1[0, idx + D1] - f1[0, idx])
                d1 = c1 * (f1[1, idx + D1] - f1[1, idx])
                d2 = c1 * (f1[2, idx + D1] - f1[2, idx])
                d3 = c1 * (f1[3, idx + D1] - f1[3, idx])
                d4 = c1 * (f1[4, idx + D1] - f1[4, idx])
                if NDIM >= 2:
                    d0 = d0 + c2 * (f2[0, idx + D2] - f2[0, idx])
                    d1 = d1 + c2 * (f2[1, idx + D2] - f2[1, idx])
                    d2 = d2 + c2 * (f2[2, idx + D2] - f2[2, idx])
                    d3 = d3 + c2 * (f2[3, idx + D2] - f2[3, idx])
                    d4 = d4 + c2 * (f2[4, idx + D2] - f2[4, idx])
                if NDIM >= 3:
                    d0 = d0 + c3 * (f3[0, idx + D3] - f3[0, idx])
                    d1 = d1 + c3 * (f3[1, idx + D3] - f3[1, idx])
                    d2 = d2 + c3 * (f3[2, idx + D3] - f3[2, idx])
                    d3 = d3 + c3 * (f3[3, idx + D3] - f3[3, idx])
                    d4 = d4 + c3 * (f3[4, idx + D3] - f3[4, idx])
                if (stage_first[0] != 0) if SWITCH else FIRST:
                    u[density(), idx] = r - d0
                    u[momentum(0), idx] = m0 - d1
                    u[momentum(1), idx] = m1 - d2
                    u[momentum(2), idx] = m2 - d3
                    u[energy(), idx] = e - d4
                else:
                    u[density(), idx] = a * u0[density0(), idx] + wgt * (r - d0)
                    u[momentum(0), idx] = a * u0[momentum0(0), idx] + wgt * (m0 - d1)
                    u[momentum(1), idx] = a * u0[momentum0(1), idx] + wgt * (m1 - d2)
                    u[momentum(2), idx] = a * u0[momentum0(2), idx] + wgt * (m2 - d3)
                    u[energy(), idx] = a * u0[energy0(), idx] + wgt * (e - d4)
                if NS > 0:
                    for sn in range(NS):
                        n = wp.static(sn)  # unrolled, as the reconstruction's
                        s = u[scalars(n), idx]
                        ds = c1 * (f1[5 + n, idx + D1] - f1[5 + n, idx])
                        if NDIM >= 2:
                            ds = ds + c2 * (f2[5 + n, idx + D2] - f2[5 + n, idx])
                        if NDIM >= 3:
                            ds = ds + c3 * (f3[5 + n, idx + D3] - f3[5 + n, idx])
                        if (stage_first[0] != 0) if SWITCH else FIRST:
                            u[scalars(n), idx] = s - ds
                        else:
                            u[scalars(n), idx] = a * u0[scalars0(n), idx] + wgt * (s - ds)

        return stage

    def _make_dt(self):
        T, cons, coef = self.T, self.cons_pack, self.coef
        NDIM = self.ndim

        def cfl_dt(rng, b):
            gamma = coef[5]
            gm1 = gamma - T(1.0)
            dx1 = coef[7]
            dx2 = coef[8]
            dx3 = coef[9]
            u = la.make_pack_view(rng, cons)

            def cell_dt(idx):
                # the primitives as cons_to_prim computes them (no pass over the prim field needed)
                r, vx, vy, vz, p = primitive_state(u[density(), idx], u[momentum(0), idx], u[momentum(1), idx],
                                                   u[momentum(2), idx], u[energy(), idx], gm1)
                # branch-free, so the loop vectorizes: compute, then select -1 for a bad cell
                # (NaN fails both comparisons; an infinity makes the sum non-finite)
                ok = r > T(0.0) and p > T(0.0) and wp.isfinite(r + vx + vy + vz + p)
                cs = wp.sqrt(gamma * wp.abs(p) / wp.abs(r))
                step = dx1 / (wp.abs(vx) + cs)
                if NDIM >= 2:
                    step = wp.min(step, dx2 / (wp.abs(vy) + cs))
                if NDIM >= 3:
                    step = wp.min(step, dx3 / (wp.abs(vz) + cs))
                return wp.where(ok, step, T(-1.0))

            la.inner_reduce(rng, cell_dt)

        return cfl_dt

    def _make_rate(self):
        """The fast fold of ``min_dt``: minus the largest signal rate ``(|v| + c) / dx``, -inf for a bad
        cell. Per cell one division and one square root instead of ``cfl_dt``'s four and one (the
        loop is bound by the divide unit); exact enough for a time step, but 1/dx overflows for
        subnormal cells, so ``min_dt`` falls back to ``cfl_dt`` when the fold is not a normal rate."""
        T, cons, coef = self.T, self.cons_pack, self.coef
        NDIM = self.ndim

        def cfl_rate(rng, b):
            gamma = coef[5]
            gm1 = gamma - T(1.0)
            inv_dx1 = T(1.0) / coef[7]
            inv_dx2 = T(1.0) / coef[8]
            inv_dx3 = T(1.0) / coef[9]
            u = la.make_pack_view(rng, cons)

            def cell_rate(idx):
                # 1/r taken from the primitives, not divided again (g++ and NVRTC 12.9 merged the two anyway)
                r, vx, vy, vz, p, inv = primitive_state_and_inverse(u[density(), idx], u[momentum(0), idx],
                                                                    u[momentum(1), idx], u[momentum(2), idx],
                                                                    u[energy(), idx], gm1)
                ok = r > T(0.0) and p > T(0.0) and wp.isfinite(r + vx + vy + vz + p)
                cs = wp.sqrt(gamma * wp.abs(p) * wp.abs(inv))
                rate = (wp.abs(vx) + cs) * inv_dx1
                if NDIM >= 2:
                    rate = wp.max(rate, (wp.abs(vy) + cs) * inv_dx2)
                if NDIM >= 3:
                    rate = wp.max(rate, (wp.abs(vz) + cs) * inv_dx3)
                return wp.where(ok, -rate, T(-wp.inf))

            la.inner_reduce(rng, cell_rate)

        return cfl_rate

    # -- running them --------------------------------------------------------------------------------
    def primitives(self) -> None:
        """Primitive variables over every cell (ghosts included) from the conserved ones."""
        la.outer(self.all_cells, self._prim_body)

    def fluxes(self) -> None:
        """Face fluxes in every active direction (needs ``primitives()`` first)."""
        for d, body in self._flux_bodies.items():
            la.outer(self.faces[d], body)

    def update(self, a: float, b: float, dt: float, first: bool = False) -> None:
        """One SSP-RK stage: ``U = a * U0 + b * (U - dt * div F)`` over the interior; the first stage
        (``first=True``, a = 0, b = 1) also saves ``U0 = U``."""
        self._set_coef(a, b, dt)
        la.outer(self.cells, self._update_bodies[0 if first else 1])

    def _set_coef(self, a: float, b: float, dt: float) -> None:
        # changed in place (the bodies read it at each launch), in one assignment: a component's costs a few us
        self.coef[0:5] = [a, b, *(dt / self.dx[d] if d < self.ndim else 0.0 for d in range(3))]

    def stage(self, a: float, b: float, dt: float, first: bool = False) -> None:
        """One whole SSP-RK stage block by block (``primitives``, ``fluxes`` and ``update`` in one
        pass over each block, the intermediates in scratch); needs filled ghosts."""
        self._set_coef(a, b, dt)
        if self.tell_first is not None:
            self.tell_first(first)
        la.outer(self.blocks, self._stage_bodies[0 if first else 1])

    def expect_fused(self) -> None:
        """Build the fused stages' kernels and the time step's with the first kernel of the run that compiles, side
        by side on the cores, rather than each at its first call, one after another."""
        for body in self._stage_bodies:
            expect(self.blocks, body)
        expect_reduce(self.dt_space, self._rate_body)

    def min_dt(self) -> float:
        """The smallest ``dx / (|v| + c)`` over the interior (needs filled ghosts only); negative if a
        cell's state is not finite or not physical (``bad_cell()`` then finds it).

        Computed as one over the largest rate ``(|v| + c) / dx`` (``_make_rate``); when that fold is
        not a normal rate (a bad cell, or cells so small that 1/dx overflows) the exact fold decides."""
        fold = float(la.outer_reduce(self.dt_space, self._rate_body))
        if -RATE_LIMIT < fold < 0.0:
            return -1.0 / fold
        return la.outer_reduce(self.dt_space, self._dt_body)

    def bad_cell(self):
        """``(value, (b, k, j, i))`` of the first cell (in block order) with the smallest value of
        ``min_dt``'s fold: the first bad cell when there is one."""
        return la.outer_reduce(self.bad_cell_space, self._dt_body)

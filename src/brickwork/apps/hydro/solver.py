"""``Hydro``: the state of one run on the block mesh and its time stepping (SSP-RK2/RK3).

The conserved variables are three fields, ``density``, ``momentum`` (a 3-vector, so reflecting
walls flip its normal component) and ``energy``, all ``FillGhost`` and ``WithFluxes``; the
primitive variables ``prim`` (density, velocity, pressure) and the stage copy ``*_0`` are derived.
One step: ``check()`` fills ghosts, computes the primitives and the CFL time step (and finds any
non-finite or non-physical cell); ``step(dt)`` runs the Runge-Kutta stages, each a ghost exchange
(``mesh.fill_ghosts``), primitives, fluxes and an update.

``hydro.device`` says where the fields live and every kernel runs (the CPU, or a CUDA device).
On a device the state stays there: the time step comes back as one number, the history's totals
as per-block sums (``totals``), and the host sees the fields only when an output is written
(``interior``, ``state``: one copy of each field per written state).
"""

from __future__ import annotations

import numpy as np

import brickwork as wp
from brickwork.mesh import Mesh, Metadata, Package, storage
from brickwork.mesh.output import assemble_blocks

from ...errors import BrickworkError
from . import scalars
from .config import Config, ConfigError
from .config_checks import scalar_names
from .custom_problem import USER_ERRORS, broadcast_values, failure
from .diffusion import Diffusion
from .kernels import HydroKernels
from .sources import Sources
from .totals import BlockSums
from .user_boundaries import UserBoundaries

CONSERVED = ("density", "momentum", "energy")
#: SSP Runge-Kutta stages as (a, b): U = a * U0 + b * (U + dt * L(U)) (Shu & Osher 1988)
STAGES = {"rk2": ((0.0, 1.0), (0.5, 0.5)), "rk3": ((0.0, 1.0), (0.75, 0.25), (1.0 / 3.0, 2.0 / 3.0))}
DTYPES = {"float32": wp.float32, "float64": wp.float64}


class BadStateError(BrickworkError, RuntimeError):
    """A cell holds a non-finite or non-physical state (the message names the cell)."""


PRIMITIVE_NAMES = ("density", "v1", "v2", "v3", "pressure")


def _block_state(problem, state, shape) -> tuple:
    """The five primitive arrays ``problem.initial`` returned, broadcast to a block's ``shape``; a
    ``ConfigError`` naming the problem when it returned something else (a problem of your own)."""
    what = f"problem {problem.NAME!r}: initial() must return 5 arrays or numbers ({', '.join(PRIMITIVE_NAMES)})"
    if not isinstance(state, (tuple, list)) or len(state) != 5:
        got = f"{len(state)} values" if isinstance(state, (tuple, list)) else type(state).__name__
        raise ConfigError(f"{what}, got {got}")
    return tuple(broadcast_values(zip(PRIMITIVE_NAMES, state), shape,
                                  f"{what} that broadcast to the block's cells, ghosts included, {shape} (k, j, i) "
                                  f"from x1 (1, 1, ni), x2 (1, nj, 1) and x3 (nk, 1, 1)"))


def hydro_package(dtype, nscalars: int = 0) -> Package:
    """The fields of the hydro application, with numpy ``dtype`` (and ``nscalars`` passive scalars)."""
    pkg = Package("hydro")
    cons = ("Cell", "Independent", "FillGhost", "WithFluxes")
    pkg.add_field("density", Metadata(*cons), dtype=dtype)
    pkg.add_field("momentum", Metadata(*cons, "Vector"), shape=(3,), dtype=dtype)
    pkg.add_field("energy", Metadata(*cons), dtype=dtype)
    pkg.add_field("density_0", Metadata("Cell", "Derived"), dtype=dtype)
    pkg.add_field("momentum_0", Metadata("Cell", "Derived"), shape=(3,), dtype=dtype)
    pkg.add_field("energy_0", Metadata("Cell", "Derived"), dtype=dtype)
    pkg.add_field("prim", Metadata("Cell", "Derived"), shape=(5 + nscalars,), dtype=dtype)
    scalars.add_fields(pkg, nscalars, dtype, cons)
    return pkg


class Hydro:
    """The mesh, the compiled kernels and the time of one run described by a ``Config``."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        h, m = cfg["hydro"], cfg["mesh"]
        self.T = DTYPES[h["dtype"]]
        self.np_dtype = np.dtype(self.T._np)
        self.gamma = h["gamma"]
        self.cfl = h["cfl"]
        self.stages = STAGES[h["integrator"]]
        ndim = len(m["nx"])
        #: passive scalars, and the conserved fields with them (what ghost exchanges and restart files carry)
        self.nscalars = h["nscalars"]
        self.conserved = CONSERVED + ((scalars.FIELD,) if self.nscalars else ())
        #: what outputs, the history and ``primitive`` call the scalars (``hydro.scalar_names``; a restart
        #: keeps the names its file was written with)
        self.scalar_names = scalar_names(h)
        #: where the fields live and the kernels run
        self.device = wp.get_device(h["device"])
        #: the problem's boundary functions, and the ghost fills that run them
        self.user_boundaries = UserBoundaries(cfg)
        self.mesh = Mesh(tuple(m["nx"]), tuple(m["block_nx"]), nghost=m["nghost"], xmin=tuple(m["xmin"]),
                         xmax=tuple(m["xmax"]), boundaries=self.user_boundaries.mesh_boundaries(),
                         packages=[hydro_package(self.np_dtype, self.nscalars)], device=self.device)
        self.ndim = ndim
        with wp.ScopedDevice(self.device):  # the kernels' small arrays (reductions' partials) live there too
            self.kernels = HydroKernels(self.mesh, self.T, self.gamma, h["reconstruction"], h["limiter"],
                                        h["riemann"], self.cfl, loop=h["loop"], nscalars=self.nscalars,
                                        characteristic=h["characteristic"])
        #: the source terms (gravity, the problem's SOURCE): added after each stage's update, from the
        #: primitives the split passes leave in ``prim``
        self.sources = Sources(self)
        #: viscosity and conduction: diffusive fluxes added to each stage's, from the split passes' primitives
        self.diffusion = Diffusion(self)
        #: what set the latest time step ``check()`` returned: "cfl" or "diffusion"
        self.dt_set_by = "cfl"
        #: whether a Runge-Kutta stage runs as one pass per block (``HydroKernels.stage``) or as separate
        #: passes (primitives, fluxes, update); ``[hydro] stage``, see ``fused_by_default`` (split with sources)
        self.fused = h["stage"] == "fused" or (h["stage"] == "auto" and self.fused_by_default()
                                               and not self.sources.active and not self.diffusion.active)
        self._expecting = self.fused  # until the first check(): see there
        self._sums = None  # BlockSums of the conserved variables, made on first use on a device
        self._host: tuple = (None, {})  # ((cycle, time), host copies of fields) on a device
        self.time = 0.0
        self.cycle = 0
        self.ncells = int(np.prod(m["nx"]))
        ng = m["nghost"]
        self._interior = tuple(slice(ng, ng + b) if d < ndim else slice(0, 1)
                               for d, b in reversed(list(enumerate(self.mesh.block_nx))))  # (k, j, i)

    def fused_by_default(self) -> bool:
        """What ``stage = "auto"`` picks: fused on the CPU target, in every dimension (its stages run as
        a ring of rows with scratch for a window of rows, not the block: KH 2-D, 512^2 in 64^2 blocks,
        1.2x the split passes' zone-cycles; 3-D blast, 2 threads: 16^3 and 32^3 blocks 1.3x, 64^3 1.07x).
        On a GPU it splits: a block's scratch does not fit a thread block's shared memory."""
        return self.device.is_cpu and wp.config.target == "cpu"

    # -- state ---------------------------------------------------------------------------------------
    def set_initial(self) -> None:
        """Initial conditions of the problem at every cell centre (ghosts included)."""
        problem, params = self.cfg.problem, self.cfg["problem"]
        m = self.cfg["mesh"]
        self._host = (None, {})
        fields = {name: storage.host(self.mesh.data(name)) for name in self.conserved}
        with np.errstate(over="ignore", invalid="ignore"):  # huge inputs overflow: check() names the cell
            self._set_initial_blocks(fields, problem, params, m)
        for name in self.conserved:  # one copy per field to a device (nothing to do on the CPU)
            if fields[name] is not self.mesh.data(name):
                self.mesh.data(name).assign(fields[name])
        self.time = 0.0
        self.cycle = 0

    def _set_initial_blocks(self, fields: dict, problem, params, m) -> None:
        """Fill ``fields`` (host arrays) with the problem's initial state, block by block."""
        for block in self.mesh.blocks:
            c = block.coords
            x1 = c.x_center(1)[None, None, :]
            x2 = c.x_center(2)[None, :, None]
            x3 = c.x_center(3)[:, None, None]
            try:
                state = problem.initial(x1, x2, x3, params, self.gamma, xmin=tuple(m["xmin"]),
                                        xmax=tuple(m["xmax"]))
            except MemoryError:
                raise
            except USER_ERRORS as e:  # a problem of your own: one line naming its file and line
                raise failure(problem, "initial", e, params) from e
            shape = self.mesh.data("density").shape[2:]
            rho, v1, v2, v3, p = _block_state(problem, state, shape)
            self._set_primitive_block(fields, block.lid, rho, v1, v2, v3, p)
            if self.nscalars:
                s = scalars.initial_block(problem, x1, x2, x3, params, self.nscalars, shape, tuple(m["xmin"]),
                                          tuple(m["xmax"]))
                fields[scalars.FIELD][block.lid] = rho * np.asarray(s)

    def set_primitive_block(self, lid, rho, v1, v2, v3, p, concentrations=None) -> None:
        """Set block ``lid``'s conserved variables from primitive arrays of its full (k, j, i) shape;
        ``concentrations``, one array per passive scalar, sets the scalars too (else they keep their
        conserved ``rho * s``)."""
        if concentrations is not None and len(concentrations) != self.nscalars:  # checked before any change
            raise ValueError(f"set_primitive_block: concentrations has {len(concentrations)} arrays, but the run has "
                             f"hydro.nscalars={self.nscalars}")
        names = CONSERVED if concentrations is None else self.conserved
        fields = {name: storage.host(self.mesh.data(name)) for name in names}
        with np.errstate(over="ignore", invalid="ignore"):  # as in set_initial: check() names the cell
            self._set_primitive_block(fields, lid, rho, v1, v2, v3, p)
            if concentrations is not None:
                fields[scalars.FIELD][lid] = np.asarray(rho) * np.asarray(concentrations)
        for name in names:
            if fields[name] is not self.mesh.data(name):
                self.mesh.data(name).assign(fields[name])
        self._host = (None, {})

    def _set_primitive_block(self, fields: dict, lid, rho, v1, v2, v3, p) -> None:
        fields["density"][lid, 0] = rho
        mom = fields["momentum"][lid]
        mom[0], mom[1], mom[2] = rho * v1, rho * v2, rho * v3
        fields["energy"][lid, 0] = p / (self.gamma - 1.0) + 0.5 * rho * (v1 * v1 + v2 * v2 + v3 * v3)

    def host_data(self, name: str) -> np.ndarray:
        """Field ``name``'s storage on the host: the mesh's array on the CPU; on a device a copy of the
        current state, made once per state (outputs of one state share it)."""
        data = self.mesh.data(name)
        if isinstance(data, np.ndarray):
            return data
        when, copies = self._host
        if when != (self.cycle, self.time):
            copies = {}
            self._host = ((self.cycle, self.time), copies)
        if name not in copies:
            copies[name] = data.numpy()
        return copies[name]

    def state(self) -> dict:
        """The conserved arrays, ghosts included (views of the mesh storage; on a device host copies)."""
        return {name: self.host_data(name) for name in self.conserved}

    def interior(self, name: str, comp: int = 0) -> np.ndarray:
        """``(nblocks, nk, nj, ni)`` view of a field's interior cells (on a device: of a host copy)."""
        return self.host_data(name)[(slice(None), comp) + self._interior]

    def to_global(self, per_block: np.ndarray, root: int | None = None) -> np.ndarray | None:
        """The ``(nx3, nx2, nx1)`` array over the whole mesh of ``(nblocks, nk, nj, ni)`` per-block values.

        ``per_block`` holds this rank's blocks in ``mesh.blocks`` order (what ``primitive`` and
        ``interior`` return): on several MPI ranks the call is collective and gives the array to every
        rank (``root=None``) or to rank ``root`` alone (None on the others). In one process that is
        every block, and nothing is communicated. An array of *every* block in global id order (what
        ``mesh.gather_blocks`` gives its root) is assembled where it is, without communication."""
        mesh = self.mesh
        # checked on each rank before any message: no rank waits for one that raised
        if root is not None and (not isinstance(root, (int, np.integer)) or isinstance(root, bool)
                                 or not 0 <= root < mesh.nranks):
            raise ValueError(f"to_global: root must be None (every rank) or a rank of the mesh (0 to "
                             f"{mesh.nranks - 1}), got {root!r}")
        n = len(per_block)
        if n == mesh.nblocks_global:  # every block: one process, or an array gathered already
            return assemble_blocks(mesh, per_block)
        if n != mesh.nblocks:
            mine = f"one per block of this rank ({mesh.nblocks}, in mesh.blocks order, as primitive() returns) or "
            raise ValueError(f"to_global: the first axis has {n} entries; give {mine if mesh.nranks > 1 else ''}one "
                             f"per block of the mesh ({mesh.nblocks_global}, in global id order)")
        gathered = mesh.gather_blocks(per_block, root=0 if root is None else root)
        whole = None if gathered is None else assemble_blocks(mesh, gathered)
        return mesh.comm.bcast(whole, root=0) if root is None else whole

    def primitive(self, name: str) -> np.ndarray:
        """Per-block interior values of ``density, velocity_1..3, pressure, energy, speed`` and the
        passive scalars' concentrations (by their ``scalar_names``: ``scalar_0``.. unless the input names
        them) (float64), computed on the host from the conserved variables."""
        rho = self.interior("density").astype(np.float64)
        if name == "density":
            return rho
        if name in self.scalar_names:
            return self.interior(scalars.FIELD, self.scalar_names.index(name)).astype(np.float64) / rho
        if name == "energy":
            return self.interior("energy").astype(np.float64)
        v = [self.interior("momentum", c).astype(np.float64) / rho for c in range(3)]
        if name.startswith("velocity_"):
            return v[int(name[-1]) - 1]
        if name == "speed":
            return np.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
        if name == "pressure":
            e = self.interior("energy").astype(np.float64)
            return (self.gamma - 1.0) * (e - 0.5 * rho * (v[0] ** 2 + v[1] ** 2 + v[2] ** 2))
        raise KeyError(name)

    def totals(self) -> dict:
        """Conserved totals over the domain (sums of cell values times the cell volume, float64).

        Each block's cells are summed alone, then the block sums in global block order (gathered
        from every rank on a distributed mesh: collective), so the totals do not depend on the
        number of ranks."""
        if isinstance(self.mesh.data("density"), np.ndarray):
            columns = [self.interior("density")] + [self.interior("momentum", c) for c in range(3)]
            columns.append(self.interior("energy"))
            columns += [self.interior(scalars.FIELD, n) for n in range(self.nscalars)]
            sums = [[float(np.sum(col[b.lid], dtype=np.float64)) for col in columns] for b in self.mesh.blocks]
        else:  # on a device: per-block sums computed there
            if self._sums is None:
                self._sums = BlockSums(self.mesh, [("density", 0), ("momentum", 0), ("momentum", 1),
                                                   ("momentum", 2), ("energy", 0)]
                                       + [(scalars.FIELD, n) for n in range(self.nscalars)])
            sums = self._sums.per_block().tolist()
        ordered = self.rows_in_block_order(sums)
        vol = self.mesh.blocks[0].coords.cell_volume
        names = ["mass", "momentum_1", "momentum_2", "momentum_3", "energy", *self.scalar_names]
        totals = [0.0] * len(names)
        for row in ordered:
            totals = [t + v for t, v in zip(totals, row)]
        return {name: t * vol for name, t in zip(names, totals)}

    def rows_in_block_order(self, rows: list) -> list:
        """Every rank's ``rows`` (one per block of this rank, in ``mesh.blocks`` order) in global block order, on
        every rank (collective on a distributed mesh), so that what adds them up does not depend on the ranks."""
        gids = [b.gid for b in self.mesh.blocks]
        if self.mesh.nranks > 1:
            parts = self.mesh.comm.allgather((gids, rows))
            gids = [g for part in parts for g in part[0]]
            rows = [r for part in parts for r in part[1]]
        return [row for _, row in sorted(zip(gids, rows), key=lambda pair: pair[0])]

    def cell_centre(self, lid: int, k: int, j: int, i: int) -> tuple:
        c = self.mesh.blocks[lid].coords
        return tuple(float(c.x_center(d + 1)[idx]) for d, idx in enumerate((i, j, k)[: self.ndim]))

    # -- time stepping -------------------------------------------------------------------------------
    def check(self) -> float:
        """Fill ghosts, compute primitives (for the split stages) and return the time step of the current
        state: the CFL step, or the diffusion's when that is smaller (``dt_set_by`` says which).

        Raises ``BadStateError`` naming the first cell (in block order) whose state is not finite or
        has non-positive density or pressure.
        """
        with wp.ScopedDevice(self.device):
            if self._expecting and self.fused:  # the first step's kernels build with its first that compiles
                self._expecting = False
                self.kernels.expect_fused()
            self.user_boundaries.fill_ghosts(self.mesh, self.conserved)
            if not self.fused:
                self.kernels.primitives()
            value = self.kernels.min_dt()
        if not value > 0.0:
            raise BadStateError(self._bad_cell_message())
        dt = self.cfl * float(value)
        self.dt_set_by = "diffusion" if self.diffusion.dt < dt else "cfl"
        return min(dt, self.diffusion.dt)

    def _bad_cell_message(self) -> str:
        """What ``check`` says about the first bad cell; on a distributed mesh the rank owning the
        cell writes the message and every rank gets it (collective)."""
        with wp.ScopedDevice(self.device):
            self.kernels.primitives()  # the message shows them
            _, (b, k, j, i) = self.kernels.bad_cell()
        mesh = self.mesh
        if mesh.nranks > 1:  # b is the global block id
            owner = mesh.block_list[b].rank if b >= 0 else 0
            text = self._describe_cell(mesh.block_list[b].lid, k, j, i) if owner == mesh.rank else None
            return mesh.comm.bcast(text, root=owner)
        lid = int(self.kernels.cons_pack.block_lids[b]) if b >= 0 else 0
        return self._describe_cell(lid, k, j, i)

    def _describe_cell(self, lid: int, k: int, j: int, i: int) -> str:
        q = storage.host(self.mesh.data("prim"))[lid, :, k, j, i]
        where = ", ".join(f"{n}={v:.6g}" for n, v in zip("xyz", self.cell_centre(lid, k, j, i)))
        return (f"non-finite or non-physical state in block {self.mesh.blocks[lid].gid} cell (k={k}, j={j}, i={i}) "
                f"at {where}: density={q[0]:.6g}, velocity=({q[1]:.6g}, {q[2]:.6g}, {q[3]:.6g}), "
                f"pressure={q[4]:.6g}")

    def step(self, dt: float) -> None:
        """Advance by ``dt`` with the SSP-RK stages; call ``check()`` first (its ghosts, and for split
        stages its primitives, feed the first stage). Fused stages leave scratch values in the ghost
        cells between a block's rows (1-D and 2-D); the next ghost fill replaces them."""
        k = self.kernels
        with wp.ScopedDevice(self.device):
            for n, (a, b) in enumerate(self.stages):
                if n:
                    self.user_boundaries.fill_ghosts(self.mesh, self.conserved)
                if self.fused:
                    k.stage(a, b, dt, first=n == 0)
                else:
                    if n:
                        k.primitives()
                    k.fluxes()
                    if self.diffusion.active:
                        self.diffusion.add_fluxes()
                    if self.sources.active:
                        self.sources.prepare(dt, n)
                    k.update(a, b, dt, first=n == 0)
                    if self.sources.active:
                        self.sources.apply(b, dt)
        self.time += dt
        self.cycle += 1

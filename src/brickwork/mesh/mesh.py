"""The mesh: a uniform lattice of equal blocks, their neighbours, and the fields' storage.

``Mesh(nx=(nx1, nx2), block_nx=(bx1, bx2), nghost=2, xmin=(0, 0), xmax=(1, 1),
boundaries="periodic", packages=[pkg])`` builds ``(nx1/bx1) * (nx2/bx2)`` blocks. Directions are
given in x1, x2, x3 order (x1 is the fastest array index ``i``); ``len(nx)`` is the dimension.

Blocks exist in two lists: ``mesh.block_list`` is the *global* list (every block, indexed by its
global id ``gid``, with its owning ``rank``; ``mesh.nblocks_global`` of them), ``mesh.blocks`` the
*local* blocks of this process in gid order (``mesh.nblocks`` of them; ``block.lid`` is the position
on the storage's block axis). Global ids run over the lattice with x1 fastest:
``gid = lx1 + nb1 * (lx2 + nb2 * lx3)``, whatever the number of ranks.

Under MPI (``comm``: see ``brickwork.comm``; by default ``MPI.COMM_WORLD`` when the program runs on
several ranks) the blocks are shared among the ranks along a Morton curve (``decomposition``) and
ghost copies between blocks of different ranks become messages (``messages``). In one process every
block is local and ``lid == gid``.
"""

from __future__ import annotations

import difflib
import itertools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .. import comm as _comm
from ..device import get_device
from ..same_on_ranks import check_same
from . import footprint, ghost_cells
from .boundary import BoundaryCondition, SideBoundary, periodic_directions, resolve_boundaries
from .coordinates import UniformCoordinates
from .decomposition import assign_ranks
from .exchange import ExchangePlan
from .fields import Field
from .indexing import IndexDomain, IndexShape
from .package import FieldSpec, Package, SparsePool, sparse_name
from .parthenon_names import AnswersParthenonNames

_STRATEGIES = ("auto", "lattice", "pairwise")


@dataclass(frozen=True)
class NeighborBlock:
    """A block adjacent to another across a face, an edge or a corner."""

    offset: tuple[int, int, int]  # (ox1, ox2, ox3), each -1, 0 or 1
    gid: int
    rank: int
    lid: int | None  # local id, None when another rank owns the block
    location: tuple[int, int, int]
    wrapped: tuple[bool, bool, bool]  # True where the step crossed a periodic boundary


class MeshBlock(AnswersParthenonNames):
    """One block: its place in the lattice, index shape, coordinates and neighbours."""

    def __init__(self, mesh: Mesh, gid: int, location: tuple[int, int, int], rank: int, lid: int | None):
        self.mesh = mesh
        self.gid = gid
        self.location = location
        self.rank = rank
        self.lid = lid
        self.level = 0
        self.cellbounds: IndexShape = mesh.cellbounds
        bnx = mesh.block_nx
        lo, hi, widths = [], [], []
        for d in range(3):
            if d < mesh.ndim:
                dx = (mesh.xmax[d] - mesh.xmin[d]) / mesh.nx[d]
                lo.append(mesh.xmin[d] + location[d] * bnx[d] * dx)
                hi.append(mesh.xmin[d] + (location[d] + 1) * bnx[d] * dx)
            else:
                dx = mesh.xmax[d] - mesh.xmin[d]
                lo.append(mesh.xmin[d])
                hi.append(mesh.xmax[d])
            widths.append(dx)
        # the mesh's widths, not each block's (hi - lo) / nx: the same bits on every block and rank
        self.coords = UniformCoordinates(self.cellbounds, tuple(lo), tuple(hi), dx=tuple(widths))
        self.neighbors: list[NeighborBlock] = []
        self._by_offset: dict[tuple[int, int, int], NeighborBlock] = {}

    def __repr__(self) -> str:
        return f"MeshBlock(gid={self.gid}, location={self.location}, rank={self.rank})"

    @property
    def lx1(self) -> int:
        """Logical location along x1."""
        return self.location[0]

    @property
    def lx2(self) -> int:
        """Logical location along x2."""
        return self.location[1]

    @property
    def lx3(self) -> int:
        """Logical location along x3."""
        return self.location[2]

    @property
    def is_local(self) -> bool:
        """True when this process owns (stores) the block."""
        return self.lid is not None

    def neighbor(self, ox1: int = 0, ox2: int = 0, ox3: int = 0) -> NeighborBlock | None:
        """The neighbour at offset ``(ox1, ox2, ox3)``, or None across a non-periodic boundary."""
        return self._by_offset.get((ox1, ox2, ox3))

    def boundary(self, side: IndexDomain) -> SideBoundary | None:
        """The physical boundary condition on ``side``, or None where a neighbour lies."""
        side = IndexDomain(side)
        d = side.direction
        if d is None or d > self.mesh.ndim:
            raise ValueError(f"{side.name} is not a boundary side of a {self.mesh.ndim}-D mesh")
        offset = [0, 0, 0]
        offset[d - 1] = -1 if side.is_inner else 1
        if self.neighbor(*offset) is not None:
            return None
        return self.mesh.boundaries[side]

    def data(self, name: str) -> np.ndarray:
        """This block's view ``(nslots, nk, nj, ni)`` of field ``name`` (local blocks only; on a CUDA device a
        read-only host copy: write the field, ``mesh.data(name)[...] = host``)."""
        if self.lid is None:
            raise ValueError(f"block {self.gid} is owned by rank {self.rank}; its data is not stored here")
        return self.mesh.field(name).block(self.lid)


def _as_triple(values: object, what: str) -> tuple:
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        return (int(values),)
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{what} must be an integer or a sequence of 1 to 3 integers, got {values!r}")
    return tuple(values)


def _positive_int(value: object, name: str) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


class Mesh(AnswersParthenonNames):
    """A uniform, block-structured mesh in 1, 2 or 3 dimensions with its fields' storage.

    ``comm``: None (``MPI.COMM_WORLD`` when the program runs on several MPI ranks, else one
    process), or an mpi4py intracommunicator; on several ranks each stores its own blocks
    (``mesh.blocks``) and ``fill_ghosts`` and reductions are collective (docs/mpi.md).

    ``device``: where the fields live and the ghost exchange runs (``"cpu"``, ``"cuda:N"``; None: the
    current device); on a CUDA device the host side of the fields sees copies (docs/mesh.md).
    """

    def __init__(
        self,
        nx: int | Sequence[int],
        block_nx: int | Sequence[int] | None = None,
        *,
        nghost: int = 2,
        xmin: Sequence[float] | None = None,
        xmax: Sequence[float] | None = None,
        boundaries: object = "periodic",
        packages: Iterable[Package] = (),
        exchange: str = "auto",
        comm=None,
        device=None,
    ):
        self.comm = _comm.as_comm(comm)
        self.rank = self.comm.Get_rank()
        self.nranks = self.comm.Get_size()
        # an argument only some ranks refuse (a value computed per rank) is an error on every rank: the others would
        # wait in the next collective for a rank that left
        with _comm.together(self.comm, "building the Mesh"):
            cells = _as_triple(nx, "nx")
            if not 1 <= len(cells) <= 3:
                raise ValueError(f"nx must have 1 to 3 entries (x1, x2, x3), got {len(cells)}")
            self.ndim = len(cells)
            cells = tuple(_positive_int(n, f"nx{d + 1}") for d, n in enumerate(cells))
            blocks = cells if block_nx is None else _as_triple(block_nx, "block_nx")
            if len(blocks) != self.ndim:
                raise ValueError(f"block_nx has {len(blocks)} entries but nx has {self.ndim} (one per direction)")
            blocks = tuple(_positive_int(n, f"block_nx{d + 1}") for d, n in enumerate(blocks))
            if not isinstance(nghost, (int, np.integer)) or isinstance(nghost, bool) or nghost < 0:
                raise ValueError(f"nghost must be a non-negative integer, got {nghost!r}")
            for d in range(self.ndim):
                n, b = cells[d], blocks[d]
                if b > n:
                    raise ValueError(f"block_nx{d + 1}={b} is larger than the mesh (nx{d + 1}={n})")
                if n % b:
                    raise ValueError(
                        f"nx{d + 1}={n} is not divisible by block_nx{d + 1}={b}: blocks cannot tile the mesh"
                    )
                if nghost > b and all(c == 1 for c in cells[d:]):  # Parthenon's nx3 = 1 for a 2-D mesh
                    raise ValueError(
                        f"nx{d + 1}=1 with nghost={nghost}: a direction one cell thick has no room for ghost cells; "
                        f"a {d}-D mesh is nx={cells[:d]} (where Parthenon and Athena++ write nx{d + 1} = 1)"
                    )
                if nghost > b:
                    raise ValueError(
                        f"nghost={nghost} is wider than the block (block_nx{d + 1}={b}); ghosts must come "
                        "from the adjacent block only"
                    )
            if exchange not in _STRATEGIES:
                raise ValueError(f"exchange must be one of {_STRATEGIES}, got {exchange!r}")
            #: Where the fields live and the mesh's kernels (ghost exchange, boundaries) run.
            self.device = get_device(device)
            self.nghost = int(nghost)
            self.nx = cells + (1,) * (3 - self.ndim)
            self.block_nx = blocks + (1,) * (3 - self.ndim)
            self.nblocks_per_dim = tuple(n // b for n, b in zip(self.nx, self.block_nx))
            self.xmin, self.xmax = self._extents(xmin, xmax)
            self.boundaries = resolve_boundaries(boundaries, self.ndim)
            self.periodic = periodic_directions(self.boundaries, self.ndim)
            active = tuple(self.block_nx[d] if d < self.ndim else 0 for d in range(3))
            self.cellbounds = IndexShape(active[2], active[1], active[0], self.nghost)
            self._exchange = exchange
            if isinstance(packages, Package):  # Mesh(..., packages=pkg): one package
                packages = [packages]
            elif isinstance(packages, (str, bytes)) or not hasattr(packages, "__iter__"):
                raise TypeError(f"packages must be a list of Package objects, got {packages!r}")
            self.packages = list(packages)
            self._specs, self._pools = self._collect_fields(self.packages)
        # Ghost messages travel on a communicator of their own, apart from the program's messages.
        self._halo_comm = self.comm.Dup() if self.nranks > 1 else self.comm
        check_same(self._halo_comm, "the mesh", self._description(),
                   hint="every rank must build the same Mesh (building one is collective)")
        self._check_memory()
        self._build_blocks()
        self.fields = {
            name: Field(spec, self.cellbounds, len(self.blocks), self.device,
                        rank=(self.rank, self.nranks) if self.nranks > 1 else None)
            for name, spec in self._specs.items()
        }
        self.allocation_version = 0
        self._plans: dict[tuple, ExchangePlan] = {}
        self._all_ghost_fields: list[Field] | None = None
        self._exchanges: dict[tuple, tuple] = {}
        self._transposed: dict[tuple, object] = {}  # ghost_cells.transposed_of: the exchanges' adjoints
        #: Wall seconds spent in ``fill_ghosts`` so far.
        self.ghost_seconds = 0.0

    def __repr__(self) -> str:
        nx = self.nx[: self.ndim]
        bnx = self.block_nx[: self.ndim]
        return f"Mesh(nx={nx}, block_nx={bnx}, nghost={self.nghost}, nblocks_global={self.nblocks_global})"

    # -- geometry -------------------------------------------------------------------------------
    def _extents(self, xmin, xmax) -> tuple[tuple[float, ...], tuple[float, ...]]:
        lo = [0.0, 0.0, 0.0]
        hi = [1.0, 1.0, 1.0]
        for name, given, target in (("xmin", xmin, lo), ("xmax", xmax, hi)):
            if given is None:
                continue
            values = tuple(given)
            if len(values) not in (self.ndim, 3):
                raise ValueError(
                    f"{name} has {len(values)} entries; give {self.ndim} (or 3) for a {self.ndim}-D mesh"
                )
            for d, v in enumerate(values):
                if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or \
                        not np.isfinite(v):
                    raise ValueError(f"{name}[{d}] must be a finite number, got {v!r}")
                target[d] = float(v)
        for d in range(3):
            if not hi[d] > lo[d]:
                raise ValueError(f"x{d + 1}max ({hi[d]}) must be greater than x{d + 1}min ({lo[d]})")
            if not np.isfinite(hi[d] - lo[d]) or (hi[d] - lo[d]) / self.nx[d] == 0.0:
                raise ValueError(f"x{d + 1}max - x{d + 1}min ({hi[d]} - {lo[d]}) over {self.nx[d]} cells gives "
                                 f"no usable cell width")
        return tuple(lo), tuple(hi)

    @property
    def x1min(self) -> float:
        """Lower x1 edge of the domain."""
        return self.xmin[0]

    @property
    def x1max(self) -> float:
        """Upper x1 edge of the domain."""
        return self.xmax[0]

    @property
    def x2min(self) -> float:
        """Lower x2 edge of the domain."""
        return self.xmin[1]

    @property
    def x2max(self) -> float:
        """Upper x2 edge of the domain."""
        return self.xmax[1]

    @property
    def x3min(self) -> float:
        """Lower x3 edge of the domain."""
        return self.xmin[2]

    @property
    def x3max(self) -> float:
        """Upper x3 edge of the domain."""
        return self.xmax[2]

    def _description(self) -> dict[str, object]:
        """What every rank must give the same (``check_same``): geometry, boundaries, fields, exchange."""
        sides = {side.name: (b.kind.value, getattr(b.function, "__qualname__", None))
                 for side, b in self.boundaries.items()}
        fields = {name: (repr(s.metadata), s.shape, str(s.dtype)) for name, s in self._specs.items()}
        pools = {name: repr(pool) for name, pool in self._pools.items()}
        return {"nx": self.nx[: self.ndim], "block_nx": self.block_nx[: self.ndim], "nghost": self.nghost,
                "xmin": self.xmin, "xmax": self.xmax, "boundaries": sides, "fields": fields,
                "sparse fields": pools, "exchange": self._exchange}

    def _check_memory(self) -> None:
        """``MeshSizeError`` on every rank (collective) when some rank lacks the memory for its blocks' fields (on
        its device) and every block's description, before anything is allocated."""
        nblocks = math.prod(self.nblocks_per_dim)
        local = -(-nblocks // self.nranks)  # the most blocks a rank gets
        nx, bnx = self.nx[: self.ndim], self.block_nx[: self.ndim]
        fields = footprint.field_bytes(self._specs.values(), self.cellbounds, local)
        why = footprint.too_large(f"Mesh(nx={nx}, block_nx={bnx})", fields, nblocks, self.device)
        if self.nranks > 1:
            why = next((w for w in self._halo_comm.allgather(why) if w is not None), None)
        if why is not None:
            raise footprint.MeshSizeError(why)

    def _build_blocks(self) -> None:
        nb1, nb2, nb3 = self.nblocks_per_dim
        self.block_list: list[MeshBlock] = []
        self.blocks: list[MeshBlock] = []
        locations = [(lx1, lx2, lx3) for lx3, lx2, lx1 in itertools.product(range(nb3), range(nb2), range(nb1))]
        owners = assign_ranks(locations, self.nranks)
        for lx1, lx2, lx3 in locations:
            gid = len(self.block_list)
            rank = owners[gid]
            lid = len(self.blocks) if rank == self.rank else None
            block = MeshBlock(self, gid, (lx1, lx2, lx3), rank, lid)
            self.block_list.append(block)
            if lid is not None:
                self.blocks.append(block)
        ranges = [(-1, 0, 1) if d < self.ndim else (0,) for d in range(3)]
        for block in self.block_list:
            for ox3, ox2, ox1 in itertools.product(ranges[2], ranges[1], ranges[0]):
                if (ox1, ox2, ox3) == (0, 0, 0):
                    continue
                nbr = self._neighbor_of(block, (ox1, ox2, ox3))
                if nbr is not None:
                    block.neighbors.append(nbr)
                    block._by_offset[nbr.offset] = nbr

    def _neighbor_of(self, block: MeshBlock, offset: tuple[int, int, int]) -> NeighborBlock | None:
        loc, wrapped = [], []
        for d in range(3):
            x = block.location[d] + offset[d]
            nbd = self.nblocks_per_dim[d]
            if 0 <= x < nbd:
                loc.append(x)
                wrapped.append(False)
            elif self.periodic[d]:
                loc.append(x % nbd)
                wrapped.append(True)
            else:
                return None
        nb1, nb2, _ = self.nblocks_per_dim
        other = self.block_list[loc[0] + nb1 * (loc[1] + nb2 * loc[2])]
        return NeighborBlock(offset, other.gid, other.rank, other.lid, tuple(loc), tuple(wrapped))

    @property
    def nblocks(self) -> int:
        """Number of this rank's blocks (the storage's block axis); every block in one process."""
        return len(self.blocks)

    @property
    def nblocks_global(self) -> int:
        """Number of blocks of the whole mesh, on every rank (``len(mesh.block_list)``)."""
        return len(self.block_list)

    # -- blocks across ranks --------------------------------------------------------------------
    def sum_over_ranks(self, values) -> None:
        """Add ``values`` (a ``wp.array`` or numpy array of one shape and dtype on every rank) up over the
        ranks, in place: afterwards every rank holds the sum, added in rank order (the same bits on every
        rank). After ``tape.backward`` on several ranks, the gradient of a parameter that every rank's kernels
        read (a ``wp.array`` that is not a mesh field) is each rank's blocks' part: sum it before an optimizer
        step. Collective; on one rank nothing changes."""
        from .rank_sums import sum_over_ranks

        sum_over_ranks(self, values)

    def gather_blocks(self, local: np.ndarray, root: int = 0) -> np.ndarray | None:
        """``local`` (first axis: this rank's blocks in ``mesh.blocks`` order) assembled over every
        block in global id order on rank ``root``, as a new array (on one rank too); None on the other
        ranks. Collective: every rank gives the same ``root`` and blocks of one shape and dtype (else a
        ``ValueError`` on every rank: a rank that raised alone left the others waiting for ever)."""
        local = np.asarray(local)
        count = local.shape[0] if local.ndim else 0  # entries along the first axis (a 0-d array has none)
        wrong_length = count != len(self.blocks)
        whole = isinstance(root, (int, np.integer)) and not isinstance(root, bool)
        if self.nranks > 1:  # compared first: a root that only some ranks refuse is an error on every rank
            check_same(self._halo_comm, "gather_blocks",
                       {"root": int(root) if whole else root, "block shape": local.shape[1:], "dtype": str(local.dtype),
                        "first axis": f"{count} entries for {len(self.blocks)} local blocks" if wrong_length
                        else "one entry per local block"},
                       hint="every rank calls mesh.gather_blocks with the same root and blocks of one shape and "
                            "dtype (gathering is collective)")
        if not whole or not 0 <= root < self.nranks:
            raise ValueError(f"gather_blocks: root must be a rank of the mesh (0 to {self.nranks - 1}), got {root!r}")
        if wrong_length:
            raise ValueError(f"gather_blocks: the first axis has {count} entries, not one per local block "
                             f"({len(self.blocks)})")
        if self.nranks == 1:  # a copy, as on several ranks: what a caller keeps must not change with the field
            return local.copy()
        parts = self._halo_comm.gather(([b.gid for b in self.blocks], local), root=root)
        if parts is None:
            return None
        out = np.empty((len(self.block_list), *local.shape[1:]), dtype=local.dtype)
        for gids, values in parts:
            out[gids] = values
        return out

    def local_part(self, global_blocks: np.ndarray) -> np.ndarray:
        """The rows of ``global_blocks`` (first axis: every block in global id order) that belong to
        this rank's blocks, in ``mesh.blocks`` order."""
        if len(global_blocks) != len(self.block_list):
            raise ValueError(f"local_part: the first axis has {len(global_blocks)} entries, not one per block of "
                             f"the mesh ({len(self.block_list)})")
        return global_blocks[[b.gid for b in self.blocks]]

    def write_output(self, path_stem, fields=None, time: float = 0.0, cycle: int = 0) -> tuple[str, str]:
        """Write the interior cells of cell-centred fields, and the nodes of node-centred ones (``fields``: a
        name or a list of them; None: every cell and node field) as ``path_stem.h5`` + ``path_stem.xdmf``,
        which ParaView ("Xdmf3 Reader") and VisIt open:
        one grid per block, a variable per component (``velocity_1``, ...), ``time`` and ``cycle`` recorded.
        Needs h5py (``pip install 'brickwork[io]'``). Collective on several MPI ranks (rank 0 writes); both
        files appear together or not at all (``OutputError`` names the file that could not be written).
        Returns the two paths."""
        from .output import write_output

        return write_output(self, path_stem, fields, time, cycle)

    def write_vtk(self, path_stem, fields=None, time: float = 0.0, cycle: int = 0, collection=None) -> str:
        """Write the interior cells of cell-centred fields (``fields``: a name or a list; None: every cell field)
        as VTK files that ParaView and VisIt open with no extra package: ``path_stem.vtm`` naming one
        ``path_stem/block_GGGGGG.vti`` image per block (variables named as ``write_output`` names them, ``time``
        and ``cycle`` recorded). ``collection``: a ``.pvd`` file to list this output in with its time (a time
        series; outputs it lists at later times are dropped). Collective on several MPI ranks (rank 0 writes).
        Returns the ``.vtm`` path."""
        from .vtk_output import write_vtk

        return write_vtk(self, path_stem, fields, time, cycle, collection)

    def global_array(self, name: str, root: int = 0) -> np.ndarray | None:
        """Field ``name`` over the whole mesh as one numpy array on rank ``root`` (None on the other ranks):
        shape ``(*component shape, nx3, nx2, nx1)`` without the directions a 1-D or 2-D mesh lacks; the
        interior cells of a cell field, the nodes of a node field (one more per direction); zeros where a
        sparse instance is not allocated. Collective on several MPI ranks; a device mesh's field is copied."""
        from .output import global_array

        return global_array(self, name, root)

    def save_restart(self, path, meta: dict | None = None) -> str:
        """Write the state of every field (ghosts and sparse allocation included, every block) to the restart
        file ``path`` with ``meta`` (a dict of JSON values: time, cycle, ...), atomically and with a checksum.
        Collective on several MPI ranks (rank 0 writes). Returns the path."""
        from .checkpoint import save_restart

        return save_restart(self, path, meta)

    def load_restart(self, path) -> dict:
        """Set every field from a restart file of ``save_restart`` and return the ``meta`` it was saved with.
        The mesh must be built as the one that saved it (cells, blocks, ghosts, domain, fields); the number
        of ranks and the device may differ. ``RestartError`` naming what does not fit, before anything
        changes. Collective on several MPI ranks: when any rank cannot use the file, or the ranks read files
        of different content under ``path``, every rank raises ``RestartError`` and none loads."""
        from .checkpoint import load_restart

        return load_restart(self, path)

    # -- fields ---------------------------------------------------------------------------------
    @staticmethod
    def _collect_fields(packages: list[Package]) -> tuple[dict[str, FieldSpec], dict[str, SparsePool]]:
        specs: dict[str, FieldSpec] = {}
        pools: dict[str, SparsePool] = {}
        for n, pkg in enumerate(packages):
            if not isinstance(pkg, Package):
                raise TypeError(f"packages must be Package objects, got {pkg!r}")
            if pkg.name in (p.name for p in packages[:n]):  # Parthenon looks packages up by name
                raise ValueError(f"two packages are named {pkg.name!r}: package names must be unique (as in Parthenon)")
            for base, pool in pkg.sparse_pools.items():
                if base in specs or base in pools:
                    raise ValueError(f"field {base!r} is declared by packages {pkg.name!r} and another package")
                pools[base] = pool
            for name, spec in pkg.fields.items():
                if name in specs or name in pools:
                    owner = specs[name].package if name in specs else pools[name].package
                    raise ValueError(f"field {name!r} is declared by packages {owner!r} and {pkg.name!r}")
                specs[name] = spec
        return specs, pools

    def _unknown(self, name: object) -> KeyError:
        known = sorted(set(self.fields) | set(self._pools))
        close = difflib.get_close_matches(str(name), known, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        listing = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
        return KeyError(f"unknown field {name!r}{hint} (mesh fields: {listing or 'none'})")

    def field(self, name: str) -> Field:
        """The storage of field ``name`` (a dense field or a sparse instance ``base_id``)."""
        try:
            return self.fields[name]
        except (KeyError, TypeError):
            raise self._unknown(name) from None

    def data(self, name: str) -> np.ndarray:
        """The array ``(nblocks, nslots, nk, nj, ni)`` of field ``name`` on this rank's blocks (a
        ``storage.DeviceStorage`` on a CUDA device). A sparse instance allocated on none of them has no
        array here: ValueError (``mesh.field(name).data is None`` tells)."""
        return self.field(name)._require_data()

    def sparse_pool(self, base_name: str) -> SparsePool:
        """The sparse pool declared under ``base_name``."""
        if base_name not in self._pools:
            if base_name in self.fields:
                raise ValueError(f"field {base_name!r} is not a sparse pool")
            raise self._unknown(base_name)
        return self._pools[base_name]

    def field_specs(self) -> dict[str, FieldSpec]:
        """Every declared field (dense and sparse instances) by name."""
        return dict(self._specs)

    def _lid(self, block: MeshBlock | int) -> int:
        if isinstance(block, MeshBlock):
            if block.mesh is not self or block.lid is None:
                raise ValueError(f"{block!r} is not a local block of this mesh")
            return block.lid
        if not isinstance(block, (int, np.integer)) or isinstance(block, bool):
            raise TypeError(f"block must be a MeshBlock or a local block index, got {block!r}")
        if not 0 <= block < len(self.blocks):
            raise IndexError(
                f"block index {block} out of range (the mesh has {len(self.blocks)} local blocks)"
            )
        return int(block)

    def _instance(self, name: str, sparse_id: int) -> Field:
        pool = self.sparse_pool(name)
        if sparse_id not in pool.sparse_ids:
            raise ValueError(
                f"sparse field {name!r} has no sparse id {sparse_id!r} (ids: {list(pool.sparse_ids)})"
            )
        return self.fields[sparse_name(name, sparse_id)]

    def allocate_sparse(self, block: MeshBlock | int, name: str, sparse_id: int) -> bool:
        """Allocate instance ``sparse_id`` of sparse field ``name`` on a local block.

        Returns False if it was already allocated there. New values are zero.
        """
        lid = self._lid(block)
        changed = self._instance(name, sparse_id).allocate(lid)
        self.allocation_version += changed
        return changed

    def deallocate_sparse(self, block: MeshBlock | int, name: str, sparse_id: int) -> bool:
        """Deallocate a sparse instance on a local block; returns False if it was not allocated."""
        lid = self._lid(block)
        changed = self._instance(name, sparse_id).deallocate(lid)
        self.allocation_version += changed
        return changed

    def is_allocated(self, block: MeshBlock | int, name: str, sparse_id: int | None = None) -> bool:
        """True when field ``name`` (instance ``sparse_id`` of a pool) is allocated on the block."""
        lid = self._lid(block)
        fld = self.field(name) if sparse_id is None else self._instance(name, sparse_id)
        return bool(fld.allocated[lid])

    def mesh_data(self, blocks: Iterable[MeshBlock | int] | None = None):
        """A ``MeshData`` over all local blocks, or over the given subset."""
        from .meshdata import MeshData

        return MeshData(self, blocks)

    # -- ghost cells ----------------------------------------------------------------------------
    def fill_ghosts(self, names: Iterable[str] | str | None = None) -> None:
        """Fill the ghost cells of every ``FillGhost`` field (or of the named ones).

        Exchanges ghosts between blocks (edges and corners included, periodic wrap included) and
        applies the physical boundary conditions. Every field is validated before any is touched.
        On a mesh spread over several ranks the call is collective. ``mesh.ghost_seconds`` adds up
        the wall time spent here (on several ranks: waiting for the neighbours included).
        """
        start = time.perf_counter()
        try:
            ghost_cells.fill_ghosts(self, names)
        finally:
            self.ghost_seconds += time.perf_counter() - start

    def boundary_kind(self, side: IndexDomain) -> BoundaryCondition:
        """The kind of boundary condition on ``side``."""
        return self.boundaries[IndexDomain(side)].kind

"""``IndexSpace``: the logical (block, k, j, i) space of a kernel and the memory layout it walks.

The tags and the halo lists are compile-time (part of instance keys); the boxes (``L`` logical,
``M`` memory), ``nblocks`` and ``ninner`` are passed at launch, so one compiled body serves every
mesh size.
"""

from __future__ import annotations

import numbers

from .. import config
from ..device import get_device
from ..errors import LaunchError
from ..mesh import TE, IndexDomain, SparsePack
from ..types.scalars import is_scalar_type
from . import halo as halos
from . import tags
from .indices import Index3, Indexer3D, MemoryOffset


def check_count(value, name: str, where: str) -> int:
    """``value`` as an int; a ``TypeError`` naming ``name`` for anything but an integer (numpy integers
    are integers, bools are not: ``True`` is a switch, not a count)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}: {name} must be an int, got {value!r}")
    return int(value)


#: The directions of a box, in (k, j, i) order, as messages name them.
_DIRECTIONS = ("k (x3)", "j (x2)", "i (x1)")


def _leaving(L: Indexer3D, M: Indexer3D) -> tuple | None:
    """The first direction in which ``L`` leaves ``M`` as (name, L's range, M's range), or None."""
    for name, ls, le, ms, me in zip(_DIRECTIONS, (L.ks, L.js, L.is_), (L.ke, L.je, L.ie), (M.ks, M.js, M.is_),
                                    (M.ke, M.je, M.ie)):
        if ls < ms or le > me:
            return name, (ls, le), (ms, me)
    return None


def check_inside(L: Indexer3D, M: Indexer3D, where: str, fix: str) -> None:
    """A ``ValueError`` naming the first direction in which the logical box ``L`` leaves the memory box
    ``M``, with both ranges and ``fix`` (how to make it fit): the kernels index memory by L's cells
    unchecked, so a cell outside M would be read and written out of bounds."""
    found = _leaving(L, M)
    if found is not None:
        name, (ls, le), (ms, me) = found
        raise ValueError(f"{where}: the logical box leaves the memory box in {name}: L spans [{ls}, {le}], "
                         f"M [{ms}, {me}]; {fix}")


class IndexSpace:
    """``IndexSpace(lt, it, ninner=..., domain=..., nblocks=..., md=..., te=TE.CC, memory_te=TE.CC,
    halo=0, backend=None)``; see also ``IndexSpace.box`` (the test constructor); semantics:
    docs/reference/loop_abstraction_semantics.md §5."""

    def __init__(self, loop_tag, inner_tag, *, ninner=tags.ij_slab, domain=None, nblocks=None, md=None,
                 te=None, memory_te=None, halo: int = 0, backend=None, _boxes=None):
        self.loop_tag = tags.check(loop_tag, "loop", "the loop tag")
        self.inner_tag = tags.check(inner_tag, "inner", "the inner tag")
        self._check_pair(loop_tag, inner_tag)
        # the default: raw on the host target, team on a device target or a current CUDA device (raw is
        # host-only, semantics §12)
        default = tags.raw if config.target == "cpu" and get_device().is_cpu else tags.team
        self.backend = tags.check(backend or default, "backend", "the backend")
        self.ninner = self._check_ninner(ninner)
        nblocks = self._check_nblocks(nblocks)
        self.scratch: list = []
        #: The MeshData the space was built on (None for ``box``): a reduction over a mesh spread
        #: over several ranks combines every rank's partials.
        self.md = md
        #: The extents of the memory box, "cells" or "nodes" (``memory_te=TE.NN``): flat views check
        #: that the fields they address are stored with the same extents (la/kernel_rules.py).
        self.memory_layout = "nodes" if memory_te is TE.NN else "cells"
        if _boxes is not None:
            self.L, self.M = _boxes
        else:
            self.L, self.M = self._boxes_from_mesh(md, domain, te, memory_te, check_count(halo, "halo", "IndexSpace"))
        self.nblocks = nblocks
        self._prepared: dict = {}  # la.outer's checked launch geometry per body (see outer._prepared)
        self._check_boxes(self.L, self.M)

    def check(self) -> None:
        """Check the space again as the constructor does, with its ``TypeError``/``ValueError``: a space
        can be changed after it was built (``space.ninner = 0``, ``space.inner_tag = la.memory``), so
        ``la.outer`` calls this before it launches over a space that changed since its last launch.
        (Whether ``L`` lies inside ``M`` is checked by ``la.outer`` itself, naming the launch.)"""
        tags.check(self.loop_tag, "loop", "the loop tag")
        tags.check(self.inner_tag, "inner", "the inner tag")
        self._check_pair(self.loop_tag, self.inner_tag)
        tags.check(self.backend, "backend", "the backend")
        self._check_ninner(self.ninner)
        self._check_nblocks(self.nblocks)
        self._check_boxes(self.L, self.M)
        from .reducers import Reducer

        if self.reducer is not None and not isinstance(self.reducer, Reducer):
            raise TypeError(f"IndexSpace: the reducer must be an la reducer such as la.Sum(wp.float64), got "
                            f"{self.reducer!r}")

    @staticmethod
    def _check_pair(loop_tag, inner_tag) -> None:
        if loop_tag is tags.boiv and inner_tag is tags.memory:
            raise TypeError("la.IndexSpace(la.boiv, la.memory) is not supported: a single-cell inner range has no "
                            "contiguous memory span (use logical_flat or logical_coords)")

    @staticmethod
    def _check_nblocks(nblocks) -> int:
        if nblocks is None:
            raise TypeError("IndexSpace needs nblocks (take it from the pack: pack.get_nblocks())")
        nblocks = check_count(nblocks, "nblocks", "IndexSpace")
        if nblocks < 1:
            raise ValueError(f"IndexSpace: nblocks must be at least 1, got {nblocks}")
        return nblocks

    @staticmethod
    def _check_boxes(L, M) -> None:
        for name, box in (("L", L), ("M", M)):
            if not isinstance(box, Indexer3D):
                raise TypeError(f"IndexSpace: the box {name} must be an la.Indexer3D, got {box!r}")
        if L.size <= 0:
            raise ValueError(f"IndexSpace: the logical box {L} is empty")

    @staticmethod
    def _check_ninner(ninner):
        if isinstance(ninner, tags.Tag):
            return tags.check(ninner, "chunk", "ninner")
        what = "ninner must be a positive int or la.i_pencil/ij_slab/kji_cube"
        if isinstance(ninner, bool) or not isinstance(ninner, numbers.Integral):
            raise TypeError(f"IndexSpace: {what}, got {ninner!r}")
        if ninner <= 0:
            raise ValueError(f"IndexSpace: {what}, got {ninner!r}")
        return int(ninner)

    @staticmethod
    def _boxes_from_mesh(md, domain, te, memory_te, halo):
        if md is None:
            raise TypeError("IndexSpace needs md= (a MeshData), or use IndexSpace.box(...)")
        te = TE.CC if te is None else te
        memory_te = TE.CC if memory_te is None else memory_te
        if memory_te not in (TE.CC, TE.NN):
            raise ValueError(f"IndexSpace: memory_te must be TE.CC or TE.NN, got {memory_te!r}")
        domain = IndexDomain.interior if domain is None else domain
        mk, mj, mi = (md.get_bounds_k(IndexDomain.entire, memory_te), md.get_bounds_j(IndexDomain.entire, memory_te),
                      md.get_bounds_i(IndexDomain.entire, memory_te))
        lk, lj, li = md.get_bounds_k(domain, te), md.get_bounds_j(domain, te), md.get_bounds_i(domain, te)
        ndim = md.mesh.ndim
        grow = [halo if ndim >= 3 else 0, halo if ndim >= 2 else 0, halo]
        L = Indexer3D(lk.s - grow[0], lk.e + grow[0], lj.s - grow[1], lj.e + grow[1], li.s - grow[2], li.e + grow[2])
        M = Indexer3D(mk.s, mk.e, mj.s, mj.e, mi.s, mi.e)
        if L.size > 0:  # an empty L is reported as such
            base = Indexer3D(lk.s, lk.e, lj.s, lj.e, li.s, li.e)
            by_halo = halo > 0 and _leaving(base, M) is None  # the box fits, its widening does not
            check_inside(L, M, "IndexSpace", _fit_advice(md, domain, te, memory_te, halo if by_halo else 0))
        return L, M

    @classmethod
    def box(cls, loop_tag, inner_tag, nblocks: int, nx: int, ny: int, nz: int, nghost: int,
            ninner=tags.ij_slab, backend=None) -> "IndexSpace":
        """The test space (semantics §5): L = [ng, ng+n-1] and M = [0, 2ng+n-1] in each direction."""
        for name, n in (("nblocks", nblocks), ("nx", nx), ("ny", ny), ("nz", nz), ("nghost", nghost)):
            check_count(n, name, "IndexSpace.box")
        for name, n in (("nx", nx), ("ny", ny), ("nz", nz)):
            if n < 1:
                raise ValueError(f"IndexSpace.box: {name} must be at least 1, got {n}")
        if nghost < 0:
            raise ValueError(f"IndexSpace.box: nghost must not be negative, got {nghost}")
        g, nx, ny, nz = int(nghost), int(nx), int(ny), int(nz)
        L = Indexer3D(g, g + nz - 1, g, g + ny - 1, g, g + nx - 1)
        M = Indexer3D(0, 2 * g + nz - 1, 0, 2 * g + ny - 1, 0, 2 * g + nx - 1)
        return cls(loop_tag, inner_tag, ninner=ninner, nblocks=nblocks, backend=backend, _boxes=(L, M))

    # -- queries -------------------------------------------------------------------------------------
    def get_ndim(self) -> int:
        return sum(1 for n in self.M.shape if n > 1)

    def get_ninner(self, indexer: Indexer3D | None = None) -> int:
        nk, nj, ni = (indexer or self.L).shape
        if self.ninner is tags.i_pencil:
            return ni
        if self.ninner is tags.ij_slab:
            return ni * nj
        if self.ninner is tags.kji_cube:
            return ni * nj * nk
        return self.ninner

    def get_nouter(self) -> int:
        n = self.get_ninner()
        return -(-self.L.size // n)

    def get_memory_offset(self, dk: int, dj: int, di: int) -> int:
        _, nj, ni = self.M.shape
        return dk * nj * ni + dj * ni + di

    def get_delta(self, direction: int):
        """One logical step in ``direction`` (X1DIR=1 is i): Index3 for logical_coords, else a
        MemoryOffset; zero in a direction whose memory extent is 1 (X1 is never zeroed)."""
        nk, nj, _ = self.M.shape
        step = {1: (0, 0, 1), 2: (0, 1 if nj > 1 else 0, 0), 3: (1 if nk > 1 else 0, 0, 0)}.get(direction, (0, 0, 0))
        if self.inner_tag is tags.logical_coords:
            return Index3(*step)
        return MemoryOffset(*step, self.get_memory_offset(*step))

    def add_per_point_scratch(self, dtype, halo=halos.none, dims: tuple = (), count: int = 1) -> None:
        """Register per-point scratch (``count`` buffers of ``dtype`` with ``dims`` components per
        point over ``halo``); get it in the body with ``la.get_per_point_scratch``."""
        if not is_scalar_type(dtype):
            raise TypeError(f"per-point scratch holds scalars, got {getattr(dtype, '__name__', dtype)!r}")
        if not isinstance(halo, halos.Halo):
            raise TypeError(f"halo must be an la.halo value, got {halo!r}")
        dims = tuple(check_count(d, "dims", "add_per_point_scratch") for d in dims)
        count = check_count(count, "count", "add_per_point_scratch")
        if any(d <= 0 for d in dims) or count <= 0:
            raise ValueError(f"scratch dims and count must be positive, got dims={dims}, count={count}")
        values = 1
        for d in dims:
            values *= d
        if values >= 2**31 or count >= 2**31:  # get_per_point_scratch's limit (int32 slots), told where it is declared
            raise ValueError(f"add_per_point_scratch: dims {dims} make {values} values per point and count is {count}; "
                             f"each must be below 2**31 (a scratch index is int32)")
        self.scratch.append((dtype, halo, dims, count))

    #: The reducer of a reduction space (``with_reducer``, ``ReductionIndexSpace``), else None.
    reducer = None

    def with_reducer(self, reducer) -> "IndexSpace":
        """A copy of this space that reduces with ``reducer`` (same boxes, blocks, ninner, scratch)."""
        from copy import copy

        from .reducers import Reducer

        if not isinstance(reducer, Reducer):
            raise TypeError(f"with_reducer needs an la reducer such as la.Sum(wp.float64), got {reducer!r}")
        space = copy(self)
        space.scratch = list(self.scratch)
        space.reducer = reducer
        space._prepared = {}
        return space

    def static_key(self) -> str:
        """What of this space shapes the generated code (compile-time)."""
        reducer = self.reducer.key if self.reducer is not None else "none"
        return f"{self.loop_tag.name}/{self.inner_tag.name}/{self.backend.name}/ndim{self.get_ndim()}/{reducer}"

    def runtime_geometry(self) -> list[int]:
        L, M = self.L, self.M
        nk, nj, ni = M.shape
        return [L.ks, L.ke, L.js, L.je, L.is_, L.ie, nk, nj, ni, self.get_ninner(), self.get_nouter()]

    def _check_box_storage(self, body: str, name: str, value) -> None:
        """Refuse a pack whose storage the box's memory box ``M`` exceeds on an axis (a body's cells reach past
        the storage: a view's flat offset wrote past the array), or, under a flat or memory inner tag, whose
        cell storage has other extents (a view's flat offsets land on other rows' cells); release builds test
        no cell index as it runs. Once per pack, memory box and inner tag in a row (noted on the pack)."""
        memory = self.M.shape
        stored = [tuple(a.shape[-3:]) for a in value.arrays]
        if not stored:
            return
        widest = tuple(max(s[axis] for s in stored) for axis in range(3))
        mesh = value.md.mesh
        cells = tuple(mesh.block_nx[2 - a] + 2 * mesh.nghost if mesh.ndim > 2 - a else 1 for a in range(3))
        flat = self.inner_tag is not tags.logical_coords
        if any(m > w for m, w in zip(memory, widest)) or (flat and memory != cells):
            reach = (f"cells up to {tuple(m - 1 for m in memory)} (k, j, i), past its storage {widest}"
                     if any(m > w for m, w in zip(memory, widest)) else
                     f"flat memory offsets of rows of {memory[2]} cells in planes of {memory[1]} rows, but its cell "
                     f"storage holds {cells} (k, j, i), so the offsets land on other cells")
            raise LaunchError(f"loop body '{body}': the index space's memory box {self.M} (IndexSpace.box) has "
                              f"extents {memory} (k, j, i), which takes pack '{name}' to {reach}; release builds "
                              f"test no cell index as it runs: build the space from the pack's mesh "
                              f"(la.IndexSpace(..., md=...)) or a box of its blocks (nx, ny, nz = "
                              f"{', '.join(str(n) for n in mesh.block_nx[:3])}, nghost={mesh.nghost})")
        value.__dict__["_bw_box_ok"] = (self.M, self.inner_tag)

    def check_pack(self, body: str, name: str, value) -> None:
        """Refuse (``LaunchError``) a pack captured by ``body`` that does not fit this space: the grid
        takes a pack's block index and memory layout from the space, unchecked in the kernel, so a
        pack of fewer blocks, or over a mesh of other block sizes, would be read and written out
        of bounds."""
        if type(value) is not SparsePack:
            return
        if value.get_nblocks() < self.nblocks:
            raise LaunchError(f"loop body '{body}': the index space visits {self.nblocks} blocks but pack '{name}' "
                              f"holds {value.get_nblocks()} (make the space with nblocks=pack.get_nblocks())")
        mine, theirs = getattr(self.md, "mesh", None), value.md.mesh
        if mine is None:  # IndexSpace.box: its memory box is the user's word for the blocks' storage
            ok = value.__dict__.get("_bw_box_ok")  # the box and tag it was last found to fit (boxes are frozen)
            if ok is None or ok[0] is not self.M or ok[1] is not self.inner_tag:
                self._check_box_storage(body, name, value)
        elif theirs is not mine and \
                (theirs.block_nx, theirs.nghost) != (mine.block_nx, mine.nghost):
            raise LaunchError(f"loop body '{body}': pack '{name}' is over a mesh of blocks "
                              f"{theirs.block_nx[:theirs.ndim]} with {theirs.nghost} ghost layers, the index space "
                              f"over blocks {mine.block_nx[:mine.ndim]} with {mine.nghost} (make both from the same "
                              f"mesh)")

    def __repr__(self):
        return (f"IndexSpace({self.loop_tag!r}, {self.inner_tag!r}, backend={self.backend!r}, nblocks={self.nblocks}, "
                f"L={self.L}, M={self.M}, ninner={self.get_ninner()})")


def _fit_advice(md, domain, te, memory_te, halo: int) -> str:
    """How to make the logical box of a mesh space fit its memory box (``check_inside``'s ``fix``);
    ``halo``: the widening that takes a fitting box out of it (0: the box itself does not fit)."""
    more = f"more ghost cells (Mesh(..., nghost=...), now {md.mesh.nghost})"
    if halo > 0:
        return f"halo={halo} widens L past the ghost cells: use a smaller halo or {more}"
    if te is not TE.CC and memory_te is not TE.NN:
        return (f"te=TE.{te.name} has one index more than the cells in its direction(s): use memory_te=TE.NN (the "
                f"node extents) or {more}")
    return f"the {domain.name} box of TE.{te.name} does not fit the memory of TE.{memory_te.name}: use {more}"

"""IR nodes of the loop abstraction (``IRLA*``), of mesh packs (``IRPack*``) and of nested parallelism
(``IRTeam*``): they keep their meaning until a target's passes expand them (``passes/expand_loop_abstraction.py``,
``lower_teams.py``, ``lower_pack_access.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from .nodes import IRExpr, IRLocal, IRStmt

__all__ = [
    "IRTeamBegin", "IRTeamScratch", "IRTeamLoop", "IRTeamBarrier", "PackVar", "IRPackElem", "IRPackBound",
    "LAConfig", "IRLAOuter", "IRLAInner", "IRLAGetKJI", "IRLAScratch", "IRLAScratchElem", "IRLAScratchZero",
    "LAView", "IRLAViewElem", "IRLAFold", "IRSliceReduction"
]


# -- nested parallelism (par_for_outer teams) -----------------------------------------------------


@dataclass(eq=False)
class IRTeamBegin(IRExpr):
    """A fresh team whose scratch arena holds ``arena_bytes`` (int64) bytes."""

    arena_bytes: IRExpr
    type: object  # TEAM_MEMBER


@dataclass(eq=False)
class IRTeamScratch(IRExpr):
    """A scratch array of the team's arena: ``type`` is ArrayType(dtype, len(sizes))."""

    member: IRExpr
    sizes: list
    type: object


@dataclass(eq=False)
class IRTeamLoop(IRStmt):
    """``par_for_inner``: ``var`` over ``lo..hi`` inclusive, iterations independent, in one team."""

    member: IRExpr
    var: IRLocal
    lo: IRExpr
    hi: IRExpr
    body: list


@dataclass(eq=False)
class IRTeamBarrier(IRStmt):
    """Every thread of the team reaches this point before any goes on (``member`` None: the slice)."""

    member: IRExpr | None


# -- mesh packs -----------------------------------------------------------------------------------


@dataclass(eq=False)
class PackVar:
    """Which variable component of a pack: flat index = lower bound of ``position`` + ``offset``
    (``position`` None: ``offset`` is the flat index itself)."""

    position: int | None
    offset: IRExpr


@dataclass(eq=False)
class IRPackElem(IRExpr):
    """One element of a pack's storage: block ``block``, variable ``var``, topological ``element``
    (or flux direction ``flux_dir``, 1-based), at cell ``kji`` or at flat memory offset ``memory``."""

    pack: IRExpr
    block: IRExpr
    var: PackVar
    element: int
    flux_dir: IRExpr | None
    kji: list | None
    memory: IRExpr | None
    type: object
    where: str = ""


@dataclass(eq=False)
class IRPackBound(IRExpr):
    """Lower or upper flat index (``which``) of variable ``position`` in block ``block``."""

    pack: IRExpr
    block: IRExpr
    position: int
    which: str
    type: object


# -- the loop abstraction ------------------------------------------------------------------------


@dataclass(frozen=True)
class LAConfig:
    """What an outer body was compiled for: tags, backend, dimensionality, chunking, reducer."""

    loop: str  # bvoi | bovi | boiv
    inner: str  # logical_flat | logical_coords | memory
    backend: str  # raw | team
    ndim: int
    chunk: str  # count | i_pencil | ij_slab | kji_cube
    reducer: object = None  # a la reducer (value_type, dtype, join, identity, with_location)
    rows: str = "any"  # "short": the logical box's rows are under la.outer's SHORT_ROW cells


@dataclass(eq=False)
class IRLAOuter(IRStmt):
    """The body of an outer kernel: runs once per slice of the index space; ``block`` is ``b``."""

    config: LAConfig
    block: IRLocal
    body: list


@dataclass(eq=False)
class IRLAInner(IRStmt):
    """Visit the cells of the slice grown by ``halo`` with tag ``inner``, binding ``params`` (the
    index, or k, j, i); ``reduce``: an ``inner_reduce`` whose body folds (``IRLAFold``)."""

    halo: object
    inner: str
    params: list
    body: list
    reduce: bool = False
    # the visits may run as a vector loop: off where iterations update the same memory (a backward
    # body's adjoint scatters into neighbouring scratch slots)
    simd: bool = True


@dataclass(eq=False)
class IRLAGetKJI(IRExpr):
    """``rng.get_kji(index)``: the (k, j, i) of an index of the slice."""

    index: IRExpr
    type: object  # tuple of three int32


@dataclass(eq=False)
class IRLAScratch(IRStmt):
    """Allocate per-point scratch ``storage`` (ArrayType(dtype, 1)) over the slice grown by ``halo``,
    ``dims`` components per point; ``halo`` None: one set of ``dims`` components for the whole slice
    (its elements have an empty point; a backward kernel sums the adjoints of slice values there)."""

    storage: IRLocal
    halo: object
    dims: tuple


@dataclass(eq=False)
class IRLAScratchElem(IRExpr):
    """Component ``comps`` of the scratch ``storage`` at ``point`` (an index or k, j, i)."""

    storage: IRLocal
    comps: list
    point: list
    type: object
    where: str = ""


@dataclass(eq=False)
class IRLAScratchZero(IRStmt):
    storage: IRLocal


@dataclass(eq=False)
class LAView:
    """A view of a slice into a pack's variables (``kind`` pack) or fluxes (``kind`` flux, through
    faces of ``direction``)."""

    kind: str
    pack: IRExpr
    direction: IRExpr | None = None


@dataclass(eq=False)
class IRLAViewElem(IRExpr):
    """An element of a view at ``point`` (an index or k, j, i)."""

    view: LAView
    var: PackVar
    element: int
    point: list
    type: object
    where: str = ""


@dataclass(eq=False)
class IRLAFold(IRStmt):
    """Fold ``value`` into the slice's accumulator (``location``: (b, k, j, i), filled by expansion)."""

    value: IRExpr
    location: tuple | None = None


@dataclass(eq=False)
class IRSliceReduction(IRStmt):
    """A slice of an ``outer_reduce``: fold ``body`` into an accumulator, store it at
    ``partials[slice_id]``."""

    reducer: object
    partials: IRLocal
    slice_id: IRExpr
    body: list
    per_block: bool = False  # GPU mapping: a thread block runs the slice (threads fold, then a tree)

"""IR nodes of the GPU mapping: block and thread indices, grid and block extents, the host launch's extents,
barriers, warp shuffles, static shared buffers and a block's scratch arena (made by the GPU mapping's passes,
rendered by a device target)."""

from __future__ import annotations

from dataclasses import dataclass

from ..types.scalars import int32
from .nodes import IRExpr, IRStmt

__all__ = [
    "IRGpuIndex", "IRGpuDim", "IRLaunchExtent", "IRGpuBarrier", "IRGpuShuffleDown", "IRSharedBuffer", "IRGpuArena"
]


# -- GPU mapping ---------------------------------------------------------------------------------
# What the GPU mapping passes (``gpu_teams``) produce: grids of thread blocks instead of grid
# points. Indices and extents are int32, blocks and grids one-dimensional (``dim`` 0) today.


@dataclass(eq=False)
class IRGpuIndex(IRExpr):
    """``blockIdx`` (``axis`` "block") or ``threadIdx`` (``axis`` "thread") along ``dim`` (int32)."""

    axis: str
    dim: int = 0
    type: object = None

    def __post_init__(self):
        self.type = self.type or int32


@dataclass(eq=False)
class IRGpuDim(IRExpr):
    """``gridDim`` (``axis`` "grid") or ``blockDim`` (``axis`` "block") along ``dim`` (int32)."""

    axis: str
    dim: int = 0
    type: object = None

    def __post_init__(self):
        self.type = self.type or int32


@dataclass(eq=False)
class IRLaunchExtent(IRExpr):
    """The extent of the host's launch (``dim=`` of ``wp.launch``, the CPU grid) along ``dim`` (int32)."""

    dim: int
    type: object = None

    def __post_init__(self):
        self.type = self.type or int32


@dataclass(eq=False)
class IRGpuBarrier(IRStmt):
    """Every thread of the block reaches this point before any goes on (``__syncthreads()``); only
    where every thread of the block gets to it (uniform control flow). ``warp``: every thread of the
    thread's warp only (``__syncwarp()``), where what was written before is read after by the writer's
    warp alone; a target without warps may wait for the block."""

    warp: bool = False


@dataclass(eq=False)
class IRGpuShuffleDown(IRStmt):
    """``target`` = ``source`` of the lane ``delta`` above in the thread's warp of 32 (``__shfl_down_sync``
    over all lanes); a lane whose partner is past the warp's last keeps its own ``source``. Every thread
    of the block runs it, as a barrier (uniform control flow); ``target`` and ``source`` are locals."""

    target: IRExpr
    source: IRExpr
    delta: int


@dataclass(eq=False)
class IRSharedBuffer(IRExpr):
    """A static shared-memory array of the block, ``count`` elements: ``type`` is ArrayType(dtype, 1).
    Every use of ``name`` is the same buffer."""

    name: str
    count: int
    type: object


@dataclass(eq=False)
class IRGpuArena(IRExpr):
    """The block's scratch arena of ``size`` bytes (int64, the same for every block of a launch):
    dynamic shared memory when ``size <= shared_limit``, else the block's part of a global scratch
    buffer. ``IRTeamScratch`` allocates from it as from a team's arena."""

    size: IRExpr
    shared_limit: int
    type: object  # TEAM_MEMBER

"""adjoint_fixed_arrays: fixed-size local arrays (``wp.zeros`` in a kernel) and tiles in a backward kernel.

Their elements live in the thread's frame, so the forward launch's values are gone when the backward
kernel runs: the replay stores (and applies atomics) into them again. Adjoints flow through their elements
as through a tile's: each one whose dtype carries an adjoint has an adjoint local array of its type, and a
view of one (``row = a[1]``, a slice, a @func's array parameter bound to it) the same view of that adjoint
(``adjoint_tiles.TileAdjoints.follow_local_view``).

A loop that writes them is replayed once per iteration by the reverse sweep, after the whole forward
replay (and the later iterations) changed them: a recorded loop saves the fixed-size arrays at the top of
every iteration with its carried values, and the reversed iteration restores them before replaying it,
so the values the iteration reads are the ones it read in the forward launch (``loop_state``). Tiles are
stored the same way, but adjoints flow through their elements and a loop saves only the tiles that need it
(``adjoint_tiles``).
"""

from __future__ import annotations

from .. import ir
from ..types.fixed_arrays import FixedArrayType
from ..types.tiles import TileType
from .adjoint_tiles import tile_loop_saves, tiles_read_by
from .adjoint_values import access_path


class FixedStorage:
    """The locals that are, or are views of, fixed-size local arrays (part of the adjoint builder)."""

    def __init__(self):
        self.names: set = set()
        self.adjoints: dict = {}  # view local name -> the local holding its adjoint view (follow_local_view)
        self.adjoint_names: set = set()  # the adjoints of local arrays: the reverse sweep's, never saved
        self.saved: dict = {}  # id(loop) -> the fixed-size array locals it saves (loop_state)
        self.tile_saves: dict | None = None  # id(loop) -> the tiles it saves (tiles_saved)

    def loop_state(self, fn: ir.IRFunction, loop) -> list:
        """The fixed-size local arrays a recorded loop saves at the top of every iteration: every one of
        the function's but tiles (``tiles_saved``) when the loop may write one (a store or atomic into a
        local array, a view of one included, or an assignment of a whole one), else none; then the tiles
        it must save. Kernels without them save nothing more."""
        found = self.saved.get(id(loop))
        if found is None:
            arrays = [ir.IRLocal(n, t) for n, t in fn.locals.items()
                      if isinstance(t, FixedArrayType) and not isinstance(t, TileType) and n not in self.adjoint_names]
            params = {n for n, _ in fn.params}
            found = arrays if arrays and any(_may_write_local_array(s, params) for s in ir.walk(loop.body)) else []
            found = found + self.tiles_saved(fn, loop)[0]
            self.saved[id(loop)] = found
        return found

    def tiles_saved(self, fn: ir.IRFunction, loop) -> tuple:
        """(the tiles a recorded loop saves per iteration, those it copies at its start): worked out once per
        function (``adjoint_tiles.tile_loop_saves``)."""
        if self.tile_saves is None:
            has_tiles = any(isinstance(t, TileType) for t in fn.locals.values())
            self.tile_saves = tile_loop_saves(fn.body, fn.locals) if has_tiles else {}
        found = self.tile_saves.get(id(loop))
        if found is None:  # a loop the analysis did not meet (a copy of one): every tile it reads
            found = (tiles_read_by(loop, fn.locals), [])
        return found

    def holds(self, arr) -> bool:
        """True when array-typed ``arr`` is a fixed-size local array or a view of one."""
        if isinstance(arr.type, FixedArrayType):
            return True
        if isinstance(arr, ir.IRLocal):
            return arr.name in self.names
        if isinstance(arr, ir.IRSubarray):
            return self.holds(arr.array)
        if isinstance(arr, ir.IRCall) and arr.op == "array_slice":
            return self.holds(arr.args[0])
        return False

    def follow(self, target: ir.IRLocal, value) -> None:
        """``target = value``: the target is a view of fixed storage when the value is."""
        if self.holds(value):
            self.names.add(target.name)
        else:
            self.names.discard(target.name)

    def stores(self, s) -> bool:
        """True for a store or atomic into fixed storage (replayed, not reversed)."""
        call = s.expr if isinstance(s, ir.IRExprStmt) else s.value if isinstance(s, ir.IRAssign) else None
        if isinstance(call, ir.IRCall) and call.op.startswith("atomic_"):
            return self.holds(ir.atomic_parts(call)[0])
        if isinstance(s, ir.IRAssign) and not isinstance(s.target, ir.IRLocal):
            root = access_path(s.target)[1]
            return isinstance(root, ir.IRArrayElem) and self.holds(root.array)
        return False


def _may_write_local_array(s, params: set) -> bool:
    """Whether statement ``s`` may write a fixed-size local array (or a view of one): a store or atomic into
    an array that is not a parameter, or an assignment of a whole fixed-size array."""
    call = s.expr if isinstance(s, ir.IRExprStmt) else s.value if isinstance(s, ir.IRAssign) else None
    if isinstance(call, ir.IRCall) and call.op.startswith("atomic_"):
        arr = ir.atomic_parts(call)[0]
        return not (isinstance(arr, ir.IRLocal) and arr.name in params)
    if not isinstance(s, ir.IRAssign):
        return False
    if isinstance(s.target, ir.IRLocal):
        return isinstance(s.target.type, FixedArrayType)
    root = access_path(s.target)[1]
    if isinstance(root, ir.IRArrayElem):
        arr = root.array
        return not (isinstance(arr, ir.IRLocal) and arr.name in params)
    return False

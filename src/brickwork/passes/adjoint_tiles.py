"""adjoint_tiles: tiles (``TileType`` locals, Warp's ``wp.tile_*``) in a backward kernel (``adjoint``).

A tile is stored like a fixed-size local array, and gradients flow through both the same way (Warp's tiles
pass them; its fixed-size arrays read zeros in its replay). Every tile or local array ``t`` of a
differentiable dtype has an adjoint ``adj_t`` of its type, zero at the start like every adjoint local, and a
view of a local array the same view of its adjoint (``follow_local_view``):

- reversing a read ``v = t[i]`` adds adj(v) into ``adj_t[i]`` (a plain add: one thread owns the array);
- reversing an ``atomic_add``/``atomic_sub``/``atomic_exch`` into a local array moves the adjoints as the
  update it is (``reverse_local_atomic``); ``atomic_min``/``atomic_max``/``atomic_cas`` are refused;
- reversing a store ``t[i] = v`` moves ``adj_t[i]`` to v and clears it (the store overwrote the element);
- reversing a whole assignment ``b = a`` (a copy: ``b = a`` in user code, a tile passed to a @func or
  returned by one, a loop's carried tile) adds ``adj_b`` into ``adj_a`` element by element and clears
  ``adj_b``; a new tile (``b = fixed_zeros()``, before its elements are written) only clears it.

The forward replay stores into tiles again (their values are gone). A loop replayed per iteration by the
reverse sweep must see the tiles it reads as the forward launch left them at that iteration:
``tile_loop_saves`` picks the tiles a recorded loop saves at the top of every iteration for that. Tile
operations write a new tile each (the normal form versions whole assignments), so their element loops
save nothing; saving every tile per element (as plain fixed-size arrays are saved) would cost the tiles'
size times their element count.
"""

from __future__ import annotations

import re

from .. import ir
from ..types.arrays import ArrayType
from ..types.fixed_arrays import FixedArrayType
from ..types.scalars import int32
from ..types.tiles import TileType
from .adjoint_refusals import not_differentiable
from .adjoint_values import access_path, carries_adjoint, zero
from .build import i32


def tile_with_adjoint(arr) -> bool:
    """True when the array-typed atom ``arr`` is a tile or fixed-size local array whose elements carry an
    adjoint (its adjoint is a local array of its type)."""
    return isinstance(arr, ir.IRLocal) and isinstance(arr.type, FixedArrayType) and carries_adjoint(arr.type.dtype)


class TileAdjoints:
    """The tiles' part of the backward kernel's builder (``adjoint._Adjoint``: ``adj_of``, ``hand_over``,
    ``_add_into``, ``locals``, ``label``)."""

    def tile_elem_adjoint(self, elem: ir.IRArrayElem) -> ir.IRArrayElem:
        """The element of the adjoint tile at the place of ``elem`` (an element of a tile)."""
        return ir.IRArrayElem(self.adj_of(elem.array), elem.indices, elem.type)

    def reverse_tile_assign(self, target: ir.IRLocal, value, out):
        """``target = value`` for a whole tile: a copy sends its adjoint to the copied tile, a new (zero) tile
        none; either way the target's adjoint is cleared (the assignment started a new value)."""
        adj = self.adj_of(target)
        if isinstance(value, ir.IRLocal) and value.type is target.type:
            out.extend(self.add_tiles(self.adj_of(value), adj))
        elif isinstance(value, ir.IRTupleGet):  # a tuple the normal form could not split (normal_form.tuple_parts)
            raise not_differentiable(self.label, "a tile taken, after a loop, from a tuple of tiles the loop "
                                      "assigned (a @func's results, or a tile argument it changed in place) has no "
                                      "adjoint yet; take the tiles out of the tuple inside the loop's body")
        elif not (isinstance(value, ir.IRCall) and value.op == "fixed_zeros"):
            raise not_differentiable(self.label, f"a tile assigned from {type(value).__name__[2:]} has no adjoint "
                                      "yet (tiles differentiate through tile operations, copies and @func calls)")
        out.append(ir.IRAssign(adj, ir.IRCall("fixed_zeros", [], target.type)))

    def local_view_adjoint(self, value):
        """The adjoint of a view of a local array with an adjoint (``row = a[1]``, ``a[1:3]``, a @func's array
        parameter bound to a local array): the same view of the array's adjoint, or None when the array has
        none (an inactive one, a dtype without adjoints)."""
        if isinstance(value, ir.IRLocal):
            if self.tile_with_adjoint(value):
                return self.adj_of(value)
            return self.fixed.adjoints.get(value.name)
        if isinstance(value, ir.IRSubarray):
            base = self.local_view_adjoint(value.array)
            return None if base is None else ir.IRSubarray(base, value.indices, value.type)
        if isinstance(value, ir.IRCall) and value.op == "array_slice":
            base = self.local_view_adjoint(value.args[0])
            return None if base is None else ir.IRCall("array_slice", [base, *value.args[1:]], value.type,
                                                        where=value.where)
        return None

    def follow_local_view(self, target: ir.IRLocal, value, out):
        """``target = value``, a view of a local array: its adjoint view follows it (``local_view_adjoint``)."""
        adj = self.local_view_adjoint(value)
        if adj is None:
            self.fixed.adjoints.pop(target.name, None)
            return
        place = self.fixed.adjoints.get(target.name)
        if place is None:
            place = self.fixed.adjoints[target.name] = self.locals.new(f"_adj_{target.name}_", target.type)
        out.append(ir.IRAssign(place, adj))

    def local_elem_adjoint(self, elem: ir.IRArrayElem):
        """The adjoint's element at the place of ``elem``, an element of a local array or of a view of one, or
        None when it has no adjoint (a constant to the reverse sweep)."""
        if self.tile_with_adjoint(elem.array):
            return self.tile_elem_adjoint(elem)
        adj = self.local_view_adjoint(elem.array)
        return None if adj is None else ir.IRArrayElem(adj, elem.indices, elem.type)

    def reverse_local_atomic(self, call, result, out):
        """``result = atomic_op(a, i..., v)`` into a local array ``a`` (or a view of one) reversed: one thread
        owns the array, so the adjoints move as for a store and a read. ``atomic_add``/``atomic_sub``: v gets
        (minus) the element's adjoint, which passes on to the element's old value; ``atomic_exch``: v gets it
        and the old value only what ``result`` carries. ``atomic_min``/``atomic_max``/``atomic_cas`` on an
        element with an adjoint are refused (which value won is gone from the replayed array)."""
        arr, idx, (value,) = ir.atomic_parts(call)
        place = self.local_elem_adjoint(ir.IRArrayElem(arr, list(idx), value.type, call.where))
        if place is None:
            return
        if call.op not in ("atomic_add", "atomic_sub", "atomic_exch"):
            raise not_differentiable(self.label, f"{call.op} into the local array '{_array_name(arr)}'"
                                     f"{_at(call.where)} has no adjoint yet; write the element with a comparison "
                                     "and a store instead")
        if carries_adjoint(value.type) and isinstance(value, ir.IRLocal):
            g = self.locals.new("_ad_g", value.type)
            out.append(ir.IRAssign(g, place if call.op != "atomic_sub" else ir.IRCall("neg", [place], value.type)))
            self.accumulate(value, g, out)
        if call.op == "atomic_exch":
            out.append(ir.IRAssign(place, zero(value.type)))
        if isinstance(result, ir.IRLocal) and self.has_adjoint(result):
            self._add_into(place, self.adj_of(result), out)
            out.append(ir.IRAssign(self.adj_of(result), zero(result.type)))

    def tile_start_copies(self, loop) -> list:
        """(tile, its copy) for each tile a recorded loop copies at its start (``tile_loop_saves``): the copy
        is made by the loop's replay, and restored before its reversed iterations (the same loop is not
        replayed again between the two)."""
        found = self.tile_copies.get(id(loop))
        if found is None:
            tiles = self.fixed.tiles_saved(self.fn, loop)[1]
            found = self.tile_copies[id(loop)] = [(t, self.locals.new(f"_ad_start_{t.name}_", t.type)) for t in tiles]
        return found

    def add_tiles(self, place: ir.IRLocal, value: ir.IRLocal) -> list:
        """Loops adding tile ``value`` into tile ``place`` element by element (both of one tile type)."""
        t = place.type
        idx = [self.locals.new("_ad_e", int32) for _ in t.shape]
        body: list = []
        self._add_into(ir.IRArrayElem(place, idx, t.dtype), ir.IRArrayElem(value, idx, t.dtype), body)
        for d in reversed(range(len(t.shape))):
            body = [ir.IRFor(idx[d], i32(0), i32(t.shape[d]), i32(1), body, step_sign=1)]
        return body


def _array_name(arr) -> str:
    while not isinstance(arr, ir.IRLocal) and hasattr(arr, "array"):
        arr = arr.array
    return re.sub(r"__\d+$", "", getattr(arr, "name", "?"))  # the user's name, not the normal form's version


def _at(where: str) -> str:
    return f" at {where}" if where else ""


# -- which tiles a recorded loop saves ---------------------------------------------------------------------


def tile_loop_saves(body: list, locals_: dict) -> dict:
    """id(loop) -> (tiles saved at the top of every iteration, tiles copied at the start) for each loop of
    ``body`` (a normal form): the tiles it reads that are written element-wise (in place) where a replay of
    the loop's iterations would see the writes: in the loop itself, or after it, up to the end of the
    enclosing loop's body (whose own saves restore what its iterations start from) or of the function. A
    tile the loop assigns as a whole is made again by the replay of each iteration (or is a carried value,
    saved as such) and is not saved. A tile the loop only reads (written after it), or updates element by
    element (``_elementwise``), is copied once, at its start, and restored once, before its reversed
    iterations."""
    views = _tile_views(body, locals_)
    saves: dict = {}
    _visit(body, set(), views, saves)
    return {k: tuple([ir.IRLocal(n, locals_[n]) for n in sorted(names)] for names in both)
            for k, both in saves.items()}


def _elementwise(loop, tile: str) -> bool:
    """Whether every iteration of ``loop`` touches elements of ``tile`` no other iteration does, and only
    them: every use of the tile in its body is an element at one index list, which holds the loop's variable
    (``t[i, j] = t[i, j] + v``, as in-place tile operations update a tile). A copy of the tile at the loop's
    start then holds what each iteration reads, for every iteration."""
    if not isinstance(loop, ir.IRFor):
        return False
    mentions = [n for n in ir.walk(loop.body) if isinstance(n, ir.IRLocal) and n.name == tile]
    elems = [n for n in ir.walk(loop.body) if isinstance(n, ir.IRArrayElem) and isinstance(n.array, ir.IRLocal)
             and n.array.name == tile]
    if not elems or len(elems) != len(mentions):  # a whole use (a copy), or a use through a view
        return False
    keys = {tuple(_index_key(i) for i in e.indices) for e in elems}
    return len(keys) == 1 and ("local", loop.var.name) in next(iter(keys))


def _index_key(e):
    if isinstance(e, ir.IRLocal):
        return ("local", e.name)
    if isinstance(e, ir.IRConst):
        return ("const", e.value)
    return ("node", id(e))  # not an atom: never the same index as another


def unread_tile_stores(loop, locals_: dict) -> frozenset:
    """The tiles (and views of them: local names) that ``loop``'s body writes elements of and never reads.
    The replay of one of its iterations in the reverse sweep leaves their stores out: a tile's values are
    read only by replays (the reverse sweep of a read or a store needs only the tile's adjoint), the loop's
    replays do not read these, and a replay that runs later and does read one (an earlier loop's, an
    enclosing loop's next iteration) restores it first from what it saved or copied (``tile_loop_saves``:
    the tile is written after that loop, or in it)."""
    views = _tile_views(loop.body, locals_)
    read = _reads(loop.body, views)
    return frozenset(n for n, t in views.items() if t not in read)


def tiles_read_by(loop, locals_: dict) -> list:
    """The fallback of ``tile_loop_saves`` for a loop it did not see: every tile the loop reads and does not
    assign as a whole."""
    views = _tile_views(loop.body, locals_)
    names = _reads(loop.body, views) - _whole_assigned(loop.body)
    return [ir.IRLocal(n, locals_[n]) for n in sorted(names)]


def _visit(stmts: list, later: set, views: dict, saves: dict) -> None:
    """Record the saves of the loops in ``stmts`` (id(loop) -> (tiles saved per iteration, tiles copied at
    its start)); ``later``: the tiles written in place after ``stmts`` within the replay's reach."""
    after = set(later)
    for s in reversed(stmts):  # ``after``: the writes after ``s``
        if isinstance(s, (ir.IRFor, ir.IRWhile)):
            stored = _element_stores(s.body, views)
            needed = (_reads(s.body, views) & (stored | after)) - _whole_assigned(s.body)
            # a tile no iteration writes (only what follows the loop does) holds at every iteration what it
            # held at the start: one copy, not one per iteration (a buffer overwritten by the next loop)
            at_start = {t for t in needed if t not in stored or _elementwise(s, t)}
            saves[id(s)] = (needed - at_start, at_start)
            _visit(s.body, set(), views, saves)  # its iterations are replayed one at a time
        else:
            for block in (getattr(s, "body", None), getattr(s, "orelse", None)):
                if isinstance(block, list):
                    _visit(block, after, views, saves)
        after |= _element_stores([s], views)


def _tile_views(body: list, locals_: dict) -> dict:
    """Local name -> the tile it is (a tile local itself, or an array local viewing one)."""
    views = {n: n for n, t in locals_.items() if isinstance(t, TileType)}
    for s in ir.walk(body):
        if isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal) and isinstance(s.target.type, ArrayType) \
                and not isinstance(s.target.type, FixedArrayType):
            base = _base_array(s.value)
            if isinstance(base, ir.IRLocal) and base.name in views:
                views[s.target.name] = views[base.name]
    return views


def _base_array(value):
    while True:
        if isinstance(value, ir.IRSubarray):
            value = value.array
        elif isinstance(value, ir.IRCall) and value.op == "array_slice" and value.args:
            value = value.args[0]
        else:
            return value


def _stored_array(s):
    """The array an assignment or atomic statement writes an element of, or None."""
    call = s.expr if isinstance(s, ir.IRExprStmt) else s.value if isinstance(s, ir.IRAssign) else None
    if isinstance(call, ir.IRCall) and call.op.startswith("atomic_"):
        return ir.atomic_parts(call)[0]
    if isinstance(s, ir.IRAssign) and not isinstance(s.target, ir.IRLocal):
        root = access_path(s.target)[1]
        if isinstance(root, ir.IRArrayElem):
            return root.array
    return None


def _element_stores(stmts: list, views: dict) -> set:
    """The tiles ``stmts`` write elements of (through views of them too)."""
    found = set()
    for s in ir.walk(stmts):
        arr = _stored_array(s)
        if isinstance(arr, ir.IRLocal) and arr.name in views:
            found.add(views[arr.name])
    return found


def _whole_assigned(stmts: list) -> set:
    return {s.target.name for s in ir.walk(stmts)
            if isinstance(s, ir.IRAssign) and isinstance(s.target, ir.IRLocal) and isinstance(s.target.type, TileType)}


def _reads(stmts: list, views: dict) -> set:
    """The tiles ``stmts`` read: every mention of one (or of a view of one) but as the array a statement
    stores into or the local a whole assignment assigns."""
    mentions: dict = {}
    for n in ir.walk(stmts):
        if isinstance(n, ir.IRLocal) and n.name in views:
            mentions[n.name] = mentions.get(n.name, 0) + 1
        elif isinstance(n, ir.IRAssign):
            root = access_path(n.target)[1]
            written = root if isinstance(root, ir.IRLocal) else getattr(root, "array", None)
            if isinstance(written, ir.IRLocal) and written.name in views:
                mentions[written.name] = mentions.get(written.name, 0) - 1
    return {views[n] for n, count in mentions.items() if count > 0}

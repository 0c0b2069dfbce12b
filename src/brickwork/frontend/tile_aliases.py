"""Names bound to a part of a tile (``row = b[i]``, ``v = wp.tile_view(b, (0, j), shape=(4, 1))``): views that
share the tile's elements, as in Warp, so writing through the name changes ``b``.

A view name is a tile local of the part's shape, kept in step with its tile ``b`` (the root; a view of a
view is a part of the root): before each statement that names it, the local is read from ``b``'s part;
after a statement that writes the local (an element store, ``tile_assign``, ``+=``, a ``@func`` changing
its argument), its elements are stored back into ``b``. Both are element copies, so gradients flow through
them as through any element read and write. The part's runtime indices are kept in int locals of the view,
set where the name is bound: binding the name again to a part of the same tile and structure (in a loop)
updates them; binding it to anything else is an error (a view keeps its tile and shape).
"""

from __future__ import annotations

import ast

from .. import ir
from ..builtins.tiles import TILE_FUNCTIONS
from ..errors import KernelTypeError
from ..ir import walk
from ..types.scalars import int32
from ..types.tiles import TileType, is_tile_type
from .tile_build import TileCall, atom, element
from .tile_gathers import gather
from .tile_subscripts import index_items, picks_of, subscript, tile_view_picks
from .tile_views import compose, part_shape, read, whole, write

_COMPOUND = {ast.If: ("test",), ast.While: ("test",), ast.For: ("iter",), ast.With: ("items",),
             ast.FunctionDef: ()}


class View:
    """A name bound to the part ``picks`` of tile local ``root``, held in tile local ``local``."""

    __slots__ = ("root", "picks", "local")

    def __init__(self, root, picks, local):
        self.root, self.picks, self.local = root, picks, local

    def structure(self) -> tuple:
        return tuple((p[0],) + tuple(p[2:]) for p in self.picks)


def _views(typer) -> dict:
    return typer.ext.setdefault("tile_views", {})


def resolve(typer, node):
    """What ``node`` names: ``("tile", local)`` for a tile variable, ``("view", root, picks)`` for a part of
    one (evaluating its indices), ``("value", v)`` for a gather of one (evaluated), None otherwise (nothing
    evaluated)."""
    if isinstance(node, ast.Name):
        local = typer.expr(node)
        if not (isinstance(local, ir.IRLocal) and is_tile_type(local.type)):
            return None
        view = _views(typer).get(local.name)
        return ("view", view.root, view.picks) if view is not None else ("tile", local)
    if isinstance(node, ast.Subscript):
        base = resolve(typer, node.value)
        if base is None or base[0] == "value":
            return None if base is None else _finish(typer, base[1], node)
        root, picks = _root_picks(base)
        nodes = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        saved, typer.pending = typer.pending, []
        items = index_items(typer, nodes)
        shape = part_shape(picks)
        if any(not isinstance(i, ast.Slice) and is_tile_type(i.type) for i in items):
            saved.extend(typer.pending)
            typer.pending = saved
            return ("value", gather(typer, read(typer, root, picks), items, node))
        if len(items) == len(shape) and not any(isinstance(i, ast.Slice) for i in items):
            typer.pending = saved  # an element, typed by the core
            return None
        saved.extend(typer.pending)
        typer.pending = saved
        return ("view", root, compose(picks, picks_of(typer, shape, items, node)))
    if isinstance(node, ast.Call) and typer.try_static(node.func) is TILE_FUNCTIONS["tile_view"]:
        call = TileCall(typer, node, "tile_view", ["t", "offset", "shape"], 2)
        base = resolve(typer, call.nodes["t"])
        if base is None or base[0] == "value":
            return None
        root, picks = _root_picks(base)
        return ("view", root, compose(picks, tile_view_picks(call, part_shape(picks))))
    return None


def _root_picks(resolved) -> tuple:
    if resolved[0] == "tile":
        return resolved[1], whole(resolved[1].type.shape)
    return resolved[1], resolved[2]


def _finish(typer, value, node):
    """A subscript of a gathered tile (evaluated already): a part, a gather or an element of it."""
    nodes = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return ("value", subscript(typer, atom(typer, value), nodes, node))


def bind_view(typer, target, value_node, node, out) -> bool:
    """``name = value`` when ``value`` is a part of a tile (bind or update the view) or ``name`` is a view;
    False when the assignment is an ordinary one, left to the typer."""
    if not isinstance(target, ast.Name):
        return False
    name = typer.symbols.unique(target.id)
    views = _views(typer)
    existing = views.get(name)
    if existing is None and not isinstance(value_node, (ast.Subscript, ast.Call)):
        return False  # b = a: a copy (a view of a view is bound below)
    resolved = resolve(typer, value_node) if isinstance(value_node, (ast.Name, ast.Subscript, ast.Call)) else None
    if resolved is None or resolved[0] != "view":
        if existing is not None:
            raise typer.error(KernelTypeError, f"'{target.id}' is a view of the tile '{existing.root.name}' (it "
                              f"shares its elements) and cannot be rebound to another value; use a new name, or "
                              f"wp.tile_assign({target.id}, ...) to write into the view", node)
        if resolved is not None:  # a gather: evaluated already
            typer.assign(target, resolved[1], node, out)
            return True
        return False
    _, root, picks = resolved
    shape = part_shape(picks)
    if existing is None:
        if typer.symbols.type_of(name) is not None:
            raise typer.error(KernelTypeError, f"'{target.id}' already holds a value of type "
                              f"{typer.symbols.type_of(name)!r}; a view of a tile needs a name of its own", node)
        offsets = [typer.new_temp(int32) for _ in picks]
        view = View(root, [(p[0], o, *p[2:]) for p, o in zip(picks, offsets)],
                    typer.declare(name, TileType(root.type.dtype, shape), node))
        views[name] = view
    else:
        view = existing
        new = View(root, picks, None)
        if existing.root.name != root.name or existing.structure() != new.structure():
            raise typer.error(KernelTypeError, f"'{target.id}' is a view of shape {existing.local.type.shape} of the "
                              f"tile '{existing.root.name}' and cannot be rebound to a view of shape {shape} of "
                              f"'{root.name}' with other slices (a view keeps its tile and shape; use a new name)",
                              node)
    for p, q in zip(view.picks, picks):
        typer.pending.append(ir.IRAssign(p[1], q[1]))
    typer.ext.setdefault("tile_views_bound", set()).add(name)
    out.append(ir.IRAssign(view.local, read(typer, root, view.picks)))
    return True


def _mentions(typer, stmt) -> set:
    fields = _COMPOUND.get(type(stmt))
    roots = [stmt] if fields is None else [getattr(stmt, f) for f in fields]
    names = set()
    for r in roots:
        for sub in (r if isinstance(r, list) else [r]):
            names.update(typer.symbols.unique(n.id) for n in ast.walk(sub) if isinstance(n, ast.Name))
    return names


def _writes(stmts: list, name: str) -> bool:
    for n in walk(stmts):
        if isinstance(n, ir.IRAssign):
            t = n.target.array if isinstance(n.target, ir.IRArrayElem) else n.target
            if isinstance(t, ir.IRLocal) and t.name == name:
                return True
    return False


def sync_views(typer, stmt, stmts: list) -> list:
    """``stmts`` (one source statement's IR) with each view it names read from its tile before, and stored
    back after when the statement writes it."""
    bound = typer.ext.pop("tile_views_bound", ())
    views = typer.ext.get("tile_views")
    if not views:
        return stmts
    names = _mentions(typer, stmt)
    named = [v for n, v in views.items() if n in names and n not in bound]
    if not named:
        return stmts
    saved, typer.pending = typer.pending, []
    for v in named:
        fresh = read(typer, v.root, v.picks)
        typer.pending.append(ir.IRAssign(v.local, fresh))
    before, after = typer.pending, []
    typer.pending = saved
    if type(stmt) not in _COMPOUND:  # a compound statement's body statements store their own writes
        for v in named:
            if _writes(stmts, v.local.name):
                after.extend(write(typer, v.root, v.picks, lambda idx, v=v: element(v.local, idx)))
    return before + stmts + after

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
from .tile_build import atom, element
from .tile_gathers import gather
from .tile_maps import (
    UNNAMED_VIEWS,
    injective,
    is_transform,
    read,
    rewrite_elements,
    shape_of,
    structure,
    then_pick,
    write,
)
from .tile_subscripts import index_items, picks_of, subscript
from .tile_views import whole

_COMPOUND = {ast.If: ("test",), ast.While: ("test",), ast.For: ("iter",), ast.With: ("items",),
             ast.FunctionDef: ()}


# the view functions (tile_view, tile_transpose, ...) by their builtin: (typer, call node) -> what
# ``resolve`` gives, or None for a call on a tile an expression computes (tile_view_rules)
VIEW_CALLS: dict = {}


class View:
    """A name bound to the view ``chain`` (``tile_maps``) of tile local ``root``, held in tile local ``local``;
    ``key``: the view's structure (``_structure``)."""

    __slots__ = ("root", "chain", "local", "key")

    def __init__(self, root, chain, local, key):
        self.root, self.chain, self.local, self.key = root, chain, local, key


def _views(typer) -> dict:
    return typer.ext.setdefault("tile_views", {})


def resolve(typer, node):
    """What ``node`` names: ``("tile", local)`` for a tile variable, ``("view", root, chain)`` for a view of
    one (evaluating its indices), ``("value", v)`` for a new tile made of one (evaluated: a gather), None
    otherwise (nothing evaluated)."""
    if isinstance(node, ast.Name):
        local = typer.expr(node)
        if not (isinstance(local, ir.IRLocal) and is_tile_type(local.type)):
            return None
        view = _views(typer).get(local.name)
        return ("view", view.root, view.chain) if view is not None else ("tile", local)
    if isinstance(node, ast.Subscript):
        base = resolve(typer, node.value)
        if base is None or base[0] == "value":
            return None if base is None else _finish(typer, base[1], node)
        root, chain = _root_chain(base)
        nodes = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        saved, typer.pending = typer.pending, []
        items = index_items(typer, nodes)
        shape = shape_of(chain)
        if any(not isinstance(i, ast.Slice) and is_tile_type(i.type) for i in items):
            saved.extend(typer.pending)
            typer.pending = saved
            return ("value", gather(typer, read(typer, root, chain), items, node))
        if len(items) == len(shape) and not any(isinstance(i, ast.Slice) for i in items):
            typer.pending = saved  # an element, typed by the core
            return None
        saved.extend(typer.pending)
        typer.pending = saved
        return ("view", root, then_pick(chain, picks_of(typer, shape, items, node)))
    if isinstance(node, ast.Call):
        func = typer.try_static(node.func)
        make = next((m for f, m in VIEW_CALLS.items() if f is func), None)
        return make(typer, node) if make is not None else None
    return None


def _root_chain(resolved) -> tuple:
    if resolved[0] == "tile":
        return resolved[1], [whole(resolved[1].type.shape)]
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
    _, root, chain = resolved
    shape = shape_of(chain)
    if existing is None:
        if typer.symbols.type_of(name) is not None:
            if isinstance(value_node, ast.Call) and not _is_tile_view(typer, value_node):
                typer.assign(target, read(typer, root, chain), node, out)  # t = tile_transpose(t): a copy
                return True
            raise typer.error(KernelTypeError, f"'{target.id}' already holds a value of type "
                              f"{typer.symbols.type_of(name)!r}; a view of a tile needs a name of its own", node)
        view = View(root, _held(typer, chain, root.type.shape), typer.declare(name, TileType(root.type.dtype, shape),
                                                                               node), _structure(chain, root))
        views[name] = view
    elif existing.root.name != root.name or existing.key != _structure(chain, root):
        raise typer.error(KernelTypeError, f"'{target.id}' is a view of shape {existing.local.type.shape} of the "
                          f"tile '{existing.root.name}' and cannot be rebound to a view of shape {shape} of "
                          f"'{root.name}' with other slices (a view keeps its tile and shape; use a new name)", node)
    else:
        view = existing
    for held, layer in zip(view.chain, chain):
        if not is_transform(layer):
            typer.pending.extend(ir.IRAssign(p[1], q[1]) for p, q in zip(held, layer)
                                 if not isinstance(p[1], ir.IRConst))
    typer.ext.setdefault("tile_views_bound", set()).add(name)
    out.append(ir.IRAssign(view.local, read(typer, root, view.chain)))
    return True


def _is_tile_view(typer, node) -> bool:
    return typer.try_static(node.func) is TILE_FUNCTIONS["tile_view"]


def _whole_pick(p, extent: int) -> bool:
    """A pick of every position of its axis: its start can only be 0, so it stays a constant in a view."""
    return p[0] == "range" and isinstance(p[1], ir.IRConst) and p[1].value == 0 and p[2] == extent and p[3] == 1


def _extents(chain: list, k: int, root_shape: tuple) -> tuple:
    return shape_of(chain[:k]) if k else root_shape


def _held(typer, chain: list, root_shape: tuple) -> list:
    """``chain`` with the indices of its picks held in int locals of the view, set where the name is bound (a
    pick of a whole axis keeps its constant 0)."""
    out = []
    for k, layer in enumerate(chain):
        if is_transform(layer):
            out.append(layer)
            continue
        extents = _extents(chain, k, root_shape)
        out.append([p if _whole_pick(p, n) else (p[0], typer.new_temp(int32), *p[2:]) for p, n in zip(layer, extents)])
    return out


def _structure(chain: list, root) -> tuple:
    """What a view is, without its runtime indices (a rebinding must agree on it)."""
    wholes = tuple(tuple(_whole_pick(p, n) for p, n in zip(layer, _extents(chain, k, root.type.shape)))
                   for k, layer in enumerate(chain) if not is_transform(layer))
    return structure(chain), wholes


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


def _through_unnamed(typer, stmts: list) -> list:
    """``stmts`` with each unnamed view they write (beyond its filling) read and written through its source."""
    for tile, root, chain, fill in typer.ext.pop(UNNAMED_VIEWS, ()):
        rest = [s for s in stmts if id(s) not in fill]
        if not _writes(rest, tile.name):
            continue  # only read: a copy, as it was when the statement began
        out = []
        for s in stmts:
            out.extend([s] if id(s) in fill else rewrite_elements(typer, [s], tile.name, root, chain))
        stmts = out
        if _writes([s for s in stmts if id(s) not in fill], tile.name):  # written whole (a @func's argument)
            stmts = stmts + write(typer, root, chain, lambda idx, t=tile: element(t, idx))
    return stmts


def sync_views(typer, stmt, stmts: list) -> list:
    """``stmts`` (one source statement's IR) with each view it names read from its tile before, and stored
    back after when the statement writes it."""
    bound = typer.ext.pop("tile_views_bound", ())
    if UNNAMED_VIEWS in typer.ext:
        stmts = _through_unnamed(typer, stmts)
    views = typer.ext.get("tile_views")
    if not views:
        return stmts
    names = _mentions(typer, stmt)
    named = [v for n, v in views.items() if n in names and n not in bound]
    if not named:
        return stmts
    saved, typer.pending = typer.pending, []
    for v in named:
        fresh = read(typer, v.root, v.chain)
        typer.pending.append(ir.IRAssign(v.local, fresh))
    before, after = typer.pending, []
    typer.pending = saved
    for v in named:
        if not injective(v.chain):  # elements shared (a broadcast): each element update reaches its source now
            stmts = rewrite_elements(typer, stmts, v.local.name, v.root, v.chain)
    if type(stmt) not in _COMPOUND:  # a compound statement's body statements store their own writes
        for v in named:
            if _writes(stmts, v.local.name):
                after.extend(write(typer, v.root, v.chain, lambda idx, v=v: element(v.local, idx)))
    return before + stmts + after

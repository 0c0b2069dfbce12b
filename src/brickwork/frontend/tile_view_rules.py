"""Typing rules of Warp's view functions: ``tile_view``, ``tile_transpose``, ``tile_broadcast``, ``tile_reshape``
and ``tile_squeeze``.

Each names a view of its source tile (``tile_maps``): bound to a name (``d = wp.tile_broadcast(b, shape)``)
it shares the source's elements, as in Warp (``tile_aliases``), so writing through the name writes the
source; used without a name, it is read as a new tile, and written (the target of ``tile_axpy``, ``tile_assign``,
...) it writes the source too. A source that is not a tile variable or a view of one
(a tile an expression computes) has nothing to share, so the result is a new tile either way.
"""

from __future__ import annotations

import ast

from ..builtins.tiles import TILE_FUNCTIONS
from ..errors import KernelValueError
from .intrinsics import INTRINSICS
from .tile_aliases import VIEW_CALLS, resolve
from .tile_build import TileCall, atom, checked_shape
from .tile_maps import Transform, is_dense, read, read_unnamed, shape_of, strides_of, then_pick
from .tile_subscripts import tile_view_picks
from .tile_views import whole

# Warp's parameter names and required count per view function
_PARAMS = {"tile_view": (["t", "offset", "shape"], 2), "tile_transpose": (["a"], 1),
           "tile_broadcast": (["a", "shape"], 2), "tile_reshape": (["t", "shape"], 2),
           "tile_squeeze": (["t", "axis"], 1)}


def _source(call: TileCall, param: str, named: bool):
    """The source argument as ``(root, chain, shared)``: a tile variable or a view of one (shared), else the
    tile an expression computes as the root of a new chain; None for an expression when ``named`` (then
    nothing is evaluated: the assignment types the call as a value)."""
    found = resolve(call.typer, call.nodes[param])
    if found is not None and found[0] == "view":
        return found[1], found[2], True
    if found is not None and found[0] == "tile":
        return found[1], [whole(found[1].type.shape)], True
    if named and found is None:
        return None
    t = atom(call.typer, found[1]) if found is not None else call.tile(param)
    return t, [whole(t.type.shape)], False


def _transpose(call: TileCall, shape: tuple) -> Transform:
    if len(shape) != 2:
        raise call.error(f"'a' must be a 2-D tile, got shape {shape}")
    return Transform("transpose", shape, shape[::-1])


def _broadcast(call: TileCall, src: tuple) -> Transform:
    wanted = call.static("shape")
    if isinstance(wanted, (tuple, list)) and not 1 <= len(wanted) <= 4:  # Warp's words: a ValueError
        raise call.typer.error(KernelValueError, f"tile_broadcast() output must have between one and four "
                               f"dimensions, got {len(wanted)} (shape {tuple(wanted)})", call.node)
    shape = call.shape()
    lead = len(shape) - len(src)  # numpy aligns the shapes from the right
    if lead < 0 or any(s not in (1, shape[lead + d]) for d, s in enumerate(src)):
        raise call.error(f"cannot broadcast a tile of shape {src} to shape {shape} (each extent must be 1 or "
                         f"the target's, aligned from the right)")
    return Transform("broadcast", src, shape)


def _reshaped(call: TileCall, src: tuple, shape) -> tuple:
    """The target shape of tile_reshape, with Warp's one inferred extent (-1)."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    size = 1
    for s in src:
        size *= s
    if sum(1 for s in shape if s == -1) > 1:
        raise call.error(f"at most one extent of 'shape' may be -1, got {shape}")
    if -1 in shape and all(isinstance(s, int) and s > 0 for s in shape if s != -1):
        known = 1
        for s in shape:
            known *= 1 if s == -1 else s
        if size % known:
            raise call.error(f"cannot reshape a tile of shape {src} ({size} elements) to shape {shape}: {size} is "
                             f"not a multiple of {known}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    shape = checked_shape(call, shape)
    new_size = 1
    for s in shape:
        new_size *= s
    if new_size != size:
        raise call.error(f"cannot reshape a tile of shape {src} ({size} elements) to shape {shape} "
                         f"({new_size} elements)")
    return shape


def _squeeze(call: TileCall, src: tuple) -> Transform:
    ndim = len(src)
    if call.static("axis") is None:
        axes = tuple(d for d, s in enumerate(src) if s == 1)
    else:
        axis = call.static("axis")
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        if not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
            raise call.error(f"'axis' must be a compile-time int or tuple of ints, got {axis!r}")
        for a in axes:
            if not -ndim <= a < ndim:  # Warp's words: a ValueError
                raise call.typer.error(KernelValueError, f"{call.name}() axis {a} is out of bounds for tile with "
                                       f"{ndim} dimensions (valid axes are {-ndim} to {ndim - 1})", call.node)
        axes = tuple(a % ndim for a in axes)
        for a in axes:
            if src[a] != 1:
                raise call.error(f"cannot squeeze axis {a} of a tile of shape {src}: its extent is {src[a]}, not 1")
    kept = tuple(src[d] for d in range(ndim) if d not in axes)
    if not kept:
        raise call.error(f"squeezing a tile of shape {src} leaves no dimension (use tile_extract for its element)")
    return Transform("squeeze", src, kept, tuple(sorted(set(axes))))


def view_of(call: TileCall, named: bool):
    """What the call names: ``("view", root, chain)``, or ``("value", tile)`` for a new tile (a reshape that
    Warp's views cannot make in place, of a transposed or broadcast view), or None when ``named`` and the
    source is an expression."""
    source = _source(call, _PARAMS[call.name][0][0], named)
    if source is None:
        return None
    root, chain, shared = source
    found = _view(call, root, chain)
    if found[0] == "view" and not shared:  # of a tile only the call holds: nothing to share
        return "value", read(call.typer, found[1], found[2])
    return found


def _view(call: TileCall, root, chain: list) -> tuple:
    src = shape_of(chain)
    if call.name == "tile_view":
        return "view", root, then_pick(chain, tile_view_picks(call, src))
    if call.name == "tile_transpose":
        return "view", root, chain + [_transpose(call, src)]
    if call.name == "tile_broadcast":
        return "view", root, chain + [_broadcast(call, src)]
    if call.name == "tile_squeeze":
        return "view", root, chain + [_squeeze(call, src)]
    strides = strides_of(chain, root.type.shape)
    dense = strides is not None and is_dense(strides, src)
    if not dense and all(isinstance(layer, list) for layer in chain):  # a strided or reversed part, as in Warp
        raise call.error(f"requires a contiguous tile: the view '{ast.unparse(call.nodes['t'])}' of shape {src} "
                         f"skips or reverses elements of its tile of shape {root.type.shape} (copy it into a new "
                         f"tile first, e.g. with wp.tile_assign)", KernelValueError)
    shape = _reshaped(call, src, call.static("shape"))
    if not dense:
        copy = read(call.typer, root, chain)  # elements in the view's order (numpy's), not in memory order
        return "value", read(call.typer, copy, [whole(src), Transform("reshape", src, shape)])
    return "view", root, chain + [Transform("reshape", src, shape)]


def _register(name: str) -> None:
    params, required = _PARAMS[name]
    fn = TILE_FUNCTIONS[name]

    def typed(typer, f, node):  # used without a name: read as a new tile, which writes its source if written
        found = view_of(TileCall(typer, node, name, params, required), named=False)
        return found[1] if found[0] == "value" else read_unnamed(typer, found[1], found[2])

    INTRINSICS.register(fn, call=typed)
    VIEW_CALLS[fn] = lambda typer, node: view_of(TileCall(typer, node, name, params, required), named=True)


for _name in _PARAMS:
    _register(_name)

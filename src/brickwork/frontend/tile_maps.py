"""Views of a tile through a chain of maps: parts (``tile_views``' picks) and Warp's reshaping views
(``tile_transpose``, ``tile_broadcast``, ``tile_reshape``, ``tile_squeeze``).

A chain is a list of layers, the first on the root tile: a layer is either a list of picks (a part of the
previous layer's tile) or a ``Transform``. Element ``idx`` of the view is found by walking the chain from
its last layer back to the root, each layer giving the index in the layer before. Picks next to each other
are merged (``tile_views.compose``), so a chain is short. A broadcast maps many elements of the view to one
element of its source (Warp's stride 0): such a view is not injective, and a write through it reaches the
one element (``rewrite_elements``).
"""

from __future__ import annotations

from .. import ir
from ..types.scalars import bool_, int32
from .tile_build import element, loop_nest, new_tile, zero_value
from .tile_views import compose, inside, part_shape, source_index


def _i(v: int) -> ir.IRConst:
    return ir.IRConst(v, int32)


def linear_index(idx: list, shape: tuple) -> ir.IRExpr:
    """The row-major position of ``idx`` in ``shape``."""
    linear = idx[0]
    for d in range(1, len(shape)):
        linear = ir.IRCall("add", [ir.IRCall("mul", [linear, _i(shape[d])], int32, no_wrap=True), idx[d]], int32,
                           no_wrap=True)  # an index within a tile: no overflow
    return linear


def unravel(linear: ir.IRExpr, shape: tuple) -> list:
    """The row-major index in ``shape`` of element number ``linear``."""
    idx, rest = [], linear
    for d in reversed(range(len(shape))):
        idx.append(ir.IRCall("mod", [rest, _i(shape[d])], int32, no_wrap=True) if d else rest)
        if d:
            rest = ir.IRCall("div", [rest, _i(shape[d])], int32, no_wrap=True)
    return idx[::-1]


class Transform:
    """A layer that maps a view of ``shape`` onto its source of shape ``src``: ``"transpose"`` (2-D),
    ``"broadcast"`` (numpy's, aligned from the right), ``"reshape"`` (row-major order kept) or ``"squeeze"``
    (the source's axes ``dropped``, each of extent 1)."""

    __slots__ = ("kind", "src", "shape", "dropped")

    def __init__(self, kind: str, src: tuple, shape: tuple, dropped: tuple = ()):
        self.kind, self.src, self.shape, self.dropped = kind, tuple(src), tuple(shape), tuple(dropped)

    def source(self, idx: list) -> list:
        if self.kind == "transpose":
            return [idx[1], idx[0]]
        if self.kind == "broadcast":
            lead = len(self.shape) - len(self.src)
            return [_i(0) if s == 1 else idx[lead + d] for d, s in enumerate(self.src)]
        if self.kind == "squeeze":  # the source's extents of 1 that the view drops
            kept = iter(idx)
            return [_i(0) if d in self.dropped else next(kept) for d in range(len(self.src))]
        if len(idx) == 1 and len(self.src) == 1:
            return list(idx)
        return unravel(linear_index(idx, self.shape), self.src)

    def injective(self) -> bool:
        """Whether distinct elements of the view are distinct elements of the source."""
        if self.kind != "broadcast":
            return True
        lead = len(self.shape) - len(self.src)
        return all(n == 1 for n in self.shape[:lead]) and all(
            s != 1 or self.shape[lead + d] == 1 for d, s in enumerate(self.src))

    def strides(self, src_strides: list) -> list | None:
        """The view's element strides given its source's (None: a reshape of elements not in dense order)."""
        if self.kind == "transpose":
            return src_strides[::-1]
        if self.kind == "broadcast":
            lead = len(self.shape) - len(self.src)
            return [0] * lead + [0 if s == 1 else st for s, st in zip(self.src, src_strides)]
        if self.kind == "squeeze":
            return [st for d, st in enumerate(src_strides) if d not in self.dropped]
        return dense_strides(self.shape) if is_dense(src_strides, self.src) else None

    def structure(self) -> tuple:
        return (self.kind, self.src, self.shape, self.dropped)


def is_transform(layer) -> bool:
    return isinstance(layer, Transform)


def shape_of(chain: list) -> tuple:
    """The shape of the view a chain names."""
    last = chain[-1]
    return last.shape if is_transform(last) else part_shape(last)


def then_pick(chain: list, picks: list) -> list:
    """The chain of the part ``picks`` of the view ``chain`` names."""
    if is_transform(chain[-1]):
        return chain + [picks]
    return chain[:-1] + [compose(chain[-1], picks)]


def injective(chain: list) -> bool:
    return all(layer.injective() for layer in chain if is_transform(layer))


def structure(chain: list) -> tuple:
    """What a chain is, without its runtime indices: two bindings of one view name must agree on it."""
    return tuple(layer.structure() if is_transform(layer) else tuple((p[0],) + tuple(p[2:]) for p in layer)
                 for layer in chain)


def dense_strides(shape: tuple) -> list:
    strides, s = [], 1
    for n in reversed(shape):
        strides.append(s)
        s *= n
    return strides[::-1]


def is_dense(strides: list, shape: tuple) -> bool:
    """Whether elements of these strides lie in row-major order without gaps (extents of 1 have any stride)."""
    dense = 1
    for n, st in reversed([(n, st) for n, st in zip(shape, strides) if n > 1]):
        if st != dense:
            return False
        dense *= n
    return True


def strides_of(chain: list, root_shape: tuple) -> list | None:
    """The view's element strides in its root tile (None: not a strided view)."""
    strides = dense_strides(root_shape)
    for layer in chain:
        if is_transform(layer):
            strides = layer.strides(strides)
            if strides is None:
                return None
        else:
            strides = [strides[d] * p[3] for d, p in enumerate(layer) if p[0] == "range"]
    return strides


def locate(chain: list, root_shape: tuple, idx: list) -> tuple:
    """The root index of element ``idx`` of the view, and the condition that a runtime index puts it in the
    tile (None: every index is a constant, checked when the kernel compiles)."""
    cond = None
    for k in reversed(range(len(chain))):
        layer = chain[k]
        if is_transform(layer):
            idx = layer.source(idx)
            continue
        src = source_index(layer, idx)
        extents = shape_of(chain[:k]) if k else root_shape
        part = inside(layer, src, extents)
        if part is not None:
            cond = part if cond is None else ir.IRCall("logical_and", [cond, part], bool_)
        idx = src
    return idx, cond


def read(typer, tile, chain: list) -> ir.IRLocal:
    """A new tile holding the view ``chain`` of ``tile`` (zero where a runtime pick falls outside it)."""
    shape = shape_of(chain)
    out = new_tile(typer, tile.type.dtype, shape)

    def body(idx):
        src, cond = locate(chain, tile.type.shape, idx)
        copy = ir.IRAssign(element(out, idx), element(tile, src))
        if cond is None:
            return [copy]
        return [ir.IRIf(cond, [copy], [ir.IRAssign(element(out, idx), zero_value(tile.type.dtype))])]

    typer.pending.extend(loop_nest(typer, shape, body))
    return out


def write(typer, tile, chain: list, value_of) -> list:
    """Loops storing ``value_of(idx)`` into element ``idx`` of the view ``chain`` of ``tile`` (skipped where a
    runtime pick falls outside it; a broadcast element takes the last value written to it)."""

    def body(idx):
        src, cond = locate(chain, tile.type.shape, idx)
        store = ir.IRAssign(element(tile, src), value_of(idx))
        return [store] if cond is None else [ir.IRIf(cond, [store], [])]

    return loop_nest(typer, shape_of(chain), body)


UNNAMED_VIEWS = "tile_views_unnamed"  # the typer.ext key of the views read without a name in this statement


def read_unnamed(typer, tile, chain: list) -> ir.IRLocal:
    """``read`` of a view used without a name (``f(t[i])``, ``tile_axpy(a, s, wp.tile_transpose(t))``): a new
    tile, noted so that if its statement writes it, the writes reach ``tile`` (``tile_aliases.sync_views``)."""
    start = len(typer.pending)
    out = read(typer, tile, chain)
    fill = {id(s) for s in typer.pending[start:]}
    typer.ext.setdefault(UNNAMED_VIEWS, []).append((out, tile, chain, fill))
    return out


def _clamped(idx: list, shape: tuple) -> list:
    """Each runtime index held within its extent (read under a condition that it is inside: never out of bounds)."""
    out = []
    for i, n in zip(idx, shape):
        if isinstance(i, ir.IRConst):
            out.append(i)
            continue
        low = ir.IRSelect(ir.IRCall("lt", [i, _i(0)], bool_), _i(0), i, int32)
        out.append(ir.IRSelect(ir.IRCall("ge", [low, _i(n)], bool_), _i(n - 1), low, int32))
    return out


def rewrite_elements(typer, stmts: list, local_name: str, root, chain: list) -> list:
    """``stmts`` with each element of tile local ``local_name`` (the view) read and written as its element of
    ``root``: a view whose elements share a source element (a broadcast) accumulates each update into it. An
    index the user wrote (``d[i, j]``) is also read once from the view's local before its statement, so debug
    mode checks it against the view's shape (an index along a broadcast axis reaches no source index)."""
    return _ThroughRoot(typer, local_name, root, chain).stmts(stmts)


def _elem_of(e, name: str) -> bool:
    return isinstance(e, ir.IRArrayElem) and isinstance(e.array, ir.IRLocal) and e.array.name == name


class _ThroughRoot(ir.Rewriter):
    def __init__(self, typer, name: str, root, chain: list):
        self.typer, self.name, self.root, self.chain = typer, name, root, chain
        self.probes: list = []

    def stmt(self, s):
        saved, self.probes = self.probes, []
        out = super().stmt(s)
        probes, self.probes = self.probes, saved
        if not probes:
            return out
        return probes + (out if isinstance(out, list) else [out])

    def _locate(self, e) -> tuple:
        idx = [self.expr(i) for i in e.indices]
        if e.where and not all(isinstance(i, ir.IRConst) for i in idx):  # a user's runtime index: debug checks it
            self.probes.append(ir.IRAssign(self.typer.new_temp(e.type), ir.IRArrayElem(e.array, idx, e.type,
                                                                                       e.where)))
        return locate(self.chain, self.root.type.shape, idx)

    def _elem(self, e, src: list) -> ir.IRArrayElem:
        return ir.IRArrayElem(self.root, src, e.type, e.where, e.checked)

    def r_IRAssign(self, s):
        if not _elem_of(s.target, self.name):
            return self.copy(s)
        src, cond = self._locate(s.target)
        store = ir.IRAssign(self._elem(s.target, src), self.expr(s.value), s.updates)
        return store if cond is None else ir.IRIf(cond, [store], [])

    def r_IRArrayElem(self, e):
        if not _elem_of(e, self.name):
            return self.copy(e)
        src, cond = self._locate(e)
        if cond is None:
            return self._elem(e, src)
        safe = self._elem(e, _clamped(src, self.root.type.shape))
        return ir.IRSelect(cond, safe, zero_value(e.type), e.type)

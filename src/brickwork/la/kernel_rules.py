"""Typing rules of the loop abstraction in kernel code (docs/reference/loop_abstraction_semantics.md §6-§11).

An outer body ``def body(rng, b)`` types to one ``IRLAOuter`` holding the body; ``rng`` is a
compile-time ``SliceRef`` (the slice, possibly grown by a halo). Each construct keeps its meaning
in the IR: ``la.inner`` is an ``IRLAInner`` (tag, halo, bound names, body), per-point scratch an
``IRLAScratch`` with ``IRLAScratchElem`` accesses, views ``IRLAViewElem``, ``team_barrier`` an
``IRTeamBarrier``, ``inner_reduce`` an ``IRLAInner`` whose body folds. Where cells are visited and
how slices map onto threads is decided by the target's ``expand_loop_abstraction`` pass.
"""

from __future__ import annotations

import ast
import math
import numbers

from .. import ir
from ..errors import KernelSyntaxError, KernelTypeError
from ..frontend.expressions import LocalFunction, Static
from ..frontend.intrinsics import INTRINSICS
from ..frontend.nested import refuse_barrier_inside
from ..frontend.typer import LOOP_INDEX
from ..mesh.kernel_rules import check_element, check_flux, element_of, pack_var
from ..types.arrays import ArrayType, type_name
from ..types.composite import vector
from ..types.kernel_params import is_pack_type
from ..types.layout import size_align
from ..types.opaque import TupleType
from ..types.scalars import bool_, int32, is_scalar_type, python_annotation_type
from . import outer as la_api
from .halo import Halo
from .halo import none as NO_HALO
from .indices import Index3, MemoryOffset
from .tags import Tag

VEC3I = vector(3, int32)
VEC4I = vector(4, int32)
KJI = TupleType((int32, int32, int32))


class SliceRef:
    """The range an outer body receives, grown by ``halo`` after ``add_halo``."""

    def __init__(self, halo):
        self.halo = halo


class SliceMethod:
    def __init__(self, rng: SliceRef, name: str):
        self.rng, self.name = rng, name


class ScratchRef:
    """Per-point scratch of a slice: ``storage`` is its IR local."""

    def __init__(self, storage, dims, halo):
        self.storage, self.dims, self.halo = storage, dims, halo


class ScratchMethod:
    def __init__(self, scratch: ScratchRef, name: str):
        self.scratch, self.name = scratch, name


class ViewRef:
    """A pack, variable or flux view made from a slice."""

    def __init__(self, kind, pack, var=None, direction=None, sparse=None):
        self.kind, self.pack, self.var, self.direction, self.sparse = kind, pack, var, direction, sparse


def config(typer) -> ir.LAConfig:
    cfg = typer.ext.get("la")
    if cfg is None:
        raise typer.error(KernelTypeError, "loop-abstraction constructs are available in outer bodies only",
                          typer.source.tree)
    return cfg


def _is_boiv(typer) -> bool:
    return config(typer).loop == "boiv"


# -- the outer body ---------------------------------------------------------------------------------
def _bind_block(typer, name, _option, out):
    typer.ext["la_block"] = typer.declare(name, int32, typer.source.tree)


def _bind_range(typer, name, options: dict, out):
    typer.ext["la"] = ir.LAConfig(loop=options["loop"], inner=options["inner"], backend=options["backend"],
                                  ndim=options["ndim"], chunk=options["chunk"], reducer=options.get("reducer"),
                                  rows=options.get("rows", "any"))
    typer.ext["la_memory"] = options.get("memory", "cells")  # the extents of the space's memory box
    typer.symbols.statics[name] = SliceRef(NO_HALO)


def _wrap_outer(typer, prologue, body) -> list:
    return [ir.IRLAOuter(typer.ext["la"], typer.ext["la_block"], prologue + body)]


# -- methods of the range -----------------------------------------------------------------------------
def _slice_attribute(typer, rng, attr, node):
    if attr in ("add_halo", "get_kji", "team_barrier"):
        return Static(SliceMethod(rng, attr))
    raise typer.error(KernelTypeError, f"an index range has no attribute '{attr}' (it has add_halo, get_kji, "
                      f"team_barrier)", node)


def _call_slice_method(typer, m: SliceMethod, node):
    rng = m.rng
    if m.name == "team_barrier":
        raise typer.error(KernelTypeError, "team_barrier() is a statement and has no value", node)
    if m.name == "add_halo":
        if len(node.args) != 1:
            raise typer.error(KernelTypeError, "add_halo(halo) takes one halo", node)
        h = typer.static_value(node.args[0])
        if not isinstance(h, Halo):
            raise typer.error(KernelTypeError, f"add_halo needs an la.halo value, got {h!r}", node)
        if not rng.halo.is_none:
            raise typer.error(KernelTypeError, f"add_halo on a range that already has halo {rng.halo!r}: "
                              f"halos do not compose", node)
        try:
            h.check_projection_closed(3)
        except ValueError as e:
            raise typer.error(KernelTypeError, str(e), node) from None
        return Static(SliceRef(h))
    if len(node.args) != 1:
        raise typer.error(KernelTypeError, "get_kji(idx) takes one index", node)
    arg = typer.expr(node.args[0])
    if isinstance(arg, Static) and isinstance(arg.value, (Index3, MemoryOffset)):  # a host offset
        want = VEC3I if isinstance(arg.value, Index3) else VEC4I if _is_boiv(typer) else int32
        arg = Static(arg.value.value_for(want))
    index = typer.to_value(arg, node.args[0])
    if not (index.type is VEC3I or index.type is int32 or index.type is VEC4I and _is_boiv(typer)):
        raise typer.error(KernelTypeError, f"get_kji: index of type {type_name(index.type)} is not an index of "
                          f"this range", node)
    return ir.IRLAGetKJI(index, KJI)


def _slice_statement(typer, m: SliceMethod, node):
    if m.name != "team_barrier":
        return None
    if node.args or node.keywords:
        raise typer.error(KernelTypeError, "team_barrier() takes no arguments", node)
    config(typer)
    return ir.IRTeamBarrier(None)


# -- la.inner and la.inner_reduce -----------------------------------------------------------------------
def _slice_arg(typer, arg_node, node) -> SliceRef:
    rng = typer.static_value(arg_node)
    if not isinstance(rng, SliceRef):
        raise typer.error(KernelTypeError, f"la.inner needs the range an outer body receives, got {rng!r}", node)
    return rng


def _index_types(typer, inner: str, n: int) -> list:
    if n == 3:
        return [int32] * 3
    if inner == "logical_coords":
        return [VEC3I]
    return [VEC4I] if _is_boiv(typer) else [int32]


def _declare_index(typer, name, t, node) -> ir.IRLocal:
    known = typer.symbols.declare(name, t)
    if known is not None and known is not t:
        raise typer.error(KernelTypeError, f"'{name}' has type {type_name(known)} and cannot hold an index of type "
                          f"{type_name(t)}", node)
    if t is int32 and typer.symbols.type_of(name) is int32:
        typer.index_ranges[name] = LOOP_INDEX  # cells and flat offsets of a checked index space
    return ir.IRLocal(name, t)


def _inner_for(typer, _fn, node, out):
    """``for idx in la.inner(rng):`` / ``for k, j, i in la.inner(rng):``."""
    call = node.iter
    if len(call.args) != 1 or call.keywords:
        raise typer.error(KernelTypeError, "la.inner(rng) in a for loop takes the range only", node)
    rng = _slice_arg(typer, call.args[0], node)
    targets = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
    if isinstance(node.target, ast.Tuple) and len(targets) != 3:
        raise typer.error(KernelTypeError, "la.inner unpacks into k, j, i (three names)", node)
    for t in targets:
        if not isinstance(t, ast.Name):
            raise typer.error(KernelSyntaxError, "la.inner loop targets must be names", node)
    inner = config(typer).inner
    types = _index_types(typer, inner, len(targets))
    params = [_declare_index(typer, typer.symbols.unique(t.id), ty, node) for t, ty in zip(targets, types)]
    typer.loop_depth += 1
    body = typer.block(node.body)
    typer.loop_depth -= 1
    refuse_barrier_inside(typer, body, "a la.inner loop", node)
    out.append(ir.IRLAInner(rng.halo, inner, params, _visit_exits(typer, body, node)))


_VISIT = "_la_visit"  # the region of one visit of an inner loop, which its `continue` leaves


def _visit_exits(typer, body: list, node) -> list:
    """An inner loop's body with its own ``continue`` (not a nested loop's) ending the visit; its own ``break``
    is refused: visits are independent and run in any order, on any thread, so none can end the others."""
    found = []

    def rewrite(stmts):
        out = []
        for s in stmts:
            if isinstance(s, ir.IRContinue):
                found.append(s)
                out.append(ir.IRExitRegion(_VISIT))
                continue
            if isinstance(s, ir.IRBreak):
                raise typer.error(KernelSyntaxError, "break in a la.inner loop: its visits are independent and run in "
                                  "any order (on a GPU, on many threads), so no visit can end the others; use "
                                  "continue to end this visit, or a condition", node)
            if isinstance(s, ir.IRIf):
                s = ir.IRIf(s.cond, rewrite(s.body), rewrite(s.orelse))
            elif isinstance(s, ir.IRRegion):
                s = ir.IRRegion(s.name, rewrite(s.body))
            out.append(s)  # loops keep their own break and continue
        return out

    body = rewrite(body)
    return [ir.IRRegion(_VISIT, body)] if found else body


def _local_body(typer, arg_node, what: str, node) -> LocalFunction:
    fn = typer.static_value(arg_node)
    if not isinstance(fn, LocalFunction) or len(fn.params) not in (1, 3):
        raise typer.error(KernelTypeError, f"{what}: the body must be a nested def or lambda taking idx or "
                          f"(k, j, i){' and returning the value to fold' if 'reduce' in what else ''}", node)
    return fn


def _inner_call(typer, _fn, node):
    """``la.inner(rng, fn)`` with a nested def or lambda taking ``idx`` or ``k, j, i``."""
    if len(node.args) != 2 or node.keywords:
        raise typer.error(KernelTypeError, "la.inner(rng, fn) takes a range and a body", node)
    rng = _slice_arg(typer, node.args[0], node)
    fn = _local_body(typer, node.args[1], "la.inner", node)
    cfg = config(typer)
    if len(fn.params) == 1 and cfg.loop == "boiv" and cfg.inner == "logical_flat":
        ann = fn.node.args.args[0].annotation
        try:
            ann = ann if ann is None else typer.static_value(ann)
        except Exception:  # noqa: BLE001 - not a resolvable annotation: typing the body reports it
            ann = None
        if ann is int or getattr(ann, "is_int", False) is True:
            raise typer.error(KernelTypeError, "a boiv/logical_flat inner body gets a MemoryOffset, not an "
                              "int: drop the int annotation", node)
    body = typer.inline_local(fn, _index_types(typer, cfg.inner, len(fn.params)), node)
    _note_index_args(typer, body)
    refuse_barrier_inside(typer, [body], "a la.inner body", node)
    return ir.IRLAInner(rng.halo, cfg.inner, list(body.args), [body])


def _note_index_args(typer, body: ir.IRInlineBody) -> None:
    """The locals an inner loop binds (and the body's parameters they are passed to) are cell indices."""
    for p, a in zip(body.params, body.args):
        if a.type is int32:
            typer.index_ranges[a.name] = LOOP_INDEX
            if typer.symbols.type_of(p.name) is int32:
                typer.index_ranges[p.name] = LOOP_INDEX  # bound by its application


def _check_fold(typer, value, node):
    r = config(typer).reducer
    folds = r.value_type if r.fold == "located" else r.dtype  # located: partials with their own (b, k, j, i)
    if value.type is not folds:
        raise typer.error(KernelTypeError, f"inner_reduce: the body returns {type_name(value.type)} but the "
                          f"reducer {r!r} folds {type_name(folds)}", node)


def _inner_reduce(typer, _fn, node):
    """``la.inner_reduce(rng, fn)``: fold ``fn(idx)`` (or ``fn(k, j, i)``) over the range's cells."""
    cfg = config(typer)
    if cfg.reducer is None:
        raise typer.error(KernelTypeError, "inner_reduce needs a reduction space: call it from la.outer_reduce "
                          "on space.with_reducer(...) or la.ReductionIndexSpace(...)", node)
    if len(node.args) != 2 or node.keywords:
        raise typer.error(KernelTypeError, "la.inner_reduce(rng, fn) takes a range and a body", node)
    rng = _slice_arg(typer, node.args[0], node)
    if not rng.halo.is_none:
        raise typer.error(KernelTypeError, f"inner_reduce over a halo range ({rng.halo!r}): reduce over the base "
                          f"range, extend only producer loops", node)
    fn = _local_body(typer, node.args[1], "la.inner_reduce", node)
    inner = "logical_flat" if cfg.inner == "memory" else cfg.inner  # memory visits logical cells here
    body = typer.inline_local(fn, _index_types(typer, inner, len(fn.params)), node, fold_check=_check_fold)
    if cfg.reducer.fold not in ("value", "located"):
        body = _FoldStatistic(typer, cfg.reducer).function_body(body)
    _note_index_args(typer, body)
    return ir.IRLAInner(rng.halo, inner, list(body.args), [body], reduce=True)


class _FoldStatistic(ir.Rewriter):
    """An ``inner_reduce`` body's returns rewritten to fold a statistic of the value (``Reducer.fold``):
    ``"nonzero"`` folds a zero as 1, ``"is_zero"`` folds 1 for a zero and 0 otherwise."""

    def __init__(self, typer, reducer):
        self.typer, self.reducer = typer, reducer

    def function_body(self, body: ir.IRInlineBody) -> ir.IRInlineBody:
        return ir.IRInlineBody(body.name, body.params, body.args, self.stmts(body.body), fold=body.fold)

    def r_IRInlineBody(self, s):
        return s  # a nested local function: its returns are its own

    def r_IRReturn(self, s):
        t = self.reducer.dtype
        value = ir.IRLocal(self.typer.symbols.temp(t, "_la_folded"), t)
        zero, one = ir.IRConst(0, t), ir.IRConst(1, t)
        is_zero = ir.IRCall("eq", [value, zero], bool_)
        if self.reducer.fold == "nonzero":
            folded = ir.IRSelect(is_zero, one, value, t)
        else:
            folded = ir.IRSelect(is_zero, one, zero, t)
        return [ir.IRAssign(value, s.value), ir.IRReturn(folded)]


def _kernel_only(typer, f, node):
    raise typer.error(KernelTypeError, f"la.{f.__name__} cannot be used here in kernel code", node)


# -- per-point scratch ----------------------------------------------------------------------------------
def _scratch(typer, _fn, node):
    """``la.get_per_point_scratch(T, rng, dims=(...))``."""
    if len(node.args) != 2:
        raise typer.error(KernelTypeError, "get_per_point_scratch(T, rng, dims=()) takes a type and a range", node)
    dtype = python_annotation_type(typer.static_value(node.args[0]))
    rng = typer.static_value(node.args[1])
    if not isinstance(rng, SliceRef):
        raise typer.error(KernelTypeError, "get_per_point_scratch needs a range of the outer body", node)
    kw = {k.arg: typer.static_value(k.value) for k in node.keywords}
    dims = _scratch_dims(typer, kw.pop("dims", ()), node)
    if kw:
        raise typer.error(KernelTypeError, f"get_per_point_scratch: unknown keyword {next(iter(kw))!r}", node)
    if not is_scalar_type(dtype):
        raise typer.error(KernelTypeError, f"per-point scratch holds scalars, got {type_name(dtype)}", node)
    if _is_boiv(typer) and rng.halo is not None:
        _count_boiv_buffer(typer, rng.halo, dims, dtype, node)
    t = ArrayType(dtype, 1)
    storage = ir.IRLocal(typer.symbols.temp(t, "_la_scratch"), t)
    typer.pending.append(ir.IRLAScratch(storage, rng.halo, dims))
    return Static(ScratchRef(storage, dims, rng.halo))


def _scratch_dims(typer, dims, node) -> tuple:
    """The components per point of ``get_per_point_scratch(..., dims=...)``: a tuple of positive ints whose product
    fits the int32 slots the body indexes (int(d) took 2.5 as 2; a size of 0 or less gave a pad that every
    access overran, and 100000 x 100000 one whose size wrapped around: the process crashed)."""
    if not isinstance(dims, tuple) or any(isinstance(d, bool) or not isinstance(d, numbers.Integral) for d in dims):
        raise typer.error(KernelTypeError, f"get_per_point_scratch: dims must be a tuple of ints, got {dims!r}", node)
    dims = tuple(int(d) for d in dims)
    if any(d < 1 for d in dims):
        raise typer.error(KernelTypeError, f"get_per_point_scratch: dims must be positive, got {dims}", node)
    if math.prod(dims) >= 2**31:
        raise typer.error(KernelTypeError, f"get_per_point_scratch: dims {dims} make {math.prod(dims)} values per "
                          f"point, more than the int32 slots of a scratch index (2**31 - 1)", node)
    return dims


#: Bytes of ``boiv`` per-point scratch one body may take: each is an array local to the thread (on its stack on
#: the CPU, 8 MiB for the main thread; 512 KiB of local memory a CUDA thread). 16 MiB of it (dims=(10**6,) over
#: la.halo.minus_i) crashed the process.
BOIV_SCRATCH_LIMIT = 512 * 1024


def _count_boiv_buffer(typer, halo, dims: tuple, dtype, node) -> None:
    """Add a ``boiv`` buffer (``dims`` values of ``dtype`` per cell of the halo's box around the point) to the
    body's total; past ``BOIV_SCRATCH_LIMIT`` a KernelTypeError at the call."""
    box = halo.box(halo.reduced(config(typer).ndim))
    cells = math.prod(hi - lo + 1 for lo, hi in box)
    nbytes = cells * math.prod(dims) * size_align(dtype)[0]
    total = typer.ext.get("la_boiv_scratch_bytes", 0) + nbytes
    if total > BOIV_SCRATCH_LIMIT:
        raise typer.error(KernelTypeError, f"get_per_point_scratch: boiv scratch is an array local to each point's "
                          f"thread, and this body's takes {total} bytes ({cells} cells of the halo's box x "
                          f"{math.prod(dims)} {type_name(dtype)} values here), more than {BOIV_SCRATCH_LIMIT} "
                          f"(the thread's stack); use bovi or bvoi, whose scratch is in an arena", node)
    typer.ext["la_boiv_scratch_bytes"] = total


def _scratch_attribute(typer, s: ScratchRef, attr, node):
    if attr == "zero":
        return Static(ScratchMethod(s, "zero"))
    raise typer.error(KernelTypeError, f"per-point scratch has no attribute '{attr}' (it has zero)", node)


def _scratch_zero(typer, m: ScratchMethod, node):
    return ir.IRLAScratchZero(m.scratch.storage)


def _scratch_call(typer, m: ScratchMethod, node):
    raise typer.error(KernelTypeError, "scratch.zero() is a statement and has no value", node)


def _scratch_element(typer, s: ScratchRef, index_nodes, node):
    nd = len(s.dims)
    comps = [typer.value(n) for n in index_nodes[:nd]]
    point = [typer.value(n) for n in index_nodes[nd:]]
    for axis, (c, d) in enumerate(zip(comps, s.dims)):
        if c.type is not int32:
            raise typer.error(KernelTypeError, f"scratch components must be int32, got {type_name(c.type)}", node)
        if isinstance(c, ir.IRConst) and not 0 <= c.value < d:  # a run-time component is unchecked, as an index
            raise typer.error(KernelTypeError, f"scratch component {c.value} is out of range [0, {d}) on axis {axis} "
                              f"of dims {s.dims}", node)
    boiv = _is_boiv(typer)
    if len(point) == 1 and point[0].type is VEC4I and not boiv:
        raise typer.error(KernelTypeError, "a MemoryOffset index belongs to boiv ranges", node)
    if len(point) == 1 and point[0].type is int32 and boiv:
        raise typer.error(KernelTypeError, "a plain int is not a point of boiv scratch (use the index the inner "
                          "loop gives)", node)
    if not (len(point) == 3 or len(point) == 1 and point[0].type in (VEC3I, VEC4I, int32)):
        raise typer.error(KernelTypeError, f"scratch takes {len(s.dims)} component(s) then an index or k, j, i",
                          node)
    return ir.IRLAScratchElem(s.storage, comps, point, s.storage.type.dtype, typer.where(node))


# -- views -------------------------------------------------------------------------------------------
_VIEW_ARGS = {"pack": 2, "sparse_pack": 3, "var": 3, "flux_pack": 3, "flux": 4, "sparse_flux_pack": 4}


def _view(typer, f, node):
    """``make_pack_view(rng, pack)``, ``make_sparse_pack_view(rng, pack, s)``, ``make_var_view(rng, pack,
    var)``, ``make_flux_pack_view(rng, pack, dir)``, ``make_flux_view(rng, pack, dir, var)``,
    ``make_sparse_flux_pack_view(rng, pack, dir, s)``."""
    kind = f.__name__[len("make_"):-len("_view")]
    nargs = _VIEW_ARGS[kind]
    if len(node.args) != nargs or node.keywords:
        raise typer.error(KernelTypeError, f"this view takes {nargs} arguments, got {len(node.args)}", node)
    rng = typer.static_value(node.args[0])
    if not isinstance(rng, SliceRef):
        raise typer.error(KernelTypeError, "views are made from the range of the outer body", node)
    pack = typer.value(node.args[1])
    if not is_pack_type(pack.type):
        raise typer.error(KernelTypeError, f"views are made from packs, got {type_name(pack.type)}", node)
    view = ViewRef({"sparse_pack": "pack", "sparse_flux_pack": "flux_pack"}.get(kind, kind), pack)
    if kind == "sparse_pack":
        view.sparse = typer.value(node.args[2])
    if kind == "sparse_flux_pack":
        view.sparse = typer.value(node.args[3])
    if kind in ("flux_pack", "flux", "sparse_flux_pack"):
        view.direction = typer.value(node.args[2])
    if kind in ("var", "flux"):
        view.var = typer.expr(node.args[-1])
    return Static(view)


def _view_element(typer, v: ViewRef, index_nodes, node):
    items = list(index_nodes)
    element = 0
    first = typer.try_static(items[0]) if items else None
    if element_of(first) is not None:
        element = element_of(first)
        items = items[1:]
    comp = None
    if v.kind in ("var", "flux"):
        var_spec = v.var
        if len(items) in (2, 4):  # (comp_offset, idx) / (comp_offset, k, j, i)
            comp = typer.value(items[0])
            items = items[1:]
    else:
        if not items:
            raise typer.error(KernelTypeError, "a pack view takes a variable then an index", node)
        var_spec = typer.expr(items[0])
        items = items[1:]
    var = pack_var(typer, v.pack, var_spec, node)
    if element_of(first) is not None and v.kind not in ("flux_pack", "flux"):
        check_element(typer, v.pack, first, var.position, node)
    if v.kind in ("flux_pack", "flux"):
        check_flux(typer, v.pack, v.direction, var.position, node)
    if config(typer).inner != "logical_coords":
        _check_flat_layout(typer, v, var.position, node)
    offset = var.offset
    if v.sparse is not None:
        size = ir.IRConst(v.pack.type._bw_pack["sizes"][var.position], int32)
        offset = typer.builtin_call("add", [offset, typer.builtin_call("mul", [v.sparse, size], node)], node)
    if comp is not None:
        offset = typer.builtin_call("add", [offset, comp], node)
    point = [typer.value(n) for n in items]
    if len(point) not in (1, 3):
        raise typer.error(KernelTypeError, "a view takes an index or k, j, i", node)
    view = ir.LAView("flux" if v.kind in ("flux_pack", "flux") else "pack", v.pack, v.direction)
    return ir.IRLAViewElem(view, ir.PackVar(var.position, offset), element, point, v.pack.type._bw_pack["dtype"],
                           typer.where(node))


_STORED = {"cells": "the cell extents", "nodes": "the node extents (a Face, Edge or Node field without CellMemAligned)",
           "mixed": "cell and node extents (fields of both kinds)"}
_MEMORY = {"cells": "the cell extents", "nodes": "the node extents (memory_te=TE.NN)"}


def _check_flat_layout(typer, v: ViewRef, position: int | None, node) -> None:
    """A view under a flat or memory inner tag addresses every variable at the space's flat memory offsets
    (semantics §11), so a variable stored with other extents than the space's memory box (a Face, Edge
    or Node field without CellMemAligned in a cell space) would be read and written at the wrong cells:
    refuse it. ``position`` None: a runtime variable index, which may name any variable of the pack."""
    memory = typer.ext.get("la_memory", "cells")
    info = v.pack.type._bw_pack
    flux = v.kind in ("flux_pack", "flux")  # fluxes have the cell extents whatever their field's
    layouts = ["cells"] * len(info["vars"]) if flux else info.get("layouts") or ["cells"] * len(info["vars"])
    for p in range(len(layouts)) if position is None else (position,):
        if layouts[p] == memory:
            continue
        name = info["vars"][p]
        what = f"the fluxes of '{name}'" if flux else f"variable '{name}'"
        if position is None:
            what = f"a runtime variable index, which can name {what},"
        if memory == "cells" and not flux:
            advice = f"use la.logical_coords, or declare '{name}' with Metadata(..., \"CellMemAligned\")"
        else:
            advice = "use la.logical_coords, or memory_te=TE.CC"
        view = getattr(node, "value", None)
        view = f"view '{ast.unparse(view)}'" if view is not None else "a view"
        stored = "they are" if flux else f"'{name}' is"
        raise typer.error(KernelTypeError, f"{view} (la.{config(typer).inner}) addresses {what} at the index space's "
                          f"flat memory offsets, but {stored} stored with {_STORED[layouts[p]]} and the space's "
                          f"memory box has {_MEMORY[memory]}, so the offsets would miss its cells; {advice}", node)


# -- host values met in kernel code ------------------------------------------------------------------------
def _adapt(obj, t):
    return obj.value_for(t)


INTRINSICS.bindings["la_block"] = _bind_block
INTRINSICS.bindings["la_range"] = _bind_range
INTRINSICS.body_wrappers["la"] = _wrap_outer
INTRINSICS.register(SliceRef, attribute=_slice_attribute)
INTRINSICS.register(SliceMethod, call=_call_slice_method, statement=_slice_statement)
INTRINSICS.register(la_api.inner, for_iter=_inner_for, statement=_inner_call, call=_kernel_only)
INTRINSICS.register(la_api.inner_reduce, statement=_inner_reduce, call=_kernel_only)
INTRINSICS.register(la_api.get_per_point_scratch, call=_scratch)
INTRINSICS.register(ScratchRef, attribute=_scratch_attribute, subscript=_scratch_element)
INTRINSICS.register(ScratchMethod, statement=_scratch_zero, call=_scratch_call)
for _f in (la_api.make_pack_view, la_api.make_sparse_pack_view, la_api.make_var_view, la_api.make_flux_pack_view,
           la_api.make_flux_view, la_api.make_sparse_flux_pack_view):
    INTRINSICS.register(_f, call=_view)
INTRINSICS.register(ViewRef, subscript=lambda typer, v, idx, node: _view_element(typer, v, idx, node))
INTRINSICS.register(Index3, adapt=_adapt)
INTRINSICS.register(MemoryOffset, adapt=_adapt)
INTRINSICS.register(Halo, fingerprint=lambda h, seen: repr(h.offsets))
INTRINSICS.register(Tag, fingerprint=lambda t, seen: f"{t.kind}:{t.name}")

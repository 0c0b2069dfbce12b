"""Typing rules of mesh packs in kernel code: ``pack[b, var(c), k, j, i]``, ``pack.flux[...]``,
bound queries, and variable tags called at compile time (``rho(1)``).

A pack reaches a kernel as a struct whose type carries ``_bw_pack`` (variable names, component
counts, value dtype; see ``kernel_pack``). Typing keeps the pack's identity: an access is an
``IRPackElem`` naming the pack, block, variable and cell, a bound query an ``IRPackBound``; the
``lower_pack_access`` pass turns them into loads from the pack's address tables.
"""

from __future__ import annotations

import numpy as np

from .. import ir
from ..errors import KernelTypeError
from ..frontend.calls import RuntimeComponent
from ..frontend.expressions import Static
from ..frontend.intrinsics import INTRINSICS
from ..types.arrays import type_name
from ..types.kernel_params import is_pack_type
from ..types.scalars import int32
from .indexing import TopologicalElement
from .pack import VarRef, VarTag

PACK_METHODS = ("flux", "get_lower_bound", "get_upper_bound", "get_size", "get_nblocks", "contains")


class PackMethod:
    """``pack.flux`` and the bound queries, before the call."""

    def __init__(self, pack, name):
        self.pack = pack
        self.name = name


def var_position(typer, pack, ref, node) -> tuple[int, ir.IRExpr]:
    """Descriptor position of a variable reference and its component (an int32 expression)."""
    info = pack.type._bw_pack
    names = info["vars"]
    tag = ref.tag if isinstance(ref, (VarRef, RuntimeComponent)) else ref
    name = tag.name if isinstance(tag, VarTag) else None
    if name not in names:
        raise typer.error(KernelTypeError, f"variable {name or ref!r} is not in this pack (it has "
                          f"{', '.join(names)})", node)
    position = names.index(name)
    if isinstance(ref, RuntimeComponent):
        return position, ref.component_expr
    c = int(ref.component) if isinstance(ref, VarRef) else 0
    size = info["sizes"][position]
    if not 0 <= c < size:
        raise typer.error(KernelTypeError, f"component {c} of variable '{name}' is out of range [0, {size})", node)
    return position, ir.IRConst(c, int32)


def pack_var(typer, pack, spec, node) -> ir.PackVar:
    """The variable a pack index names: a tag (``rho``, ``rho(c)``) or a runtime flat index."""
    if isinstance(spec, Static) and isinstance(spec.value, (int, np.integer)) and not isinstance(spec.value, bool):
        # a flat variable index known when the kernel is compiled (pack.get_index(...) captured): checked now
        total = sum(pack.type._bw_pack["sizes"])
        if not 0 <= int(spec.value) < total:
            raise typer.error(KernelTypeError, f"flat variable index {int(spec.value)} is out of range [0, {total}) "
                              f"of this pack", node)
        return ir.PackVar(None, ir.IRConst(int(spec.value), int32))
    if isinstance(spec, Static):
        position, component = var_position(typer, pack, spec.value, node)
        return ir.PackVar(position, component)
    value = typer.to_value(spec, node)
    if value.type is not int32:
        raise typer.error(KernelTypeError, f"a pack variable index must be a variable tag or an int32, got "
                          f"{type_name(value.type)}", node)
    return ir.PackVar(None, value)


def check_element(typer, pack, te: TopologicalElement, position: int | None, node) -> None:
    """Refuse an access at element ``te`` of the variable at descriptor ``position`` (None: a runtime flat index,
    unchecked) when its fields do not store it: the pack's tables hold no address there (a cell field's F2 row is
    null: the process crashed), or the address of another element (TE.CC of a face field was its F1)."""
    stored = pack.type._bw_pack["elements"][position] if position is not None else None
    if stored is not None and int(te) not in stored:
        name = pack.type._bw_pack["vars"][position]
        held = ", ".join(f"TE.{TopologicalElement(e).name}" for e in stored)
        raise typer.error(KernelTypeError, f"variable '{name}' is stored at {held}, not at TE.{te.name} (a pack "
                          f"access names an element its fields store)", node)


def check_flux(typer, pack, direction, position: int | None, node) -> None:
    """Refuse a flux access in a constant ``direction`` that the variable at descriptor ``position`` (None: a
    runtime flat index) has no fluxes in: the pack's flux tables hold a null row there (the process crashed).
    A direction computed at run time is tested in debug mode only (release builds clamp it into the variable's
    directions, passes/lower_pack_access.py), but refused here for a variable with no fluxes at all: no direction
    has storage."""
    fluxes = pack.type._bw_pack.get("fluxes")
    stored = fluxes[position] if fluxes is not None and position is not None else None
    if not isinstance(direction, ir.IRConst):
        if stored is not None and not stored:
            name = pack.type._bw_pack["vars"][position]
            raise typer.error(KernelTypeError, f"variable '{name}' has no fluxes (its fields lack Metadata "
                              f"WithFluxes, or the pack was built without with_fluxes=True): a flux in any "
                              f"direction has no storage", node)
        return
    d = int(direction.value)
    if not 1 <= d <= 3:
        raise typer.error(KernelTypeError, f"a flux direction is 1, 2 or 3 (wp.X1DIR, X2DIR, X3DIR), got {d}", node)
    if stored is not None and d not in stored:
        name = pack.type._bw_pack["vars"][position]
        has = (f"fluxes in directions {', '.join(map(str, stored))} only (a {len(stored)}-D mesh)" if stored else
               "no fluxes (its fields lack Metadata WithFluxes, or the pack was built without with_fluxes=True)")
        raise typer.error(KernelTypeError, f"variable '{name}' has {has}: a flux in direction {d} has no "
                          f"storage", node)


def element_of(value) -> int | None:
    """The element slot of a topological element key (``TE.F2`` -> 1), None for anything else."""
    return int(value) % 3 if isinstance(value, TopologicalElement) else None


def _cell_indices(typer, nodes, node) -> list:
    kji = [typer.value(n) for n in nodes]
    for x in kji:
        if not getattr(x.type, "is_int", False):
            raise typer.error(KernelTypeError, f"pack indices must be integers, got {type_name(x.type)}", node)
    return kji


def _element(typer, pack, index_nodes, node) -> ir.IRExpr:
    """``pack[b, var(c), k, j, i]``, ``pack[b, TE.F1, var(c), k, j, i]`` or ``pack[b, idx, k, j, i]``."""
    if len(index_nodes) not in (5, 6):
        # pack[b, var, idx] with the flat index of an la.inner loop: that index addresses a pack view
        flat = (" (a flat cell index of la.inner addresses a pack view: pv = la.make_pack_view(rng, pack), then "
                "pv[var(), idx])" if len(index_nodes) == 3 else "")
        raise typer.error(KernelTypeError, f"a pack takes [b, var, k, j, i] or [b, element, var, k, j, i], got "
                          f"{len(index_nodes)} indices{flat}", node)
    b = typer.value(index_nodes[0])
    element = 0
    rest = index_nodes[1:]
    te = None
    if len(index_nodes) == 6:
        te = typer.static_value(rest[0])
        if not isinstance(te, TopologicalElement):  # an int was taken modulo 3
            raise typer.error(KernelTypeError, f"the element of pack[b, element, var, k, j, i] is a TE (TE.CC, TE.F1, "
                              f"...), got {te!r}", node)
        element = int(te) % 3
        rest = rest[1:]
    var = pack_var(typer, pack, typer.expr(rest[0]), node)
    if te is not None:
        check_element(typer, pack, te, var.position, node)
    return ir.IRPackElem(pack, b, var, element, None, _cell_indices(typer, rest[1:], node), None,
                         pack.type._bw_pack["dtype"], typer.where(node))


def _flux(typer, pack, arg_nodes, node) -> ir.IRExpr:
    """``pack.flux(b, dir, var, k, j, i)`` (read) or ``pack.flux[b, dir, var, k, j, i]`` (read/write)."""
    if len(arg_nodes) != 6:
        raise typer.error(KernelTypeError, "pack.flux takes [b, dir, var, k, j, i]", node)
    b = typer.value(arg_nodes[0])
    direction = typer.value(arg_nodes[1])
    var = pack_var(typer, pack, typer.expr(arg_nodes[2]), node)
    check_flux(typer, pack, direction, var.position, node)
    return ir.IRPackElem(pack, b, var, 0, direction, _cell_indices(typer, arg_nodes[3:], node), None,
                         pack.type._bw_pack["dtype"], typer.where(node))


def _attribute(typer, base, attr, node):
    return Static(PackMethod(base, attr)) if attr in PACK_METHODS else None


def _method_subscript(typer, method: PackMethod, index_nodes, node):
    if method.name != "flux":
        raise typer.error(KernelTypeError, f"pack.{method.name} is called, not indexed", node)
    return _flux(typer, method.pack, index_nodes, node)


def _call_method(typer, method: PackMethod, node):
    pack, name = method.pack, method.name
    args = node.args
    if name == "get_nblocks":
        return ir.IRField(pack, "nblocks", pack.type._field_types["nblocks"])
    if name == "flux":
        if node.keywords:
            raise typer.error(KernelTypeError, "pack.flux takes no keyword arguments", node)
        return _flux(typer, pack, args, node)
    if len(args) == 1 and name in ("get_lower_bound", "get_upper_bound") and not node.keywords:
        return _block_bound(typer, pack, name, typer.value(args[0]), node)
    if name == "contains" and args and not node.keywords:
        return _contains(typer, pack, args, node)
    if len(args) != 2:
        one = " (or (b): all of the block's variables)" if name in ("get_lower_bound", "get_upper_bound") else ""
        raise typer.error(KernelTypeError, f"pack.{name}(b, var) takes 2 arguments{one}", node)
    b = typer.value(args[0])
    spec = typer.expr(args[1])
    position, _ = var_position(typer, pack, spec.value, node)
    lower = ir.IRPackBound(pack, b, position, "lower", int32)
    upper = ir.IRPackBound(pack, b, position, "upper", int32)
    if name == "get_lower_bound":
        return lower
    if name == "get_upper_bound":
        return upper
    size = typer.builtin_call("add", [typer.builtin_call("sub", [upper, lower], node), ir.IRConst(1, int32)], node)
    if name == "get_size":
        return size
    return typer.builtin_call("gt", [size, ir.IRConst(0, int32)], node)  # contains


def _contains(typer, pack, args, node):
    """Parthenon's ``Contains(b, v1, v2, ...)`` (all the variables on block ``b``: the smallest of their sizes
    is positive) and ``Contains(b)`` (the block holds any of the pack's variables)."""
    b = typer.value(args[0])
    if len(args) == 1:
        upper = _block_bound(typer, pack, "get_upper_bound", b, node)
        return typer.builtin_call("gt", [upper, ir.IRConst(-1, int32)], node)
    smallest = None
    for arg in args[1:]:
        position, _ = var_position(typer, pack, typer.expr(arg).value, node)
        size = typer.builtin_call("sub", [ir.IRPackBound(pack, b, position, "upper", int32),
                                          ir.IRPackBound(pack, b, position, "lower", int32)], node)
        smallest = size if smallest is None else typer.builtin_call("min", [smallest, size], node)
    return typer.builtin_call("gt", [smallest, ir.IRConst(-1, int32)], node)  # upper - lower + 1 > 0


def _block_bound(typer, pack, name: str, b, node):
    """Parthenon's ``GetLowerBound(b)`` / ``GetUpperBound(b)``: the flat indices of all of block ``b``'s
    variables, 0 to the largest upper bound of its variables (-1 for a block that holds none)."""
    if not getattr(b.type, "is_int", False):
        raise typer.error(KernelTypeError, f"pack.{name}(b): the block index must be an integer", node)
    if name == "get_lower_bound":
        return ir.IRConst(0, int32)
    last = ir.IRConst(-1, int32)
    for position in range(len(pack.type._bw_pack["vars"])):  # a flat pack: each block's indices from 0 up
        last = typer.builtin_call("max", [last, ir.IRPackBound(pack, b, position, "upper", int32)], node)
    return last


def _call_tag(typer, tag: VarTag, node):
    return typer.static_call(tag, node)


INTRINSICS.register_type(is_pack_type, value_attribute=_attribute, value_subscript=_element)
INTRINSICS.register(PackMethod, call=_call_method, subscript=_method_subscript)
INTRINSICS.register(VarTag, call=_call_tag)

"""Mesh packs inside kernels: ``pack[b, var(c), k, j, i]``, ``pack.flux(...)``, bound queries.

A pack reaches a kernel as a struct whose class carries ``_bw_pack`` (the variable names and the
value dtype) and whose fields are three tables built on the host (see ``brickwork.mesh.kernel_pack``):
``ptrs[b, idx, element] = (address, k stride, j stride)`` of each variable component's storage,
``fluxes[b, idx, dir - 1]`` the same for flux storage, and ``bounds[b, var] = (lower, upper)``.
An access loads one row (loop-invariant in an inner i loop) and indexes the storage directly.
"""

from __future__ import annotations

from ..errors import KernelTypeError
from ..types.arrays import type_name
from ..types.scalars import int32, int64
from . import ir

PACK_METHODS = ("flux", "get_lower_bound", "get_upper_bound", "get_size", "get_nblocks", "contains")


def is_pack_type(t) -> bool:
    return getattr(t, "_bw_pack", None) is not None


class PackMethod:
    """``pack.flux`` and the bound queries, before the call."""

    def __init__(self, pack, name):
        self.pack = pack
        self.name = name


class PackMixin:
    """Mixin of ``Builder``: lowering of pack accesses to storage loads and stores."""

    def _pack_field(self, pack, name):
        return ir.IRField(pack, name, pack.type._field_types[name])

    def _table(self, pack, name, indices):
        table = self._pack_field(pack, name)
        return ir.IRArrayElem(table, indices, table.type.dtype)

    def _var_position(self, pack, ref, node) -> tuple[int, ir.IRExpr]:
        """Descriptor position of a variable reference and its component (an int32 expression)."""
        names = pack.type._bw_pack["vars"]
        tag = getattr(ref, "tag", ref)  # a VarRef (rho(c)) or a bare VarTag (rho)
        name = getattr(tag, "name", None)
        if name not in names:
            raise self.error(KernelTypeError, f"variable {name or ref!r} is not in this pack (it has "
                             f"{', '.join(names)})", node)
        position = names.index(name)
        component = getattr(ref, "component_expr", None)
        if component is None:
            c = int(getattr(ref, "component", 0))
            size = pack.type._bw_pack["sizes"][position]
            if not 0 <= c < size:
                raise self.error(KernelTypeError, f"component {c} of variable '{name}' is out of range "
                                 f"[0, {size})", node)
            component = ir.IRConst(c, int32)
        return position, component

    def _flat_index(self, pack, b, spec, node) -> ir.IRExpr:
        from .expressions import Static

        if isinstance(spec, Static):
            position, component = self._var_position(pack, spec.value, node)
            lower = self._table(pack, "bounds", [b, ir.IRConst(position, int32), ir.IRConst(0, int32)])
            return self.builtin_call("add", [lower, component], node)
        value = self.to_value(spec, node)
        if value.type is not int32:
            raise self.error(KernelTypeError, f"a pack variable index must be a variable tag or an int32, got "
                             f"{type_name(value.type)}", node)
        return value

    def _storage(self, pack, table, b, flat, slot, kji, node) -> ir.IRExpr:
        row = [b, flat, slot]
        address = self._table(pack, table, row + [ir.IRConst(0, int32)])
        sk = self._table(pack, table, row + [ir.IRConst(1, int32)])
        sj = self._table(pack, table, row + [ir.IRConst(2, int32)])
        k, j, i = (self._as_int64(x, node) for x in kji)
        offset = self.builtin_call("add", [self.builtin_call("add", [self.builtin_call("mul", [k, sk], node),
                                                                      self.builtin_call("mul", [j, sj], node)],
                                                             node), i], node)
        return ir.IRRawElem(address, offset, pack.type._bw_pack["dtype"])

    def _as_int64(self, value, node):
        if not getattr(value.type, "is_int", False):
            raise self.error(KernelTypeError, f"pack indices must be integers, got {type_name(value.type)}", node)
        return value if value.type is int64 else ir.IRCast(value, int64)

    def pack_element(self, pack, index_nodes, node) -> ir.IRExpr:
        """``pack[b, var(c), k, j, i]`` or ``pack[b, TE.F1, var(c), k, j, i]`` or ``pack[b, idx, k, j, i]``."""
        if len(index_nodes) not in (5, 6):
            raise self.error(KernelTypeError, f"a pack takes [b, var, k, j, i] or [b, element, var, k, j, i], got "
                             f"{len(index_nodes)} indices", node)
        b = self.value(index_nodes[0])
        element = 0
        rest = index_nodes[1:]
        if len(index_nodes) == 6:
            te = self.static_value(rest[0])
            element = int(te) % 3
            rest = rest[1:]
        flat = self._flat_index(pack, b, self.expr(rest[0]), node)
        kji = [self.value(n) for n in rest[1:]]
        return self._storage(pack, "ptrs", b, flat, ir.IRConst(element, int32), kji, node)

    def pack_flux(self, pack, arg_nodes, node) -> ir.IRExpr:
        """``pack.flux(b, dir, var, k, j, i)`` (read) or ``pack.flux[b, dir, var, k, j, i]`` (read/write)."""
        if len(arg_nodes) != 6:
            raise self.error(KernelTypeError, "pack.flux takes [b, dir, var, k, j, i]", node)
        b = self.value(arg_nodes[0])
        direction = self.value(arg_nodes[1])
        slot = self.builtin_call("sub", [direction, ir.IRConst(1, int32)], node)
        flat = self._flat_index(pack, b, self.expr(arg_nodes[2]), node)
        return self._storage(pack, "fluxes", b, flat, slot, [self.value(a) for a in arg_nodes[3:]], node)

    def call_pack_method(self, method: PackMethod, node):
        pack, name = method.pack, method.name
        args = node.args
        if name == "get_nblocks":
            return self._pack_field(pack, "nblocks")
        if name == "flux":
            if node.keywords:
                raise self.error(KernelTypeError, "pack.flux takes no keyword arguments", node)
            return self.pack_flux(pack, args, node)
        if len(args) != 2:
            raise self.error(KernelTypeError, f"pack.{name}(b, var) takes 2 arguments", node)
        b = self.value(args[0])
        spec = self.expr(args[1])
        position, _ = self._var_position(pack, spec.value, node)
        pos = ir.IRConst(position, int32)
        lower = self._table(pack, "bounds", [b, pos, ir.IRConst(0, int32)])
        upper = self._table(pack, "bounds", [b, pos, ir.IRConst(1, int32)])
        if name == "get_lower_bound":
            return lower
        if name == "get_upper_bound":
            return upper
        size = self.builtin_call("add", [self.builtin_call("sub", [upper, lower], node), ir.IRConst(1, int32)], node)
        if name == "get_size":
            return size
        return self.builtin_call("gt", [size, ir.IRConst(0, int32)], node)  # contains

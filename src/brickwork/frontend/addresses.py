"""``wp.address_of(place)`` in kernels: the address of a place (a local, an array element, a struct field, or
a component of one of these) as a ``uint64``, for a ``wp.func_native`` snippet to read or write through,
as in Warp. The place itself is stored through, so the kernel sees what the snippet wrote there."""

from __future__ import annotations

import ast

from .. import ir
from ..builtins.addresses import address_of
from ..errors import KernelTypeError
from ..types.arrays import type_name
from ..types.scalars import uint64
from .intrinsics import INTRINSICS
from .places import bound_constant, names_a_place

_PLACES = "a local variable, array element, struct field, or a component of one of these"


def _address_of(typer, f, node):
    if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
        raise typer.error(KernelTypeError, "wp.address_of() takes exactly one positional argument, the place "
                          f"whose address it gives ({_PLACES})", node)
    source = node.args[0]
    value = typer.value(source)
    if not names_a_place(source, value):
        raise typer.error(KernelTypeError, f"wp.address_of() requires an addressable expression ({_PLACES}), got "
                          f"'{ast.unparse(source)}', a value with no storage of its own", node)
    known = bound_constant(typer, source, value)
    if known is not None:  # as in Warp: a constant has no storage
        raise typer.error(KernelTypeError, f"wp.address_of() got '{source.id}', a local bound to the constant "
                          f"{known!r}; declare it as a variable to take its address: "
                          f"{source.id} = wp.{type_name(value.type)}({known!r})", node)
    return ir.IRCall("address_of", [value], uint64)


INTRINSICS.register_object(address_of, call=_address_of)

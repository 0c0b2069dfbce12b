"""``wp.printf``'s format, checked against its values as C's ``printf`` reads them.

C's ``printf`` trusts its format: a value of another kind than its conversion (``%d`` of a float, ``%f`` of an
int), a length the value does not have (``%Lf``), an unknown or cut-off conversion
(``%q``, a final ``%``) or a NUL character (where the format ends) print garbage or nothing. Each is refused
with the kernel's line, except an integer whose width differs from the length modifier's (``%d`` of an
``int64``, ``%lld`` of an ``int32``): it is converted to that width, keeping its signedness, as a cast in C.
"""

from __future__ import annotations

import re

from .. import ir
from ..errors import KernelTypeError
from ..types.arrays import type_name
from ..types.scalars import int32, int64, uint32, uint64

#: one conversion: flags, width, precision, length, conversion character (``%%`` too)
PRINTF_SPEC = re.compile(r"%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(hh|h|ll|l|L|z|j|t)?([diouxXfFeEgGaAcspn]))")

_UNKNOWN = re.compile(r"%[-+ #0-9.*$]*[hlLzjt]*.?", re.S)  # what an unknown conversion shows
_INTEGER = "diouxXc"
_WIDE = ("l", "ll", "j", "z", "t")  # 64-bit integers on the 64-bit platforms brickwork targets


def check_printf(typer, fmt: str, values: list, node) -> list:
    """The values of ``printf(fmt, ...)``, each checked against its conversion (an integer converted to the
    width its conversion reads); errors name the conversion and the value's type."""
    if "\0" in fmt:
        raise typer.error(KernelTypeError, f"printf(): the format {fmt!r} holds a NUL character, where C's printf "
                          f"would stop", node)
    specs, pos = [], fmt.find("%")
    while pos >= 0:
        m = PRINTF_SPEC.match(fmt, pos)
        if m is None:
            shown = _UNKNOWN.match(fmt, pos).group()
            raise typer.error(KernelTypeError, f"printf(): {shown!r} in the format {fmt!r} is not a conversion C's "
                              f"printf knows (write '%%' for a percent sign)", node)
        if m.group() != "%%":
            specs.append(m)
        pos = fmt.find("%", m.end())
    bad = [m.group() for m in specs if m.group(2) in "spn"]
    if bad:
        raise typer.error(KernelTypeError, f"printf(): conversion {bad[0]!r} prints no kernel value "
                          f"(numbers: d i u o x X f F e E g G a A c; %s takes a string constant)", node)
    wanted = sum(1 + m.group().count("*") for m in specs)
    if wanted != len(values):
        raise typer.error(KernelTypeError, f"printf(): the format {fmt!r} has {wanted} conversion(s) but "
                          f"{len(values)} value(s) were given", node)
    out, at = [], 0
    for m in specs:
        for _ in range(m.group().count("*")):  # a '*' width or precision reads an int
            out.append(_integer(typer, values[at], "", f"the '*' of {m.group()!r}", node))
            at += 1
        out.append(_value(typer, values[at], m, node))
        at += 1
    return out


def _value(typer, value, m, node):
    spec, length, conv = m.group(), m.group(1) or "", m.group(2)
    if conv in _INTEGER:
        return _integer(typer, value, length, f"conversion {spec!r}", node)
    if not value.type.is_float:
        raise typer.error(KernelTypeError, f"printf(): conversion {spec!r} prints a float, got a value of type "
                          f"{type_name(value.type)} (print integers with %d, or convert with float())", node)
    if length not in ("", "l"):
        raise typer.error(KernelTypeError, f"printf(): conversion {spec!r} has a length modifier ({length!r}) that "
                          f"kernel floats do not take (write '%{conv}')", node)
    return value


def _integer(typer, value, length: str, what: str, node):
    t = value.type
    if t.is_float:
        raise typer.error(KernelTypeError, f"printf(): {what} prints an integer, got a value of type "
                          f"{type_name(t)} (print floats with %f or %g, or convert with int())", node)
    signed = t.__name__ == "bool" or not t.__name__.startswith("uint")
    if length in _WIDE:
        target = int64 if signed else uint64
    else:
        target = int32 if signed else uint32
    if t in (int64, uint64) or target in (int64, uint64):
        return value if t is target else ir.IRCast(value, target)
    return value  # 8- to 32-bit integers and bool: C's promotion gives the int printf reads

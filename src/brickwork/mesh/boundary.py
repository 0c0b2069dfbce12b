"""Boundary conditions of the mesh's six sides.

A side is ``periodic``, ``outflow`` (zero gradient: ghosts copy the nearest interior value),
``reflecting`` (ghosts mirror the interior; the normal component of ``Vector`` fields flips sign),
or a user function ``fn(block, view, side) -> None``. A user function is called once per block on
that side and per ``FillGhost`` field, with ``view`` the block's storage of the field
(``(nslots, nk, nj, ni)``, see ``fields``) and ``side`` an ``IndexDomain`` (``inner_x1`` ..
``outer_x3``); it must fill the ghost slab of that side over the whole extent of the other
directions. A function that declares a parameter named ``field`` also receives the field name as
``field=...``.

On a GPU (and under the emulation target, which runs the GPU mapping on the CPU) a user function
sees a host copy of the field, copied back after the call: a transfer each way per ghost fill. A
function object that also has a method ``fill_device(mesh, data, side, lids, field)`` is called
through that instead, once per side and field with the field's storage ``data`` where it lives and
the local ids ``lids`` of the blocks on that side: its own kernels fill the ghosts, and nothing is
copied (the hydro application's ``hydrostatic`` walls are such an object).

``Mesh(..., boundaries=...)`` accepts one value for every side, or a dict whose keys are
directions (``"x1"``: both sides) or sides (``"inner_x1"``, ``IndexDomain.inner_x1``). Plain
integers are refused: ``IndexDomain.inner_x1 == 2``, so a dict cannot tell them apart. A side key
beats a direction key, and sides not named are ``outflow``. Periodicity is a property of a
direction: both of its sides must be periodic.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .indexing import BOUNDARY_SIDES, IndexDomain


class BoundaryCondition(enum.Enum):
    """The kinds of boundary condition (``user`` marks a side handled by a user function)."""

    periodic = "periodic"
    outflow = "outflow"
    reflecting = "reflecting"
    user = "user"


@dataclass(frozen=True)
class SideBoundary:
    """The boundary condition of one side, with the user function if any."""

    kind: BoundaryCondition
    function: Callable | None = None
    pass_field: bool = False
    #: the function's ``fill_device`` method, if it has one (module docstring)
    fill_device: Callable | None = None

    def call_user(self, block: object, view: object, side: IndexDomain, field: str) -> None:
        """Call the user function with the documented arguments."""
        assert self.function is not None
        if self.pass_field:
            self.function(block, view, side, field=field)
        else:
            self.function(block, view, side)


def _side_boundary(value: object, where: str) -> SideBoundary:
    if isinstance(value, BoundaryCondition):
        if value is BoundaryCondition.user:
            raise ValueError(f"boundary {where}: pass the user function itself, not BoundaryCondition.user")
        return SideBoundary(value)
    if isinstance(value, str):
        try:
            kind = BoundaryCondition(value)
        except ValueError:
            kind = None
        if kind is None or kind is BoundaryCondition.user:
            valid = "'periodic', 'outflow', 'reflecting' or a function"
            raise ValueError(f"boundary {where}: unknown condition {value!r}; use {valid}") from None
        return SideBoundary(kind)
    if callable(value):
        try:
            params = inspect.signature(value).parameters
        except (TypeError, ValueError):
            params = {}
        return SideBoundary(BoundaryCondition.user, value, "field" in params, getattr(value, "fill_device", None))
    raise TypeError(f"boundary {where}: expected a BoundaryCondition, a name or a function, got {value!r}")


def _keys_to_sides(key: object, ndim: int) -> tuple[IndexDomain, ...]:
    """The sides a ``boundaries`` dict key names, checked against the mesh dimension."""
    sides: tuple[IndexDomain, ...]
    if isinstance(key, IndexDomain):
        sides = (key,) if key in BOUNDARY_SIDES else ()
    elif isinstance(key, str) and key in IndexDomain.__members__:
        sides = (IndexDomain[key],) if IndexDomain[key] in BOUNDARY_SIDES else ()
    elif isinstance(key, str) and key in ("x1", "x2", "x3"):
        d = int(key[1])
        sides = (IndexDomain.inner(d), IndexDomain.outer(d))
    elif isinstance(key, int):
        # Plain ints would collide with IndexDomain keys (IndexDomain.inner_x1 == 2) in a dict.
        raise ValueError(f"boundaries: integer key {key!r} is ambiguous; use 'x1'..'x3' or a side name")
    else:
        sides = ()
    if not sides:
        athena = {f"{io}x{d}": f"{side}_x{d}" for io, side in (("i", "inner"), ("o", "outer")) for d in (1, 2, 3)}
        hint = f" (Parthenon's and Athena++'s {key!r} is {athena[key]!r})" if key in athena else ""
        raise ValueError(f"boundaries: unknown key {key!r}{hint}; use 'x1'..'x3' or a side such as 'inner_x1'")
    for side in sides:
        if side.direction > ndim:
            raise ValueError(
                f"boundaries: {side.name} names direction x{side.direction}, inactive in a {ndim}-D mesh"
            )
    return sides


def resolve_boundaries(spec: object, ndim: int) -> dict[IndexDomain, SideBoundary]:
    """Normalise a ``boundaries`` argument to one ``SideBoundary`` per active side."""
    active = [s for s in BOUNDARY_SIDES if s.direction <= ndim]
    if not isinstance(spec, Mapping):
        one = _side_boundary(spec, "(all sides)")
        result = {side: one for side in active}
    else:
        result = {side: SideBoundary(BoundaryCondition.outflow) for side in active}
        # Direction keys first, then side keys, so the more specific key wins.
        ordered = sorted(spec.items(), key=lambda kv: len(_keys_to_sides(kv[0], ndim)), reverse=True)
        for key, value in ordered:
            for side in _keys_to_sides(key, ndim):
                result[side] = _side_boundary(value, side.name)
    for d in range(1, ndim + 1):
        lo, hi = result[IndexDomain.inner(d)], result[IndexDomain.outer(d)]
        lo_p = lo.kind is BoundaryCondition.periodic
        hi_p = hi.kind is BoundaryCondition.periodic
        if lo_p != hi_p:
            raise ValueError(
                f"boundaries: x{d} is periodic on one side only (inner_x{d}={lo.kind.value}, "
                f"outer_x{d}={hi.kind.value}); periodicity needs both sides"
            )
    return result


def periodic_directions(boundaries: Mapping[IndexDomain, SideBoundary], ndim: int) -> tuple[bool, bool, bool]:
    """``(periodic in x1, x2, x3)``; inactive directions are not periodic."""
    return tuple(
        d <= ndim and boundaries[IndexDomain.inner(d)].kind is BoundaryCondition.periodic for d in (1, 2, 3)
    )

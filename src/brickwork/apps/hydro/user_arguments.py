"""What a problem's functions (``OUTPUTS``, ``HISTORY``, ``TIMESTEP``, ``SOURCE``) are given: the arguments
they name, as pytest gives fixtures, or their full positional form.

A function names the values it wants, in any order: ``def SOURCE(density, x2): ...`` gets the density and
the cell centres' x2 by keyword. Each kind of function has its names (``NAMES``) and its positional form
(``FORMS``): a function that takes ``*args``, or exactly the form's number of parameters under names of its
own (``fn(rho, v1, v2, v3, p, params, gamma)``), gets the form's values in its order, as before names
were matched. A parameter of another name without a default is a mistake, found when the problem loads
(``describe_mistakes``). Parameters with defaults that are not names (``lambda density, k=k: ...``) keep
their defaults; ``**kwargs`` gets every name.
"""

from __future__ import annotations

import functools
import inspect
import os

from .schema import ConfigError

#: the primitive variables, as the functions name them
PRIMITIVE_ARGUMENTS = ("density", "v1", "v2", "v3", "pressure")
#: the positional form of each kind of function
FORMS = {
    "OUTPUTS": PRIMITIVE_ARGUMENTS + ("params", "gamma"),
    "HISTORY": PRIMITIVE_ARGUMENTS + ("params", "gamma"),
    "TIMESTEP": PRIMITIVE_ARGUMENTS + ("params", "gamma"),
    "SOURCE": PRIMITIVE_ARGUMENTS + ("params", "gamma", "x1", "x2", "x3", "time", "dt"),
}
#: the cell centres (``x1`` ``(nblocks, 1, 1, ni)``, ``x2`` ``(nblocks, 1, nj, 1)``, ``x3`` ``(nblocks, nk, 1,
#: 1)``) and the cell volume (a number: the mesh is uniform), which every kind may name
GEOMETRY = ("x1", "x2", "x3", "volume")
#: every name each kind of function may take
NAMES = {kind: form + tuple(n for n in GEOMETRY if n not in form) for kind, form in FORMS.items()}


class UnknownArguments(ConfigError):
    """A function names parameters that are none of its kind's ``NAMES`` (the message says which)."""


def signature_text(kind: str) -> str:
    """``fn(density, v1, ...)``: the positional form of ``kind``, for messages."""
    return f"fn({', '.join(FORMS[kind])})"


def where(function) -> str:
    """``name (file.py:line)`` of a Python function, else its repr."""
    code = getattr(function, "__code__", None)
    if code is None:
        return repr(function)
    name = getattr(function, "__name__", repr(function))
    return f"{name} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"


@functools.lru_cache(maxsize=256)
def plan(function, kind: str) -> tuple[str, ...] | None:
    """The names to give ``function`` by keyword, or None for the positional form; ``UnknownArguments``
    naming the function, its file and line, the parameters that are no names and the names there are."""
    form, names = FORMS[kind], NAMES[kind]
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: as before names were matched
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return None
    everything = any(p.kind is p.VAR_KEYWORD for p in parameters)
    named = [p for p in parameters if p.kind is not p.VAR_KEYWORD]
    required = [p for p in named if p.default is p.empty]
    unknown = [p.name for p in required if p.name not in names]
    by_position = [p for p in named if p.kind is p.POSITIONAL_ONLY]
    if not unknown and not by_position:
        wanted = [p.name for p in named if p.name in names]
        return tuple(names) if everything else tuple(wanted)
    if len(required) == len(form) and all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in required):
        return None  # the positional form under names of its own
    if unknown:
        which = "which are not among" if len(unknown) > 1 else "which is not among"
        what = (f"{', '.join(unknown)}, {which} the names a {kind} function may take ({', '.join(names)}); "
                f"name any of them")
    else:
        what = (f"{', '.join(p.name for p in by_position)} by position only (before '/'), which no name reaches; "
                f"name any of {', '.join(names)}")
    raise UnknownArguments(f"{where(function)} takes {what}, or take all {len(form)} in order, {signature_text(kind)}")


def describe_mistake(function, kind: str, label: str) -> list[str]:
    """``[label: what is wrong]`` when ``function`` names arguments its kind does not give (else [])."""
    try:
        plan(function, kind)
    except UnknownArguments as e:
        return [f"{label}: {e}"]
    except TypeError:  # an unhashable callable: called positionally, as before
        return []
    return []


def call(function, kind: str, positional: list, lazy: dict):
    """``function`` called with its kind's positional form, the values ``positional``, or with the names it
    takes: the form's values and ``lazy`` (name -> a function computing it, called only when named)."""
    try:
        wanted = plan(function, kind)
    except TypeError:  # an unhashable callable: not cached
        wanted = plan.__wrapped__(function, kind)
    if wanted is None:
        return function(*positional)
    values = dict(zip(FORMS[kind], positional))
    return function(**{name: values[name] if name in values else lazy[name]() for name in wanted})


def geometry(sim) -> dict:
    """``GEOMETRY`` of this rank's blocks, each computed when a function names it."""
    return {"x1": lambda: sim.sources.positions()[0], "x2": lambda: sim.sources.positions()[1],
            "x3": lambda: sim.sources.positions()[2],
            "volume": lambda: sim.mesh.blocks[0].coords.cell_volume}

"""Check that every MPI rank was given the same description of a collective object.

A mesh (or a hydro run) built from a different description on one rank would not fail: the ranks
would exchange ghost messages of the wrong cells, or wait for messages that never come. Where such an
object is made (collectively anyway), ``check_same`` gathers each rank's description, one small
allgather, and raises the same ``ValueError`` on every rank when they differ, naming the first item
that differs and the ranks.
"""

from __future__ import annotations

from collections.abc import Mapping


def check_same(comm, what: str, items: Mapping[str, object], hint: str = "") -> None:
    """``ValueError`` on every rank of ``comm`` (collective) when ``items`` (name: value, compared by
    ``repr``) is not the same on every rank; ``what`` names the object, ``hint`` ends the message."""
    if comm.Get_size() == 1:
        return
    mine = {name: repr(value) for name, value in items.items()}
    everyone = comm.allgather(mine)
    message = first_difference(everyone)
    if message is not None:
        error = ValueError(f"{what} differs between the MPI ranks: {message}" + (f"; {hint}" if hint else ""))
        error.said_elsewhere = comm.Get_rank() != 0  # uncaught on every rank: rank 0 alone prints it (comm's hook)
        raise error


def first_difference(everyone: list[dict[str, str]]) -> str | None:
    """How the first item that differs between the ranks' descriptions (rank order) differs, in words."""
    first = everyone[0]
    for rank, other in enumerate(everyone[1:], start=1):
        for name in list(first) + [n for n in other if n not in first]:
            a, b = first.get(name, "missing"), other.get(name, "missing")
            if a != b:
                return f"{name} is {_short(a)} on rank 0 but {_short(b)} on rank {rank}"
    return None


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."

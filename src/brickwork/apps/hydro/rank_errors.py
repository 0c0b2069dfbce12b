"""What the ranks of a run failed with, said once: each distinct message with the ranks that met it.

The hydro run agrees on errors at a few points (its start, each output, each ghost fill that runs a
problem's boundary functions): every rank learns what every other met, and rank 0 prints one line
for all of them. ``said_once`` (of ``brickwork.comm``) composes that line from the ranks' messages;
``agree`` runs a step on every rank and raises what any rank met on all of them.
"""

from __future__ import annotations

from brickwork import comm
from brickwork.comm import OtherRankError, on_ranks, said_once  # noqa: F401 - on_ranks: named here too, as before
from brickwork.config import SettingError
from brickwork.errors import BrickworkError
from brickwork.io.files import OutputError
from brickwork.io.restart import RestartError

from .schema import ConfigError


class SimulationError(BrickworkError, RuntimeError):
    """The run cannot go on (a bad state appeared, the time step collapsed, an output could not be
    written); the message says why, at which cycle, and names the last good output."""




_SHARED_ERRORS = (ConfigError, OutputError, RestartError, SimulationError, SettingError)


def agree(comm, fn, name_ranks: bool = True) -> None:
    """Run ``fn()`` on every rank; if it raises on any rank, raise on all of them (collective), so no
    rank goes on alone and waits for ever: the first failing rank's brickwork error type,
    or, for another exception (a MemoryError, an OSError), a SimulationError naming it (the rank that met
    it raises that SimulationError from its own error). The message says each distinct error once, with
    the ranks that met it where some ranks met none or another (``rank_errors.said_once``; ``name_ranks``:
    unless ``fn`` does its work on rank 0 alone, which says only its own)."""
    error = None
    try:
        fn()
    except (Exception, SystemExit) as e:  # any: a rank leaving alone would leave the others waiting
        if comm.Get_size() == 1:
            raise
        error = e
    if comm.Get_size() == 1:
        return
    if error is None:
        told = None
    elif isinstance(error, _SHARED_ERRORS):
        told = (type(error), str(error))
    else:
        told = (SimulationError, f"{type(error).__name__}: {error}")
    errors = comm.allgather((told, isinstance(error, OtherRankError)))
    # an OtherRankError repeats the error of a rank that says its own here: said once, by that rank
    real = any(e is not None and not echo for e, echo in errors)
    errors = [None if echo and real else e for e, echo in errors]
    failed = [rank for rank, e in enumerate(errors) if e is not None]
    if failed:
        kind = errors[failed[0]][0]
        message = said_once([None if e is None else e[1] for e in errors], name_ranks)
        if error is not None and not isinstance(error, _SHARED_ERRORS):
            raise kind(message) from error
        raise kind(message)


def on_every_rank(fn):
    """``fn()`` run on every rank of the run (``agree``): a result on every rank, or on every rank
    the error the first failing rank met (reading the input is a rank's own, but the run is shared)."""
    box = []
    agree(comm.world(), lambda: box.append(fn()))
    return box[0]


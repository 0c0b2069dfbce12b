"""MPI when the program runs under it: the one communicator the mesh, the kernel cache and the CLI use.

brickwork imports mpi4py only when it is needed: when an MPI launcher started this process with more
than one rank (``mpiexec`` sets ``PMI_SIZE``; Open MPI ``OMPI_COMM_WORLD_SIZE``), when the program
already imported ``mpi4py.MPI`` itself, or when it passes a communicator (``Mesh(..., comm=c)``).
Otherwise ``world()`` is ``SERIAL``: a one-rank communicator with the part of mpi4py's API brickwork
uses, so one process runs exactly as without MPI and pays nothing for it.

When ``import brickwork`` runs under an MPI launcher of several ranks, or brickwork first uses a
communicator of several ranks, it installs an exception hook: an uncaught exception on any rank
prints its traceback (prefixed with the rank) and calls ``MPI_Abort``, which ends every rank with a
non-zero exit instead of leaving the others waiting in their next message for ever. Installed at
import, the hook imports nothing: on a rank that has not initialised MPI yet (an exception before
the program's first MPI call, such as a file only that rank cannot read) it ends the process by
``SIGABRT`` instead, which the launcher answers by ending the other ranks; ``MPI_Init`` there could
wait for ever for ranks that never call it.

A collective call whose part fails on some ranks only raises on every rank (``gather_checked``,
``together``): the failing rank its own error, the others an ``OtherRankError`` naming it, so that a
program that catches the error goes on with every rank; the hook leaves an ``OtherRankError``
unprinted (the failing rank prints its own).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback

from .errors import BrickworkError

#: Environment variables in which MPI launchers give the number of ranks they started.
SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS")


class SerialComm:
    """A communicator of one rank (rank 0), spelled like mpi4py's ``Comm`` where brickwork uses it."""

    rank = 0
    size = 1

    def Get_rank(self) -> int:  # noqa: N802 - mpi4py's spelling
        return 0

    def Get_size(self) -> int:  # noqa: N802
        return 1

    def allgather(self, value):
        return [value]

    def gather(self, value, root: int = 0):
        return [value]

    def bcast(self, value, root: int = 0):
        return value

    def allreduce(self, value, op=None):
        return value

    def Barrier(self) -> None:  # noqa: N802
        return None

    def Dup(self) -> SerialComm:  # noqa: N802
        return self

    def Abort(self, errorcode: int = 1) -> None:  # noqa: N802
        os._exit(errorcode)

    def __repr__(self) -> str:
        return "SerialComm()"


SERIAL = SerialComm()
_world = None
_hook_installed = False


def launcher_size() -> int:
    """Number of ranks the MPI launcher says it started (1 when not started by one)."""
    for name in SIZE_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return 1


def world():
    """``MPI.COMM_WORLD`` when running on several ranks (see the module docstring), else ``SERIAL``."""
    global _world
    if _world is None:
        if launcher_size() > 1 or "mpi4py.MPI" in sys.modules:
            from mpi4py import MPI  # imported only under MPI: it initialises MPI

            _world = MPI.COMM_WORLD if MPI.COMM_WORLD.Get_size() > 1 else SERIAL
        else:
            _world = SERIAL
        if _world is not SERIAL:
            install_abort_hook(_world)
    return _world


def as_comm(comm):
    """The communicator ``comm`` names: ``world()`` for None, else an mpi4py intracommunicator."""
    if comm is None:
        return world()
    if isinstance(comm, SerialComm):
        return comm
    if all(hasattr(comm, name) for name in _COMM_METHODS):  # mpi4py's Intracomm, or a stand-in with its methods
        if comm.Get_size() == 1:
            return SERIAL
        if "mpi4py.MPI" in sys.modules:
            install_abort_hook(comm)
        return comm
    raise TypeError(f"comm must be None or an mpi4py intracommunicator (such as MPI.COMM_WORLD), got {comm!r}")


_COMM_METHODS = ("Get_rank", "Get_size", "Dup", "allgather", "Isend", "Irecv")


def is_parallel(comm) -> bool:
    """True for a communicator of more than one rank."""
    return comm is not SERIAL and not isinstance(comm, SerialComm)


#: Seconds between printing an uncaught exception or ``abort``'s message and aborting every rank.
ABORT_GRACE_SECONDS = 0.5


def install_abort_hook(comm=None) -> None:
    """Make an uncaught exception on one rank end every rank (traceback printed, then MPI_Abort on
    ``comm``; None: ``MPI.COMM_WORLD``, imported only when an exception comes)."""
    global _hook_installed
    if _hook_installed:
        return
    _hook_installed = True

    def hook(kind, value, tb):
        rank = comm.Get_rank() if comm is not None else _launcher_rank()
        if getattr(value, "said_elsewhere", False):
            # another rank prints this error (an OtherRankError's failing rank; rank 0 for an error every rank
            # raises alike) and aborts: every rank printing it said it once per rank. This one speaks (one line)
            # only if that abort has not ended it by then
            time.sleep(4 * ABORT_GRACE_SECONDS)
            said = f"[rank {rank}] {kind.__name__}: {value}\n"
        else:
            text = "".join(traceback.format_exception(kind, value, tb))
            said = "".join(f"[rank {rank}] {line}\n" for line in text.rstrip("\n").split("\n"))
        _write_and_abort(comm or _initialised_world() or _Killer(), said, 1)

    sys.excepthook = hook


def _launcher_rank() -> str:
    for name in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK"):
        if os.environ.get(name, "").isdigit():
            return os.environ[name]
    return "?"


def _initialised_world():
    """``MPI.COMM_WORLD`` when this process has initialised MPI (not finalised), else None."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is None or not mpi.Is_initialized() or mpi.Is_finalized():
        return None
    return mpi.COMM_WORLD


class _Killer:
    """Ends the process by ``SIGABRT`` (no core file), which the launcher answers by ending every rank:
    for a process that has not initialised MPI, whose ``MPI_Init`` could wait for ever for ranks that
    never call it, and whose plain non-zero exit MPICH's launcher would not pass on to the others."""

    def Abort(self, errorcode: int = 1) -> None:  # noqa: N802 - mpi4py's spelling
        import resource
        import signal

        try:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ValueError, OSError):
            pass
        signal.signal(signal.SIGABRT, signal.SIG_DFL)
        os.abort()


def install_hook_under_launcher() -> None:
    """``install_abort_hook()`` when an MPI launcher started several ranks (at ``import brickwork``:
    mpi4py is not imported, so MPI is not initialised)."""
    if launcher_size() > 1:
        install_abort_hook()


def abort(comm, message: str, code: int = 1) -> None:
    """Print ``message`` (prefixed with the rank) and end every rank of ``comm`` with exit ``code``; does
    not return."""
    _write_and_abort(comm, f"[rank {comm.Get_rank()}] {message}\n", code)
    # MPICH's MPI_Abort returns once it has told the launcher, which ends the ranks moments later: this
    # rank went on meanwhile, and the brickwork command printed its message a second time
    os._exit(code)


def _write_and_abort(comm, text: str, code: int) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()
    sys.stdout.flush()
    # the launcher forwards a rank's output through its own pipes and stops reading them when the abort ends
    # the ranks: on a busy machine the message was lost with them (an empty stderr; a path that aborted at
    # once failed a CI run); a moment's wait lets it through
    time.sleep(ABORT_GRACE_SECONDS)
    comm.Abort(code)


class OtherRankError(BrickworkError, RuntimeError):
    """Raised by a collective call on the ranks that met no error when another rank's part of it failed:
    that rank raises its own error, the others this one, naming the ranks and their errors (uncaught, it
    is not printed: the failing rank prints its own, ``said_elsewhere``)."""

    said_elsewhere = True


def on_ranks(ranks: list[int], nranks: int) -> str:
    """``"on rank 1 of 2"`` or ``"on ranks 1, 3 of 4"``."""
    return f"on rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))} of {nranks}"


def said_once(messages: list, name_ranks: bool = True) -> str | None:
    """The one line of ``messages`` (rank r's error message, None where rank r met none): each distinct
    message once, in the order of the first rank that met it, followed by the ranks that met it
    (``name_ranks``, and only where some rank met none or the ranks met different errors: a message every
    rank met needs no ranks); None when no rank met an error."""
    failed = [rank for rank, message in enumerate(messages) if message is not None]
    if not failed:
        return None
    if not name_ranks:
        return messages[failed[0]]
    by_message: dict[str, list[int]] = {}
    for rank in failed:
        by_message.setdefault(messages[rank], []).append(rank)
    if len(by_message) == 1 and len(failed) == len(messages):
        return messages[failed[0]]
    return "; ".join(f"{message} ({on_ranks(ranks, len(messages))})" for message, ranks in by_message.items())


def gather_checked(comm, what: str, error: BaseException | None, payload=None) -> list | None:
    """Every rank's ``payload`` (an ``allgather`` on ``comm``: collective), unless some rank met an
    ``error`` in its part of the call ``what``: then the ranks that met none raise an ``OtherRankError``
    naming the ranks and their errors, and a rank that met one gets None back and raises its own (from
    where it caught it: its traceback stays). No rank goes on alone while the others wait for it."""
    everyone = comm.allgather((None if error is None else f"{type(error).__name__}: {error}", payload))
    messages = [message for message, _ in everyone]
    if error is not None:
        return None
    if any(message is not None for message in messages):
        raise OtherRankError(f"{what} failed: {said_once(messages)}")
    return [part for _, part in everyone]


@contextlib.contextmanager
def together(comm, what: str):
    """Run the block on every rank of ``comm`` and end it on all of them alike (one small ``allgather``
    at its end; nothing on one rank): when the block raises on some rank (an ``Exception`` or
    ``SystemExit``), that rank raises it and the others an ``OtherRankError`` naming ``what``, the rank
    and its error, so a program that catches it goes on with every rank instead of one."""
    if comm.Get_size() == 1:
        yield
        return
    try:
        yield
    except (Exception, SystemExit) as e:  # a KeyboardInterrupt ends the job (the abort hook)
        gather_checked(comm, what, e)
        raise
    gather_checked(comm, what, None)


def describe() -> dict:
    """The MPI library and the ranks of this run, for ``brickwork info``; mpi4py is imported only
    when already loaded or when running under a launcher."""
    comm = world()
    info = {"ranks": comm.Get_size(), "rank": comm.Get_rank(), "library": None, "mpi4py": None}
    if "mpi4py.MPI" in sys.modules or launcher_size() > 1:
        info.update(_library())
    return info


def _library() -> dict:
    try:
        import mpi4py
        from mpi4py import MPI
    except ImportError:
        return {}
    first = MPI.Get_library_version().strip().splitlines()
    return {"library": " ".join(first[0].split()) if first else "unknown", "mpi4py": mpi4py.__version__,
            "standard": "{}.{}".format(*MPI.Get_version())}


def library_available() -> dict:
    """What ``describe`` says plus, when not running under MPI, whether mpi4py could be imported
    (without importing it: it would initialise MPI)."""
    info = describe()
    if info["library"] is None:
        import importlib.util

        info["mpi4py_installed"] = importlib.util.find_spec("mpi4py") is not None
    return info

"""The ``brickwork`` command: ``info``, ``cache dir|list|clear``, ``run``, ``demo``.

``brickwork run FILE.toml [section.key=value ...] [--restart FILE.npz] [--quiet]`` runs the hydro
application (``brickwork.apps.hydro``) on an input file; ``brickwork demo [key=value ...]`` runs its
Kelvin-Helmholtz demo. Options and overrides may come in any order after the input file. A mistake
in the input (unknown key, wrong type, impossible or too large mesh, unusable output directory), a
missing or unusable restart file, a state that turns non-finite, a collapsing time step or a
failed output write ends the command with one clear line on standard error and a non-zero exit
status (2 for input and restart errors, 1 for a failed run). So does a mistake in the machine's setup
(``_setup_error``): an invalid ``BRICKWORK_*`` value (2), an unsafe or unwritable kernel cache, or no
working C++ compiler (1). A compiler that rejects generated code is a brickwork bug: a traceback.
Ctrl-C and ``SIGTERM`` stop ``run`` and ``demo`` as interrupts (status 130 and 143), cleaning up.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys


def _info(args) -> int:
    from . import __version__, comm, config

    if comm.launcher_size() > 1 and comm.world().Get_rank() != 0:
        return 0  # under mpiexec, rank 0 speaks for all
    from .jit.toolchain import settings

    print(f"brickwork {__version__} (python {sys.version.split()[0]})")
    for problem in config.problems():  # an invalid BRICKWORK_* value: shown here, an error anywhere else
        print(f"setting:    invalid: {problem}")
    try:
        s = settings()
        print(f"compiler:   {s.cxx} ({s.version})")
        print(f"flags:      {' '.join(s.command('SOURCE', 'OUT', 'INCLUDE')[1:-3])}")
        print(f"openmp:     {'yes' if s.openmp else 'no'}")
    except Exception as e:  # noqa: BLE001 - info reports, never fails
        print(f"compiler:   unavailable: {e}")
    threads = vars(config).get("num_threads") or config.default_threads  # unset while its value is invalid
    print(f"threads:    {threads}")
    print(f"adaptive:   {_adaptive_line()}")
    for line in _cuda_lines():
        print(line)
    print(f"mpi:        {_mpi_line()}")
    root = vars(config).get("cache_dir")  # unset while its value is invalid (shown on a setting: line)
    print(f"cache:      {root if root is not None else 'invalid (see setting:)'}")
    return 0


def _adaptive_line() -> str:
    """The starvation guard's setting (``BRICKWORK_ADAPTIVE_THREADS``) and the threads a parallel launch gets
    now: with the guard on, after one measuring window of this process's own work (one thread busy for
    ``2 * WINDOW_S``), so that a machine whose cores other programs keep busy shows one thread."""
    import time

    from . import config

    adaptive = vars(config).get("adaptive_threads")  # unset while its value is invalid (shown on a setting: line)
    if adaptive is None:
        return "invalid (see setting:)"
    setting = "on" if adaptive else "off"
    if "num_threads" not in vars(config):  # an invalid thread count: no count in use to show
        return setting
    from .runtime.launch import _launch_threads
    from .runtime.starvation import WINDOW_S

    threads = _launch_threads()  # with the guard on: its first window starts
    if adaptive and threads > 1:
        end = time.monotonic() + 2 * WINDOW_S
        while time.monotonic() < end:  # ready to run all along: the window measures how long it waits for a core
            pass
        threads = _launch_threads()
    return f"{setting} (BRICKWORK_ADAPTIVE_THREADS), {threads} thread(s) in use now"


def _cuda_lines() -> list[str]:
    """NVRTC (compiles without a GPU), the driver and each device."""
    from . import cuda_driver
    from .errors import BrickworkError
    from .jit import nvrtc

    try:
        lines = ["nvrtc:      {}.{} ({})".format(*nvrtc.version(), nvrtc.library_path())]
    except BrickworkError as e:
        lines = [f"nvrtc:      unavailable: {e}"]
    try:
        drv = cuda_driver.driver()
        version = drv.version()
        lines.append(f"cuda:       driver {version // 1000}.{version % 1000 // 10}, {drv.device_count()} device(s)")
        for i in range(drv.device_count()):
            major, minor = drv.capability(i)
            lines.append(f"  cuda:{i}     {drv.name(i)}, sm_{major}{minor}, {drv.total_memory(i) / 2**30:.0f} GiB")
    except BrickworkError as e:
        lines.append(f"cuda:       {e}")
    return lines


def _mpi_line() -> str:
    from . import comm

    try:
        info = comm.library_available()
    except Exception as e:  # noqa: BLE001 - info reports, never fails
        return f"unavailable: {e}"
    if info["library"] is not None:
        return f"{info['library']} (MPI {info['standard']}, mpi4py {info['mpi4py']}), {info['ranks']} ranks"
    if info.get("mpi4py_installed"):
        return "mpi4py installed; 1 rank (run under mpiexec -n N for more)"
    return "no mpi4py (pip install 'brickwork[mpi]'); 1 rank"


def _cache(args) -> int:
    from . import config
    from .jit import cache

    try:
        config.cache_dir  # noqa: B018 - an invalid BRICKWORK_CACHE_DIR raises here (the others do not matter)
    except config.SettingError as e:
        print(f"brickwork: error: {e}", file=sys.stderr)
        return 2
    if args.action == "dir":
        print(cache.cache_root())
    elif args.action == "list":
        root = cache.cache_root()
        if os.path.lexists(root) and not os.path.isdir(root):  # listed as "0 entries" before: say what it is
            print(f"brickwork: error: the kernel cache {root} is not a folder (BRICKWORK_CACHE_DIR names a file?)",
                  file=sys.stderr)
            return 1
        rows = cache.entries()
        for row in rows:
            print(f"{row['key']}  {row['bytes'] / 1024:8.1f} KiB  {row['label']}")
        total = sum(r["bytes"] for r in rows)
        print(f"{len(rows)} entries, {total / 1024 / 1024:.1f} MiB in {cache.cache_root()}")
    elif args.action == "clear":
        # Removes only what brickwork made; a symbolic link as the root stays (see cache.clear).
        try:
            n = cache.clear()
        except (cache.UnsafeCacheError, OSError) as e:
            print(f"brickwork: error: cannot clear the kernel cache: {e}", file=sys.stderr)
            return 1
        print(f"removed {n} entries from {cache.cache_root()}")
    return 0


def _setup_error(e: BaseException) -> int | None:
    """The exit code for an error of the machine's setup, not of brickwork (None for anything else):
    2 for an invalid ``BRICKWORK_*`` value, 1 for an unsafe or unusable kernel cache (refused, read-only,
    full, cleared under the build) or no working C++ compiler."""
    from .config import SettingError

    if isinstance(e, SettingError):
        return 2
    from .jit.cache import BuildEnvironmentError  # only now: a run that never fails never loads them
    from .jit.store import UnsafeCacheError
    from .jit.toolchain import CompilerUnavailableError

    return 1 if isinstance(e, (UnsafeCacheError, BuildEnvironmentError, CompilerUnavailableError)) else None


def _hydro_errors(fn):
    """Run ``fn()``, turning the hydro application's expected errors, and the setup's (``_setup_error``),
    into one line and an exit code.

    Under MPI the hydro errors and invalid settings are collective (every rank meets the same one, see
    the hydro driver), so rank 0 alone prints the line and every rank returns the code; a cache or
    compiler error may reach one rank only, which prints it and ends them all; anything else ends all
    ranks through ``brickwork.comm``'s exception hook, and so does an interrupt or a ``MemoryError``
    (``_alone``)."""
    from . import comm
    from .apps.hydro import ConfigError, SimulationError
    from .config import SettingError
    from .errors import BrickworkError
    from .io.files import OutputError
    from .io.restart import RestartError

    several = comm.launcher_size() > 1
    quiet = several and comm.world().Get_rank() != 0

    def say(line: str) -> None:
        if not quiet:
            print(line, file=sys.stderr)

    try:
        with _terminate_as_interrupt():
            fn()
    except (ConfigError, RestartError) as e:
        say(f"brickwork: error: {e}")
        return 2
    except (SimulationError, OutputError) as e:  # before BrickworkError, which they are too
        say(f"brickwork: the run failed: {e}")
        return 1
    except (BrickworkError, SettingError) as e:
        code = _setup_error(e)
        if code is None:
            raise
        if several and code == 1:
            comm.abort(comm.world(), f"brickwork: error: {e}", code)
        say(f"brickwork: error: {e}")
        return code
    except MemoryError:
        return _alone(several, "brickwork: the run failed: out of memory (try a smaller mesh.nx)", 1)
    except Terminated:
        return _alone(several, "brickwork: terminated (SIGTERM)", 143)
    except KeyboardInterrupt:
        return _alone(several, "brickwork: interrupted", 130)
    return 0


class Terminated(KeyboardInterrupt):
    """``SIGTERM`` (``kill``, a batch system's time limit) during ``brickwork run`` or ``demo``."""


@contextlib.contextmanager
def _terminate_as_interrupt():
    """Within it, ``SIGTERM`` raises ``Terminated``, an interrupt: the run cleans up as for Ctrl-C (no
    temporary output file stays, an empty output directory it made is removed) and ends with one line,
    status 143; under MPI a rank that receives it alone ends every rank (``_alone``), which the signal's
    default action did without a word. The handler before is restored after (the command may run inside
    a program); outside the main thread, where no handler can be set, nothing changes. An interrupt that Python
    had to ignore (raised in a weakref callback or ``__del__``) is delivered again; a main thread stuck in native
    code is ended after a grace period (stuck_signals)."""
    import _thread
    import signal
    import threading

    from . import stuck_signals

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum, frame):
        raise Terminated

    def unraisable(info):
        # an interrupt raised while Python ran a callback whose exceptions it ignores (a weakref's, a __del__) is
        # lost there and the run went on for ever: the signal is sent again 20 ms later by a new thread (sent from
        # here, its handler would raise in this hook, whose own exceptions are ignored for good). Not a
        # threading.Timer: its start() waits for the thread, and a timer that fired during that wait raised the
        # interrupt inside this hook again (1 run in 3 on a busy machine)
        if isinstance(info.exc_value, KeyboardInterrupt):
            signum = signal.SIGTERM if isinstance(info.exc_value, Terminated) else signal.SIGINT
            _thread.start_new_thread(_raise_later, (type(info.exc_value), signum, main, 0.02))
        else:
            hook_before(info)

    main = threading.main_thread().ident
    before = signal.signal(signal.SIGTERM, terminated)
    # Ctrl-C keeps Python's handler, installed again: native code loaded since start-up may have replaced it
    # underneath Python, whose record would still name it (an ignored or other setting is left as it is)
    int_before = signal.getsignal(signal.SIGINT)
    if int_before is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    hook_before, sys.unraisablehook = sys.unraisablehook, unraisable
    try:
        with stuck_signals.watched():  # a main thread stuck in native code (an MPI wait) still ends
            yield
    finally:
        sys.unraisablehook = hook_before
        signal.signal(signal.SIGTERM, before)


def _raise_later(error: type, signum, main: int, seconds: float) -> None:
    """Raise the lost interrupt ``error`` again in the thread ``main``, ``seconds`` from now: by the signal
    ``signum`` where a Python handler takes it (it also ends a sleep or a wait there), else directly."""
    import signal
    import time

    time.sleep(seconds)
    if callable(signal.getsignal(signum)):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})  # raise() delivers to this thread: it must take it
        signal.raise_signal(signum)
        return
    # Python does not handle the signal, so the interrupt came from code: a process started with SIGINT ignored
    # (a job that a shell without job control put in the background: a test suite run with '&') ignored the
    # signal sent again and went on, and with SIGINT's default action the signal would end the process uncleaned
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main), ctypes.py_object(error))


def _alone(several: bool, line: str, code: int) -> int:
    """Print ``line`` and return ``code``, for what may befall one rank alone (an interrupt, no memory):
    under MPI the other ranks would wait for it for ever, so every rank is ended (``MPI_Abort``)."""
    from . import comm

    if several:
        comm.abort(comm.world(), line, code)
    print(line, file=sys.stderr)
    return code


def _run(args) -> int:
    from . import config
    from .apps import hydro
    from .apps.hydro.rank_errors import on_every_rank

    def load():
        config.check()  # before anything is made: an invalid BRICKWORK_* value is one line
        if args.quiet:
            config.quiet = True  # no "compiling ..." lines either (jit/notice.py)
        return hydro.load_config(args.input, args.overrides, restart=args.restart)

    def go():
        cfg = on_every_rank(load)  # a mistake only one rank sees ends every rank
        hydro.run(cfg, restart_file=args.restart, progress=False if args.quiet else None,
                  log=None if args.quiet else print)

    return _hydro_errors(go)


def _demo(args) -> int:
    from . import config
    from .apps.hydro import demo

    def go():
        config.check()
        if args.quiet:  # no progress bar, no summary lines, no "compiling ..." lines
            config.quiet = True
            demo.main([*args.overrides, "output.progress=false"], log=lambda *a: None)
        else:
            demo.main(args.overrides)

    return _hydro_errors(go)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="brickwork", description="brickwork command line")
    from ._version import __version__

    parser.add_argument("--version", action="version", version=f"brickwork {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="toolchain, OpenMP, threads, CUDA, MPI and cache directory").set_defaults(run=_info)
    p = sub.add_parser("cache", help="inspect or clear the kernel cache")
    p.add_argument("action", choices=["dir", "list", "clear"])
    p.set_defaults(run=_cache)
    p = sub.add_parser("run", help="run the hydro application on a TOML input file",
                       epilog="Every input key, the problems, the outputs and the errors: docs/hydro.md. Settings "
                              "and options may come in any order.")
    p.add_argument("input", help="the input file (see examples/*.toml)")
    p.add_argument("overrides", nargs="*", default=[], metavar="section.key=value",
                   help="override a setting, e.g. hydro.cfl=0.3")
    p.add_argument("--restart", metavar="FILE", help="continue from a restart file")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(run=_run)
    p = sub.add_parser("demo", help="a 2-D Kelvin-Helmholtz run of about a minute, ending with a PNG")
    p.add_argument("overrides", nargs="*", default=[], metavar="section.key=value",
                   help="override a setting of the demo")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(run=_demo)
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # the commands and what each does, rather than argparse's "arguments are required: command"
        parser.print_help(sys.stderr)
        return 2
    if argv[:1] in (["run"], ["demo"]):  # options and section.key=value overrides in any order
        args = sub.choices[argv[0]].parse_intermixed_args(argv[1:])
    else:
        args = parser.parse_args(argv)
    try:
        code = args.run(args)
        sys.stdout.flush()  # here, not at exit, where a closed pipe would be an ignored-exception message
        return code
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """Standard output's reader went away (``brickwork cache list | head -1``): stop without a traceback,
    as ``cat`` does; 141 is the status a shell gives a command that SIGPIPE ended."""
    try:  # what is still buffered goes nowhere, instead of failing again when Python flushes at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


if __name__ == "__main__":
    sys.exit(main())

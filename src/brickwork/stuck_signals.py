"""A terminating signal while the main thread is stuck in native code ends the process all the same.

Python runs a signal's handler in the main thread between bytecodes. A rank waiting inside an MPI call that never
returns (another rank failed or waits elsewhere) or a kernel that runs on never gets there: ``SIGTERM`` from
``timeout``, a batch system's time limit or ``mpiexec`` did nothing, and the job hung until SIGKILL. Python's
C-level handler still runs at once and writes the signal's number to the wakeup fd: a watcher thread reads it,
gives the main thread ``BRICKWORK_TERM_GRACE`` seconds (default 10) to stop cleanly (the usual path: temporary
files removed, one line, every rank ended), and past that ends the process itself with one line and the status
the signal's default action gives (128 + its number), without cleaning up. ``mpiexec`` ends the other ranks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

from .config import _env_int

#: the signals the watcher acts on (others Python handles, e.g. SIGCHLD, only wake it)
TERMINATING = {int(signal.SIGTERM): "SIGTERM", int(signal.SIGINT): "SIGINT"}


@contextlib.contextmanager
def watched():
    """Within it, a SIGTERM or SIGINT the main thread has not acted on after the grace period ends the process.
    Outside the main thread, or where a wakeup fd is already set (an asyncio loop's), nothing changes."""
    grace = _env_int("BRICKWORK_TERM_GRACE", 10, minimum=0, maximum=86400)
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read, write = os.pipe()
    os.set_blocking(write, False)  # set_wakeup_fd requires it: a full pipe must not block a signal handler
    previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    if previous != -1:
        signal.set_wakeup_fd(previous)
        os.close(read)
        os.close(write)
        yield
        return
    done = threading.Event()
    threading.Thread(target=_watch, args=(read, done, grace), name="brickwork-stuck-signals", daemon=True).start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(-1)
        done.set()
        with contextlib.suppress(OSError):
            os.write(write, b"\0")  # wakes the watcher, which then closes its end
        os.close(write)


def _watch(read: int, done: threading.Event, grace: int) -> None:
    try:
        while not done.is_set():
            data = os.read(read, 64)
            signum = next((s for s in data if s in TERMINATING), None)
            if not data or done.is_set():
                return
            if signum is None or done.wait(grace):
                continue
            os.write(2, (f"brickwork: {TERMINATING[signum]} received, but the run did not stop within {grace} s "
                         "(BRICKWORK_TERM_GRACE): it waits inside native code (an MPI call another rank never "
                         "answers, or a kernel); ended without cleaning up\n").encode())
            os._exit(128 + signum)
    finally:
        os.close(read)

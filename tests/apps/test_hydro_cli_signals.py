"""``brickwork run`` stopped by SIGTERM (``kill``, a batch system's time limit) ends as an interrupt does:
one line, status 143, no temporary file left in the output directory (it died without a word before)."""

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

BRICKWORK = shutil.which("brickwork", path=os.path.dirname(sys.executable)) or "brickwork"


def test_sigterm_ends_a_run_with_one_line_and_status_143(tmp_path):
    out = tmp_path / "o"
    run = subprocess.Popen([BRICKWORK, "run", "examples/kelvin_helmholtz.toml", "mesh.nx=[32,32]",
                            "mesh.block_nx=[16,16]", "time.tlim=1000", "time.nlim=100000", f"output.dir={out}",
                            "output.hdf5_dn=5", "output.png_dt=-1", "output.restart_dt=-1", "--quiet"],
                           cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))), stderr=subprocess.PIPE,
                           text=True, env=dict(os.environ, OMP_NUM_THREADS="1", BRICKWORK_NUM_THREADS="1"))
    try:
        history = out / "kelvin_helmholtz.hst"
        # until it has stepped a few cycles: a cold kernel cache compiles first, 83 s to cycle 14 at load 23, near the
        # 120 s that 1200 polls of 0.1 s gave before, after which the signal came unannounced during the compile
        deadline = time.monotonic() + 600
        while not (history.exists() and len(history.read_text().splitlines()) > 12):
            assert run.poll() is None, run.communicate()[1]
            assert time.monotonic() < deadline, "the run did not step 12 cycles within 600 s"
            time.sleep(0.1)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 143, err
    assert err == "brickwork: terminated (SIGTERM)\n"
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    assert (out / "kelvin_helmholtz.out.00000.h5").exists()


# SIGINT as Python handles it (Ctrl-C), ignored (a process that a shell without job control started in the
# background, '&', inherits that: the Ctrl-C case missed in every such run of the whole suite, since the signal
# sent again was ignored) and the default action (which would have ended the process)
@pytest.mark.parametrize("interrupt, sigint", [("KeyboardInterrupt", "python"), ("KeyboardInterrupt", "ignored"),
                                               ("KeyboardInterrupt", "default"), ("Terminated", "python")])
def test_an_interrupt_lost_in_a_weakref_callback_is_raised_again(interrupt, sigint):
    # a clean clone's run once hung here: SIGTERM arrived while a weakref callback ran, Python printed
    # 'Exception ignored in: ...WeakValueDictionary...' and the run went on until the test's timeout
    import threading
    import weakref

    from brickwork import cli

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread only")
    error = cli.Terminated if interrupt == "Terminated" else KeyboardInterrupt

    class Holder:
        pass

    def callback(_):
        raise error()

    reached, hook = [], sys.unraisablehook
    handler = {"python": signal.default_int_handler, "ignored": signal.SIG_IGN, "default": signal.SIG_DFL}[sigint]
    sigint_before = signal.signal(signal.SIGINT, handler)
    try:
        with pytest.raises(error):
            with cli._terminate_as_interrupt():
                held = Holder()
                ref = weakref.ref(held, callback)
                del held  # the callback raises: Python ignores it there
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:  # the interrupt raised again comes at one of these steps
                    pass
                reached.append(ref)
        assert signal.getsignal(signal.SIGINT) is handler  # left as it was
    finally:
        signal.signal(signal.SIGINT, sigint_before)
    assert reached == []
    assert sys.unraisablehook is hook  # the hook before is restored


STUCK = """
import ctypes
from brickwork import cli
lock, libc = ctypes.create_string_buffer(64), ctypes.CDLL(None)  # zeroed: an unlocked default glibc mutex
with cli._terminate_as_interrupt():
    libc.pthread_mutex_lock(lock)
    print("stuck", flush=True)
    libc.pthread_mutex_lock(lock)  # its owner locks it again: waits for ever in C, as a rank in an unanswered MPI wait
print("not reached", flush=True)
"""


def test_sigterm_ends_a_process_stuck_in_native_code_after_the_grace_period():
    # Python runs a signal handler between bytecodes only: a rank stuck in MPI ignored SIGTERM until SIGKILL
    run = subprocess.Popen([sys.executable, "-c", STUCK], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, BRICKWORK_TERM_GRACE="1"))
    try:
        assert run.stdout.readline() == "stuck\n"
        _wait_until_blocked(run.pid)  # sent while it still ran bytecode, Python's handler would take it at once
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 143 and out == ""
    assert err == ("brickwork: SIGTERM received, but the run did not stop within 1 s (BRICKWORK_TERM_GRACE): it "
                   "waits inside native code (an MPI call another rank never answers, or a kernel); ended without "
                   "cleaning up\n")


def _wait_until_blocked(pid: int) -> None:
    """Until the main thread of ``pid`` sits in one system call (its futex wait), seen twice 0.1 s apart."""
    seen = None
    for _ in range(300):
        try:
            with open(f"/proc/{pid}/syscall") as f:
                now = f.read().split()[:1]
        except OSError:  # no /proc here: a pause long enough for the call to start
            time.sleep(1.0)
            return
        if now and now[0] not in ("running", "-1") and now == seen:
            return
        seen = now
        time.sleep(0.1)


def test_a_bad_term_grace_is_refused_by_name(monkeypatch):
    from brickwork import stuck_signals
    from brickwork.errors import BrickworkError

    monkeypatch.setenv("BRICKWORK_TERM_GRACE", "soon")
    with pytest.raises(BrickworkError, match="BRICKWORK_TERM_GRACE='soon' is not an integer"):
        with stuck_signals.watched():
            pass

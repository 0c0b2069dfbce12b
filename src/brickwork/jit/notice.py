"""A line on stderr while a launch waits on the compiler, so that a cold start of many seconds is not silent.

A build (``pipeline.build``: an instance that missed the cache, with its companions) that is still generating or
compiling ``AFTER`` seconds after its first miss says so on stderr, once, and says when it is done::

    brickwork: compiling fluxes[...] and more kernels for cpu (kept in the cache: later runs load them)...
    brickwork: compiled 12 kernels for cpu in 24.8 s

An instance another process compiled meanwhile (an MPI rank sharing the kernel cache: one rank compiles, the others
wait for its entry, ``jit/cache.claimed_build``) is not counted as compiled: a rank that only waited says so, and
for how long, since its own line above said it was compiling (a rank cannot tell, when the second has passed,
whether it will build or wait) and a line left open would look like a rank that hangs::

    brickwork: waited 3.2 s for 1 kernel for cpu that another process compiled (loaded from the cache)

A build that is done sooner prints nothing. ``config.quiet`` (``BRICKWORK_QUIET``, Warp's ``wp.config.quiet``;
``brickwork run --quiet``) turns the lines off, as does a ``brickwork`` logger set above warnings
(``config.log_level = "error"``). A logger installed with ``wp.set_logger`` receives the lines (its ``info``)
instead of stderr.
"""

from __future__ import annotations

import sys
import threading
import time

from .. import config, log_target

#: Seconds a build runs before it says so (0: at its first miss).
AFTER = 1.0


def _allowed() -> bool:
    if config.quiet:
        return False
    import logging

    return logging.getLogger("brickwork").isEnabledFor(logging.WARNING)


def _say(line: str) -> None:
    """``line`` on stderr, or to the ``info`` of a logger installed with ``wp.set_logger``."""
    if log_target.custom is not None:
        log_target.custom.info(line)
    else:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


class CompileNotice:
    """The notice of one build on ``target_name``: ``begin(label)`` at each instance it generates (the first starts
    the clock), ``count`` of the instances it compiles, ``end()`` when they are loaded or the build stopped."""

    def __init__(self, target_name: str):
        self.target_name = target_name
        self.labels: list = []
        self.count = 0
        self.waited = 0  # instances another process compiled, which this build waited for and loaded
        self.timer: threading.Timer | None = None
        self.started: float | None = None
        self.announced = False
        self.lock = threading.Lock()

    def begin(self, label: str) -> None:
        self.labels.append(label)
        if self.started is None and _allowed():
            self.started = time.perf_counter()
            if AFTER <= 0:
                self._announce()
                return
            self.timer = threading.Timer(AFTER, self._announce)
            self.timer.daemon = True  # a program that ends mid-build is not kept waiting on it
            self.timer.start()

    def _announce(self) -> None:
        with self.lock:
            others = " and more kernels" if len(self.labels) > 1 else ""  # the count is known at the end only
            _say(f"brickwork: compiling {self.labels[0]}{others} for {self.target_name} (kept in the cache: later "
                 f"runs load them)...")
            self.announced = True

    def end(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer.join()  # an announcement under way is written before the closing line
            self.timer = None
        if self.announced:
            self.announced = False
            seconds = time.perf_counter() - self.started
            _say(f"brickwork: {self._done(seconds)}")

    def _done(self, seconds: float) -> str:
        """The closing line: what this process compiled, and what it waited for another process to compile."""
        def kernels(n: int) -> str:
            return f"{n} kernel{'s' if n != 1 else ''}"

        if self.waited and not self.count:
            return (f"waited {seconds:.1f} s for {kernels(self.waited)} for {self.target_name} that another process "
                    f"compiled (loaded from the cache)")
        done = f"compiled {kernels(self.count)}" if self.count else \
            "nothing compiled"  # the generation raised, or every one on trial was cached
        other = f" ({self.waited} more compiled by another process, loaded from the cache)" if self.waited else ""
        return f"{done} for {self.target_name} in {seconds:.1f} s{other}"

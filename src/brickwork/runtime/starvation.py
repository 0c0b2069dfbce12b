"""One thread per launch while the process is starved of CPU time (``config.adaptive_threads``).

A parallel launch ends at a barrier that waits for every one of its threads. On cores that other busy
programs share, one of them is often waiting for a core, and the whole launch waits with it: on two
cores at load 7, a 256x128 stencil took 2.3 ms a launch on two threads and 38 us on one (GNU OpenMP's
spinning threads also use up their share of the scheduler, so they are the last to get a core back).

The measure is the launching thread's own: Linux counts, per thread, the time it ran and the time it
was ready to run but waited for a core (``/proc/thread-self/schedstat``). When more than ``STARVED``
of a window's ready time was spent waiting, parallel launches run on one thread for a while (from
``FIRST_HOLD_S``, doubling up to ``MAX_HOLD_S`` while the machine stays busy), then try the full count
again for one window. Where the counters cannot be read (not Linux), the count is never changed.
"""

from __future__ import annotations

import os
import threading
import time

#: The length of one measuring window of parallel launches, in seconds.
WINDOW_S = 0.02
#: The share of its ready time the thread spent waiting for a core above which the process counts as starved.
STARVED = 0.25
#: A window in which the thread was ready for less than this (nanoseconds) decides nothing: it goes on.
MIN_READY_NS = 2_000_000
#: How long launches first run on one thread after a starved window; doubled after each starved retry.
FIRST_HOLD_S = 0.1
MAX_HOLD_S = 2.0


class ThreadTimes:
    """The calling thread's ``(thread_id, ran_ns, waited_ns)``: time on a core and time ready but waiting
    for one; None where the kernel does not give them. The file stays open for the thread that read it last."""

    def __init__(self, path_of=lambda tid: f"/proc/self/task/{tid}/schedstat"):
        self.path_of = path_of
        self.tid = None  # the thread whose file fd is open
        self.fd = -1

    def __call__(self) -> tuple[int, int, int] | None:
        tid = threading.get_native_id()
        try:
            if tid != self.tid:  # another thread, or a forked child (whose ids differ from its parent's)
                self.close()
                self.fd = os.open(self.path_of(tid), os.O_RDONLY | os.O_CLOEXEC)
                self.tid = tid
            ran, waited = os.pread(self.fd, 96, 0).split()[:2]
            return tid, int(ran), int(waited)
        except (OSError, ValueError):
            self.close()
            return None

    def close(self) -> None:
        if self.fd >= 0:
            try:
                os.close(self.fd)
            except OSError:
                pass
        self.tid, self.fd = None, -1


class StarvationGuard:
    """Decides the threads of each parallel launch from the requested count and the thread's recent waits.

    ``threads(n)`` is called once per launch that would run on ``n > 1`` threads; between windows it
    costs a clock read. ``read`` gives ``(thread_id, ran_ns, waited_ns)`` of the calling thread, or None.
    The first window runs on one thread, so that a process started on a busy machine never pays for a
    window of parallel launches there; a window of one thread that waited little tries ``n`` threads."""

    def __init__(self, read=None, clock=time.monotonic):
        self.read = ThreadTimes() if read is None else read
        self.clock = clock
        self.serial = True  # launches run on one thread until the next check
        self.next_check = 0.0
        self.hold = FIRST_HOLD_S
        self.start = None  # (thread_id, ran_ns, waited_ns) at the start of the current window

    def threads(self, n: int) -> int:
        """The thread count for a launch that asks for ``n``: ``n``, or 1 while the process is starved."""
        now = self.clock()
        if now < self.next_check:
            return 1 if self.serial else n
        return self._decide(now, n)

    def _decide(self, now: float, n: int) -> int:
        sample = self.read()
        if sample is None:  # no counters here: never change the count
            self.serial, self.next_check = False, float("inf")
            return n
        start, self.start = self.start, sample
        if start is None or sample[0] != start[0]:  # the first launch, or another thread's: a window afresh
            self.next_check = now + WINDOW_S
            return 1 if self.serial else n
        ran, waited = sample[1] - start[1], sample[2] - start[2]
        if ran + waited < MIN_READY_NS:  # mostly asleep: too little to judge, widen the window
            self.start, self.next_check = start, now + WINDOW_S
            return 1 if self.serial else n
        if waited > STARVED * (ran + waited):  # starved even on one thread, or on n: one thread for a while
            self.serial, self.next_check = True, now + self.hold
            self.hold = min(2 * self.hold, MAX_HOLD_S)
            return 1
        if not self.serial:
            self.hold = FIRST_HOLD_S
        self.serial, self.next_check = False, now + WINDOW_S
        return n


#: The guard of this process's launches.
GUARD = StarvationGuard()

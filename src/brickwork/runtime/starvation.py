"""One thread per launch while the process is starved of CPU time (``config.adaptive_threads``).

A parallel launch ends at a barrier that waits for every one of its threads. On cores that other busy
programs share, one of them is often waiting for a core, and the whole launch waits with it: on two
cores at load 7, a 256x128 stencil took 2.3 ms a launch on two threads and 38 us on one (GNU OpenMP's
spinning threads also use up their share of the scheduler, so they are the last to get a core back).

The measure is the process's threads' own: Linux counts, per thread, the time it ran and the time it was
ready to run but waited for a core (``/proc/self/task/*/schedstat``); all threads, since the launching
one may spin or sleep at the barrier while the others wait. When the threads spent more than ``STARVED``
of a window's ready time waiting, parallel launches run on one thread for a hold (``FIRST_HOLD_S``). A hold
whose own time was starved is followed by another, twice as long (at most ``MAX_HOLD_S``); one that was not
by a window of the full count, whose waits decide again (a starved one doubles the hold too). A captured
graph's replay asks for each of its launches (runtime/capture.py). Where the counters cannot be read
(not Linux), the count is never changed.
"""

from __future__ import annotations

import os
import threading
import time

#: The length of one measuring window of parallel launches, in seconds: at least this, and at least
#: ``READS_PER_WINDOW`` times the last read of the counters (a process of many threads reads many files).
WINDOW_S = 0.02
READS_PER_WINDOW = 100
#: The share of their ready time the threads spent waiting for a core above which the process counts as starved.
STARVED = 0.25
#: A window in which the threads were ready for less than this (nanoseconds) decides nothing: it goes on.
MIN_READY_NS = 2_000_000
#: How long launches first run on one thread after a starved window; doubled after each starved retry.
FIRST_HOLD_S = 0.1
MAX_HOLD_S = 2.0


class ThreadTimes:
    """Every thread of this process as ``{thread_id: (ran_ns, waited_ns)}``: time on a core, and time ready
    to run but waiting for one; None where the kernel does not give them. Each thread's file stays open
    from one read to the next (a read costs one listing and one ``pread`` a thread)."""

    def __init__(self, task_dir: str = "/proc/self/task"):
        self.task_dir = task_dir
        self.fds: dict = {}
        self.pid = os.getpid()

    def __call__(self) -> dict | None:
        if os.getpid() != self.pid:  # a forked child: the files open are its parent's threads'
            self.close()
            self.pid = os.getpid()
        try:
            tids = os.listdir(self.task_dir)
        except OSError:
            return None
        times = {}
        for tid in tids:
            try:
                fd = self.fds.get(tid)
                if fd is None:
                    fd = self.fds[tid] = os.open(os.path.join(self.task_dir, tid, "schedstat"),
                                                 os.O_RDONLY | os.O_CLOEXEC)
                ran, waited = os.pread(fd, 96, 0).split()[:2]
                times[tid] = int(ran), int(waited)
            except (OSError, ValueError):  # a thread that ended since the listing, or no counters
                pass
        for tid in self.fds.keys() - times.keys():
            os.close(self.fds.pop(tid))
        return times or None

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds.clear()


class StarvationGuard:
    """Decides the threads of each parallel launch from the requested count and the threads' recent waits.

    ``threads(n)`` is called once per launch that would run on ``n > 1`` threads; between windows it
    costs a clock read. ``read`` gives ``{thread_id: (ran_ns, waited_ns)}`` of the process, or None.
    The first window runs on ``n`` threads: a program of a few long launches keeps its speed on free cores,
    and on a busy machine pays for one window."""

    def __init__(self, read=None, clock=time.monotonic):
        self.read = ThreadTimes() if read is None else read
        self.clock = clock
        self.serial = False  # launches run on one thread until the next check
        self.next_check = 0.0
        self.hold = FIRST_HOLD_S
        self.start = None  # the threads' times at the start of the current window
        # one thread decides at a time: ThreadTimes closes the files of ended threads, and a file number closed
        # under another thread's read could be a new file of the program's by the time it is closed again
        self.deciding = threading.Lock()

    def after_fork(self) -> None:
        """In a forked child: a lock that a thread of the parent held would stay held there."""
        self.deciding = threading.Lock()

    def threads(self, n: int) -> int:
        """The thread count for a launch that asks for ``n``: ``n``, or 1 while the process is starved."""
        now = self.clock()
        if now < self.next_check:
            return 1 if self.serial else n
        return self._decide(now, n)

    def _decide(self, now: float, n: int) -> int:
        if not self.deciding.acquire(blocking=False):  # another thread is deciding: as it was
            return 1 if self.serial else n
        try:
            return self._measure(now, n)
        finally:
            self.deciding.release()

    def _measure(self, now: float, n: int) -> int:
        sample = self.read()
        window = max(WINDOW_S, READS_PER_WINDOW * (self.clock() - now))
        if sample is None:  # no counters here: never change the count
            self.serial, self.next_check = False, float("inf")
            return n
        start, self.start = self.start, sample
        if start is None:  # the first launch: a window starts
            self.next_check = now + window
            return 1 if self.serial else n
        ran = waited = 0
        for tid, (ran1, waited1) in sample.items():
            ran0, waited0 = start.get(tid, (0, 0))  # a thread started in the window: all its times are in it
            if ran1 < ran0 or waited1 < waited0:  # an id reused by a new thread
                ran0 = waited0 = 0
            ran, waited = ran + ran1 - ran0, waited + waited1 - waited0
        if ran + waited < MIN_READY_NS:  # mostly asleep: too little to judge, widen the window
            self.start, self.next_check = start, now + window
            return 1 if self.serial else n
        if waited > STARVED * (ran + waited):  # starved even on one thread, or on n: one thread for a while
            self.serial, self.next_check = True, now + self.hold
            self.hold = min(2 * self.hold, MAX_HOLD_S)
            return 1
        if not self.serial:
            self.hold = FIRST_HOLD_S
        self.serial, self.next_check = False, now + window
        return n


#: The guard of this process's launches.
GUARD = StarvationGuard()
os.register_at_fork(after_in_child=GUARD.after_fork)

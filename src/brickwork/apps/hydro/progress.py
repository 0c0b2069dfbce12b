"""A one-line progress bar on standard error: simulated time, cycle, time step and zone-cycles/s.

On a terminal the line is redrawn at most five times a second; otherwise (a log file, CI) a line
is printed at every tenth of the run. The rate leaves out the first step (it compiles the kernels
and first touches the fields) and is taken over all the stepping since, or once that is longer than a
second, over the latest 0.5 to 1 s of it.
"""

from __future__ import annotations

import sys
import time


class Progress:
    """``update(t, cycle, dt, zone_cycles)`` during the run, ``close()`` at the end."""

    def __init__(self, tlim: float, ncells: int, stream=None, enabled: bool = True, width: int = 24,
                 clock=time.perf_counter):
        self.tlim = tlim
        self.ncells = ncells
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_draw = 0.0
        self._last_tenth = -1
        self._clock = clock
        # (wall, cycle) where the rate window starts (the end of the first step at first), and where the
        # next window will start: the window is all the stepping so far until it spans 0.5 s, then
        # between 0.5 and 1 s of the latest stepping
        self._window = None
        self._next = None
        self.rate = 0.0
        self._dirty = False

    def update(self, t: float, cycle: int, dt: float) -> None:
        now = self._clock()
        if self._window is None:
            self._window = (now, cycle)
        else:
            w0, c0 = self._window
            if cycle > c0 and now > w0:
                self.rate = self.ncells * (cycle - c0) / (now - w0)
            if self._next is None:
                if now - w0 >= 0.5:
                    self._next = (now, cycle)
            elif now - self._next[0] >= 0.5:
                self._window, self._next = self._next, (now, cycle)
        if not self.enabled:
            return
        frac = min(1.0, t / self.tlim) if self.tlim > 0 else 1.0
        if self.tty:
            if now - self._last_draw < 0.2 and frac < 1.0:
                return
            self._last_draw = now
            filled = int(round(frac * self.width))
            bar = "#" * filled + "-" * (self.width - filled)
            self.stream.write(f"\r[{bar}] {100 * frac:5.1f}%  t={t:.5g}/{self.tlim:.5g}  cycle {cycle}  "
                              f"dt={dt:.3e}  {self._rate_text()}\x1b[K")
            self._dirty = True
        else:
            tenth = int(frac * 10)
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self.stream.write(f"{100 * frac:5.1f}%  t={t:.5g}/{self.tlim:.5g}  cycle {cycle}  dt={dt:.3e}  "
                              f"{self._rate_text()}\n")
        self.stream.flush()

    def _rate_text(self) -> str:
        return f"{self.rate:.3e} zone-cycles/s" if self.rate else "-- zone-cycles/s"

    def close(self) -> None:
        if self.enabled and self.tty and self._dirty:
            self.stream.write("\n")
            self.stream.flush()

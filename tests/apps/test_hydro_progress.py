"""The progress line's zone-cycles/s: the first step (compiles, first touch) is left out."""

import io

import pytest

from brickwork.apps.hydro.progress import Progress


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_rate_leaves_out_the_first_step_and_follows_the_latest_window():
    clock, out = Clock(), io.StringIO()
    bar = Progress(tlim=1.0, ncells=1000, stream=out, clock=clock)
    clock.now += 5.0  # the first step: 5 s of compiling
    bar.update(0.1, 1, 0.1)
    assert bar.rate == 0.0 and "-- zone-cycles/s" in out.getvalue()
    clock.now += 0.01
    bar.update(0.2, 2, 0.1)  # one cycle in 10 ms after the first step
    assert bar.rate == pytest.approx(1000 / 0.01)
    clock.now += 0.03
    bar.update(0.3, 3, 0.1)  # a short run: the rate is over all the cycles after the first step
    assert bar.rate == pytest.approx(2 * 1000 / 0.04)
    for cycle in range(4, 84):  # 80 cycles at 20 ms: the first window (with the 10 and 30 ms cycles), then others
        clock.now += 0.02
        bar.update(0.2 + (cycle - 2) * 0.01, cycle, 0.01)
    assert bar.rate == pytest.approx(1000 / 0.02)
    assert out.getvalue().splitlines()[-1].endswith("5.000e+04 zone-cycles/s")

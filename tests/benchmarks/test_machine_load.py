"""benchmarks/machine_load.py: when a benchmark run counts as loaded, and how the header says so."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from machine_load import LOADED_PER_CORE, LoadRecord, OtherCpuMeter, load_average  # noqa: E402


@pytest.mark.parametrize(
    ("before", "after", "cpus", "loaded"),
    [
        (0.2, 0.9, 2, False),  # 0.45 per core at most
        (1.0, 1.0, 2, False),  # exactly the limit is still quiet
        (1.01, 0.1, 2, True),  # loaded before
        (0.1, 6.0, 2, True),  # loaded after
        (3.9, 3.9, 8, False),
        (None, None, 2, False),  # no reading: nothing to refuse on
        (None, 1.5, 2, True),
    ],
)
def test_loaded_compares_both_readings_with_half_a_load_per_core(before, after, cpus, loaded):
    assert LOADED_PER_CORE == 0.5
    assert LoadRecord(before, after, cpus).loaded() is loaded


def test_header_line_gives_both_readings_the_limit_and_the_verdict():
    line = LoadRecord(0.25, 6.125, 2).text()
    assert line == (
        "load average (1 min): 0.25 before, 6.12 after, on 2 logical CPUs (loaded; limit 0.5 per CPU = 1)"
    )
    assert "unknown before" in LoadRecord(None, 0.0, 4).text()
    assert "(quiet;" in LoadRecord(None, 0.0, 4).text()


def test_load_average_reads_the_one_minute_value():
    value = load_average()
    assert value is None or value >= 0.0


@pytest.mark.parametrize(("before", "after", "others", "loaded"), [
    (0.2, 2.0, 0.3, False),  # the run's own two threads raise the load after it: not others
    (0.2, 2.0, 1.2, True),  # others kept 1.2 of 2 CPUs busy during the run
    (1.5, 0.1, 0.0, True),  # loaded before
])
def test_others_share_during_the_run_decides_instead_of_the_load_after(before, after, others, loaded):
    record = LoadRecord(before, after, 2, others=others)
    assert record.loaded() is loaded
    assert f"other processes used {others:.2f} CPUs during the run" in record.text()


def test_other_cpu_meter_subtracts_this_process(monkeypatch):
    import machine_load

    clock = {"wall": 100.0, "busy": 50.0, "own": 7.0}
    monkeypatch.setattr(machine_load.time, "monotonic", lambda: clock["wall"])
    monkeypatch.setattr(machine_load, "_busy_seconds", lambda: clock["busy"])
    monkeypatch.setattr(machine_load, "_own_seconds", lambda: clock["own"])
    meter = OtherCpuMeter()
    clock.update(wall=102.0, busy=55.0, own=10.0)  # 2 s: the machine busy for 5 CPU-s, 3 of them ours
    assert meter.others() == pytest.approx(1.0)
    clock.update(busy=56.0, own=14.0)  # more of our own time than the machine's: never negative
    assert meter.others() == 0.0


def test_other_cpu_meter_needs_a_second_of_wall_time(monkeypatch):
    import machine_load

    clock = {"wall": 100.0}
    monkeypatch.setattr(machine_load.time, "monotonic", lambda: clock["wall"])
    meter = OtherCpuMeter()
    clock["wall"] = 100.5  # clock ticks of /proc/stat are too coarse for half a second
    assert meter.others() is None
    clock["wall"] = 101.5
    others = meter.others()
    assert others is None or 0.0 <= others <= (os.cpu_count() or 1)


def test_settle_waits_for_the_load_to_fall_to_the_limit():
    from machine_load import settle

    readings = iter([1.9, 1.4, 1.1, 0.9, 0.5])
    slept = []
    value, waited = settle(1.0, timeout=100.0, poll=5.0, read=lambda: next(readings), sleep=slept.append)
    assert (value, waited, slept) == (0.9, 15.0, [5.0, 5.0, 5.0])


def test_settle_gives_up_after_the_timeout_and_a_busy_machine_counts_as_loaded():
    from machine_load import settle

    value, waited = settle(1.0, timeout=10.0, poll=5.0, read=lambda: 1.7, sleep=lambda s: None)
    assert (value, waited) == (1.7, 10.0)
    record = LoadRecord(0.2, 2.0, 2, others=0.1, settled=value, waited=waited)
    assert record.loaded()
    assert "1.70 10 s after" in record.text()
    assert not LoadRecord(0.2, 2.0, 2, others=0.1, settled=0.8, waited=45.0).loaded()


def _probe_with(timings):
    """A SpeedProbe whose clock makes each timing of the work last the next of ``timings`` (seconds)."""
    from machine_load import SpeedProbe

    ticks, now = [], 0.0
    for t in timings:
        ticks += [now, now + t]
        now += t + 1.0
    clock = iter(ticks)
    probe = SpeedProbe(work=lambda: None, repeats=len(timings), clock=lambda: next(clock))
    probe.sample()
    return probe


def test_speed_probe_slowdown_is_median_over_fastest_timing():
    probe = _probe_with([0.010, 0.0102, 0.0101, 0.0100, 0.0104, 0.0103, 0.0105])
    assert probe.fastest() == pytest.approx(0.010)
    assert probe.slowdown() == pytest.approx(0.0102 / 0.010)
    record = LoadRecord.with_probe(probe, 0.1, 0.2, 2, others=0.0)
    assert not record.unsteady() and not record.loaded()
    assert "a fixed CPU loop timed 7 times during the run took a median 1.02x its fastest, 10.0 ms" in record.text()
    assert record.text().endswith("(quiet; limit 0.5 per CPU = 1)")


def test_a_run_whose_cpu_changed_speed_is_unsteady_and_refused_even_with_no_load():
    from machine_load import UNSTEADY_SLOWDOWN

    # what a VM whose host hands its CPUs to other guests shows: load 0, the same work 1.5x slower
    probe = _probe_with([0.0092, 0.0143, 0.0150, 0.0139, 0.0209, 0.0101, 0.0144])
    assert probe.slowdown() == pytest.approx(0.0143 / 0.0092)
    assert probe.slowdown() > UNSTEADY_SLOWDOWN == 1.15
    record = LoadRecord.with_probe(probe, 0.0, 0.3, 2, others=0.05, settled=0.2)
    assert record.unsteady() and record.loaded()
    assert "(unsteady; limit" in record.text()


def test_speed_probe_gives_no_verdict_on_too_few_timings():
    from machine_load import MIN_PROBES

    probe = _probe_with([0.01, 0.03, 0.05][: MIN_PROBES - 1])
    assert probe.slowdown() is None
    record = LoadRecord.with_probe(probe, 0.1, 0.1, 2)
    assert not record.unsteady() and "CPU loop" not in record.text()


def test_speed_probe_times_real_work_with_the_collector_off_and_restores_it():
    import gc

    from machine_load import SpeedProbe, probe_work

    seen = []
    probe = SpeedProbe(work=lambda: seen.append(gc.isenabled()), repeats=2)
    assert gc.isenabled()
    probe.sample()
    assert seen == [False, False] and gc.isenabled() and len(probe.times) == 2
    assert probe_work(10) == sum(i * i % 7 for i in range(10))

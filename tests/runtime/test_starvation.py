"""The starvation guard (runtime/starvation.py): parallel launches run on one thread while the process's threads
wait for a core more than ``STARVED`` of their ready time, with the threads' counters and the clock given by the test."""

import os
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork import config
from brickwork.runtime import launch as launch_module
from brickwork.runtime import starvation
from brickwork.runtime.packing import PARALLEL_FLAG
from brickwork.runtime.starvation import (
    FIRST_HOLD_S,
    MAX_HOLD_S,
    MIN_READY_NS,
    READS_PER_WINDOW,
    WINDOW_S,
    StarvationGuard,
)

MS = 1_000_000  # nanoseconds


class Machine:
    """A clock and the counters of the process's one busy thread, advanced by the test: ``run(seconds, waiting)``
    spends ``seconds`` ready to run, ``waiting`` of that share waiting for a core; ``others`` are more threads'."""

    def __init__(self):
        self.now, self.ran, self.waited, self.reads, self.others = 0.0, 0, 0, 0, {}

    def clock(self):
        return self.now

    def read(self):
        self.reads += 1
        return {"1": (self.ran, self.waited), **self.others}

    def run(self, seconds, waiting):
        self.now += seconds
        self.waited += int(seconds * 1e9 * waiting)
        self.ran += int(seconds * 1e9 * (1 - waiting))


def guard_on(machine):
    return StarvationGuard(read=machine.read, clock=machine.clock)


def past_a_quiet_window(n=2):
    """A machine and a guard past its first window, in which the threads did not wait: ``n`` threads."""
    m = Machine()
    g = guard_on(m)
    assert g.threads(n) == n
    m.run(WINDOW_S, 0.0)
    assert g.threads(n) == n
    return m, g


def test_a_quiet_machine_runs_on_every_thread_after_the_first_window():
    m, g = past_a_quiet_window(4)  # the first window runs on every thread: a single long launch keeps its speed
    counts = []
    for _ in range(200):
        m.run(WINDOW_S / 7, 0.01)
        counts.append(g.threads(4))
    assert counts == [4] * 200


def test_a_starved_window_runs_one_thread_for_a_hold_that_doubles_while_retries_are_starved():
    m, g = past_a_quiet_window()
    m.run(WINDOW_S, 0.9)  # others took the cores
    assert g.threads(2) == 1
    m.run(FIRST_HOLD_S * 0.99, 0.0)
    assert g.threads(2) == 1  # still within the hold
    m.run(FIRST_HOLD_S * 0.02, 0.0)
    assert g.threads(2) == 2  # one thread waited little: n threads again, for a window
    m.run(WINDOW_S, 0.5)
    assert g.threads(2) == 1  # starved again on two threads: twice the hold
    m.run(2 * FIRST_HOLD_S * 0.99, 0.0)
    assert g.threads(2) == 1
    m.run(2 * FIRST_HOLD_S * 0.02, 0.0)
    assert g.threads(2) == 2
    m.run(WINDOW_S, 0.0)  # a window of two threads that did not wait: the hold starts again from the first
    assert g.threads(2) == 2 and g.hold == FIRST_HOLD_S


def test_starved_on_one_thread_it_stays_on_one_without_trying_more_and_the_hold_is_bounded():
    m = Machine()
    g = guard_on(m)
    assert g.threads(8) == 8
    m.run(WINDOW_S, 0.7)  # the first window was starved
    counts = []
    for _ in range(4000):  # 40 s at load far above the cores
        counts.append(g.threads(8))
        m.run(0.01, 0.7)
    assert counts == [1] * 4000
    assert g.hold == MAX_HOLD_S
    reads = m.reads
    m.run(MAX_HOLD_S, 0.0)  # the load is gone: back to 8 threads within one hold and one window
    g.threads(8)
    m.run(WINDOW_S, 0.0)
    assert g.threads(8) == 8
    assert m.reads - reads <= 3  # the counters are read once a window, not once a launch


def test_a_window_with_too_little_ready_time_decides_nothing():
    m, g = past_a_quiet_window()
    m.now += 1.0  # asleep for a second, then a little work that waited throughout
    m.waited += MIN_READY_NS // 2
    assert g.threads(2) == 2
    m.run(WINDOW_S, 0.9)  # the window goes on until it holds enough
    assert g.threads(2) == 1


def test_every_thread_counts_and_threads_that_start_end_or_reuse_an_id_give_no_false_alarm():
    m, g = past_a_quiet_window()
    m.others = {"2": (40 * MS, 0)}  # a thread started in the window, ran all the time
    m.run(WINDOW_S, 0.0)
    assert g.threads(2) == 2
    m.others = {"2": (1 * MS, 0)}  # its id taken by a new thread: not a negative time
    m.run(WINDOW_S, 0.0)
    assert g.threads(2) == 2
    m.others = {}  # it ended
    m.run(WINDOW_S, 0.0)
    assert g.threads(2) == 2
    m.others = {"3": (0, 0)}
    g.threads(2)
    m.others = {"3": (2 * MS, 30 * MS)}  # the launching thread did not wait, a worker did: starved
    m.run(WINDOW_S, 0.0)
    assert g.threads(2) == 1


def test_while_one_thread_decides_another_launches_as_things_were_without_reading():
    m = Machine()
    g = guard_on(m)
    g.threads(2)
    m.run(WINDOW_S, 0.9)
    with g.deciding:  # another launching thread is reading the counters now
        assert g.threads(2) == 2 and m.reads == 1
    assert g.threads(2) == 1 and m.reads == 2
    g.deciding.acquire()  # held by a thread of the parent when the process forked
    g.after_fork()
    m.run(FIRST_HOLD_S, 0.9)
    assert g.threads(2) == 1 and m.reads == 3


def test_a_window_is_at_least_a_hundred_reads_long():
    m = Machine()
    read = m.read

    def slow_read():  # 1 ms: the files of many threads
        m.now += 0.001
        return read()

    g = StarvationGuard(read=slow_read, clock=m.clock)
    g.threads(2)
    assert g.next_check == pytest.approx(READS_PER_WINDOW * 0.001)
    m.run(WINDOW_S, 0.9)
    assert g.threads(2) == 2  # still within the longer window
    m.run(READS_PER_WINDOW * 0.001, 0.9)
    assert g.threads(2) == 1


def test_without_counters_the_count_is_never_changed():
    g = StarvationGuard(read=lambda: None, clock=lambda: 0.0)
    assert [g.threads(3) for _ in range(5)] == [3] * 5
    assert g.next_check == float("inf")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0001, 0.5), st.floats(0.0, 1.0)), min_size=1, max_size=80),
       st.integers(2, 64))
def test_the_count_is_one_or_the_requested_one_and_a_quiet_machine_gets_it_back(steps, n):
    m = Machine()
    g = guard_on(m)
    for seconds, waiting in steps:
        m.run(seconds, waiting)
        assert g.threads(n) in (1, n)
    # at worst the hold under way ends, still starved by its start, and one more hold passes
    for _ in range(int((2 * MAX_HOLD_S + 3 * WINDOW_S) / (WINDOW_S / 2)) + 2):
        m.run(WINDOW_S / 2, 0.0)
        last = g.threads(n)
    assert last == n


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the counters are Linux's")
def test_thread_times_are_every_thread_of_the_process():
    times = starvation.ThreadTimes()
    me = str(threading.get_native_id())
    before = times()
    # work on a core until the counter moves: it advances in the kernel's accounting steps, which a fixed bit of
    # work could fall within on a fast core (the clean-clone CI of c70c034d read the same value twice)
    for _ in range(200):
        sum(range(300_000))
        after = times()
        if after[me][0] > before[me][0]:
            break
    assert after[me][0] > before[me][0] and after[me][1] >= before[me][1]
    seen, go = [], threading.Event()
    worker = threading.Thread(target=lambda: (seen.append(times()), go.wait(60)))
    worker.start()
    try:
        while not seen:
            go.wait(0.01)
        assert str(worker.native_id) in seen[0] and me in seen[0]
    finally:
        go.set()
        worker.join()
    for _ in range(1000):  # the system thread ends a moment after join() returns
        if str(worker.native_id) not in times():
            break
        time.sleep(0.01)
    assert str(worker.native_id) not in times() and str(worker.native_id) not in times.fds  # its file is closed
    assert set(times.fds) == set(times())
    times.close()
    assert not times.fds


def test_thread_times_are_none_where_the_kernel_gives_none(tmp_path):
    assert starvation.ThreadTimes(task_dir=str(tmp_path / "missing"))() is None
    (tmp_path / "7").mkdir()
    (tmp_path / "7" / "schedstat").write_text("not numbers\n")
    assert starvation.ThreadTimes(task_dir=str(tmp_path))() is None
    (tmp_path / "8").mkdir()
    (tmp_path / "8" / "schedstat").write_text("5 3 1\n")
    assert starvation.ThreadTimes(task_dir=str(tmp_path))() == {"8": (5, 3)}


@wp.kernel
def _wave(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    n = x.shape[0]
    y[i] = wp.sin(x[i]) * 0.5 + wp.sqrt(wp.abs(x[(i + 1) % n])) / 3.0


class Recording:
    """A guard that answers ``count`` and records the counts asked for."""

    def __init__(self, count):
        self.count, self.asked = count, []

    def threads(self, n):
        self.asked.append(n)
        return self.count if self.count else n


def _wave_on(guard, monkeypatch, **settings):
    monkeypatch.setattr(starvation, "GUARD", guard)
    x = wp.array(np.random.default_rng(3).standard_normal(50_000).astype(np.float32))
    y = wp.zeros_like(x)
    with config.override(**settings):
        wp.launch(_wave, dim=x.shape[0], inputs=[x, y])
    return y.numpy()


def test_a_starved_launch_runs_on_one_thread_with_the_same_bits(monkeypatch):
    parallel = _wave_on(Recording(None), monkeypatch, adaptive_threads=False, num_threads=2, parallel_threshold=1)
    starved = Recording(1)
    serial = _wave_on(starved, monkeypatch, adaptive_threads=True, num_threads=2, parallel_threshold=1)
    assert starved.asked == [2]
    assert serial.tobytes() == parallel.tobytes()
    with config.override(adaptive_threads=True, num_threads=2, parallel_threshold=1):
        assert launch_module._launch_threads() == 1
    xs = np.random.default_rng(3).standard_normal(50_000).astype(np.float32)
    expected = np.sin(xs) * np.float32(0.5) + np.sqrt(np.abs(np.roll(xs, -1))) / np.float32(3.0)
    np.testing.assert_allclose(serial, expected, rtol=1e-6, atol=1e-6)


@wp.kernel
def _relax(p: wp.array(dtype=wp.float32), q: wp.array(dtype=wp.float32)):
    i = wp.tid()
    n = p.shape[0]
    q[i] = (p[(i + n - 1) % n] + p[(i + 1) % n]) * 0.5 + wp.sin(p[i]) * 0.25


def _flags(calls):
    return [int.from_bytes(buf[PARALLEL_FLAG:PARALLEL_FLAG + 4], "little") for inst, buf in calls if inst is not None]


def test_a_graph_records_the_full_count_and_each_replay_decides(monkeypatch):
    """example_fluid's pressure solve is a captured graph: recorded in the first (parallel) window, its replays
    ran on two threads at load 12 and the whole run took 5 to 15 s, 2 s on one thread."""
    start = np.random.default_rng(5).standard_normal(40_000).astype(np.float32)
    p, q = wp.array(start), wp.zeros(40_000, dtype=wp.float32)
    monkeypatch.setattr(starvation, "GUARD", Recording(1))  # starved while the graph is captured
    with config.override(adaptive_threads=True, num_threads=2, parallel_threshold=1):
        with wp.ScopedCapture() as capture:
            for _ in range(3):
                q.zero_()  # a host write: a node of the graph that is no launch
                wp.launch(_relax, dim=40_000, inputs=[p, q])
                wp.launch(_relax, dim=40_000, inputs=[q, p])
        graph = capture.graph
        assert _flags(graph.calls) == [1] * 6  # recorded on both threads: a capture does not ask the guard
        assert starvation.GUARD.asked == []
        results = []
        for guard in (Recording(None), Recording(1), Recording(None)):  # free cores, starved, free again
            monkeypatch.setattr(starvation, "GUARD", guard)
            p.assign(start)
            wp.capture_launch(graph)
            results.append(p.numpy().copy())
            assert guard.asked == [2] * 6  # once a launch: a long replay spans windows
    alone = graph.calls_on_one_thread()
    assert len(alone) == 9 and [buf is None for buf in alone] == [True, False, False] * 3
    assert _flags((inst, buf) for (inst, _), buf in zip(graph.calls, alone)) == [0] * 6
    assert _flags(graph.calls) == [1] * 6
    assert results[0].tobytes() == results[1].tobytes() == results[2].tobytes()
    expected = start.copy()
    for _ in range(6):
        expected = (np.roll(expected, 1) + np.roll(expected, -1)) * np.float32(0.5) + np.sin(expected) * np.float32(0.25)
    np.testing.assert_allclose(results[1], expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("settings", [dict(adaptive_threads=False, num_threads=2, parallel_threshold=1),
                                      dict(adaptive_threads=True, num_threads=1, parallel_threshold=1),
                                      dict(adaptive_threads=True, num_threads=2, parallel_threshold=10**9)],
                         ids=["guard-off", "one-thread-asked", "below-the-threshold"])
def test_the_guard_is_not_asked_where_it_has_nothing_to_decide(monkeypatch, settings):
    guard = Recording(1)
    _wave_on(guard, monkeypatch, **settings)
    assert guard.asked == []


PROBE = """
import os
import numpy as np
import brickwork as wp
from brickwork import config
print(config.problems())
@wp.kernel
def double(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * wp.float64(2.0)
a = np.ones(40000)
try:
    with config.override(num_threads=2, parallel_threshold=1):
        wp.launch(double, dim=a.size, inputs=[a])
    print(config.adaptive_threads)
except config.SettingError as e:
    print(f"SettingError: {e}")
print(float(a.sum()), os.environ.get("OMP_WAIT_POLICY"), os.environ.get("GOMP_SPINCOUNT"))
"""


def test_the_variable_turns_it_off_a_bad_value_is_an_error_at_a_parallel_launch_and_omp_settings_are_the_users(
        tmp_path):
    import subprocess

    script = tmp_path / "probe.py"  # a file: kernels need their source
    script.write_text(PROBE)
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    out = {}
    for value in ("0", "on", "", "sometimes"):
        env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
        env.update(PYTHONPATH=src, BRICKWORK_ADAPTIVE_THREADS=value)
        if value == "on":  # a user's own OpenMP wait settings: brickwork neither changes nor sets them
            env.update(OMP_WAIT_POLICY="passive", GOMP_SPINCOUNT="1000")
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode == 0, run.stderr
        out[value] = run.stdout.splitlines()[-3:]
    assert out["0"] == ["[]", "False", "80000.0 None None"]
    assert out["on"] == ["[]", "True", "80000.0 passive 1000"]
    assert out[""] == ["[]", "True", "80000.0 None None"]
    problem, error, total = out["sometimes"]
    assert "BRICKWORK_ADAPTIVE_THREADS='sometimes' must be one of 1, true, yes, on (on) or 0" in problem
    assert error.startswith("SettingError: environment variable BRICKWORK_ADAPTIVE_THREADS='sometimes'")
    assert total == "40000.0 None None"  # nothing ran

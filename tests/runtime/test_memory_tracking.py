"""Warp 1.19's memory tracker (newuser round 12: Warp's core example_alloc_tracker met an AttributeError):
wp.ScopedMemoryTracker, wp.print_memory_report and wp.config.track_memory. The reports expected here are the
ones Warp 1.19 prints for the same allocations on the CPU (checked side by side), but for file names and lines."""

import gc
import sys

import pytest

import brickwork as wp
from brickwork import memory_tracking

from .cuda_fake import FakeDriver, installed


@pytest.fixture(autouse=True)
def fresh_tracker():
    """Each test starts and ends with tracking off and nothing recorded (the tracker's state is the process's)."""
    def reset():
        memory_tracking.ScopedMemoryTracker().clear()
        memory_tracking._State.enabled = memory_tracking._State.global_started = False
        memory_tracking._stack().clear()

    reset()
    yield
    reset()


def here() -> str:
    """``file:line`` of the caller's next line, as the report names it."""
    return f"test_memory_tracking.py:{sys._getframe(1).f_lineno + 1}"


def test_scopes_totals_peak_and_live_allocations_as_warp_reports_them(capsys):
    with wp.ScopedMemoryTracker("a", print=False) as tracker:
        x = wp.zeros(4)  # 16 B, freed at once: in the totals and the peak, not live
        del x
        tracker.report()
        with wp.ScopedMemoryTracker("b"):  # prints its report at its end
            site = here()
            y = wp.zeros(3, dtype=wp.vec2)
    assert capsys.readouterr().out == f"""Allocation Tracking Report
  Total allocations:
    cpu              1 (16 B)
  Peak usage:
    cpu              16 B
  Live allocations:
    (none)
Allocation Tracking Report
  Total allocations:
    cpu              2 (40 B)
  Peak usage:
    cpu              24 B
  Live allocations:
    cpu              1 (24 B)

  Scope breakdown:
    a:
      cpu: 1 allocs, 16 B
    a/b:
      cpu: 1 allocs, 24 B

  Live cpu allocations by size (largest first) (up to 10):
    24 B : cpu : array[vec2f, 3] : {site} : test_scopes_totals_peak_and_live_allocations_as_warp_reports_them()
"""
    assert y.numpy().tolist() == [[0.0, 0.0]] * 3 and not memory_tracking.active()  # the outer tracker ended it


def make_arrays():
    sites = [here()]
    big = wp.array([[1.0, 2.0, 3.0]] * 1000, dtype=wp.vec3)  # 11.72 KB, copied from the list: named as Warp's
    sites.append(here())
    grid = wp.empty((2, 3, 4), dtype=wp.mat22)  # 384 B
    sites.append(here())
    weights = wp.zeros(3, dtype=float, requires_grad=True)  # 12 B and its gradient's 12 B
    sites.append(here())
    copy = wp.clone(big)
    return [big, grid, weights, copy], sites


def test_sizes_types_call_sites_sorting_and_clear(capsys):
    texts = []
    with wp.ScopedMemoryTracker("run", report_func=texts.append) as tracker:
        arrays, sites = make_arrays()
        tracker.report(max_items=3, sort="chronological")
    lines = [f"    11.72 KB : cpu : array[vec3f] : {sites[0]} : make_arrays()",  # from data: the dtype asked for
             f"    384 B : cpu : array[mat22f, (2, 3, 4)] : {sites[1]} : make_arrays()",
             f"    12 B : cpu : array[float32, 3] : {sites[2]} : make_arrays()",
             f"    12 B : cpu : array[float32, 3] : {sites[2]} : make_arrays()",
             f"    11.72 KB : cpu : array[vec3f, 1000] : {sites[3]} : make_arrays()"]
    head = ["Allocation Tracking Report", "  Total allocations:", "    cpu              5 (23.84 KB)", "  Peak usage:",
            "    cpu              23.84 KB", "  Live allocations:", "    cpu              5 (23.84 KB)", ""]
    assert texts[0] == "\n".join(head + ["  Live cpu allocations chronological (up to 3):", *lines[:3]]) + "\n"
    by_size = [lines[0], lines[4], lines[1], lines[2], lines[3]]  # equal sizes oldest first
    assert texts[1] == "\n".join(head + ["  Live cpu allocations by size (largest first) (up to 10):", *by_size]) + "\n"
    assert arrays[3].numpy()[999].tolist() == [1.0, 2.0, 3.0]
    with wp.ScopedMemoryTracker("again", print=False) as tracker:
        tracker.clear()  # forgets the arrays above, though they live
        del arrays
        gc.collect()
        tracker.report()
    out = capsys.readouterr().out
    assert out == "Allocation Tracking Report\n  Total allocations:\n  Peak usage:\n  Live allocations:\n    (none)\n"
    assert memory_tracking.report_text() == out and len(texts) == 2


def test_global_tracking_starts_at_init_and_sizes_are_in_binary_units(capsys):
    with pytest.raises(RuntimeError, match=r"^Allocation tracking is not active\. Set wp\.config\.track_memory = True "
                                           r"before calling wp\.init\(\), or use wp\.ScopedMemoryTracker"):
        wp.print_memory_report()
    assert capsys.readouterr().out == ""
    before = wp.config.track_memory
    wp.config.track_memory = True
    try:
        wp.init()
        sizes = [wp.empty(n, dtype=wp.uint8) for n in (1023, 1024, (1 << 20) - 1, 3 * (1 << 20) + 5)]
        wp.print_memory_report(max_items=4)
    finally:
        wp.config.track_memory = before
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "    cpu              4 (4.00 MB)"
    assert [line.split(" : ")[0] for line in out[-4:]] == ["    3.00 MB", "    1024.00 KB", "    1.00 KB", "    1023 B"]
    assert memory_tracking._stack() == ["global"] and len(sizes) == 4


@pytest.mark.parametrize("call", [lambda: wp.print_memory_report(sort="newest"),
                                  lambda: wp.ScopedMemoryTracker().report(sort="newest")], ids=["function", "tracker"])
def test_an_unknown_sort_order_is_refused_and_prints_nothing(call, capsys):
    with wp.ScopedMemoryTracker("s", print=False):
        kept = wp.zeros(2)
        with pytest.raises(ValueError, match="^Invalid sort order 'newest'; expected 'size' or 'chronological'$"):
            call()
        assert "cpu              1 (8 B)" in memory_tracking.report_text()  # the record unchanged
    assert capsys.readouterr().out == "" and kept.numpy().tolist() == [0.0, 0.0]


def test_an_inactive_tracker_records_nothing():
    with wp.ScopedMemoryTracker("off", active=False):
        a = wp.zeros(5)
    assert not memory_tracking.active() and memory_tracking._State.totals == {} and a.shape == (5,)


def test_cuda_arrays_are_recorded_under_their_device_and_freed():
    with installed(FakeDriver(devices=1)):
        with wp.ScopedMemoryTracker("gpu", print=False):
            site = here()
            d = wp.zeros((4, 2), dtype=wp.vec3, device="cuda:0")
            text = memory_tracking.report_text()
            assert "    cuda:0           1 (96 B)" in text
            assert f"    96 B : cuda:0 : array[vec3f, (4, 2)] : {site} : " in text
            del d
            gc.collect()
            assert memory_tracking.report_text().splitlines()[5:] == ["  Live allocations:", "    (none)"]
            site = here()
            e = wp.array([[1.0, 2.0, 3.0]] * 2, dtype=wp.vec3, device="cuda:0")  # its host copy is not counted
            lines = memory_tracking.report_text().splitlines()
            assert lines[1:3] == ["  Total allocations:", "    cuda:0           2 (120 B)"]
            assert lines[-1] == f"    24 B : cuda:0 : array[vec3f] : {site} : " + \
                "test_cuda_arrays_are_recorded_under_their_device_and_freed()"
            assert e.numpy().tolist() == [[1.0, 2.0, 3.0]] * 2

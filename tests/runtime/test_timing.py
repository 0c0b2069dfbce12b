"""Activity timing on the CPU (``wp.timing_begin`` / ``timing_end`` / ``timing_print``, ``ScopedTimer(cuda_filter=)``):
each kernel launch, copy, memset and graph replay between begin and end is one ``TimingResult``, named as Warp
names it; the launches compute what they compute without timing."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, la
from brickwork.runtime import launch as launch_module

from .test_print_launches import scaled, squares  # the same kernels: no compile of their own

CPU = wp.get_device("cpu")
ALL_NAMES = ("forward kernel", "backward kernel", "builtin kernel", "memcpy", "memset", "graph")


def activities(results) -> list:
    assert all(r.elapsed >= 0.0 and r.device == CPU for r in results)
    return [(r.name, r.filter) for r in results]


@pytest.fixture(autouse=True)
def no_range_left_open():
    yield
    from brickwork import timing_state

    leaked = len(timing_state.ranges)
    while timing_state.ranges:
        wp.timing_end()
    assert leaked == 0 and config.print_launches is False and launch_module._capture is None


def test_each_launch_copy_and_memset_is_one_activity_in_order():
    x = wp.array(np.arange(8, dtype=np.float32))
    y = wp.zeros(8, dtype=wp.float32)
    wp.launch(scaled, 8, inputs=[2.0, x, y])  # compiled or loaded outside the range
    cmd = wp.launch(squares, 8, inputs=[x, y], record_cmd=True)
    wp.timing_begin()
    wp.launch(scaled, 8, inputs=[3.0, x, y])
    wp.launch_tiled(scaled, 8, inputs=[3.0, x, y], block_dim=64)
    cmd.launch()
    z = wp.zeros(8, dtype=wp.float32)  # allocated zeroed, not a memset (as Warp's)
    wp.copy(z, y)
    y.zero_()
    y.fill_(1.5)
    total = wp.utils.array_sum(x)
    results = wp.timing_end()
    assert activities(results) == [
        (f"forward kernel {scaled.key}", wp.TIMING_KERNEL), (f"forward kernel {scaled.key}", wp.TIMING_KERNEL),
        (f"forward kernel {squares.key}", wp.TIMING_KERNEL), ("memcpy HtoH", wp.TIMING_MEMCPY),
        ("memset", wp.TIMING_MEMSET), ("memset", wp.TIMING_MEMSET),
        ("builtin kernel _partials", wp.TIMING_KERNEL_BUILTIN), ("builtin kernel _totals", wp.TIMING_KERNEL_BUILTIN)]
    assert isinstance(results[0], wp.TimingResult) and results[0].filter == 1
    assert np.array_equal(z.numpy(), np.arange(8) ** 2) and np.array_equal(y.numpy(), np.full(8, 1.5))
    assert total == 28.0
    assert config.print_launches is False and launch_module._capture is None  # the hooks are off again


def test_backward_and_loop_abstraction_launches_are_timed(capsys):
    x = wp.array(np.arange(3, dtype=np.float32), requires_grad=True)
    y = wp.zeros(3, dtype=wp.float32, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(squares, 3, inputs=[x, y])
    space = la.IndexSpace.box(la.bovi, la.logical_flat, nblocks=1, nx=4, ny=2, nz=2, nghost=1)
    u = wp.array(np.arange(96, dtype=np.float64).reshape(1, 4, 4, 6), dtype=wp.float64)
    out = wp.zeros((1, 4, 4, 6), dtype=wp.float64)

    def triple_it(rng, b):
        for idx in la.inner(rng):
            k, j, i = rng.get_kji(idx)
            out[b, k, j, i] = wp.float64(3.0) * u[b, k, j, i]

    la.outer(space, triple_it)  # compiled, and the repeated launch's fast path set up
    capsys.readouterr()
    with config.override(print_launches=True):  # printed and timed: the body kernel's key from its line
        wp.timing_begin(wp.TIMING_KERNEL)
        tape.backward(grads={y: wp.array(np.ones(3, dtype=np.float32))})
        la.outer(space, triple_it)
        results = wp.timing_end()
        assert config.print_launches is True  # the user's setting again
    printed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("kernel")]
    body = printed[1].split()[1]
    assert printed[0].startswith(f"kernel backward: {squares.key} (")
    assert activities(results) == [(f"backward kernel {squares.key}", wp.TIMING_KERNEL),
                                   (f"forward kernel {body}", wp.TIMING_KERNEL)]
    assert np.array_equal(x.grad.numpy(), [0.0, 2.0, 4.0])
    interior = (0, slice(1, 3), slice(1, 3), slice(1, 5))
    assert np.array_equal(out.numpy()[interior], 3.0 * u.numpy()[interior])


def test_the_filter_selects_the_activities():
    x = wp.array(np.arange(8, dtype=np.float32))
    y = wp.zeros(8, dtype=wp.float32)
    wp.timing_begin(wp.TIMING_MEMCPY | wp.TIMING_MEMSET)
    wp.launch(scaled, 8, inputs=[2.0, x, y])
    wp.copy(y, x)
    y.zero_()
    assert activities(wp.timing_end()) == [("memcpy HtoH", wp.TIMING_MEMCPY), ("memset", wp.TIMING_MEMSET)]
    wp.timing_begin(wp.TIMING_KERNEL_BUILTIN)
    wp.launch(scaled, 8, inputs=[2.0, x, y])
    assert wp.utils.array_sum(x) == 28.0
    assert activities(wp.timing_end()) == [("builtin kernel _partials", wp.TIMING_KERNEL_BUILTIN),
                                           ("builtin kernel _totals", wp.TIMING_KERNEL_BUILTIN)]
    wp.timing_begin(0)  # Warp's: a range that times nothing
    wp.launch(scaled, 8, inputs=[2.0, x, y])
    assert wp.timing_end() == [] and np.array_equal(y.numpy(), 2.0 * np.arange(8))


def test_an_inner_range_collects_until_its_end_and_the_outer_one_after_it():
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4, dtype=wp.float32)
    wp.timing_begin()
    wp.launch(scaled, 4, inputs=[1.0, x, y])
    wp.timing_begin(wp.TIMING_ALL, synchronize=False)
    wp.launch(squares, 4, inputs=[x, y])
    inner = wp.timing_end(synchronize=False)
    y.zero_()
    outer = wp.timing_end()
    assert activities(inner) == [(f"forward kernel {squares.key}", wp.TIMING_KERNEL)]
    assert activities(outer) == [(f"forward kernel {scaled.key}", wp.TIMING_KERNEL), ("memset", wp.TIMING_MEMSET)]


def test_a_graph_replay_is_one_activity_and_its_capture_none():
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4, dtype=wp.float32)
    wp.launch(scaled, 4, inputs=[2.0, x, y])
    wp.timing_begin()
    wp.capture_begin()
    wp.launch(scaled, 4, inputs=[5.0, x, y])
    y.fill_(1.0)  # recorded: runs at each replay, before the launch below
    wp.launch(squares, 4, inputs=[x, y])
    graph = wp.capture_end()
    captured = wp.timing_end()
    wp.timing_begin()
    wp.capture_launch(graph)
    wp.capture_launch(graph)
    replayed = wp.timing_end()
    assert captured == [] and activities(replayed) == [("graph", wp.TIMING_GRAPH)] * 2
    assert np.array_equal(y.numpy(), np.arange(4) ** 2)


def test_a_refused_launch_is_not_timed_and_the_range_goes_on():
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4, dtype=wp.float32)
    wp.timing_begin()
    with pytest.raises(wp.LaunchError):
        wp.launch(scaled, 4, inputs=[2.0, x])  # an argument short
    assert launch_module._capture is None and np.array_equal(y.numpy(), np.zeros(4))
    wp.launch(scaled, 4, inputs=[2.0, x, y])
    assert activities(wp.timing_end()) == [(f"forward kernel {scaled.key}", wp.TIMING_KERNEL)]


def test_timing_print_writes_warp_s_timeline_and_summaries():
    gpu = type(CPU)("cuda:0", 0)
    results = [wp.TimingResult(CPU, "forward kernel scale", wp.TIMING_KERNEL, 1.5),
               wp.TimingResult(CPU, "memset", wp.TIMING_MEMSET, 0.25),
               wp.TimingResult(gpu, "forward kernel scale", wp.TIMING_KERNEL, 2.0)]
    with contextlib.redirect_stdout(io.StringIO()) as f:
        wp.timing_print(results, indent="  ")
        wp.timing_print([])
    rule = "  ----------------+---------+" + "-" * 21
    assert f.getvalue().splitlines() == [
        "  CUDA timeline:", rule, "  Time            | Device  | Activity", rule,
        "      1.500000 ms | cpu     | forward kernel scale",
        "      0.250000 ms | cpu     | memset",
        "      2.000000 ms | cuda:0  | forward kernel scale",
        "",
        "  CUDA activity summary:", rule, "  Total time      | Count   | Activity", rule,
        "      3.500000 ms |       2 | forward kernel scale",
        "      0.250000 ms |       1 | memset",
        "",
        "  CUDA device summary:", rule, "  Total time      | Count   | Device", rule,
        "      1.750000 ms |       2 | cpu",
        "      2.000000 ms |       1 | cuda:0",
        "No activity"]


def test_scoped_timer_collects_and_reports_the_block_s_activities():
    x = wp.array(np.arange(4, dtype=np.float32))
    y = wp.zeros(4, dtype=wp.float32)
    reported = []
    with contextlib.redirect_stdout(io.StringIO()) as f:
        with wp.ScopedTimer("outer"):
            with wp.ScopedTimer("step", cuda_filter=wp.TIMING_KERNEL, report_func=lambda r, indent: reported.append(
                    ([x.name for x in r], indent))) as timer:
                wp.launch(scaled, 4, inputs=[2.0, x, y])
                y.zero_()  # a memset: not in the filter
        with wp.ScopedTimer("printed", cuda_filter=wp.TIMING_ALL, synchronize=True) as printed:
            y.zero_()
        with wp.ScopedTimer("quiet", cuda_filter=wp.TIMING_ALL, print=False) as quiet:
            wp.copy(y, x)
    assert [r.name for r in timer.timing_results] == [f"forward kernel {scaled.key}"]
    assert reported == [([f"forward kernel {scaled.key}"], "    ")]
    out = f.getvalue().splitlines()
    assert out[0].startswith("    step took ") and out[1].startswith("outer took ")
    assert out[2] == "CUDA timeline:" and out[6].endswith(" ms | cpu     | memset")
    assert out[-1].startswith("printed took ") and activities(printed.timing_results) == [
        ("memset", wp.TIMING_MEMSET)]
    assert activities(quiet.timing_results) == [("memcpy HtoH", wp.TIMING_MEMCPY)]


def test_bad_calls_raise_and_open_nothing():
    with pytest.raises(RuntimeError, match="timing_end: no timing is active"):
        wp.timing_end()
    with pytest.raises(TypeError, match="timing_begin: cuda_filter must be an int of TIMING_\\* flags .* got str 'all'"):
        wp.timing_begin("all")
    with pytest.raises(TypeError, match="got bool True"):
        wp.timing_begin(True)
    with pytest.raises(ValueError, match="from 0 to TIMING_ALL \\(0xFFFFFFFF\\), got -1"):
        wp.timing_begin(-1)
    with pytest.raises(ValueError, match="got 4294967296"):
        wp.timing_begin(wp.TIMING_ALL + 1)
    with pytest.raises(TypeError, match="ScopedTimer: cuda_filter must be an int"):
        wp.ScopedTimer("t", cuda_filter=1.0)
    assert config.print_launches is False
    with pytest.raises(RuntimeError, match="no timing is active"):
        wp.timing_end()

"""benchmarks/cuda_kernel_times.py with a fake driver: each brickwork launch inside ``KernelTimes`` is
bracketed by two timing events on its stream and summed per kernel, host waits are counted, and the
driver and loader are themselves again after the block."""

import sys
from pathlib import Path

import pytest

import brickwork as wp
from brickwork.jit import nvrtc
from brickwork.targets.cuda.loader import CudaEntry

from .cuda_fake import FakeDriver, installed

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from cuda_kernel_times import HandTimes, KernelTimes, breakdown  # noqa: E402


@wp.kernel
def bump(x: wp.array(dtype=float)):
    x[wp.tid()] = x[wp.tid()] + 1.0


@wp.kernel
def twice(x: wp.array(dtype=float)):
    x[wp.tid()] = 2.0 * x[wp.tid()]


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_launches_are_timed_per_kernel_on_their_stream():
    with installed(FakeDriver()) as drv:
        x = wp.zeros(8, device="cuda:0")
        launch = CudaEntry.launch
        with KernelTimes() as times:
            for _ in range(3):
                wp.launch(bump, dim=8, inputs=[x], device="cuda:0")
            wp.launch(twice, dim=8, inputs=[x], device="cuda:0")
            x.numpy()  # a copy to the host
        assert CudaEntry.launch is launch and "copy_to_host" not in vars(drv) and "synchronize" not in vars(drv)
        records = [e for e in drv.stream_log if e[0] in ("record", "launch")]
        assert [e[0] for e in records] == ["record", "launch", "record"] * 4  # each launch between its events
        assert times.host_waits >= 1
        totals = times.totals()
        assert totals == [("bump", 3, 4.5), ("twice", 1, 1.5)]  # the fake driver's 1.5 ms an event pair
        assert drv.events == {}  # released
        lines = breakdown("case", totals, 3, times.host_waits)
        assert "| bump | 1 | 1.5000 | 75% |" in lines and lines[-3].startswith("| all | 1.33333 | 2.0000")


@wp.kernel(module="unique")  # built alone: not along with this module's other kernels at their first launch
def halve(x: wp.array(dtype=float)):
    x[wp.tid()] = 0.5 * x[wp.tid()]


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_a_cache_entry_built_under_another_label_is_timed_by_the_launched_kernel_s():
    # the cache is keyed by content: tests/targets/test_cuda_nvrtc.py builds this module's kernels for sm_90 under
    # ids of its own ("runtime/test_cuda_kernel_times::twice"), into the session's cache that xdist workers share;
    # a launch that then finds the entry must still carry its own kernel's label (timings, error messages)
    from brickwork import pipeline
    from brickwork.targets.cuda import cuda_target

    target = cuda_target("sm_90")  # the fake driver's device: capability 9.0
    types = [t for _, t in halve.params]
    text, meta = pipeline.generate(halve, types, "elsewhere::halve", target=target)
    [built] = target.compile_many([(pipeline.cache_key(pipeline.key_parts(halve, types, target=target)), text,
                                    "elsewhere::halve", meta)])
    assert not isinstance(built, Exception) and built[1]["label"] != "halve"  # (or test_cuda_nvrtc's label)
    with installed(FakeDriver()):
        x = wp.zeros(8, device="cuda:0")
        with KernelTimes() as times:
            wp.launch(halve, dim=8, inputs=[x], device="cuda:0")
        assert times.totals() == [("halve", 1, 1.5)]


def test_hand_launches_are_timed_by_kernel_name():
    class Runner:
        ordinal = 0

        def __init__(self):
            self.calls = []

        def launch(self, name, grid, block, params):
            self.calls.append(name)

    with installed(FakeDriver()) as drv:
        runner = Runner()
        with HandTimes(runner) as times:
            runner.launch("kh_update", (1, 1, 1), (1, 1, 1), b"")
            runner.launch("kh_update", (1, 1, 1), (1, 1, 1), b"")
        assert runner.calls == ["kh_update"] * 2 and "launch" not in vars(runner)
        assert times.totals() == [("kh_update", 2, 3.0)] and drv.events == {}

"""Where a GPU run's time goes: the device time of each kernel brickwork launches inside a block, and the
host's waits for the device (copies to the host, synchronizations).

    with KernelTimes() as times:
        for _ in range(steps):
            sim.step(sim.check())
    for label, launches, ms in times.totals():
        ...

Each launch is bracketed by two timing events on its stream, so the device time of a kernel is measured
where it ran, not from the host; the events cost a little, so this runs after a row is timed, never
inside the timed part. ``HandTimes`` does the same for the hand-written references launched through
``cuda_peers.DeviceRunner``. ``bench_cuda.py`` prints both for the hydro step and recon+flux, so one
GPU session shows which kernel falls short of its hand-written peer.
"""

from __future__ import annotations

from collections import defaultdict


class _Events:
    """Timing-event pairs recorded around launches, summed per label after a synchronization."""

    def __init__(self):
        from brickwork import cuda_driver

        self.drv = cuda_driver.driver()
        self.events: list[tuple[str, int, int, int]] = []  # (label, ordinal, start, end)
        self.host_waits = 0

    def around(self, label: str, ordinal: int, stream: int, launch) -> None:
        start, end = self.drv.event_create(ordinal, timing=True), self.drv.event_create(ordinal, timing=True)
        self.drv.event_record(ordinal, start, stream)
        launch()
        self.drv.event_record(ordinal, end, stream)
        self.events.append((label, ordinal, start, end))

    def totals(self) -> list[tuple[str, int, float]]:
        """``(label, launches, milliseconds)`` per kernel, the longest first (the events are released)."""
        launches, ms = defaultdict(int), defaultdict(float)
        for label, ordinal, start, end in self.events:
            self.drv.event_synchronize(ordinal, end)
            launches[label] += 1
            ms[label] += self.drv.event_elapsed(ordinal, start, end)
            self.drv.event_destroy(ordinal, start)
            self.drv.event_destroy(ordinal, end)
        self.events.clear()
        return sorted(((k, launches[k], ms[k]) for k in launches), key=lambda r: -r[2])


class KernelTimes(_Events):
    """Inside the block, every launch of a brickwork CUDA instance is timed on the device (by its label);
    ``host_waits`` counts copies to the host and device synchronizations (each stalls the host)."""

    def __enter__(self):
        from brickwork.targets.cuda.loader import CudaEntry

        self._launch = original = CudaEntry.launch
        self._copy, self._sync = self.drv.copy_to_host, self.drv.synchronize
        times = self

        def launch(entry, buf, dims, device, args=(), params=(), stream=0):
            times.around(entry.label, device.ordinal, stream,
                         lambda: original(entry, buf, dims, device, args, params, stream))

        def copy_to_host(*a, **k):
            times.host_waits += 1
            return times._copy(*a, **k)

        def synchronize(*a, **k):
            times.host_waits += 1
            return times._sync(*a, **k)

        CudaEntry.launch = launch
        self.drv.copy_to_host, self.drv.synchronize = copy_to_host, synchronize
        return self

    def __exit__(self, *exc):
        from brickwork.targets.cuda.loader import CudaEntry

        CudaEntry.launch = self._launch
        del self.drv.copy_to_host, self.drv.synchronize  # the class's methods again
        return False


class HandTimes(_Events):
    """Inside the block, every launch of ``runner`` (a ``cuda_peers.DeviceRunner``) is timed on the device,
    by kernel name."""

    def __init__(self, runner):
        super().__init__()
        self.runner = runner

    def __enter__(self):
        original = self._launch = self.runner.launch

        def launch(name, grid, block, params):
            self.around(name, self.runner.ordinal, 0, lambda: original(name, grid, block, params))

        self.runner.launch = launch
        return self

    def __exit__(self, *exc):
        del self.runner.launch  # the class's method again
        return False


def breakdown(title: str, totals: list, steps: int, host_waits: int | None = None) -> list[str]:
    """Markdown lines: each kernel's launches and device milliseconds per step, and its share."""
    whole = sum(ms for _, _, ms in totals) or 1.0
    lines = [f"{title}, per step (device time of each kernel, {steps} steps)", "",
             "| kernel | launches | ms | share |", "|---|---|---|---|"]
    lines += [f"| {label} | {n / steps:g} | {ms / steps:.4f} | {ms / whole:.0%} |" for label, n, ms in totals]
    lines.append(f"| all | {sum(n for _, n, _ in totals) / steps:g} | {whole / steps:.4f} | |")
    if host_waits is not None:
        lines.append(f"\nthe host waited for the device {host_waits / steps:g} times a step")
    return lines + [""]

"""Whole-array algorithms called from Python, as Warp's ``warp.utils``: reductions, scans, sorts, run-length
encoding and casts, plus ``ScopedTimer`` and ``transform_expand``, and graph coloring (``graph_coloring_*``:
sequential CPU kernels, as Warp's; arrays on a CUDA device go through the host there).

Each function validates its arguments first (with Warp's messages, raising before anything is written) and then
launches kernels on the arrays' device (``runtime/device_scan``, ``device_reduce``, ``device_pairs``,
``device_runs``): no array goes through the host; a single number is read back where Warp reads one (a sum's
result, a run count, a segment check). The CPU target takes the CPU's algorithms (one sequential scan pass, a
counting sort per thread chunk); a CUDA device and the cuda-emulation target the GPU's. Strided views are read
in place or through a contiguous copy on their device, and written in place or through one.
"""

from __future__ import annotations

import importlib
import sys
import time

from ..device import synchronize
from ..lang.function_from_python import create_warp_function
from ..runtime.graph_coloring_algorithm import GraphColoringAlgorithm
from ..types.composite import transformation
from ..types.scalars import float32

__all__ = [
    "ScopedTimer", "array_cast", "array_inner", "array_scan", "array_sum", "create_warp_function", "radix_sort_pairs",
    "runlength_encode", "segmented_sort_pairs", "transform_expand",
    "GraphColoringAlgorithm", "graph_coloring_assign", "graph_coloring_balance", "graph_coloring_get_groups",
]


# The algorithms load on first use (``brickwork.utils.array_sum``, ``from brickwork.utils import array_sum``):
# ``import brickwork`` takes this module for ScopedTimer and transform_expand, and a program that calls none of them
# reads none of their modules.
_HOMES = {
    "array_cast": "casts", "array_inner": "reductions", "array_scan": "reductions", "array_sum": "reductions",
    "graph_coloring_assign": "graph_coloring", "graph_coloring_balance": "graph_coloring",
    "graph_coloring_get_groups": "graph_coloring", "radix_sort_pairs": "sorts", "runlength_encode": "runs",
    "segmented_sort_pairs": "sorts",
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_HOMES))


# -- host conveniences ---------------------------------------------------------------------------------------


def transform_expand(t):
    """A ``transformf`` from a sequence of 7 numbers: position (3), then rotation quaternion (x, y, z, w)."""
    values = list(t)
    if len(values) != 7:
        raise ValueError(f"transform_expand() needs 7 numbers (position, then quaternion), got {len(values)}")
    return transformation(float32)(p=values[:3], q=values[3:])


class ScopedTimer:
    """A context manager that measures the wall time of its block, as Warp's ``wp.ScopedTimer``.

    On exit it prints ``"<name> took <ms> ms"`` (indented by nesting level), sets ``elapsed`` (ms) and,
    with ``dict=``, appends the time to ``dict[name]``. ``detailed=True`` profiles the block with cProfile
    and prints its statistics first; ``synchronize=True`` waits for all devices before starting and
    stopping the clock; ``active=False`` measures nothing. ``cuda_filter`` (``wp.TIMING_*`` flags) times the
    block's activities (``wp.timing_begin``, on the CPU and CUDA devices) into ``timing_results`` and, when
    printing, reports them with ``report_func(results, indent)`` (``wp.timing_print`` by default) before its own
    line. NVTX ranges are not supported, so ``use_nvtx`` is refused. ``skip_tape`` is accepted (brickwork's
    ``Tape`` records no timers).
    """

    indent = -1  # nesting level of the innermost active timer

    def __init__(self, name: str, active: bool = True, print: bool = True, detailed: bool = False,  # noqa: A002
                 dict: dict | None = None, use_nvtx: bool = False, color="rapids", synchronize: bool = False,  # noqa: A002
                 cuda_filter: int = 0, report_func=None, skip_tape: bool = False):
        if use_nvtx:
            raise ValueError("ScopedTimer: use_nvtx=True (NVTX ranges) is not supported by brickwork")
        if cuda_filter:
            from ..runtime.timing import check_filter

            check_filter(cuda_filter, "ScopedTimer")
        self.cuda_filter = cuda_filter
        self.name = name
        self.active = active
        self.print = print
        self.detailed = detailed
        self.dict = dict
        self.synchronize = synchronize
        self.report_func = report_func
        self.skip_tape = skip_tape
        self.elapsed = 0.0
        self.timing_results: list = []
        self._profile = None
        self._start = 0.0
        if dict is not None:
            dict.setdefault(name, [])

    def __enter__(self):
        if not self.active:
            return self
        if self.synchronize:
            synchronize()
        if self.cuda_filter:  # after the synchronization above, if any: timing_begin's own otherwise
            from ..runtime.timing import timing_begin

            timing_begin(self.cuda_filter, synchronize=not self.synchronize)
        ScopedTimer.indent += 1
        if self.detailed:
            import cProfile  # loaded only when a timer profiles

            self._profile = cProfile.Profile()
            self._profile.enable()
        self._start = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.active:
            return
        if self.synchronize:
            synchronize()
        self.elapsed = (time.perf_counter() - self._start) * 1000.0
        if self._profile is not None:
            self._profile.disable()
            import pstats

            pstats.Stats(self._profile, stream=sys.stdout).sort_stats(pstats.SortKey.CUMULATIVE).print_stats()
        if self.cuda_filter:
            from ..runtime.timing import timing_end, timing_print

            self.timing_results = timing_end(synchronize=not self.synchronize)
        if self.dict is not None:
            self.dict[self.name].append(self.elapsed)
        if self.print:
            if self.timing_results:
                (self.report_func or timing_print)(self.timing_results, indent="    " * ScopedTimer.indent)
            sys.stdout.write(f"{'    ' * ScopedTimer.indent}{self.name} took {self.elapsed:.2f} ms\n")
        ScopedTimer.indent -= 1

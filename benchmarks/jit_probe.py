"""Subprocess probe for the JIT-cost table (run by :mod:`jit_costs`; prints one JSON line).

``python jit_probe.py IMPL import``        time of ``import IMPL``
``python jit_probe.py IMPL first-launch``  time of ``IMPL.init()`` (where it has one), then of the first
                                           and of the second launch of a small kernel (the kernel cache
                                           comes from the environment)
"""

from __future__ import annotations

import importlib
import sys
import time
from typing import Any  # module level: string annotations are evaluated here


def make_probe_kernel(wp):
    """The small one-array kernel whose compile and load are timed."""

    @wp.kernel
    def probe_add_one(x: wp.array(dtype=wp.float32)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    return probe_add_one


def numba_first_launch() -> dict:
    """Numba: first and second call of an ``njit(parallel=True, cache=True)`` one-array function
    (the cache directory comes from NUMBA_CACHE_DIR)."""
    import numpy as np
    from numba import njit, prange

    @njit(parallel=True, cache=True)
    def probe_add_one(x):
        for i in prange(x.size):
            x[i] = x[i] + 1.0

    x = np.zeros(16, dtype=np.float32)
    times = []
    for _ in range(2):
        start = time.perf_counter()
        probe_add_one(x)
        times.append(time.perf_counter() - start)
    if float(x[0]) != 2.0:
        raise SystemExit(f"probe function gave {x[0]}, expected 2.0")
    return {"first_s": times[0], "second_s": times[1]}


def numba_three_instances() -> dict:
    """Numba: the seed's ``scale`` compiled eagerly for float32 and float64 (Numba has no float16
    on the CPU) and called once each; ``compiler_calls`` counts cache misses (0 when warm)."""
    import numpy as np
    from numba import njit, prange

    start = time.perf_counter()

    @njit(["void(float32[:], float32)", "void(float64[:], float64)"], parallel=True, cache=True)
    def scale(x, s):
        for i in prange(x.size):
            x[i] = s * x[i]

    for T in (np.float32, np.float64):
        x = np.array([1, 2, 3], dtype=T)
        scale(x, T(3))
        if x.tolist() != [3, 6, 9]:
            raise SystemExit(f"scale gave {x}")
    wall = time.perf_counter() - start
    return {"wall_s": wall, "compiler_calls": sum(scale.stats.cache_misses.values())}


def first_launch(name: str) -> dict:
    """Seconds for the first and second launch of the probe kernel in this fresh process."""
    if name == "numba":
        return numba_first_launch()
    wp = importlib.import_module(name)
    if name == "warp":
        wp.config.quiet = True
    init_s = None
    if hasattr(wp, "init"):  # the process's one-time set-up, timed on its own
        start = time.perf_counter()
        wp.init()
        init_s = time.perf_counter() - start
    kernel = make_probe_kernel(wp)
    x = wp.zeros(16, dtype=wp.float32, device="cpu")
    times = []
    for _ in range(2):
        start = time.perf_counter()
        wp.launch(kernel, dim=16, inputs=[x], device="cpu")
        wp.synchronize()
        times.append(time.perf_counter() - start)
    if float(x.numpy()[0]) != 2.0:
        raise SystemExit(f"probe kernel gave {x.numpy()[0]}, expected 2.0")
    return {"first_s": times[0], "second_s": times[1], "init_s": init_s}


def three_instances(name: str) -> dict:
    """Wall time to build the seed's generic ``scale`` for float16/32/64 and launch each once.

    With brickwork the three instances are declared first, so they compile together; the
    number of compiler runs is reported too (zero when the cache is warm).
    """
    if name == "numba":
        return numba_three_instances()
    wp = importlib.import_module(name)
    if name == "warp":
        wp.config.quiet = True
        wp.init()

    @wp.kernel
    def scale(x: wp.array(dtype=Any), s: Any):
        i = wp.tid()
        x[i] = s * x[i]

    types = [wp.float16, wp.float32, wp.float64]
    start = time.perf_counter()
    for T in types:
        wp.overload(scale, [wp.array(dtype=T), T])
    for T in types:
        x = wp.array([1, 2, 3], dtype=T, device="cpu")
        wp.launch(scale, dim=3, inputs=[x, T(3)], device="cpu")
        if x.numpy().tolist() != [3, 6, 9]:
            raise SystemExit(f"scale gave {x.numpy()}")
    wall = time.perf_counter() - start
    calls = None
    if name == "brickwork":
        from brickwork.jit import compile as jit

        calls = jit.compiler_calls
    return {"wall_s": wall, "compiler_calls": calls}


def main() -> None:
    name, mode = sys.argv[1], sys.argv[2]
    if mode == "import":
        start = time.perf_counter()
        importlib.import_module(name)
        result = {"import_s": time.perf_counter() - start}
    elif mode == "first-launch":
        result = first_launch(name)
    elif mode == "three-instances":
        result = three_instances(name)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    import json  # after the timing: what a library loads on its own is its cost, not the probe's

    print(json.dumps(result))


if __name__ == "__main__":
    main()

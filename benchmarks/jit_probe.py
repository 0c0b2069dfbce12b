"""Subprocess probe for the JIT-cost table (run by :mod:`jit_costs`; prints one JSON line).

``python jit_probe.py IMPL import``        time of ``import IMPL``
``python jit_probe.py IMPL first-launch``  time of the first and of the second launch of a small
                                           kernel (the kernel cache comes from the environment)
"""

from __future__ import annotations

import importlib
import json
import sys
import time


def make_probe_kernel(wp):
    """The small one-array kernel whose compile and load are timed."""

    @wp.kernel
    def probe_add_one(x: wp.array(dtype=wp.float32)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    return probe_add_one


def first_launch(name: str) -> dict:
    """Seconds for the first and second launch of the probe kernel in this fresh process."""
    wp = importlib.import_module(name)
    if name == "warp":
        wp.config.quiet = True
    if hasattr(wp, "init"):
        wp.init()
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
    return {"first_s": times[0], "second_s": times[1]}


def main() -> None:
    name, mode = sys.argv[1], sys.argv[2]
    if mode == "import":
        start = time.perf_counter()
        importlib.import_module(name)
        result = {"import_s": time.perf_counter() - start}
    elif mode == "first-launch":
        result = first_launch(name)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()

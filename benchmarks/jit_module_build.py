"""Cold first launches of a module of several kernels: built together (``BRICKWORK_COMPILE_MODULE=1``, the
default, as Warp builds a module) against one compile per first launch (``=0``).

Each round runs a fresh process per setting, interleaved, each with an empty kernel cache (its precompiled
header built beforehand, as a machine that compiled anything before has it), and reports the process's wall
time, and the user and user + system CPU time of the process and its compilers. Usage::

    python benchmarks/jit_module_build.py [--kernels 12] [--rounds 3] [--backward]

``--backward`` launches them on a tape and runs its backward pass too (adjoints built together).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

KERNEL = """
@wp.kernel
def step_{n}(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * {n}.0 + x[i] * x[i]
"""

SCRIPT = """
import json, resource, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {folder!r})
import numpy as np
import brickwork as wp
import many_kernels as m
n, backward = {kernels}, {backward}
x = wp.array(np.linspace(0.0, 1.0, 64, dtype=np.float32), dtype=wp.float32, requires_grad=backward)
ys = [wp.zeros(64, dtype=wp.float32, requires_grad=backward) for _ in range(n)]
tape = wp.Tape()
with tape:
    for k in range(n):
        wp.launch(getattr(m, f"step_{{k}}"), dim=64, inputs=[x], outputs=[ys[k]])
if backward:
    for y in ys:
        y.grad.fill_(1.0)
    tape.backward()
wall = time.perf_counter() - t0
own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({{"wall": wall, "user": own.ru_utime + children.ru_utime,
                  "cpu": own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime}}))
"""


def run(folder: Path, cache: Path, module_build: bool) -> dict:
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(cache), BRICKWORK_COMPILE_MODULE="1" if module_build else "0")
    out = subprocess.run([sys.executable, str(folder / "script.py")], env=env, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def fresh_cache(template: Path, scratch: Path) -> Path:
    """An empty kernel cache holding only the precompiled header folder of ``template``."""
    cache = Path(tempfile.mkdtemp(dir=scratch))
    for item in template.iterdir():
        if item.name.startswith(("pch-", "toolchain-")):
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, cache / item.name)
    return cache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backward", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        folder = scratch / "program"
        folder.mkdir()
        (folder / "many_kernels.py").write_text("import brickwork as wp\n" + "".join(
            KERNEL.format(n=n) for n in range(args.kernels)))
        (folder / "script.py").write_text(SCRIPT.format(folder=str(folder), kernels=args.kernels,
                                                        backward=args.backward))
        template = scratch / "template"
        run(folder, template, module_build=False)  # publishes the precompiled header (at its exit) and the toolchain
        times: dict = {True: [], False: []}
        for _ in range(args.rounds):
            for setting in (False, True):
                times[setting].append(run(folder, fresh_cache(template, scratch), setting))
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
        print(f"{args.kernels} kernels{' with backward' if args.backward else ''}, {args.rounds} rounds, "
              f"load {load}")
        for what in ("wall", "user", "cpu"):
            alone = statistics.median(t[what] for t in times[False])
            together = statistics.median(t[what] for t in times[True])
            print(f"  {what:4s} s: one per first launch {alone:.2f}, module at once {together:.2f}, "
                  f"ratio {alone / together:.2f}x")


if __name__ == "__main__":
    main()

"""The host side of a CUDA launch, without a GPU: microseconds of Python per launch through the test suite's
stand-in driver (``tests/runtime/cuda_fake.py``) with its launch made to return at once, so the driver's cost is
left out; NVRTC (the ``cuda`` extra) compiles the kernels.

    python benchmarks/bench_cuda_launch_host.py [--calls 2000] [--rounds 5] [--src DIR]

Rows: ``wp.launch`` of a one-array kernel over one point (``device="cuda:0"``), of saxpy over 1024 points (two
arrays and a float), and ``la.outer`` over a 2-block box whose body captures two arrays (the repeated path),
inside ``wp.ScopedDevice("cuda:0")``. Each round is a fresh process timing every row, in process time (what
the machine's other work takes from it is not counted), best of 15 repeats of ``--calls`` launches; the
table gives each row's best round. ``--src DIR`` imports brickwork from another revision's ``src`` too
(``git worktree add /tmp/base <rev>``: ``--src /tmp/base/src``): its rounds alternate with this checkout's and
the table gives both and their ratio. Prints the load average (1 minute) before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _kernels():
    import brickwork as wp
    from brickwork import la

    @wp.kernel
    def touch(x: wp.array(dtype=float)):
        x[wp.tid()] = x[wp.tid()] + 1.0

    @wp.kernel
    def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    def doubled(values, out):
        def body(rng, b):
            for k, j, i in la.inner(rng):
                out[b, k, j, i] = values[b, k, j, i] * wp.float64(2.0)

        return body

    return touch, saxpy, doubled


def _cases() -> dict:
    import brickwork as wp
    from brickwork import la

    touch, saxpy, doubled = _kernels()
    one = wp.zeros(1, device="cuda:0")
    x, y = wp.zeros(1024, device="cuda:0"), wp.zeros(1024, device="cuda:0")
    v, o = (wp.zeros((2, 8, 8, 8), dtype=wp.float64, device="cuda:0") for _ in range(2))
    space = la.IndexSpace.box(la.bovi, la.logical_coords, 2, 8, 8, 8, 0)
    body = doubled(v, o)
    return {
        "wp.launch, 1 array, dim=1": lambda: wp.launch(touch, dim=1, inputs=[one], device="cuda:0"),
        "wp.launch saxpy, 2 arrays + float, dim=1024": lambda: wp.launch(saxpy, dim=1024, inputs=[x, y, 2.0],
                                                                        device="cuda:0"),
        "la.outer, 2 captured arrays (repeated)": lambda: la.outer(space, body),
    }


def child(calls: int) -> dict:
    """Microseconds per launch of each row in this process (best of 15 repeats of ``calls``)."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    import brickwork as wp
    from runtime.cuda_fake import FakeDriver, installed

    class Returning(FakeDriver):
        def launch(self, *args, **kwargs):  # the driver's part left out
            pass

    with installed(Returning()), wp.ScopedDevice("cuda:0"):
        rows = _cases()
        best = {}
        for name, fn in rows.items():
            fn(), fn()  # compiled, loaded, the repeated paths warm
            t = float("inf")
            for _ in range(15):
                start = time.process_time()
                for _ in range(calls):
                    fn()
                t = min(t, (time.process_time() - start) / calls)
            best[name] = t * 1e6
        return {"rows": best, "brickwork": wp.__file__}


def _round(src: str | None, calls: int) -> dict:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, __file__, "--child", "--calls", str(calls)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--src", default=None, help="also time brickwork imported from this directory")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.calls)))
        return 0
    sides = {"this checkout": None} if not args.src else {"base": args.src, "this checkout": None}
    best: dict = {side: {} for side in sides}
    files = {}
    before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for side, src in sides.items():
            got = _round(src, args.calls)
            files[side] = got["brickwork"]
            for name, us in got["rows"].items():
                best[side][name] = min(us, best[side].get(name, float("inf")))
    after = os.getloadavg()[0]
    if args.src and files["base"] == files["this checkout"]:
        print(f"--src {args.src} did not change which brickwork is imported ({files['base']})", file=sys.stderr)
        return 1
    names = list(best["this checkout"])
    if args.src:
        print("| launch | base us | this checkout us | this / base |\n|---|---|---|---|")
        for n in names:
            print(f"| {n} | {best['base'][n]:.2f} | {best['this checkout'][n]:.2f} | "
                  f"{best['this checkout'][n] / best['base'][n]:.2f} |")
    else:
        print("| launch | us |\n|---|---|")
        for n in names:
            print(f"| {n} | {best['this checkout'][n]:.2f} |")
    print(f"load {before:.2f} -> {after:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

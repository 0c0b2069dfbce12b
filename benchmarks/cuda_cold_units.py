"""The CUDA units a cold first step of ``[hydro] device = "cuda"`` compiles, without a GPU: the step runs on the
tests' stand-in driver (``tests/runtime/cuda_fake.py``: launches recorded, not run) in a fresh kernel cache, and
NVRTC compiles every unit for real. Per unit: NVRTC's CPU seconds (this process's), wall seconds, CUDA characters.

    python benchmarks/cuda_cold_units.py sod|kh [section.key=value ...] [--top 12]

e.g. ``python benchmarks/cuda_cold_units.py kh hydro.stage=fused``. Note ``uptime``: the times grow with the
machine's load; compare two revisions alternated (PYTHONPATH=<their src>). Needs NVRTC (the ``cuda`` extra) and
the tests folder.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import struct
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "sod": {"problem": {"name": "sod"}, "mesh": {"nx": [128], "block_nx": [32]}},
    "kh": {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [64, 64], "block_nx": [32, 32]}},
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("settings", nargs="*", help="more section.key=value settings")
    parser.add_argument("--top", type=int, default=12, help="rows printed (0: all)")
    args = parser.parse_args(argv)
    os.environ["BRICKWORK_CACHE_DIR"] = tempfile.mkdtemp(prefix="bw-cold-units-")  # cold: nothing cached
    sys.path.insert(0, str(ROOT / "tests"))
    from brickwork.apps import hydro
    from brickwork.jit import nvrtc
    from runtime.cuda_fake import FakeDriver, installed

    if not nvrtc.is_available():
        raise SystemExit("cuda_cold_units: NVRTC is not installed (pip install 'brickwork[cuda]')")
    rows, compile_cubin = [], nvrtc.compile_cubin

    def timed(source, name, arch, include_dirs, options=()):
        cpu, wall = time.process_time(), time.perf_counter()
        cubin = compile_cubin(source, name, arch, include_dirs, options)
        rows.append((time.process_time() - cpu, time.perf_counter() - wall, len(source), name))
        return cubin

    class RateDriver(FakeDriver):
        def copy_to_host(self, ordinal, dst_host, src, nbytes):
            super().copy_to_host(ordinal, dst_host, src, nbytes)
            if nbytes == 8:  # the time step's fold: a normal rate (the kernels did not run), so the step goes on
                ctypes.memmove(dst_host, struct.pack("<d", -1.0), 8)

    nvrtc.compile_cubin = timed
    try:
        with installed(RateDriver()):
            sim = hydro.Hydro(hydro.build_config(CASES[args.case], ["hydro.device=cuda", *args.settings],
                                                 source="cuda_cold_units"))
            sim.set_initial()
            start = time.perf_counter()
            sim.step(sim.check())
            wall = time.perf_counter() - start
    finally:
        nvrtc.compile_cubin = compile_cubin
    rows.sort(reverse=True)
    print(f"{args.case} {' '.join(args.settings)}: {len(rows)} NVRTC units, {sum(r[0] for r in rows):.1f} s of NVRTC "
          f"CPU time, first step {wall:.1f} s wall; load {os.getloadavg()[0]:.1f}")
    for cpu, w, chars, name in rows[:args.top or None]:
        print(f"  {cpu:6.2f} s cpu {w:6.2f} s wall {chars:8d} chars  {name}")


if __name__ == "__main__":
    main()

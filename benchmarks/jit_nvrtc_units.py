"""NVRTC (and g++) CPU seconds of each generated unit the CUDA compile test builds, largest first.

    python benchmarks/jit_nvrtc_units.py [--la] [--match TEXT] [--top 40] [--gxx] [--out FILE]

The units are those of tests/targets/test_cuda_nvrtc.py: every instance of its corpus and every module-level
kernel with concrete parameter types of the CPU tests it harvests; with ``--la``, the loop-abstraction units of
tests/targets/test_cuda_loop_abstraction.py's golden sources instead (each tag pair, scratch with a barrier,
block reductions, nested teams). Each is generated for sm_90 and compiled
alone with NVRTC in this process (the tests' options, the precompiled header made by the first); the time is
the process's CPU time around the call. ``--gxx`` also compiles the unit's CPU C++ with the jit's g++ command
(user + system of the child). Prints the total, then one row per unit: NVRTC s, CUDA bytes[, g++ s, C++ bytes],
name. Run it with PYTHONPATH at two revisions' src/, alternated, to compare them (note ``uptime``: the times
grow with the machine's load). Needs NVRTC (the ``cuda`` extra) and the tests folder.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"


def _gxx_seconds(text: str) -> float:
    from brickwork.jit.toolchain import include_dir, settings

    with tempfile.TemporaryDirectory() as folder:
        source, library = os.path.join(folder, "unit.cpp"), os.path.join(folder, "unit.so")
        Path(source).write_text(text)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(settings().command(source, library, include_dir()), capture_output=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _corpus_units() -> list:
    import test_cuda_nvrtc as compile_test

    return compile_test.CORPUS + compile_test.HARVESTED


def _la_units() -> list:
    """(name, kernel, types) of the loop-abstraction units whose CUDA sources the golden tests check."""
    import test_cuda_loop_abstraction as golden

    import brickwork as wp
    from brickwork import la
    from brickwork.la.outer import _prepare
    from brickwork.lang.body import body_kernel
    from brickwork.types.generic import type_of_value

    mapping = golden.mapping

    def unit(name, body, space, reduce=False):
        kernel, _ = _prepare(space, body, "outer_reduce" if reduce else "outer", reduce)
        extra = [golden.kernel_partials(space)] if reduce else []
        return name, kernel, [type_of_value(v) for v in kernel.arguments(space.runtime_geometry(), *extra)]

    out = []
    for lt, it in mapping.TAG_PAIRS:
        space = la.IndexSpace.box(getattr(la, lt), getattr(la, it), **mapping.SPACE)
        out.append(unit(f"{lt}_{it}", mapping.kji_body if it == "logical_coords" else mapping.idx_body, space))
    out.append(unit("scratch", mapping.scratch_body, la.IndexSpace.box(la.bovi, la.logical_flat, **mapping.SPACE)))
    for reducer, name in ((la.Sum(wp.float64), "reduce_sum"), (la.MinLoc(wp.float64), "reduce_min_loc")):
        space = la.IndexSpace.box(la.bovi, la.logical_flat, **mapping.SPACE).with_reducer(reducer)
        out.append(unit(name, mapping.reduce_body, space, reduce=True))
    teams = body_kernel(mapping.teams_body, "outer", 1)
    out.append(("nested_teams", teams, [type_of_value(v) for v in teams.arguments([0], 0)]))
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--match", default="", help="only the units whose name holds this text")
    parser.add_argument("--top", type=int, default=40, help="rows printed (0: all)")
    parser.add_argument("--gxx", action="store_true", help="also the g++ CPU seconds of the unit's CPU C++")
    parser.add_argument("--out", help="also write every row to this file")
    parser.add_argument("--la", action="store_true", help="the loop-abstraction golden units instead")
    args = parser.parse_args(argv)
    os.environ.setdefault("BRICKWORK_CACHE_DIR", tempfile.mkdtemp(prefix="bw-nvrtc-units-"))
    sys.path[:0] = [str(TESTS), str(TESTS / "targets")]
    from brickwork import pipeline
    from brickwork.jit import nvrtc
    from brickwork.targets.cpu import CPU
    from brickwork.targets.cuda import CudaTarget, build

    if not nvrtc.is_available():
        raise SystemExit("jit_nvrtc_units: NVRTC is not installed (pip install 'brickwork[cuda]')")
    target, rows = CudaTarget("sm_90"), []
    for name, kernel, types in (_la_units() if args.la else _corpus_units()):
        if args.match not in name:
            continue
        try:
            text, meta = pipeline.generate(kernel, types, name, target=target)
            t0 = time.process_time()
            nvrtc.compile_cubin(text, "unit.cu", "sm_90", build.include_dirs() + list(meta.get("include_dirs", ())),
                                build.options())
            row = [time.process_time() - t0, len(text)]
            if args.gxx:
                cpu_text = pipeline.generate(kernel, types, name, target=CPU)[0]
                row += [_gxx_seconds(cpu_text), len(cpu_text)]
        except Exception as e:  # noqa: BLE001 - a unit the test expects to fail (or one that does): named, skipped
            print(f"skipped {name}: {type(e).__name__}", file=sys.stderr)
            continue
        rows.append((row, name))
    rows.sort(key=lambda r: -r[0][0])
    lines = ["  ".join(f"{v:7.2f}" if isinstance(v, float) else f"{v:7d}" for v in row) + f"  {name}"
             for row, name in rows]
    total = f"{len(rows)} units: NVRTC {sum(r[0][0] for r in rows):.1f} s"
    if args.gxx:
        total += f", g++ {sum(r[0][2] for r in rows):.1f} s"
    print(total)
    print("\n".join(lines[:args.top or None]))
    if args.out:
        Path(args.out).write_text(total + "\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

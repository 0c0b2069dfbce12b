"""Run every benchmark case side by side in one process and write ``benchmarks/RESULTS.md``.

    python benchmarks/run.py                 # brickwork vs C vs numpy (+ Warp when installed)
    python benchmarks/run.py --quick         # small sizes, few repetitions: a smoke run
    python benchmarks/run.py --impl warp     # Warp in place of brickwork as the primary column

The primary column (``--impl``) is the one measured against the targets. Every case is checked
against numpy before it is timed; a peer that fails or disagrees is reported and the run goes on.
The load average is recorded before the run, at its end and once it has settled after it, and a fixed
CPU loop is timed between the cases; a run on a loaded machine, or one whose CPUs changed speed during
it (see ``machine_load``), does not overwrite RESULTS.md unless ``--allow-loaded`` is given.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import sys
import traceback
from pathlib import Path

import cnative
import jit_costs
import numpy as np
import report
from cases import CASES, Case
from machine_load import LOADED_PER_CORE, LoadRecord, OtherCpuMeter, SpeedProbe, load_average, settle
from peers import KERNEL_LANGUAGES, PEER_SETUPS, KernelLanguage, Peer, PeerUnavailable, make_peers
from timing import measure_interleaved

HERE = Path(__file__).resolve().parent


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and few repetitions")
    parser.add_argument(
        "--impl",
        choices=sorted(KERNEL_LANGUAGES),
        default="brickwork",
        help="kernel-language implementation of the primary column (default brickwork)",
    )
    known = ", ".join(PEER_SETUPS)
    parser.add_argument(
        "--peers",
        default="C,numpy,numba,warp",
        help=f"other columns, comma-separated, from {known} (default %(default)s)",
    )
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument(
        "--reps", type=int, default=0, help="timed repetitions, at least (default 11, quick 3)"
    )
    parser.add_argument(
        "--min-time",
        type=float,
        default=1.0,
        help="keep repeating (up to 200 calls) until this many seconds are timed (default %(default)s)",
    )
    parser.add_argument("--no-jit", action="store_true", help="skip the JIT-cost table")
    parser.add_argument("--out", default=str(HERE / "RESULTS.md"), help="markdown file (default %(default)s)")
    parser.add_argument(
        "--chart", default=str(HERE / "results.png"), help="bar chart of the ratios (default %(default)s)"
    )
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    parser.add_argument(
        "--allow-loaded",
        action="store_true",
        help=f"write RESULTS.md even when the load average exceeded {LOADED_PER_CORE:g} per logical CPU",
    )
    parser.add_argument(
        "--json",
        default="",
        metavar="PATH",
        help="also write {case: median seconds} of the primary column (timed cases only) as JSON",
    )
    parser.add_argument(
        "--json-all",
        default="",
        metavar="PATH",
        help="also write {column: {case: median seconds}} of every timed column as JSON",
    )
    return parser.parse_args(argv)


def write_json(rows: list[report.CaseRow], args: argparse.Namespace) -> None:
    """The machine-readable medians of ``--json`` / ``--json-all`` (untimed cells are left out)."""
    columns: dict[str, dict[str, float]] = {}
    for row in rows:
        for name, cell in row.cells.items():
            if cell.timing is not None:
                columns.setdefault(name, {})[row.name] = cell.timing.median
    for path, data in ((args.json, columns.get(args.impl, {})), (args.json_all, columns)):
        if path:
            Path(path).write_text(json.dumps(data, indent=1) + "\n")
            print(f"wrote {path}", file=sys.stderr)


def setup_peers(peers: list[Peer]) -> tuple[dict, list[str]]:
    """Set up each peer; unavailable ones are left out with a note."""
    contexts, notes = {}, []
    for peer in peers:
        try:
            contexts[peer.name] = peer.setup()
        except PeerUnavailable as exc:
            notes.append(f"{peer.name} skipped: {exc}")
        except Exception as exc:  # noqa: BLE001
            notes.append(f"{peer.name} skipped: setup failed: {exc!r}")
        else:
            continue
        print(f"note: {notes[-1]}", file=sys.stderr)
    # Numba's OpenMP threading layer, when it starts, sets the calling thread's OpenMP thread count to all
    # cores: give the C library its count again (the C kernels take it from that thread's setting).
    for ctx in contexts.values():
        if isinstance(ctx, cnative.CLibrary):
            ctx.bench_set_threads(ctx.threads)
    return contexts, notes


def check(case: Case, got: dict, expected: dict) -> None:
    """Assert that ``got`` matches numpy's ``expected`` results within the case's tolerance."""
    for name, want in expected.items():
        np.testing.assert_allclose(
            np.asarray(got[name]),
            want,
            rtol=case.rtol,
            atol=case.atol,
            err_msg=f"{case.name}: output {name!r} differs from the {case.reference} reference",
        )


def run_case(
    case: Case,
    peers: list[Peer],
    contexts: dict,
    quick: bool,
    reps: int,
    min_time: float,
    errors: list[str],
) -> report.CaseRow:
    """Check, then time, every available peer on ``case`` (``reps`` calls or ``min_time`` seconds)."""
    inputs = case.make_inputs(quick)
    row = report.CaseRow(case.name, case.size_label(inputs), case.bytes_moved(inputs), case.target)
    ref_ctx = None
    if case.reference != "numpy":
        owners = [p.name for p in peers if p.family == case.reference and p.name in contexts]
        if not owners:
            raise RuntimeError(f"the reference ({case.reference}) of {case.name} is unavailable")
        ref_ctx = contexts[owners[0]]
    reference = case.impls[case.reference](ref_ctx, inputs)
    reference.run()
    expected = {k: np.array(v, copy=True) for k, v in reference.result().items()}
    del reference
    bound_runs = {}
    for peer in peers:
        if peer.name not in contexts:
            row.cells[peer.name] = report.Cell(absent="unavailable")
            continue
        # An implementation keyed by the peer's own name (e.g. "brickwork" for brickwork.la
        # cases) wins over its family's.
        factory = case.impls.get(peer.name, case.impls.get(peer.family))
        if factory is None:
            row.cells[peer.name] = report.Cell(absent=f"no {peer.family} version")
            continue
        try:
            bound = factory(contexts[peer.name], inputs)
            bound.run()
            check(case, bound.result(), expected)
            bound_runs[peer.name] = bound.run
        except Exception as exc:  # noqa: BLE001 - a failing peer must not stop the others
            message = f"{case.name} / {peer.name}: {type(exc).__name__}: {str(exc).strip()[:600]}"
            traceback.print_exc()
            print(f"FAILED {message}", file=sys.stderr)
            errors.append(message.replace("\n", " "))
            row.cells[peer.name] = report.Cell(error=message)
    # Peers are timed round-robin so that machine drift affects every column alike.
    for name, timing in measure_interleaved(bound_runs, reps, min_time=min_time).items():
        row.cells[name] = report.Cell(timing=timing)
        print(f"{case.name:18s} {name:10s} {timing.ms()} ms", file=sys.stderr)
    return row


def cpu_model() -> str:
    """CPU model name, logical CPU count and AVX-512 support, from /proc/cpuinfo."""
    model, avx512 = platform.processor() or "unknown", False
    try:
        text = Path("/proc/cpuinfo").read_text()
        for line in text.splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                avx512 = " avx512f" in line
    except OSError:
        pass
    l3 = Path("/sys/devices/system/cpu/cpu0/cache/index3/size")
    cache = ""
    if l3.exists():
        size = l3.read_text().strip()
        cache = f", L3 {int(size[:-1]) // 1024} MiB" if size.endswith("K") else f", L3 {size}"
    return f"{model}, {os.cpu_count()} logical CPUs, AVX-512: {'yes' if avx512 else 'no'}{cache}"


def context_lines(args, contexts: dict, threads: int, reps: int, load: LoadRecord) -> list[str]:
    """Date, machine, load, versions, threads, the C build command and the command line.

    Hardware and versions appear here only: notes and loss reasons refer to this header."""
    versions = [f"python {platform.python_version()}", f"numpy {np.__version__}"]
    for name in KERNEL_LANGUAGES:
        ctx = contexts.get(name)
        if isinstance(ctx, KernelLanguage):
            versions.append(f"{name} {ctx.version}")
    if "numba" in contexts:
        versions.append(f"numba {contexts['numba'].version}")
    versions.append(cnative.compiler_version())
    c = contexts.get("C")
    python = Path(sys.executable)
    if python.is_relative_to(HERE.parent):
        python = python.relative_to(HERE.parent)
    command = shlex.join([str(python), os.path.relpath(__file__, HERE.parent), *sys.argv[1:]])
    lines = [
        f"date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"machine: {cpu_model()}",
        load.text(),
        f"versions: {', '.join(versions)}",
        f"threads: {threads} (BRICKWORK_NUM_THREADS={os.environ.get('BRICKWORK_NUM_THREADS')}; "
        f"C via omp_set_num_threads"
        + (f", got {c.threads}" if c is not None else "")
        + "; numpy is single-threaded"
        + (f"; numba {contexts['numba'].threads} threads" if "numba" in contexts else "")
        + ("; Warp's CPU backend runs a launch on one thread)" if "warp" in contexts else ")"),
        f"C reference: `{c.command if c is not None else shlex.join([cnative.compiler(), *cnative.FLAGS])}`"
        + (f"; hydro: `{c.hydro_command}`" if c is not None and c.hydro_command else ""),
        f"primary column: {args.impl}; repetitions: at least {reps}"
        + (" (quick sizes)" if args.quick else f", and up to 200 until {args.min_time:g} s are timed"),
        f"command: `{command}`",
    ]
    return lines


def main(argv=None) -> int:
    args = parse_args(argv)
    load_before = load_average()
    meter = OtherCpuMeter()
    probe = SpeedProbe()
    probe.sample()
    threads = cnative.thread_count()
    os.environ.setdefault("BRICKWORK_NUM_THREADS", str(threads))  # brickwork and C use the same count
    reps = args.reps or (3 if args.quick else 11)
    min_time = 0.0 if args.quick else args.min_time
    peers = make_peers(args.impl, [p.strip() for p in args.peers.split(",") if p.strip()])
    contexts, notes = setup_peers(peers)
    wanted = {c.strip() for c in args.cases.split(",") if c.strip()}
    unknown = wanted - {case.name for case in CASES}
    if unknown:
        raise SystemExit(f"unknown case(s): {', '.join(sorted(unknown))}")

    errors: list[str] = []
    rows = []
    for case in CASES:
        if wanted and case.name not in wanted:
            continue
        try:
            rows.append(run_case(case, peers, contexts, args.quick, reps, min_time, errors))
            probe.sample()
        except Exception as exc:  # noqa: BLE001 - e.g. the numpy reference itself failed
            traceback.print_exc()
            errors.append(f"{case.name}: {type(exc).__name__}: {exc}")

    write_json(rows, args)

    jit = {}
    if not args.no_jit:
        for peer in peers:
            ctx = contexts.get(peer.name)
            if isinstance(ctx, KernelLanguage):
                print(f"measuring JIT costs of {peer.name} ...", file=sys.stderr)
                jit[peer.name] = jit_costs.measure_all(ctx, args.quick)
                probe.sample()
                errors += [f"JIT {peer.name} / {m.name}: {m.error}" for m in jit[peer.name]
                           if m.error and not m.error.startswith("n/a")]
                notes += [f"{peer.name} JIT / {m.name}: {m.error}" for m in jit[peer.name]
                          if m.error.startswith("n/a")]
            elif peer.name == "numba" and ctx is not None:
                print("measuring JIT costs of numba ...", file=sys.stderr)
                jit["numba"] = jit_costs.measure_numba(ctx, args.quick)
                errors += [f"JIT numba / {m.name}: {m.error}" for m in jit["numba"]
                           if m.error and not m.error.startswith("n/a")]
                notes += [f"numba JIT / {m.name}: {m.error}" for m in jit["numba"] if m.error.startswith("n/a")]
    if args.impl not in contexts:
        notes.append(f"the primary column ({args.impl}) is unavailable: its targets are not evaluated")

    cpus = os.cpu_count() or 1
    probe.sample()
    after, others = load_average(), meter.others()
    settled, waited = settle(LOADED_PER_CORE * cpus) if not args.no_write else (None, 0.0)
    load = LoadRecord.with_probe(probe, load_before, after, cpus, others=others, settled=settled, waited=waited)
    write = not args.no_write
    if write and load.loaded() and not args.allow_loaded:
        print(f"not writing {args.out}: the machine was {'unsteady' if load.unsteady() else 'loaded'} ({load.text()}); "
              "rerun on a quiet machine or pass --allow-loaded", file=sys.stderr)
        write = False
        errors.append(f"not written: {load.text()}")
    names = [p.name for p in peers]
    chart = Path(args.chart)
    text = report.document(
        context_lines(args, contexts, threads, reps, load),
        notes,
        report.kernel_table(rows, names, args.impl),
        report.jit_table(jit, args.impl) if not args.no_jit else ["(skipped with --no-jit)"],
        errors,
        losses=report.losses(rows, names, args.impl),
        chart=os.path.relpath(chart, Path(args.out).resolve().parent) if write else "",
    )
    print(text)
    if write:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}", file=sys.stderr)
        try:
            report.bar_chart(rows, names, chart)
            print(f"wrote {chart}", file=sys.stderr)
        except Exception as exc:  # noqa: BLE001 - e.g. matplotlib missing: the table is written anyway
            print(f"note: no chart: {exc!r}", file=sys.stderr)
    for ctx in contexts.values():
        if isinstance(ctx, cnative.CLibrary):
            ctx.close()
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

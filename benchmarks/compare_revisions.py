"""Compare the speed of brickwork's generated code at two revisions, in one run.

    python benchmarks/compare_revisions.py                      # b3512bc vs the working tree
    python benchmarks/compare_revisions.py --new-rev HEAD       # b3512bc vs HEAD (both as worktrees)
    python benchmarks/compare_revisions.py --quick --out /tmp/cmp.md   # a smoke run

The base revision (and ``--new-rev``, if given) is checked out as a ``git worktree`` under
``--root`` (``/tmp/bw-base-<sha>``, ``/tmp/bw-new-<sha>``; reused when present) with its own
virtual environment (``<worktree>/.venv``, ``pip install -e '<worktree>[io]'``). The working tree
uses the checkout's ``.venv`` (``make .venv/.installed`` if it is missing).

Both sides run *this* checkout's harness (``benchmarks/run.py --impl brickwork --peers C --no-jit
--json ...``) with their own interpreter, so ``import brickwork`` resolves to that side's package
(checked: every subprocess prints ``brickwork.__file__``, and a mismatch stops the run). The
subprocesses alternate, base, new, base, new, ... (``--rounds`` each), and each side has its own
``BRICKWORK_CACHE_DIR``, fresh for this run, so the two never share compiled code.

Per case, a side's time is the minimum over its rounds of the per-round median; the table shows
both, new/base, and the same ratio for the C reference (identical code on both sides, so its
distance from 1.00 is the noise of the machine). A ratio above ``1 + --threshold`` is flagged, and
the exit status is 1 when any case is flagged or failed on one side.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HARNESS = HERE / "run.py"
PRIMARY, REFERENCE = "brickwork", "C"

# Runs run.py as __main__ (under `python -I`: no PYTHONPATH, no cwd, no user site) with benchmarks/
# first on sys.path, after importing brickwork to say which one it is.
WRAPPER = """\
import runpy, sys
import brickwork
print("BRICKWORK_FILE=" + brickwork.__file__, file=sys.stderr, flush=True)
harness = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, harness.rsplit("/", 1)[0])
runpy.run_path(harness, run_name="__main__")
"""


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="b3512bc", help="base git revision (default %(default)s)")
    parser.add_argument(
        "--new-rev", default="", help="compare this git revision (as a worktree) instead of the working tree"
    )
    parser.add_argument("--rounds", type=int, default=3, help="harness runs per side, alternating (default 3)")
    parser.add_argument("--quick", action="store_true", help="the harness's small sizes (a smoke run only)")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--reps", type=int, default=0, help="passed to run.py --reps (default: run.py's)")
    parser.add_argument("--min-time", type=float, default=0.0, help="passed to run.py --min-time (default: run.py's)")
    parser.add_argument(
        "--threads", type=int, default=0, help="BRICKWORK_NUM_THREADS for both sides (default: run.py's, all cores)"
    )
    parser.add_argument("--threshold", type=float, default=0.05, help="flag new/base above 1 + this (default 0.05)")
    parser.add_argument(
        "--out", default=str(HERE / "REFACTOR_COMPARE.md"), help="markdown report (default %(default)s)"
    )
    parser.add_argument("--root", default=tempfile.gettempdir(), help="where worktrees go (default %(default)s)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per harness run (default 3600)")
    parser.add_argument("--keep", action="store_true", help="keep the kernel caches and logs of this run")
    return parser.parse_args(argv)


def git(*args: str, cwd: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def run_quiet(argv: list[str], what: str, cwd: Path | None = None) -> None:
    """Run ``argv``; print its output only when it fails (then stop)."""
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        raise SystemExit(f"{what} failed: {shlex.join(argv)}")


def load_line() -> str:
    """``uptime``'s output, and a warning when the 1-minute load is above 1."""
    try:
        text = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        text = "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    load1 = os.getloadavg()[0]
    if load1 > 1:
        text += f"\n  WARNING: 1-minute load {load1:.2f} > 1: other work is running, timings will be noisy"
    return text


@dataclass
class Side:
    """One revision under test: its source tree, interpreter and kernel cache."""

    role: str  # "base" or "new"
    label: str  # what the report calls it
    tree: Path
    python: Path
    cache: Path = Path()
    rounds: list[dict[str, dict[str, float]]] = field(default_factory=list)  # {column: {case: s}}
    brickwork_file: str = ""

    def medians(self, column: str) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for data in self.rounds:
            for case, seconds in data.get(column, {}).items():
                out.setdefault(case, []).append(seconds)
        return out


def ensure_worktree(role: str, rev: str, root: Path) -> Side:
    """The worktree of ``rev`` under ``root`` with its own venv, created or reused."""
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    short = git("rev-parse", "--short=7", sha)
    path = root / f"bw-{role}-{short}"
    if path.exists():
        if git("rev-parse", "HEAD", cwd=path) != sha:
            raise SystemExit(f"{path} exists but is not at {sha}; remove it (git worktree remove {path})")
        dirty = git("status", "--porcelain", "--untracked-files=no", cwd=path)
        if dirty:
            print(f"WARNING: {path} has local changes:\n{dirty}", file=sys.stderr)
        print(f"reusing worktree {path}", file=sys.stderr)
    else:
        git("worktree", "prune")
        print(f"creating worktree {path} at {short}", file=sys.stderr)
        git("worktree", "add", "--detach", str(path), sha)
    venv, marker = path / ".venv", path / ".venv" / ".bw-installed"
    if not marker.exists() or marker.read_text().strip() != sha:
        print(f"installing {short} into {venv} (pip install -e '.[io]') ...", file=sys.stderr)
        if not (venv / "bin" / "python").exists():
            run_quiet([sys.executable, "-m", "venv", str(venv)], "python -m venv")
            run_quiet([str(venv / "bin" / "pip"), "install", "-q", "--upgrade", "pip"], "pip upgrade")
        run_quiet([str(venv / "bin" / "pip"), "install", "-q", "-e", f"{path}[io]"], "pip install")
        marker.write_text(sha + "\n")
    subject = git("log", "-1", "--format=%s", sha)
    subject = subject if len(subject) <= 50 else subject[:49] + "…"
    return Side(role, f"{short} ({rev}: {subject})", path, venv / "bin" / "python")


def working_tree_side() -> Side:
    """The working tree, with the checkout's ``.venv`` (made with the Makefile if missing)."""
    python = REPO / ".venv" / "bin" / "python"
    if not python.exists():
        print(f"{python} is missing: running make -C {REPO} .venv/.installed", file=sys.stderr)
        run_quiet(["make", "-C", str(REPO), ".venv/.installed"], "make .venv/.installed")
    head = git("rev-parse", "--short=7", "HEAD")
    changed = git("status", "--porcelain", "--untracked-files=all", "--", "src")
    changes = f", {len(changed.splitlines())} changed files under src/" if changed else ""
    label = f"working tree (HEAD {head}{changes})"
    return Side("new", label, REPO, python)


def check_import(side: Side, env: dict) -> None:
    """Stop unless ``side``'s interpreter imports brickwork from ``side``'s tree."""
    proc = subprocess.run(
        [str(side.python), "-I", "-c", "import brickwork; print(brickwork.__file__)"],
        cwd=side.cache,
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        hint = " (the tree may be mid-edit: try --new-rev HEAD)" if side.tree == REPO else ""
        raise SystemExit(f"{side.role}: `import brickwork` fails with {side.python}{hint}:\n{proc.stderr[-3000:]}")
    check_file(side, proc.stdout.strip())


def check_file(side: Side, path: str) -> None:
    expected = (side.tree / "src" / "brickwork").resolve()
    if Path(path).resolve().parent != expected:
        raise SystemExit(f"{side.role}: {side.python} imports brickwork from {path}, not from {expected}")
    side.brickwork_file = path


def side_env(side: Side, args: argparse.Namespace) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["BRICKWORK_CACHE_DIR"] = str(side.cache)
    env["PYTHONNOUSERSITE"] = "1"
    if args.threads:
        env["BRICKWORK_NUM_THREADS"] = str(args.threads)
    return env


def harness_args(args: argparse.Namespace, json_path: Path | None = None) -> list[str]:
    """run.py's options (``--json-all json_path`` last, when given)."""
    argv = ["--impl", PRIMARY, "--peers", REFERENCE, "--no-jit", "--no-write"]
    if args.quick:
        argv.append("--quick")
    if args.cases:
        argv += ["--cases", args.cases]
    if args.reps:
        argv += ["--reps", str(args.reps)]
    if args.min_time:
        argv += ["--min-time", str(args.min_time)]
    return argv + (["--json-all", str(json_path)] if json_path is not None else [])


def run_round(side: Side, index: int, args: argparse.Namespace, workdir: Path) -> float:
    """One harness run of ``side``; appends its medians to ``side.rounds``; returns the wall time."""
    json_path = workdir / f"{side.role}-{index}.json"
    log = workdir / f"{side.role}-{index}.log"
    argv = [str(side.python), "-I", "-c", WRAPPER, str(HARNESS), *harness_args(args, json_path)]
    start = time.perf_counter()
    with open(log, "w") as err:
        try:
            proc = subprocess.run(argv, cwd=workdir, env=side_env(side, args), stdout=subprocess.DEVNULL,
                                  stderr=err, timeout=args.timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    wall = time.perf_counter() - start
    text = log.read_text()
    files = [line.split("=", 1)[1] for line in text.splitlines() if line.startswith("BRICKWORK_FILE=")]
    if not files:
        raise SystemExit(f"{side.role} round {index}: no brickwork import (rc {rc}); log {log}:\n{text[-3000:]}")
    check_file(side, files[0])
    data = json.loads(json_path.read_text()) if json_path.exists() else {}
    side.rounds.append(data)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    timed = len(data.get(PRIMARY, {}))
    print(f"  round {index} {side.role:4s}: {wall:6.1f} s, {timed} brickwork cases timed, rc {rc}, load {load}",
          file=sys.stderr)
    if rc != 0:
        failed = [line for line in text.splitlines() if line.startswith("FAILED ")]
        for line in failed[:20]:
            print(f"    {line[:200]}", file=sys.stderr)
        if not failed:
            print(f"    see {log}", file=sys.stderr)
    if not timed:
        raise SystemExit(f"{side.role}: no brickwork case was timed; log {log}:\n{text[-3000:]}")
    return wall


def fmt_ms(seconds: float | None) -> str:
    if seconds is None:
        return "failed"
    ms = seconds * 1e3
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def spread(values: list[float]) -> str:
    """How far apart the per-round medians are: max/min - 1, in percent."""
    return f"{(max(values) / min(values) - 1) * 100:.0f}%" if len(values) > 1 else "—"


def table(base: Side, new: Side, threshold: float) -> tuple[list[list[str]], list[str], list[str]]:
    """Rows of the comparison, the flagged cases and the failed ones."""
    b, n = base.medians(PRIMARY), new.medians(PRIMARY)
    bc, nc = base.medians(REFERENCE), new.medians(REFERENCE)
    order = list(dict.fromkeys([*bc, *b, *nc, *n]))  # the harness's case order
    rows, flagged, failed = [], [], []
    for case in order:
        tb, tn = (min(b[case]) if case in b else None), (min(n[case]) if case in n else None)
        ratio = tn / tb if tb and tn else None
        c_ratio = min(nc[case]) / min(bc[case]) if case in bc and case in nc else None
        if ratio is None:
            mark = "FAILED"
            failed.append(case)
        elif ratio > 1 + threshold:
            mark = f"SLOWER > {threshold:.0%}"
            flagged.append(case)
        else:
            mark = ""
        missing = [s.role for s, m in ((base, b), (new, n)) if case in m and len(m[case]) < len(s.rounds)]
        if missing:
            mark = (mark + " " if mark else "") + f"(failed in some {'/'.join(missing)} rounds)"
        rows.append([
            case,
            fmt_ms(tb),
            fmt_ms(tn),
            "—" if ratio is None else f"{ratio:.3f}",
            "—" if c_ratio is None else f"{c_ratio:.3f}",
            f"{spread(b.get(case, []))} / {spread(n.get(case, []))}",
            mark,
        ])
    return rows, flagged, failed


HEAD = ["case", "base ms", "new ms", "new/base", "C new/base", "round spread base/new", "flag"]


def text_table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [HEAD, *rows]) for i in range(len(HEAD))]
    lines = ["  ".join(c.ljust(w) if i == 0 or i == len(HEAD) - 1 else c.rjust(w) for i, (c, w) in
                       enumerate(zip(row, widths))).rstrip() for row in [HEAD, *rows]]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def markdown(args, base: Side, new: Side, rows, flagged, failed, loads, wall, command) -> str:
    lines = [
        "# brickwork: generated-code speed, two revisions in one run",
        "",
        f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"- base: {base.label}, `{base.brickwork_file}`",
        f"- new: {new.label}, `{new.brickwork_file}`",
        f"- harness: this checkout's `benchmarks/run.py {shlex.join(harness_args(args))}`",
        f"- rounds: {args.rounds} per side, alternating base/new, {wall:.0f} s in all; threads: "
        + (str(args.threads) if args.threads else f"all ({os.cpu_count()})"),
        f"- load before: `{loads[0].splitlines()[0]}`",
        f"- load after: `{loads[1].splitlines()[0]}`",
        f"- command: `{command}`",
        "",
        "Times are brickwork's median per harness run, minimum over the rounds. `C new/base` is the",
        "same ratio for the hand-written C reference, whose code is identical on both sides: its",
        "distance from 1.000 is the noise of this run. `round spread` is max/min - 1 of the per-round",
        "medians.",
        "",
    ]
    if args.quick:
        lines += ["**Quick sizes: a smoke run, not a measurement.**", ""]
    warnings = [w.strip() for text in loads for w in text.splitlines()[1:]]
    lines += [f"**{w}**" for w in warnings] + ([""] if warnings else [])
    lines += ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines.append("")
    if flagged or failed:
        if flagged:
            lines.append(f"Slower by more than {args.threshold:.0%}: {', '.join(flagged)}.")
        if failed:
            lines.append(f"Failed on at least one side: {', '.join(failed)}.")
    else:
        lines.append(f"No case is slower by more than {args.threshold:.0%}.")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    command = shlex.join(["python", os.path.relpath(__file__, REPO), *(sys.argv[1:] if argv is None else argv)])
    loads = [load_line()]
    print(f"load before: {loads[0]}", file=sys.stderr)
    root = Path(args.root)
    base = ensure_worktree("base", args.base, root)
    new = ensure_worktree("new", args.new_rev, root) if args.new_rev else working_tree_side()
    workdir = Path(tempfile.mkdtemp(prefix="bw-compare-", dir=root))
    finished = False
    try:
        status = compare(args, base, new, workdir, loads, command)
        finished = True
        return status
    finally:
        if args.keep or not finished:
            print(f"kept caches and logs in {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def compare(args, base: Side, new: Side, workdir: Path, loads: list[str], command: str) -> int:
    """The rounds, the table and the report; returns the exit status."""
    base.cache, new.cache = workdir / "cache-base", workdir / "cache-new"
    for side in (base, new):
        side.cache.mkdir()
        check_import(side, side_env(side, args))
        print(f"{side.role}: {side.label}\n  python {side.python}\n  brickwork {side.brickwork_file}\n"
              f"  BRICKWORK_CACHE_DIR={side.cache}", file=sys.stderr)

    wall = 0.0
    for index in range(1, args.rounds + 1):
        for side in (base, new):
            wall += run_round(side, index, args, workdir)
    loads.append(load_line())
    print(f"load after: {loads[1]}", file=sys.stderr)

    rows, flagged, failed = table(base, new, args.threshold)
    print(f"\nbase: {base.label}\nnew:  {new.label}\n")
    print(text_table(rows))
    for text in loads:
        for warning in text.splitlines()[1:]:
            print(warning.strip())
    if flagged:
        print(f"\nslower by more than {args.threshold:.0%}: {', '.join(flagged)}")
    if failed:
        print(f"failed on at least one side: {', '.join(failed)}")
    if not flagged and not failed:
        print(f"\nno case slower by more than {args.threshold:.0%}")
    Path(args.out).write_text(markdown(args, base, new, rows, flagged, failed, loads, wall, command))
    print(f"wrote {args.out}", file=sys.stderr)
    return 1 if flagged or failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""`make compat`: run Warp 1.19's kernel-language test files against brickwork and print a per-file table.

    python compat/run_compat.py SCRATCH [--only test_lerp ...] [--markdown FILE] [--no-run]

SCRATCH holds the test files fetched by compat/fetch_tests.py (SCRATCH/warp_tests). Each file runs in a
subprocess of its own (a crash or hang costs that file only), with ``warp`` aliased to brickwork
(compat/alias). The percentage is passed / (total - excluded - tape), where total is the number of tests
Warp itself registers for the file on the CPU (compat/warp_test_counts.json), so a file that does not
import counts all its tests as failed.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from files import MODULES, PER_FILE_TIMEOUT_S  # noqa: E402

OUTCOMES = ("pass", "fail", "skip", "excluded", "tape")


def run_module(module: str, scratch: Path, timeout: float) -> list[dict]:
    out = scratch / "results" / f"{module}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE / "alias"), os.environ.get("PYTHONPATH", "")]),
               BRICKWORK_COMPAT_TESTS=str((scratch / "warp_tests").resolve()))
    log = (scratch / "results" / f"{module}.log").open("w")
    try:
        proc = subprocess.run([sys.executable, str(HERE / "run_one.py"), f"warp.tests.{module}", str(out)],
                              env=env, stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
        crashed = proc.returncode not in (0, 1)
        status = f"exit {proc.returncode}" if crashed else ""
    except subprocess.TimeoutExpired:
        status = f"timeout after {timeout:.0f} s"
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()] if out.exists() else []
    if status:
        rows.append({"test": "<runner>", "outcome": "crash", "reason": status})
    return rows


def earlier_rows(module: str, scratch: Path) -> list[dict]:
    """The rows an earlier run of ``module`` wrote (none: the module counts as not run)."""
    out = scratch / "results" / f"{module}.jsonl"
    if not out.exists():
        return [{"test": "<runner>", "outcome": "crash", "reason": "no results from an earlier run"}]
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def summarize(module: str, rows: list[dict], warp_count: int) -> dict:
    counts = collections.Counter(r["outcome"] for r in rows if not r["test"].startswith("<"))
    seen = sum(counts.values())
    notes = [f'{r["outcome"]}: {r["reason"]}' for r in rows if r["test"].startswith("<")]
    total = max(warp_count, seen)
    # Tests Warp registers that never ran here count as failed (import error, crash, timeout), or as
    # excluded when the file stopped at import on a Warp internal (it tests Warp's implementation).
    internal_import = any(r["test"] == "<import>" and r["outcome"] == "excluded" for r in rows)
    counts["excluded" if internal_import else "fail"] += total - seen
    scored = total - counts["excluded"] - counts["tape"] - counts["skip"]
    return {"module": module, "total": total, **{k: counts[k] for k in OUTCOMES}, "scored": scored,
            "notes": notes}


def table(summaries: list[dict]) -> str:
    head = "| file | Warp tests | pass | fail | skipped (CUDA) | excluded (internals) | need wp.Tape | pass % |"
    lines = [head, "|" + "---|" * 8]
    tot = collections.Counter()
    for s in summaries:
        pct = f"{100 * s['pass'] / s['scored']:.0f}" if s["scored"] else "-"
        lines.append(f"| {s['module']} | {s['total']} | {s['pass']} | {s['fail']} | {s['skip']} | {s['excluded']} "
                     f"| {s['tape']} | {pct} |")
        tot.update({k: s[k] for k in ("total", "scored", *OUTCOMES)})
    pct = f"{100 * tot['pass'] / tot['scored']:.1f}" if tot["scored"] else "-"
    lines.append(f"| **all** | {tot['total']} | {tot['pass']} | {tot['fail']} | {tot['skip']} | {tot['excluded']} "
                 f"| {tot['tape']} | **{pct}** |")
    return "\n".join(lines)


def common_causes(failures: dict, top: int = 25) -> str:
    """The most frequent failure reasons over all files (numbers in the text folded), most frequent first."""
    causes = collections.Counter()
    for rows in failures.values():
        for r in rows:
            if r["outcome"] in ("fail", "import-error", "crash"):
                causes[re.sub(r"\d+(\.\d+)?", "N", r["reason"])[:140]] += 1
    return "Most common failure reasons:\n" + "\n".join(f"{n:5d}  {reason}" for reason, n in causes.most_common(top))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scratch", type=Path)
    parser.add_argument("--only", nargs="*", help="modules to run (default: all of compat/files.py)")
    parser.add_argument("--timeout", type=float, default=PER_FILE_TIMEOUT_S, help="seconds per file")
    parser.add_argument("--markdown", type=Path, help="also write the table (and failure reasons) here")
    parser.add_argument("--no-run", action="store_true",
                        help="run nothing: tabulate the results SCRATCH/results holds from earlier runs")
    args = parser.parse_args(argv)
    warp_counts = json.loads((HERE / "warp_test_counts.json").read_text())
    summaries, failures = [], {}
    for module in args.only or MODULES:
        start = time.monotonic()
        rows = earlier_rows(module, args.scratch) if args.no_run else run_module(module, args.scratch, args.timeout)
        summary = summarize(module, rows, warp_counts.get(module, 0))
        summaries.append(summary)
        failures[module] = [r for r in rows if r["outcome"] not in ("pass", "skip")]
        print(f"compat: {module}: {summary['pass']}/{summary['scored']} pass "
              f"({time.monotonic() - start:.0f} s){'; ' + '; '.join(summary['notes']) if summary['notes'] else ''}",
              flush=True)
    text = table(summaries)
    print(text)
    print(common_causes(failures))
    (args.scratch / "summary.json").write_text(json.dumps({"summaries": summaries, "failures": failures}, indent=1))
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

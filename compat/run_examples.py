"""`make compat`: run Warp 1.19's own examples against brickwork and compare their final state with Warp's.

    python compat/run_examples.py SCRATCH [--only core.example_wave ...] [--markdown FILE] [--warp-python PY]

SCRATCH holds the examples fetched by compat/fetch_tests.py (SCRATCH/warp_examples). Each example of
compat/example_cases.py runs in a subprocess of its own (compat/run_example.py), on the CPU, headless and
short, with ``warp`` aliased to brickwork (compat/alias); the digest of its final arrays is compared with
Warp's (compat/example_references.json, written by compat/make_example_references.py under Warp). The
examples left out are listed with the reason. ``--warp-python`` also runs each example under that
interpreter's Warp right after brickwork's run, for a side-by-side time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from example_cases import DEFAULT_RTOL, DEFAULT_TIMEOUT_S, FEM, NEEDS, OUT_OF_SCOPE, RUN  # noqa: E402

REFERENCES = HERE / "example_references.json"


def example_names(examples_dir: Path) -> list[str]:
    """Every ``directory.example_name`` of Warp's examples directory."""
    return sorted(f"{p.parent.name}.{p.stem}" for p in examples_dir.glob("*/example_*.py"))


def example_args(name: str, path: Path) -> list[str]:
    args = list(RUN[name].get("args", []))
    if '"--device"' in path.read_text():
        args = ["--device", "cpu", *args]
    return args


def missing_module(name: str) -> str | None:
    """Why ``name`` cannot run here (a module it needs is not installed), or None."""
    needs = RUN[name].get("needs")
    if needs and importlib.util.find_spec(needs) is None:
        return f"needs {needs}, from {NEEDS[needs]}"
    return None


def run_case(name: str, scratch: Path, python: str, alias: bool, timeout: float) -> dict:
    """Run one example in a subprocess; the child's JSON result (``error`` set when it failed)."""
    examples_dir = (scratch / "warp_examples").resolve()
    path = examples_dir / Path(*name.split(".", 1)).with_suffix(".py")
    workdir = scratch / "example_runs" / ("brickwork" if alias else "warp") / name
    workdir.mkdir(parents=True, exist_ok=True)  # the example's own files (if any) go here
    out = workdir / "result.json"
    out.unlink(missing_ok=True)
    env = dict(os.environ, BRICKWORK_COMPAT_EXAMPLES=str(examples_dir),
               COMPAT_EXAMPLE_STATE=RUN[name].get("state", "example"), COMPAT_EXAMPLE_LINES=RUN[name].get("lines", ""))
    if alias:
        env["PYTHONPATH"] = os.pathsep.join([str(HERE / "alias"), os.environ.get("PYTHONPATH", "")])
    cmd = [python, str(HERE / "run_example.py"), str(path), str(out.resolve()), *example_args(name, path)]
    with (workdir / "log.txt").open("w") as log:
        try:
            subprocess.run(cmd, env=env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"timeout after {timeout:.0f} s"}
    if not out.exists():
        return {"error": f"the subprocess crashed (see {workdir / 'log.txt'})"}
    return json.loads(out.read_text())


def compare(result: dict, reference: dict, rtol: float, ignore=()) -> tuple[bool, str]:
    """(agrees, a line saying why or the largest relative difference) for two digests."""
    if reference.get("lines") is not None and result.get("lines") != reference["lines"]:
        return False, f"printed {result.get('lines')}, Warp printed {reference['lines']}"
    worst, where = 0.0, ""
    for name, ref in reference["arrays"].items():
        if name in ignore:
            continue
        got = result["arrays"].get(name)
        if got is None:
            return False, f"no array {name!r}"
        if got["shape"] != ref["shape"]:
            return False, f"{name}: shape {got['shape']}, Warp's {ref['shape']}"
        if got["nonfinite"] != ref["nonfinite"]:
            return False, f"{name}: {got['nonfinite']} non-finite values, Warp's {ref['nonfinite']}"
        scale = max(ref["norm"], 1e-30)
        size = math.prod(ref["shape"]) or 1
        for key, bound in (("norm", scale), ("sum", scale * math.sqrt(size))):
            diff = abs(got[key] - ref[key]) / bound
            if diff > worst:
                worst, where = diff, f"{name}.{key}"
    if not reference["arrays"]:  # everything happens inside functions, which check their results themselves
        said = f"the {len(reference['lines'])} lines of results it prints agree" if reference.get("lines") else ""
        return True, said or "no final arrays to compare: it ran to the end, through its own checks"
    agrees = worst <= rtol
    return agrees, f"largest relative difference {worst:.1e} ({where or 'all equal'}), tolerance {rtol:.0e}"


def check(name: str, scratch: Path, references: dict, timeout: float, warp_python: str | None) -> dict:
    """Run one example under brickwork (and Warp, with ``warp_python``); its row of the table."""
    if name.startswith("fem."):
        return {"example": name, "outcome": "out of scope", "detail": FEM}
    if name in OUT_OF_SCOPE:
        return {"example": name, "outcome": "out of scope", "detail": OUT_OF_SCOPE[name]}
    if name not in RUN:
        return {"example": name, "outcome": "not classified", "detail": "new in this Warp: add it to example_cases.py"}
    case = RUN[name]
    if (why := missing_module(name)) is not None:
        return {"example": name, "outcome": "skipped", "detail": why}
    result = run_case(name, scratch, sys.executable, alias=True, timeout=case.get("timeout", timeout))
    row = {"example": name, "seconds": result.get("seconds")}
    if warp_python:
        row["warp_seconds"] = run_case(name, scratch, warp_python, alias=False, timeout=timeout).get("seconds")
    reference = references.get(name)
    if "error" in result:
        return {**row, "outcome": "fails", "detail": result["error"][:300]}
    if reference is None or "error" in reference:
        why = (f"Warp's own run stopped: {reference['error']}" if reference
               else "no reference: run compat/make_example_references.py")
        return {**row, "outcome": "runs (no Warp reference)", "detail": why[:300]}
    agrees, detail = compare(result, reference, case.get("rtol", DEFAULT_RTOL), case.get("ignore", ()))
    return {**row, "outcome": "agrees with Warp" if agrees else "differs from Warp", "detail": detail}


def table(rows: list[dict]) -> str:
    lines = ["| example | outcome | detail |", "|---|---|---|"]
    lines += [f"| {r['example']} | {r['outcome']} | {r['detail'].replace('|', '/')} |" for r in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scratch", type=Path)
    parser.add_argument("--only", nargs="*", help="examples to run, as directory.name (default: all)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per example")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    parser.add_argument("--warp-python", help="an interpreter with warp-lang 1.19: time each example under Warp too")
    args = parser.parse_args(argv)
    references = json.loads(REFERENCES.read_text()) if REFERENCES.exists() else {}
    rows = []
    for name in args.only or example_names(args.scratch / "warp_examples"):
        row = check(name, args.scratch, references, args.timeout, args.warp_python)
        rows.append(row)
        times = "".join(f", {key} {row[key]:.1f} s" for key in ("seconds", "warp_seconds") if row.get(key))
        print(f"examples: {name}: {row['outcome']}{times}: {row['detail']}", flush=True)
    text = table(rows)
    print(text)
    (args.scratch / "examples.json").write_text(json.dumps(rows, indent=1))
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

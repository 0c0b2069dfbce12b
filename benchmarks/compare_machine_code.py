"""Compare the machine code brickwork generates for the benchmark kernels at two revisions.

    python benchmarks/compare_machine_code.py                 # b3512bc vs the working tree
    python benchmarks/compare_machine_code.py --new-rev HEAD  # b3512bc vs HEAD (both as worktrees)

Timing two revisions on a shared 2-core machine cannot show a 5 % difference reliably; when the
compiled kernels are the same instructions, their speed is the same by construction. Each side
runs the harness once at quick sizes (generated code does not depend on sizes: geometry is a
launch argument) into a kernel cache of its own; then every library in the two caches is
disassembled (``objdump -d``, addresses masked) and matched by instance label. A label whose
libraries differ is listed; the exit status is 1 when any differs or is missing on one side.
Worktrees and virtual environments are those of ``compare_revisions.py``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from compare_revisions import check_import, ensure_worktree, run_round, side_env, working_tree_side


def instructions(library: Path) -> list[str]:
    """The library's instructions with addresses and symbol offsets masked."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(library)], capture_output=True, text=True,
                          check=True).stdout
    out = []
    for line in text.splitlines():
        m = re.match(r"\s+[0-9a-f]+:\s+(.*)", line)
        if m:
            out.append(re.sub(r"<[^>]*>", "", re.sub(r"\b(0x)?[0-9a-f]{3,}\b", "X", m.group(1))).strip())
    return out


def libraries(cache: Path) -> dict[str, list[list[str]]]:
    """Instance label -> the instruction lists of its libraries (several when the label repeats)."""
    found: dict = {}
    for meta in sorted(cache.glob("*/*/meta.json")):
        label = json.loads(meta.read_text())["label"]
        found.setdefault(label, []).append(instructions(meta.parent / "kernel.so"))
    return {label: sorted(libs, key=lambda x: (len(x), x)) for label, libs in found.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="b3512bc", help="base git revision (default %(default)s)")
    parser.add_argument("--new-rev", default="", help="compare with this revision instead of the working tree")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--root", default=tempfile.gettempdir(), help="where worktrees go (default %(default)s)")
    args = parser.parse_args(argv)
    if shutil.which("objdump") is None:
        raise SystemExit("objdump is needed (binutils)")
    harness = argparse.Namespace(quick=True, cases=args.cases, reps=1, min_time=0.001, threads=0, timeout=1800)
    root = Path(args.root)
    base = ensure_worktree("base", args.base, root)
    new = ensure_worktree("new", args.new_rev, root) if args.new_rev else working_tree_side()
    workdir = Path(tempfile.mkdtemp(prefix="bw-machine-code-", dir=root))
    try:
        for side in (base, new):
            side.cache = workdir / f"cache-{side.role}"
            side.cache.mkdir()
            check_import(side, side_env(side, harness))
            run_round(side, 1, harness, workdir)
        old, now = libraries(base.cache), libraries(new.cache)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"base: {base.label}\nnew:  {new.label}\n")
    bad = 0
    for label in sorted(set(old) | set(now)):
        a, b = old.get(label, []), now.get(label, [])
        if len(a) != len(b):
            print(f"{label}: {len(a)} instance(s) at base, {len(b)} new")
            bad += 1
            continue
        for x, y in zip(a, b):
            same = x == y
            bad += not same
            print(f"{label}: {len(x)} vs {len(y)} instructions, {'identical' if same else 'DIFFERENT'}")
    print(f"\n{'every kernel compiles to the same instructions' if not bad else f'{bad} differ'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

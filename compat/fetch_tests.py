"""Fetch Warp's own test files for `make compat`: download the warp-lang wheel with pip, extract its tests.

Only ``warp/tests/**.py``, the golden arrays ``warp/tests/assets/*.npy`` and the volumes the volume tests
read, ``warp/tests/assets/*.nvdb``, are taken from the wheel, and Warp's examples, ``warp/examples/**``
(sources and their assets, for compat/run_examples.py), into the scratch directory given on the command
line; nothing of Warp's library is extracted or imported, and nothing is written into the repository. The
wheel is kept in the scratch directory, so a second run does not download it again.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

WARP_REQUIREMENT = "warp-lang==1.19.*"
TESTS_PREFIX = "warp/tests/"
EXAMPLES_PREFIX = "warp/examples/"
# The alias package provides its own unittest_utils (it reads Warp's internals, which brickwork has not).
OWN_MODULES = {"warp/tests/unittest_utils.py", "warp/tests/__init__.py"}


def find_wheel(wheel_dir: Path) -> Path | None:
    wheels = sorted(wheel_dir.glob("warp_lang-1.19.*.whl"))
    return wheels[-1] if wheels else None


def download_wheel(wheel_dir: Path) -> Path:
    wheel = find_wheel(wheel_dir)
    if wheel is not None:
        return wheel
    wheel_dir.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--dest", str(wheel_dir), WARP_REQUIREMENT]
    subprocess.run(cmd, check=True)
    wheel = find_wheel(wheel_dir)
    if wheel is None:
        raise SystemExit(f"pip did not leave a warp-lang 1.19 wheel in {wheel_dir}")
    return wheel


def extract_tests(wheel: Path, tests_dir: Path) -> int:
    """Write the wheel's test sources under ``tests_dir`` (as package ``warp.tests``); return how many."""
    count = 0
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if not name.startswith(TESTS_PREFIX) or name in OWN_MODULES:
                continue
            # the test sources, and the data some of them read (assets/*.npy golden arrays, *.nvdb volumes)
            if not (name.endswith(".py") or (name.startswith(TESTS_PREFIX + "assets/")
                                             and name.endswith((".npy", ".nvdb")))):
                continue
            target = tests_dir / name[len(TESTS_PREFIX):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(name))
            count += 1
    return count


def extract_examples(wheel: Path, examples_dir: Path) -> int:
    """Write the wheel's ``warp/examples/**`` (sources and assets) under ``examples_dir``; return how many files."""
    count = 0
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if not name.startswith(EXAMPLES_PREFIX) or name.endswith("/") or "__pycache__" in name:
                continue
            target = examples_dir / name[len(EXAMPLES_PREFIX):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(name))
            count += 1
    return count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scratch", type=Path,
                        help="scratch directory (wheel/, warp_tests/ and warp_examples/ are made in it)")
    args = parser.parse_args(argv)
    wheel = download_wheel(args.scratch / "wheel")
    count = extract_tests(wheel, args.scratch / "warp_tests")
    print(f"compat: {count} test files from {wheel.name} in {args.scratch / 'warp_tests'}")
    count = extract_examples(wheel, args.scratch / "warp_examples")
    print(f"compat: {count} example files from {wheel.name} in {args.scratch / 'warp_examples'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

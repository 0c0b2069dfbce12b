"""The ``brickwork`` command: ``info``, ``cache dir|list|clear``, ``demo``."""

from __future__ import annotations

import argparse
import os
import sys


def _info(args) -> int:
    from . import __version__, config
    from .jit import cache
    from .jit.toolchain import settings
    from .runtime.device import is_cuda_available

    print(f"brickwork {__version__} (python {sys.version.split()[0]})")
    try:
        s = settings()
        print(f"compiler:   {s.cxx} ({s.version})")
        print(f"flags:      {' '.join(s.command('SOURCE', 'OUT', 'INCLUDE')[1:-3])}")
        print(f"openmp:     {'yes' if s.openmp else 'no'}")
    except Exception as e:  # noqa: BLE001 - info reports, never fails
        print(f"compiler:   unavailable: {e}")
    threads = config.num_threads or os.environ.get("OMP_NUM_THREADS") or os.cpu_count()
    print(f"threads:    {threads}")
    print(f"cuda:       {'available' if is_cuda_available() else 'no CUDA device'}")
    print(f"cache:      {cache.cache_root()}")
    return 0


def _cache(args) -> int:
    from .jit import cache

    if args.action == "dir":
        print(cache.cache_root())
    elif args.action == "list":
        rows = cache.entries()
        for row in rows:
            print(f"{row['key']}  {row['bytes'] / 1024:8.1f} KiB  {row['label']}")
        total = sum(r["bytes"] for r in rows)
        print(f"{len(rows)} entries, {total / 1024 / 1024:.1f} MiB in {cache.cache_root()}")
    elif args.action == "clear":
        n = cache.clear()
        print(f"removed {n} entries from {cache.cache_root()}")
    return 0


def _demo(args) -> int:
    import runpy

    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(os.path.dirname(os.path.dirname(here)), "examples", "demo.py")
    if not os.path.exists(script):
        print("the demo ships with the source tree (examples/demo.py)", file=sys.stderr)
        return 1
    runpy.run_path(script, run_name="__main__")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="brickwork", description="brickwork command line")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="toolchain, OpenMP, threads, CUDA and cache directory").set_defaults(run=_info)
    p = sub.add_parser("cache", help="inspect or clear the kernel cache")
    p.add_argument("action", choices=["dir", "list", "clear"])
    p.set_defaults(run=_cache)
    sub.add_parser("demo", help="run the demo").set_defaults(run=_demo)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())

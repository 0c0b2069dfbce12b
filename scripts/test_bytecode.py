"""Compile the sources and the tests to bytecode before ``make test``, pytest's rewritten test modules included.

Each xdist worker imports every test module to collect the suite, and pytest rewrites a test module's assertions
before it runs it. Pytest keeps the rewritten code in ``__pycache__/*-pytest-*.pyc`` only where it may write
bytecode (not under PYTHONDONTWRITEBYTECODE), and in a fresh clone both workers rewrite every module at the same
time anyway: about 16 s of CPU each. Written here once, split over the cores, the workers read it instead.
The plain ``.pyc`` files serve the Python processes the tests start (MPI ranks, ``brickwork run``, examples).

Usage: python scripts/test_bytecode.py DIR...   (the rewritten modules are those under a folder named ``tests``)
"""

import compileall
import fnmatch
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# pytest's defaults (pyproject sets no python_files): the modules it rewrites are test files and conftest.py files
_REWRITTEN = ("test_*.py", "*_test.py", "conftest.py")


def _rewrite(paths: list[str]) -> int:
    """Write pytest's rewritten bytecode for ``paths``; the count written. Pytest's own functions do the work, so
    the file is the one pytest reads back (it checks the source against it and rewrites a stale one itself)."""
    from _pytest.assertion import rewrite

    class _State:  # what pytest's writer uses of its assertion state
        @staticmethod
        def trace(message):
            pass

    written = 0
    for path in paths:
        fn = Path(path)
        cache_dir = rewrite.get_cache_dir(fn)
        if not rewrite.try_makedirs(cache_dir):
            continue
        # no config: the assertion pass hook is off, as pyproject leaves it (enable_assertion_pass_hook)
        try:
            source_key, code = rewrite._rewrite_test(fn, None)
        except SyntaxError:  # compileall has said where; pytest reports it again when it collects the module
            continue
        written += bool(rewrite._write_pyc(_State, code, source_key, cache_dir / (fn.name[:-3] + rewrite.PYC_TAIL)))
    return written


def _rewritten_modules(folders: list[str]) -> list[str]:
    found = []
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if "tests" not in Path(root).parts:
                continue
            found += [os.path.join(root, f) for f in files if any(fnmatch.fnmatch(f, p) for p in _REWRITTEN)]
    return sorted(found)


def main(folders: list[str]) -> int:
    workers = max(1, min(os.cpu_count() or 1, 8))
    ok = all(compileall.compile_dir(folder, quiet=1, workers=workers) for folder in folders)
    modules = _rewritten_modules(folders)
    try:
        with ProcessPoolExecutor(workers) as pool:
            list(pool.map(_rewrite, [modules[i::workers] for i in range(workers)]))
    except (ImportError, AttributeError, TypeError) as error:
        # another pytest's internals: the workers rewrite the modules themselves, as they did before
        print(f"test_bytecode: pytest's rewritten modules not written ({error!r})", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Compile generated C++ into a cached shared library: look up, else build, publish, load.

``compile_many`` builds several instances at once (the compiler runs in subprocesses, so
threads overlap them), which is how pending explicit instances are built.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import shutil
import subprocess
import time

from .. import comm, config
from ..errors import ToolchainError
from . import cache, pch
from .toolchain import environment_cause, settings

log = logging.getLogger("brickwork")

#: Number of compiler runs in this process (tests assert zero on a warm re-run).
compiler_calls = 0


def build(key: str, source: str, label: str, meta: dict, make=None) -> tuple[str, dict]:
    """Library path and metadata for ``key``: from the cache, else compiled from ``source``.

    ``make(key, source, label, meta)`` builds and publishes an entry (default: the C++ compiler;
    the CUDA target passes its NVRTC build). A build that fails because of the machine (disk full,
    read-only file system, no memory) raises ``BuildEnvironmentError`` with the cause and the path,
    and leaves no staging directory behind."""
    found = cache.lookup(key)
    if found is not None:
        return found
    make = make or _compile_cpp
    try:
        if _lock_kind() == "claim":
            return cache.claimed_build(key, lambda: make(key, source, label, meta))
        with cache.key_lock(key):
            found = cache.lookup(key)  # another process may have built it while we waited
            if found is not None:
                return found
            return make(key, source, label, meta)
    except OSError as e:
        raise cache.environment_error(e, f"compile {label}") from None


def _lock_kind() -> str:
    """"claim" or "flock" (``config.cache_lock``; "auto" claims under an MPI launcher)."""
    if config.cache_lock != "auto":
        return config.cache_lock
    return "claim" if comm.launcher_size() > 1 else "flock"


def _compile_cpp(key: str, source: str, label: str, meta: dict) -> tuple[str, dict]:
    return _compile(key, source, label, meta, settings())


def _compile(key: str, source: str, label: str, meta: dict, s) -> tuple[str, dict]:
    global compiler_calls
    staging = cache.staging_dir(key)
    keep = False  # the source of a compiler error is kept for the bug report
    try:
        src_path = os.path.join(staging, cache.SOURCE)
        with open(src_path, "w") as f:
            f.write(source)
        out_path = os.path.join(staging, cache.LIBRARY)
        cmd = s.command(src_path, out_path, pch.include_dir(s))
        log.debug("compiling %s: %s", label, " ".join(cmd))
        t0 = time.perf_counter()
        compiler_calls += 1
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            cause = environment_cause(proc.returncode, proc.stderr)
            if cause is not None:
                raise cache.BuildEnvironmentError(
                    f"cannot compile {label}: the compiler failed for a reason outside brickwork: {cause} "
                    f"(building in {staging}); free some space or memory, or set BRICKWORK_CACHE_DIR and "
                    f"TMPDIR (the compiler's temporary files) to another file system")
            keep = True
            raise ToolchainError(
                f"internal error: the C++ compiler rejected the code generated for {label}. This is a "
                f"brickwork bug; please report it with the source kept at {src_path} (for an hour).\n"
                f"{proc.stderr[-4000:]}")
        lib, meta = cache.publish(key, staging, dict(meta, label=label, compiler=s.identity(),
                                                     compile_seconds=time.perf_counter() - t0))
        log.debug("%s: generated source %s", label, os.path.join(os.path.dirname(lib), cache.SOURCE))
        return lib, meta
    except BaseException:
        if not keep:
            shutil.rmtree(staging, ignore_errors=True)
        raise


def compile_many(jobs: list, make=None) -> list:
    """Run ``build(*job, make)`` for every job, in parallel; results (or exceptions) in order."""
    if not jobs:
        return []
    if len(jobs) == 1:
        try:
            return [build(*jobs[0], make)]
        except Exception as e:  # noqa: BLE001 - returned to the caller per job
            return [e]
    workers = config.compile_jobs or os.cpu_count() or 2
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
        futures = [pool.submit(build, *job, make) for job in jobs]
        results = []
        for f in futures:
            try:
                results.append(f.result())
            except Exception as e:  # noqa: BLE001
                results.append(e)
        return results

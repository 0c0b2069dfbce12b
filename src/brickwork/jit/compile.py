"""Compile generated C++ into a cached shared library: look up, else build, publish, load.

``compile_many`` builds several instances at once (the compiler runs in subprocesses, so
threads overlap them), which is how pending explicit instances are built; small instances share
compiler runs (``batch``: at most ``config.compile_batch`` per run), each published as its own entry;
another target (CUDA's NVRTC) does the same through a ``Combined``.
An instance whose generated source an entry was already built from takes a copy of that entry's
library instead of a compiler run (``same_source``).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import logging
import os
import re
import shutil
import struct
import subprocess
import time
from collections.abc import Callable

from .. import comm, config
from ..errors import ToolchainError
from . import batch, cache, pch, same_source
from .compiler_probe import assembler_fallback, environment_cause
from .rejected import rejected_code_error
from .toolchain import CompilerUnavailableError, settings
from .toolchain import include_dir as package_include_dir

log = logging.getLogger("brickwork")

#: Number of compiler runs in this process (tests assert zero on a warm re-run).
compiler_calls = 0

#: A translation unit at least this long (characters) is announced before the compiler runs: g++'s time grows
#: faster than the unit's length (Warp's block Cholesky kernel with every tile loop unrolled, 750 kB: 20 s at -O3;
#: kernels of thousands of parameters or locals: minutes), and a silent wait looks like a hang.
LARGE_SOURCE = 400_000


def build(key: str, source: str, label: str, meta: dict, make=None) -> tuple[str, dict]:
    """Library path and metadata for ``key``: from the cache, else compiled from ``source``.

    ``make(key, source, label, meta)`` builds and publishes an entry (default: the C++ compiler;
    the CUDA target passes its NVRTC build). A build that fails because of the machine (disk full,
    read-only file system, no memory) raises ``BuildEnvironmentError`` with the cause and the path,
    and leaves no staging directory behind. A build whose lock file, staging directory or root was
    removed under it (``brickwork cache clear`` in another process) starts again, once; a second
    time raises ``CacheChangedError``, which says so (or ``BuildEnvironmentError`` where the root is
    there but nothing can be created in it: a folder of /proc)."""
    found = cache.lookup(key)
    if found is not None:
        return found
    make = make or _compile_cpp
    try:
        return _locked_build(key, source, label, meta, make)
    except cache.CacheChangedError as e:
        log.debug("%s: %s was removed while building; building again", label, e.path)
        cache.forget()
        pch.forget()
    try:
        return _locked_build(key, source, label, meta, make)
    except cache.CacheChangedError as e:
        raise cache.unwritable_root_error(label) or e from None


def _locked_build(key: str, source: str, label: str, meta: dict, make) -> tuple[str, dict]:
    """``make(...)`` under the key's lock or claim (an entry published meanwhile is taken instead)."""
    try:
        if _lock_kind() == "claim":
            return cache.claimed_build(key, lambda: make(key, source, label, meta))
        with cache.key_lock(key):
            found = cache.lookup(key)  # another process may have built it while we waited
            if found is not None:
                return found
            return make(key, source, label, meta)
    except OSError as e:
        if cache.removed_under_build(e):
            raise cache.CacheChangedError(label, e.filename) from None
        raise cache.environment_error(e, f"compile {label}") from None


def _lock_kind() -> str:
    """"claim" or "flock" (``config.cache_lock``; "auto" claims under an MPI launcher)."""
    if config.cache_lock != "auto":
        return config.cache_lock
    return "claim" if comm.launcher_size() > 1 else "flock"


def _compile_cpp(key: str, source: str, label: str, meta: dict) -> tuple[str, dict]:
    s = settings()
    if meta.get("include_dirs"):  # a module's wp.ModuleBuildOptions: its include path after brickwork's
        s = WithIncludeDirs(s, meta["include_dirs"])
    return _compile(key, source, label, meta, s)


class WithIncludeDirs:
    """Compiler settings ``base`` whose compile command adds ``-I`` for ``dirs`` after brickwork's folder. Its
    precompiled header is ``base``'s (include directories change nothing in it); the source of such a unit
    names its directories (targets/preambles.py), so units of other directories never share a library."""

    def __init__(self, base, dirs):
        self.base, self.flags = base, [f"-I{d}" for d in dirs]

    def __getattr__(self, name):
        return getattr(self.base, name)

    def command(self, source: str, output: str, include_dir: str) -> list[str]:
        cmd = self.base.command(source, output, include_dir)
        return cmd[:-3] + self.flags + cmd[-3:]  # before the source and its output


def _compile(key: str, source: str, label: str, meta: dict, s) -> tuple[str, dict]:
    source_digest = same_source.digest(s.identity(), source)
    staging = cache.staging_dir(key)
    keep = False  # the source of a compiler error is kept for the bug report
    try:
        same = same_source.find(source_digest, source)
        if same is not None:
            with open(os.path.join(staging, cache.SOURCE), "w") as f:
                f.write(source)
            built = same_source.adopt(staging, same, cache.LIBRARY)
        else:
            try:
                _, seconds, added = _compile_in(staging, source, s, label)
            except ToolchainError as e:
                keep = not isinstance(e, (cache.BuildEnvironmentError, CompilerUnavailableError))
                raise
            built = {"compile_seconds": seconds, **({"added_flags": list(added)} if added else {})}
        lib, meta = cache.publish(key, staging, dict(meta, label=label, compiler=s.identity(), **built))
        if same is None:
            same_source.record(source_digest, key)
        log.debug("%s: generated source %s", label, os.path.join(os.path.dirname(lib), cache.SOURCE))
        return lib, meta
    except BaseException:
        if not keep:
            shutil.rmtree(staging, ignore_errors=True)
        raise


def _compile_in(folder: str, source: str, s, label: str, alone: bool = True) -> tuple[str, float, tuple]:
    """Write ``source`` into ``folder`` and compile it there: the library's path, the seconds taken and
    the flags added to make it build (``_run_compiler``; ``alone``: the unit is one instance's)."""
    src_path = os.path.join(folder, cache.SOURCE)
    with open(src_path, "w") as f:
        f.write(source)
    if len(source) >= LARGE_SOURCE:
        log.warning("compiling %s: its generated C++ is %d kB (%d lines); %s may take a minute or more. A kernel of "
                    "thousands of parameters, locals or statements compiles slowly: split it into several kernels",
                    label, len(source) // 1000, source.count("\n"), os.path.basename(s.cxx))
    out_path = os.path.join(folder, cache.LIBRARY)
    t0 = time.perf_counter()
    added = _run_compiler(s, src_path, out_path, label, folder, alone)
    seconds = time.perf_counter() - t0
    if not os.path.isfile(src_path):  # the staging directory went: not the compiler's fault
        raise cache.CacheChangedError(label, folder)
    problem = _not_a_library(out_path)
    if problem is not None:
        # a command that exits 0 without making a library is no compiler: said here, before the cache
        # publishes the entry (and the loader fails on it with a bare OSError); the caller removes the folder
        blame = (f"BRICKWORK_CFLAGS adds {' '.join(s.extra)!r} to its command: a flag there that stops before "
                 f"linking (-E, -S, -c, -fsyntax-only) makes no library; unset it first to see whether it is the "
                 f"cause, else the compiler does not work as one") if s.extra else "it does not work as a C++ compiler"
        raise CompilerUnavailableError(
            f"cannot compile {label}: the C++ compiler {s.cxx} exited with status 0 but {problem}; {blame} (point "
            f"BRICKWORK_CXX or CXX at g++ or clang++)")
    return out_path, seconds, added


_ELF_MAGIC = b"\x7fELF"
#: Mach-O magic numbers (32 and 64 bit, both byte orders) and the file types of a loadable library
_MACHO_MAGIC = {b"\xfe\xed\xfa\xce": ">", b"\xfe\xed\xfa\xcf": ">", b"\xce\xfa\xed\xfe": "<",
                b"\xcf\xfa\xed\xfe": "<"}
_MACHO_LIBRARY_TYPES = (6, 8)  # MH_DYLIB, MH_BUNDLE


def _not_a_library(path: str) -> str | None:
    """What is wrong with the compiler's output ``path`` as a shared library, or None when its header says it
    is one (ELF of type ET_DYN whose header tables lie inside the file; a Mach-O dylib or bundle)."""
    try:
        if os.path.islink(path) or not os.path.isfile(path):
            return f"wrote no shared library at {path}"
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError as e:
        return f"its output {path} cannot be read ({e.strerror})"
    shown = f"{path} is not a shared library ({size} bytes starting {head[:8]!r})"
    if head.startswith(_ELF_MAGIC) and len(head) >= 52 and head[4] in (1, 2) and head[5] in (1, 2):
        order = "<" if head[5] == 1 else ">"
        if head[4] == 1:  # 32-bit: offsets of 4 bytes
            e_type, phoff, shoff = struct.unpack_from(order + "H10xII", head, 16)
            phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", head, 42)
        elif len(head) >= 64:
            e_type, phoff, shoff = struct.unpack_from(order + "H14xQQ", head, 16)
            phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", head, 54)
        else:
            return shown
        if e_type != 3:  # ET_DYN
            return f"{path} is an ELF file of type {e_type}, not a shared library"
        if phnum == 0 or phoff + phentsize * phnum > size or shoff + shentsize * shnum > size:
            return f"{path} is a truncated or damaged shared library ({size} bytes)"
        return None
    order = _MACHO_MAGIC.get(head[:4])
    if order is not None and len(head) >= 16:
        return None if struct.unpack_from(order + "I", head, 12)[0] in _MACHO_LIBRARY_TYPES else shown
    return shown


def _run(cmd: list, label: str) -> subprocess.CompletedProcess:
    global compiler_calls
    log.debug("compiling %s: %s", label, " ".join(cmd))
    compiler_calls += 1
    return subprocess.run(cmd, capture_output=True, text=True)


def _run_compiler(s, src_path: str, out_path: str, label: str, staging: str, alone: bool = True) -> tuple:
    """Compile ``src_path`` into the library ``out_path``; returns the flags added to make it build.

    A failure that a second run with other inputs cures is retried once: a damaged precompiled folder
    (junk in its headers) fails every unit, so the unit is compiled against the package's headers (if
    it compiles so, the folder was at fault: it is set aside, to be built again); an AVX512-FP16
    instruction the assembler rejects is avoided with the flags ``compiler_probe.assembler_fallback`` gives
    (for one instance's unit: ``alone``; a batch then builds each instance alone, so the others keep
    the extension). A failure raises ``BuildEnvironmentError`` (the machine's fault),
    ``CompilerUnavailableError`` (a command that is no compiler) or ``ToolchainError`` (brickwork's:
    the generated code was rejected)."""
    include = pch.include_dir(getattr(s, "base", s))
    proc = _run(s.command(src_path, out_path, include), label)
    if proc.returncode == 0:
        return ()
    if not os.path.isfile(src_path):  # its staging directory went: the compiler could not write its output
        raise cache.CacheChangedError(label, staging)
    cause = environment_cause(proc.returncode, proc.stderr)
    if cause is not None:
        raise cache.BuildEnvironmentError(
            f"cannot compile {label}: the compiler failed for a reason outside brickwork: {cause} "
            f"(building in {staging}); free some space or memory, or set BRICKWORK_CACHE_DIR and "
            f"TMPDIR (the compiler's temporary files) to another file system")
    added = assembler_fallback(proc.stderr) if alone else ()
    if added or include != package_include_dir():
        cmd = s.command(src_path, out_path, package_include_dir())
        cmd[-3:-3] = added  # before the source and its output
        retry = _run(cmd, label)
        if retry.returncode == 0:
            if added:
                log.debug("%s: the assembler rejected its AVX512-FP16 code; built with %s", label, " ".join(added))
            else:
                log.debug("%s: the precompiled header in %s failed it; building that again", label, include)
                pch.discard(include)
            return added
        if not added:  # the unit's own error, without the precompiled folder in the way
            proc = retry
    if not proc.stderr.strip() and not proc.stdout.strip():
        # a compiler that rejects code says why: a silent failure is a command that is no compiler
        raise CompilerUnavailableError(
            f"cannot compile {label}: the C++ compiler {s.cxx} exited with status {proc.returncode} without a "
            f"message; it does not work as a C++ compiler (point BRICKWORK_CXX or CXX at g++ or clang++)")
    extra = (f" (BRICKWORK_CFLAGS adds {' '.join(s.extra)!r} to the command: unset it first to see whether it is "
             f"the cause)") if s.extra else ""
    with open(src_path, encoding="utf-8", errors="replace") as f:
        source = f.read()
    raise rejected_code_error("the C++ compiler", label, source, src_path, proc.stderr, extra)


@dataclasses.dataclass(frozen=True)
class Combined:
    """How a target builds several units with one compiler run (``compile_many``).

    ``identity``: what an artifact depends on besides its source (for ``same_source``); ``exports``:
    the entry points of a unit (``batch.CPU_EXPORT``, ``batch.CUDA_EXPORT``), renamed in the combined
    unit; ``artifact``: the file name of the artifact in an entry; ``compile(text, label, folder)``:
    the combined unit's artifact, written into ``folder`` (its path; ``ToolchainError`` when the
    compiler rejects it); ``meta``: what each entry records besides the job's own metadata;
    ``part_meta(artifact path, symbols)``, where given: what one unit's entry records of the combined run
    (NVRTC's resource report of that unit's kernels)."""

    identity: str
    exports: re.Pattern
    artifact: str
    compile: Callable[[str, str, str], str]
    meta: dict
    part_meta: Callable[[str, dict], dict] | None = None


def cpp_combined() -> Combined:
    """The C++ compiler's ``Combined``: a shared library holding every unit."""
    s = settings()
    return Combined(s.identity(), batch.CPU_EXPORT, cache.LIBRARY,
                    lambda text, label, folder: _compile_in(folder, text, s, label, alone=False)[0],
                    {"compiler": s.identity()})


def _build_batch(jobs: list, combined: Combined, make=None, locks: list = ()) -> list:
    """Build the jobs ``(key, source, label, meta)`` with one compiler run, each published as its
    own entry (a copy of the combined artifact; ``meta["symbols"]`` names its entry points there).

    ``locks``: the jobs' key locks (``cache.try_key_lock``, one per job), held until each job is
    published and released before any job is built alone. If the combined unit does not compile, or
    the batch's folder was removed under it (a concurrent ``brickwork cache clear``), each job is built
    alone (``build(*job, make)``), so that an error stays with the instance that caused it."""
    held = dict(enumerate(locks))

    def release(n: int | None = None) -> None:
        for i in list(held) if n is None else [n]:
            fd = held.pop(i, None)
            if fd is not None:
                cache.unlock_key(fd)

    text, symbols = batch.combine([job[1] for job in jobs], combined.exports)
    labels = ", ".join(job[2] for job in jobs)
    try:
        with cache.work_dir() as work:
            try:
                t0 = time.perf_counter()
                out_path = combined.compile(text, f"a batch of {len(jobs)} instances ({labels})", work)
                seconds = time.perf_counter() - t0
            except ToolchainError as e:
                if isinstance(e, cache.BuildEnvironmentError) and not isinstance(e, cache.CacheChangedError):
                    raise
                log.debug("batch of %s failed to compile; building each alone", labels)
                release()
                return [_build_one(job, make) for job in jobs]
            return [_publish_part(job, names, out_path, combined, seconds, len(jobs), make,
                                  (lambda n=n: release(n)) if n in held else None)
                    for n, (job, names) in enumerate(zip(jobs, symbols))]
    except OSError as e:
        release()
        if cache.removed_under_build(e):
            return [_build_one(job, make) for job in jobs]
        raise cache.environment_error(e, f"compile {labels}") from None
    finally:
        release()


def _publish_part(job: tuple, names: dict, artifact: str, combined: Combined, seconds: float, count: int, make,
                  release=None):
    """Publish one instance of a batch (a copy of the combined artifact); an error is returned, so
    that it stays with its own instance. One whose files were removed meanwhile is built alone.
    ``release``: releases the key's lock, which the caller holds (called once published)."""
    try:
        try:
            pinned = cache.pin(_publish_copy(job, names, artifact, combined, seconds, count, release is not None))
        finally:
            if release is not None:
                release()
        return pinned or _build_one(job, make)
    except OSError as e:
        if cache.removed_under_build(e):
            return _build_one(job, make)
        return cache.environment_error(e, f"publish {job[2]}")
    except Exception as e:  # noqa: BLE001 - e.g. UnsafeCacheError for this key's entry
        return e


def _publish_copy(job: tuple, names: dict, artifact: str, combined: Combined, seconds: float,
                  count: int, locked: bool = False) -> tuple[str, dict]:
    key, source, label, meta = job
    with contextlib.nullcontext() if locked else cache.key_lock(key):
        found = cache.lookup(key)  # another process may have built it meanwhile
        if found is not None:
            return found
        staging = cache.staging_dir(key)
        try:
            with open(os.path.join(staging, cache.SOURCE), "w") as f:
                f.write(source)
            shutil.copyfile(artifact, os.path.join(staging, combined.artifact))
            own = combined.part_meta(artifact, names) if combined.part_meta else {}
            published = cache.publish(key, staging, dict(meta, label=label, **combined.meta, **own, symbols=names,
                                                         compile_seconds=seconds, batch=count))
            same_source.record(same_source.digest(combined.identity, source), key)
            return published
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise


def _build_one(job: tuple, make=None):
    """``build(*job, make)`` pinned (``cache.pin``), or the exception it raised. An entry removed before
    it was pinned (a concurrent clear) is built again, once."""
    try:
        for _ in range(2):
            pinned = cache.pin(build(*job, make))
            if pinned is not None:
                return pinned
        raise cache.CacheChangedError(job[2], cache.entry_dir(job[0]))
    except Exception as e:  # noqa: BLE001 - returned to the caller per job
        return e


def _lock_keys(jobs: list, indices: list, results: list, locks: dict) -> tuple[list, list]:
    """Lock the keys of the jobs ``indices`` without waiting (into ``locks``): (the jobs locked, the jobs
    another process holds, built alone: they wait for its entry). A job whose entry was published
    meanwhile is unlocked and its result set, as is the error of a job whose entry cannot be read."""
    mine, theirs = [], []
    for i in indices:
        try:
            fd = cache.try_key_lock(jobs[i][0])
        except OSError:
            theirs.append(i)  # build() says what is wrong
            continue
        if fd is None:
            theirs.append(i)
            continue
        try:
            found = cache.lookup(jobs[i][0])
        except Exception as e:  # noqa: BLE001 - an unsafe entry: its own error
            cache.unlock_key(fd)
            results[i] = e
            continue
        if found is None:
            locks[i] = fd
            mine.append(i)
            continue
        cache.unlock_key(fd)
        results[i] = cache.pin(found)
        if results[i] is None:
            theirs.append(i)
    return mine, theirs


def compile_many(jobs: list, make=None, combined: Combined | None = None) -> list:
    """Run ``build(*job, make)`` for every job, in parallel; results (or exceptions) in order. Each
    library's path is a pinned name (``cache.pin``): a concurrent ``brickwork cache clear`` cannot
    remove it before the caller loads it.

    Jobs not in the cache share compiler runs (``batch.groups``; ``config.compile_batch`` at most per
    run, 1: one run each) when the cache's lock kind is ``flock``: C++ jobs (``make`` None) always,
    others when ``combined`` says how the target builds several units at once. Jobs with the same
    generated source make one run (the others copy its artifact)."""
    if not jobs:
        return []
    if len(jobs) == 1:
        return [_build_one(jobs[0], make)]
    workers = config.compile_jobs or os.cpu_count() or 2
    results: list = [None] * len(jobs)
    groups = [[i] for i in range(len(jobs))]
    later: list = []  # jobs whose source an earlier job of this call compiles: copied once it has
    locks: dict = {}  # job index -> its key's lock, held by this process's batches
    if make is None:
        combined = cpp_combined()
    if combined is not None and config.compile_batch > 1 and _lock_kind() == "flock":
        missing, alone, digests = [], [], set()
        identity = combined.identity
        for i, job in enumerate(jobs):
            try:
                found = cache.lookup(job[0])
                results[i] = None if found is None else cache.pin(found)  # None: removed meanwhile, build it
                if results[i] is None and job[3].get("include_dirs"):
                    alone.append([i])  # an include path of its own (module build options): not in a shared run
                elif results[i] is None:
                    source_digest = same_source.digest(identity, job[1])
                    if source_digest in digests:
                        later.append(i)
                    elif same_source.find(source_digest, job[1]) is not None:
                        alone.append([i])  # no compiler run: a copy of that entry's library
                    else:
                        digests.add(source_digest)
                        missing.append(i)
            except Exception as e:  # noqa: BLE001 - an unsafe entry: its own error, as build() gives it
                results[i] = e
        if len(missing) > 1:
            missing, building = _lock_keys(jobs, missing, results, locks)
            alone += [[i] for i in building]
        # the batches first: they hold their keys' locks and never wait for one, so that a job that waits for
        # another process's batch (its lock) never keeps a worker from a batch that process may wait for
        groups = [[missing[i] for i in g] for g in batch.groups(
            [len(jobs[i][1]) for i in missing], workers, config.compile_batch)] + alone
        if not groups and not later:
            return results

    def run(group: list) -> None:
        if len(group) == 1:
            if group[0] in locks:  # a large unit alone: build() takes its lock again
                cache.unlock_key(locks.pop(group[0]))
            results[group[0]] = _build_one(jobs[group[0]], make)
            return
        try:
            built = _build_batch([jobs[i] for i in group], combined, make, [locks.pop(i) for i in group])
        except Exception as e:  # noqa: BLE001 - returned to the caller per job
            built = [e] * len(group)
        for i, r in zip(group, built):
            results[i] = r

    try:
        if groups:
            with concurrent.futures.ThreadPoolExecutor(max_workers=min(workers, len(groups))) as pool:
                for f in [pool.submit(run, g) for g in groups]:
                    f.result()
    finally:
        for fd in locks.values():  # none is left unless a worker failed
            cache.unlock_key(fd)
    for i in later:
        results[i] = _build_one(jobs[i], make)
    return results

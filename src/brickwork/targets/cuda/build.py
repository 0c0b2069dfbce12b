"""Build CUDA instances into the kernel cache: kernel.cu -> NVRTC -> kernel.cubin (+ meta.json).

The same content-addressed cache, locks and atomic publish as the CPU target (``jit/compile.build``
calls ``make_cubin`` under the key's lock); only the compile step differs. Several small instances
built together share one NVRTC run (``combined``), as the CPU's share a g++ run.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import stat
import tempfile
import threading
import time

from ...errors import ToolchainError
from ...jit import batch, cache, nvrtc, same_source
from ...jit import compile as jit_compile
from ...jit.rejected import rejected_code_error
from ...jit.toolchain import include_dir
from .arch import NVRTC_OPTIONS, PCH_OPTIONS, PCH_SINCE
from .resources import REPORT_OPTIONS, report_meta

log = logging.getLogger("brickwork")

SOURCE = "kernel.cu"

#: NVRTC runs in this process (tests count them: zero on a warm re-run).
nvrtc_calls = 0


def include_dirs() -> list[str]:
    """brickwork's headers, then the CUDA runtime wheel's (cuda_fp16.h)."""
    cuda = nvrtc.cuda_include_dir()
    if cuda is None:
        wheel = nvrtc.runtime_wheel()
        how = "'brickwork[cuda]'" if wheel == nvrtc.RUNTIME_WHEEL else wheel
        raise nvrtc.NvrtcUnavailable(f"the CUDA headers are not installed: the CUDA target needs the "
                                     f"'{wheel}' wheel, of NVRTC's release (pip install {how})")
    return [include_dir(), cuda]


def options() -> list[str]:
    """NVRTC's options besides the architecture and the include paths (the resource report's too: it changes
    no code, and so is not part of ``_identity``)."""
    return [*NVRTC_OPTIONS, *REPORT_OPTIONS, *pch_options()]


_pch_lock = threading.Lock()
_pch_dir: str | None = None
_pch_owner = 0  # the process that made _pch_dir (a forked child makes its own)
PCH_PREFIX = "brickwork-nvrtc-pch-"


def pch_options() -> list[str]:
    """Automatic precompiled headers (NVRTC 12.8 and newer), kept in a directory of this process's own.

    NVRTC writes the header it precompiles as ``<program name>.pch`` (about 18 MB) and reuses it for
    every later program with the same includes; left to itself it writes into the working directory,
    the user's. A directory per process, removed at exit, keeps that reuse (about 0.2 s saved per
    compile) without a file written anywhere else, and without two processes sharing a file one of them
    may be writing. Its name holds the process id: a process that never reached its exit handlers
    (SIGTERM, SIGKILL, os._exit) left 20 to 80 MB in the temporary directory for good; the next process to
    make one removes those of processes that are gone (``remove_abandoned_pch_dirs``)."""
    global _pch_dir, _pch_owner
    if nvrtc.version() < PCH_SINCE:
        return []
    with _pch_lock:
        if _pch_dir is None or _pch_owner != os.getpid():
            remove_abandoned_pch_dirs(tempfile.gettempdir())
            _pch_dir, _pch_owner = tempfile.mkdtemp(prefix=f"{PCH_PREFIX}{os.getpid()}-"), os.getpid()
            atexit.register(_remove_own_pch_dir, _pch_dir, _pch_owner)
    return [*PCH_OPTIONS, f"--pch-dir={_pch_dir}"]


def _remove_own_pch_dir(path: str, owner: int) -> None:
    """At exit, only in the process that made ``path``: a forked child exiting must not take its parent's."""
    if os.getpid() == owner:
        shutil.rmtree(path, ignore_errors=True)


def remove_abandoned_pch_dirs(folder: str) -> list[str]:
    """Remove the precompiled-header directories in ``folder`` (``PCH_PREFIX<pid>-...``, owned by this user,
    not links) whose process no longer exists; returns their paths. A live process's, another user's and a
    name of another form are left alone."""
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        pid = name[len(PCH_PREFIX):].split("-", 1)[0] if name.startswith(PCH_PREFIX) else ""
        if not pid.isdigit() or int(pid) in (0, os.getpid()):
            continue
        path = os.path.join(folder, name)
        try:
            info = os.lstat(path)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        except (OSError, OverflowError):  # alive under another user (EPERM), or not a process id at all
            continue
    return removed


def _compiler() -> str:
    return "nvrtc {}.{}".format(*nvrtc.version())


def _identity(arch: str) -> str:
    """What a cubin is made of besides the source (the precompiled-header folder changes no code)."""
    return " ".join([_compiler(), arch, *NVRTC_OPTIONS, *include_dirs()])


def _nvrtc(source: str, name: str, arch: str, extra_dirs: list = ()) -> tuple[bytes, str]:
    """(cubin, NVRTC's log with the resource report); ``extra_dirs``: a module's include directories
    (wp.ModuleBuildOptions), searched after brickwork's."""
    global nvrtc_calls
    nvrtc_calls += 1
    return nvrtc.compile_program(source, name, arch, [*include_dirs(), *extra_dirs], options())


def combined(arch: str) -> jit_compile.Combined:
    """How ``jit.compile.compile_many`` builds several small instances for ``arch`` with one NVRTC run:
    one cubin holding every unit's kernel (renamed ``bw_entry_b<n>``; the entry's ``symbols`` name it), and each
    unit's entry the resource report of its own kernels."""
    logs: dict = {}  # cubin path -> NVRTC's log of the run that made it

    def compile_combined(text: str, label: str, folder: str) -> str:
        try:
            cubin, logs[os.path.join(folder, cache.CUBIN)] = _nvrtc(text, "batch.cu", arch)
        except nvrtc.NvrtcCompileError as e:  # each unit is then built alone, to name the one at fault
            raise ToolchainError(f"NVRTC rejected {label}") from e
        path = os.path.join(folder, cache.CUBIN)
        with open(path, "wb") as f:
            f.write(cubin)
        return path

    def part_meta(path: str, names: dict) -> dict:
        return {"resources": report_meta(logs.get(path, ""), set(names.values()))}

    return jit_compile.Combined(_identity(arch), batch.CUDA_EXPORT, cache.CUBIN, compile_combined,
                                {"artifact": cache.CUBIN, "arch": arch, "compiler": _compiler()}, part_meta)


def make_cubin(arch: str):
    """The build step for ``jit.compile.build``: compile for ``arch`` and publish the cubin."""

    def make(key: str, source: str, label: str, meta: dict) -> tuple[str, dict]:
        compiler = _compiler()
        source_digest = same_source.digest(_identity(arch), source)
        staging = cache.staging_dir(key)
        keep = False  # the source NVRTC rejected is kept for the bug report
        try:
            src_path = os.path.join(staging, SOURCE)
            with open(src_path, "w") as f:
                f.write(source)
            t0 = time.perf_counter()
            same = same_source.find(source_digest, source)
            if same is not None:  # an entry built from this source: its cubin, no NVRTC run
                built = same_source.adopt(staging, same, cache.CUBIN)
            else:
                try:
                    cubin, nvrtc_log = _nvrtc(source, f"{label}.cu", arch, meta.get("include_dirs", ()))
                except nvrtc.NvrtcCompileError as e:
                    keep = True
                    raise rejected_code_error("NVRTC", label, source, src_path, e.log, code="CUDA code") from None
                with open(os.path.join(staging, cache.CUBIN), "wb") as f:
                    f.write(cubin)
                built = {"compile_seconds": time.perf_counter() - t0, "resources": report_meta(nvrtc_log)}
            path, meta = cache.publish(key, staging, dict(
                meta, label=label, artifact=cache.CUBIN, arch=arch, compiler=compiler, **built))
            if same is None:
                same_source.record(source_digest, key)
            log.debug("%s: generated CUDA source %s", label, os.path.join(os.path.dirname(path), SOURCE))
            return path, meta
        except BaseException:
            if not keep:
                shutil.rmtree(staging, ignore_errors=True)
            raise

    return make

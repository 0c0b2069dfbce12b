"""The C++ toolchain: which compiler, which flags, whether OpenMP works, what ``-march=native`` means.

Detected once per compiler and CPU, and remembered in the cache root (see ``_facts``). The warm
path (``identity``) runs no compiler and imports no ``subprocess``, ``shutil`` or ``tempfile``,
nor the probes that run the compiler and read its failures (``compiler_probe``): every launch's
first key loads this module, and so pays for everything it holds.
"""

from __future__ import annotations

import functools
import hashlib
import os

from .. import config
from ..errors import ToolchainError
from . import json_text

_INSTALL_HINT = ("brickwork compiles kernels with a C++17 compiler found at run time. Install one "
                 "(Debian/Ubuntu: 'apt install g++'; Fedora: 'dnf install gcc-c++'; macOS: 'xcode-select "
                 "--install') or point $BRICKWORK_CXX (or $CXX) at it.")


class CompilerUnavailableError(ToolchainError):
    """No usable C++ compiler: none was found, or the command named does not run or does not work as one
    (the machine's setup; brickwork's own compiler failures stay plain ``ToolchainError``)."""


class CompilerSettings:
    """Flags of one compile; every field but ``pch`` is part of the cache key. (A plain class: this
    module is on the warm path, where defining a dataclass costs more than the rest of a cached
    launch.)"""

    opt_level = "-O3"
    std = "-std=c++17"
    arch = "-march=native"

    def __init__(self, cxx: str, version: str, openmp: bool, opt_level: str | None = None, std: str | None = None,
                 arch: str | None = None, extra: tuple = (), target: str = "", tuning: tuple = (),
                 pch: bool = False):
        self.cxx, self.version, self.openmp, self.extra = cxx, version, openmp, tuple(extra)
        self.pch = pch  # the compiler uses a brickwork.h.gch found next to brickwork.h (g++: see jit.pch)
        self.opt_level = opt_level or CompilerSettings.opt_level
        self.std = std or CompilerSettings.std
        self.arch = arch or CompilerSettings.arch
        self.target = target  # what ``arch`` resolves to on this machine (see ``compiler_probe.resolve_target``)
        self.tuning = tuple(tuning)  # flags for this compiler on this CPU (see ``compiler_probe.tuning_flags``)

    def command(self, source: str, output: str, include_dir: str) -> list[str]:
        # -ffp-contract=off: no fused multiply-add, so results equal numpy's bit for bit.
        # -fno-trapping-math: floating-point exceptions never trap here (nothing enables them, nothing
        # reads the flags), so g++ may evaluate both sides of a select: the scalar remainder of a
        # vector loop then has no data-dependent branch (the PLM + HLL flux over rows of 33 faces:
        # 1.04x). Values are unchanged; only the exception flags may differ.
        cmd = [self.cxx, self.opt_level, self.std, self.arch, *self.tuning, "-shared", "-fPIC", "-fno-math-errno",
               "-fno-trapping-math", "-ffp-contract=off", "-fvisibility=hidden", "-w", f"-I{include_dir}"]
        if self.openmp:
            cmd.append("-fopenmp")
        return cmd + list(self.extra) + [source, "-o", output]

    def header_command(self, header: str, output: str, include_dir: str) -> list[str]:
        """The command that precompiles ``header`` into ``output`` with the flags of ``command``
        (g++ uses a precompiled header only if the flags it was made with match)."""
        cmd = self.command(header, output, include_dir)
        cmd.remove("-shared")
        at = len(cmd) - 3
        cmd[at:at + 1] = ["-x", "c++-header", header]
        return cmd

    def identity(self) -> str:
        return (f"{self.cxx}|{self.version}|{self.openmp}|{self.opt_level}|{self.std}|{self.arch}|{self.extra}"
                f"|{self.target}|{' '.join(self.tuning)}")


def _find_compiler() -> str:
    candidates = [config.cxx] if config.cxx else ["g++", "clang++", "c++"]
    for name in candidates:
        path = _which(name) if name else None
        if path:
            return path
    tried = ", ".join(c for c in candidates if c)
    raise CompilerUnavailableError(f"no C++ compiler found (tried {tried}).{_named_by()} {_INSTALL_HINT}")


def _named_by() -> str:
    """Which setting named the compiler that was not found (the install hint's $CXX is no help when
    $BRICKWORK_CXX, which wins, is the one that is wrong)."""
    if not config.cxx:
        return ""
    source = next((f"${var}" for var in ("BRICKWORK_CXX", "CXX") if os.environ.get(var) == config.cxx),
                  "brickwork.config.cxx")
    return (f" {source} is {config.cxx!r}, which is neither a command on PATH nor the path of an executable "
            f"(a command with arguments, such as 'ccache g++', is not split): correct or unset it.")


def _which(name: str) -> str | None:
    """``shutil.which`` for POSIX systems (which the cache's file locks need anyway) without
    importing shutil and its compression modules on the warm path."""
    if os.sep in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        path = os.path.join(folder or os.curdir, name)
        # access first: it answers a missing file with False, where isfile's stat raises (and catches) an error,
        # and the folders before the compiler's own are misses, on every process's first key
        if os.access(path, os.X_OK) and os.path.isfile(path):
            return path
    return None


# -- what -march=native means on this machine ---------------------------------------------------

#: Read for the CPU's description (a module attribute so tests can point it at a fake).
CPUINFO = "/proc/cpuinfo"
_CPU_FIELDS = ("vendor_id", "cpu family", "model", "model name", "flags", "features", "cpu implementer",
               "cpu architecture", "cpu variant", "cpu part", "cpu", "isa", "uarch", "machine")


def cpu_description() -> str:
    """The first CPU of ``/proc/cpuinfo``: vendor, family, model, name and ISA flags (or features),
    without the fields that vary between cores or over time (MHz, ids, bogomips, bugs). Elsewhere,
    the machine type and processor name. No subprocess; only the first block is read."""
    try:
        with open(CPUINFO, "rb") as f:  # small reads: the kernel formats only the CPUs read
            head = f.read(8192)
            while b"\n\n" not in head and len(head) < 262144:
                more = f.read(8192)
                if not more:
                    break
                head += more
        head = head.decode("utf-8", "replace")
    except OSError:
        import platform

        return f"{platform.system()}|{platform.machine()}|{_darwin_brand()}"
    fields = []
    for line in head.split("\n\n", 1)[0].splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip().lower() in _CPU_FIELDS:
            fields.append(f"{name.strip().lower()}={' '.join(value.split())}")
    return ";".join(fields) or " ".join(head.split())


def _darwin_brand() -> str:
    """The CPU brand and feature strings from sysctl on macOS ('' elsewhere or on failure)."""
    import ctypes
    import ctypes.util
    import sys

    if sys.platform != "darwin":
        return ""
    out = []
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        for name in (b"machdep.cpu.brand_string", b"machdep.cpu.features", b"machdep.cpu.leaf7_features"):
            size = ctypes.c_size_t(0)
            if libc.sysctlbyname(name, None, ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
                continue
            buf = ctypes.create_string_buffer(size.value)
            if libc.sysctlbyname(name, buf, ctypes.byref(size), None, ctypes.c_size_t(0)) == 0:
                out.append(buf.value.decode("utf-8", "replace"))
    except (OSError, AttributeError):
        return ""
    return "|".join(out)


# -- the facts, once per compiler, CPU and cache ------------------------------------------------


class ToolchainFacts:
    """What running the compiler taught us; part of every cache key."""

    __slots__ = ("openmp", "target", "tuning", "pch")

    def __init__(self, openmp: bool, target: str, tuning: tuple = (), pch: bool = False):
        self.openmp, self.target, self.tuning, self.pch = openmp, target, tuple(tuning), pch


def _note_name(stamp: str, arch: str, cpu: str) -> str:
    return "toolchain-" + hashlib.sha256(f"{stamp}|{arch}|{cpu}".encode()).hexdigest()[:24] + ".json"


@functools.cache
def _facts(cxx: str, stamp: str, arch: str, cache_root: str) -> ToolchainFacts:
    """OpenMP support and the resolved target of the compiler ``cxx`` (identified by ``stamp``).

    Kept in a note in the cache root named after the compiler, the flag and the CPU description, so a
    warm process reads ``/proc/cpuinfo`` and one small file and runs no compiler. A note is written
    only when both answers are definite; otherwise the next process asks again."""
    from . import store

    cpu = cpu_description()
    name = _note_name(stamp, arch, cpu)
    text = store.read_note(name)
    if text is not None:
        try:
            data = json_text.loads(text)
        except ValueError:
            data = None
        tuning = data.get("tuning") if isinstance(data, dict) else None
        if (isinstance(data, dict) and isinstance(data.get("openmp"), bool) and isinstance(data.get("target"), str)
                and isinstance(tuning, list) and all(isinstance(f, str) for f in tuning)
                and isinstance(data.get("pch"), bool)):
            return ToolchainFacts(openmp=data["openmp"], target=data["target"], tuning=tuple(tuning), pch=data["pch"])
    import concurrent.futures

    from . import compiler_probe as probe

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:  # the two compiler runs overlap
        asked = pool.submit(probe.predefined_macros, cxx, arch)
        openmp = probe.probe_openmp(cxx)
        macros = asked.result()
    if macros is None:
        # Without the compiler's answer, the CPU itself goes into the key: never a wrong binary.
        return ToolchainFacts(openmp=bool(openmp), target="cpu-" + hashlib.sha256(cpu.encode()).hexdigest()[:16])
    target, tuning, pch = probe.resolve_target(macros), probe.tuning_flags(macros), probe.is_gnu(macros)
    if openmp is not None:
        import json

        from . import cache

        cache.write_note(name, json.dumps({"openmp": openmp, "target": target, "tuning": list(tuning), "pch": pch,
                                           "cpu": cpu}))
    return ToolchainFacts(openmp=bool(openmp), target=target, tuning=tuning, pch=pch)


def _compiler_facts(cache_root: str) -> tuple[str, os.stat_result, ToolchainFacts]:
    cxx = os.path.realpath(_find_compiler())
    st = os.stat(cxx)
    return cxx, st, _facts(cxx, f"{cxx}|{st.st_size}|{st.st_mtime_ns}", CompilerSettings.arch, cache_root)


@functools.cache
def _settings(cxx_override, extra, cache_root) -> CompilerSettings:
    from .compiler_probe import compiler_version

    cxx = _find_compiler()
    _, _, facts = _compiler_facts(cache_root)
    return CompilerSettings(cxx=cxx, version=compiler_version(cxx), openmp=facts.openmp, target=facts.target,
                            tuning=facts.tuning, extra=tuple(extra.split()), pch=facts.pch)


def settings() -> CompilerSettings:
    """Compiler settings for the current configuration (detected on first use)."""
    from .store import cache_root

    return _settings(config.cxx, config.extra_cflags, cache_root())


@functools.cache
def _identity(cxx_override, extra, cache_root) -> str:
    cxx, st, facts = _compiler_facts(cache_root)
    defaults = CompilerSettings(cxx=cxx, version="", openmp=facts.openmp, tuning=facts.tuning)
    return (f"{cxx}|{st.st_size}|{int(st.st_mtime)}|{' '.join(defaults.command('', '', ''))}|{extra}"
            f"|openmp={'on' if facts.openmp else 'off'}|target={facts.target}")


def identity() -> str:
    """The compiler, its flags, whether OpenMP is on and what ``-march=native`` means on this CPU,
    for cache keys. Warm: a stat of the compiler, the first block of ``/proc/cpuinfo`` and one small
    file in the cache root, once per process; the compiler runs only the first time (see ``_facts``)."""
    from .store import cache_root

    return _identity(config.cxx, config.extra_cflags, cache_root())


def include_dir() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(__file__)), "include")


#: The folders of the package whose files shape generated code: the runtime headers, typing and the
#: typing rules of extensions, builtins, IR, passes, targets, types, the loop abstraction and packs.
#: "" is the package's own modules: pipeline.py is the compiler's driver and decides what an entry's metadata holds
GENERATOR_FOLDERS = ("", "include", "frontend", "builtins", "ir", "passes", "targets", "targets/cpu", "targets/emulate",
                     "types", "lang", "la", "mesh")


@functools.cache
def generator_digest() -> str:
    """Hash of the runtime headers and of the code generator's modules (part of every cache key):
    ``tree_digest`` of this package, once per process."""
    return tree_digest(os.path.dirname(include_dir()))


def tree_digest(package: str, folders: tuple = GENERATOR_FOLDERS) -> str:
    """Hash of the names and stamps of every ``.h`` and ``.py`` file of ``folders`` under ``package``.

    A file counts by name, size and modification time (ns): one stat per file on the warm path (no file
    is read), and any edit or upgrade still rebuilds the entries it could change. Every file is stat'ed:
    an edit in place changes the file alone, not its folder, so no stamp of a folder can stand for it.
    Each folder is opened once and its files stat'ed relative to it (the kernel walks one name per stat,
    not the whole path).
    """
    stat = os.stat
    stamps = []
    for sub in folders:
        folder = os.open(f"{package}/{sub}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for name in os.listdir(folder):
                if name.endswith((".py", ".h")):
                    st = stat(name, dir_fd=folder)
                    stamps.append(f"{sub}/{name}:{st.st_size}:{st.st_mtime_ns}")
        finally:
            os.close(folder)
    stamps.sort()
    return hashlib.sha256(";".join(stamps).encode()).hexdigest()

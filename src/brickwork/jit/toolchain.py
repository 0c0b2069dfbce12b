"""The C++ toolchain: which compiler, which flags, whether OpenMP works. Detected once."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

from .. import config
from ..errors import ToolchainError

_INSTALL_HINT = ("brickwork compiles kernels with a C++17 compiler found at run time. Install one "
                 "(Debian/Ubuntu: 'apt install g++'; Fedora: 'dnf install gcc-c++'; macOS: 'xcode-select "
                 "--install') or point $CXX at it.")


@dataclass(frozen=True)
class CompilerSettings:
    """Flags of one compile; every field is part of the cache key."""

    cxx: str
    version: str
    openmp: bool
    opt_level: str = "-O3"
    std: str = "-std=c++17"
    arch: str = "-march=native"
    extra: tuple = field(default_factory=tuple)

    def command(self, source: str, output: str, include_dir: str) -> list[str]:
        # -ffp-contract=off: no fused multiply-add, so results equal numpy's bit for bit.
        cmd = [self.cxx, self.opt_level, self.std, self.arch, "-shared", "-fPIC", "-fno-math-errno",
               "-ffp-contract=off", "-fvisibility=hidden", "-w", f"-I{include_dir}"]
        if self.openmp:
            cmd.append("-fopenmp")
        return cmd + list(self.extra) + [source, "-o", output]

    def identity(self) -> str:
        return f"{self.cxx}|{self.version}|{self.openmp}|{self.opt_level}|{self.std}|{self.arch}|{self.extra}"


def _find_compiler() -> str:
    candidates = [config.cxx] if config.cxx else ["g++", "clang++", "c++"]
    for name in candidates:
        path = shutil.which(name) if name else None
        if path:
            return path
    tried = ", ".join(c for c in candidates if c)
    raise ToolchainError(f"no C++ compiler found (tried {tried}). {_INSTALL_HINT}")


def _version(cxx: str) -> str:
    try:
        out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30)
    except OSError as e:
        raise ToolchainError(f"cannot run the C++ compiler {cxx}: {e}. {_INSTALL_HINT}") from None
    return out.stdout.splitlines()[0].strip() if out.stdout else "unknown"


def _probe_openmp(cxx: str, cache_root: str) -> bool:
    """Whether ``cxx -fopenmp`` builds a shared library; the answer is cached per compiler."""
    key = hashlib.sha256(f"{cxx}|{_version(cxx)}".encode()).hexdigest()[:16]
    marker = os.path.join(cache_root, f"openmp-{key}")
    if os.path.exists(marker):
        with open(marker) as f:
            return f.read().strip() == "1"
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.cpp")
        with open(src, "w") as f:
            f.write("#include <omp.h>\nextern \"C\" int probe() { return omp_get_max_threads(); }\n")
        ok = subprocess.run([cxx, "-fopenmp", "-shared", "-fPIC", src, "-o", os.path.join(tmp, "p.so")],
                            capture_output=True).returncode == 0
    try:
        os.makedirs(cache_root, mode=0o700, exist_ok=True)
        with open(marker, "w") as f:
            f.write("1" if ok else "0")
    except OSError:
        pass
    return ok


@functools.cache
def _settings(cxx_override, extra, cache_root) -> CompilerSettings:
    cxx = _find_compiler()
    return CompilerSettings(cxx=cxx, version=_version(cxx), openmp=_probe_openmp(cxx, cache_root),
                            extra=tuple(extra.split()))


def settings() -> CompilerSettings:
    """Compiler settings for the current configuration (detected on first use)."""
    from .cache import cache_root

    return _settings(config.cxx, config.extra_cflags, cache_root())


@functools.cache
def _identity(cxx_override, extra) -> str:
    cxx = os.path.realpath(_find_compiler())
    st = os.stat(cxx)
    defaults = CompilerSettings(cxx=cxx, version="", openmp=False)
    return f"{cxx}|{st.st_size}|{int(st.st_mtime)}|{' '.join(defaults.command('', '', ''))}|{extra}"


def identity() -> str:
    """The compiler and flags, for cache keys, without running the compiler (a stat of its binary)."""
    return _identity(config.cxx, config.extra_cflags)


def include_dir() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(__file__)), "include")


@functools.cache
def generator_digest() -> str:
    """Hash of the runtime header and of the code generator's modules (part of every cache key).

    The header counts by content; the Python modules that shape generated code (typing and the
    typing rules of extensions, builtins, IR, passes, targets, types) by size and modification
    time, which costs a few stats on the warm path and still rebuilds entries after any edit or
    upgrade.
    """
    h = hashlib.sha256()
    with open(os.path.join(include_dir(), "brickwork.h"), "rb") as f:
        h.update(f.read())
    package = os.path.dirname(include_dir())
    for sub in ("frontend", "builtins", "ir", "passes", "targets", "targets/cpu", "types", "lang", "la", "mesh"):
        folder = os.path.join(package, sub)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                h.update(f"{sub}/{name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()

"""Fixtures of the kernel-cache tests: a private cache root, a fast compile, a fake compiler."""

import os
import shutil
import stat
import sys
import textwrap

import pytest

from brickwork import config
from brickwork.jit import cache, pch, toolchain
from brickwork.jit import compile as jit
from brickwork.lang import instance

#: A translation unit that compiles in a fraction of a second.
TRIVIAL = 'extern "C" int bw_test_answer() { return 42; }\n'


def new_process() -> None:
    """Forget everything brickwork remembers per process about the toolchain and the cache."""
    cache._verified.clear()
    cache._cleaned.clear()
    cache.unpin()
    toolchain._facts.cache_clear()
    toolchain._identity.cache_clear()
    toolchain._settings.cache_clear()
    pch.wait()
    pch._started.clear()
    pch._folders.clear()
    pch._intact.clear()
    pch._discarded.clear()


@pytest.fixture
def root(tmp_path, monkeypatch):
    """An empty cache root used by ``cache`` and ``compile`` for the length of one test."""
    path = tmp_path / "cache"
    monkeypatch.setattr(config, "cache_dir", str(path))
    # instances that earlier tests typed and never launched would be built with this test's first miss (a
    # miss builds every pending instance), into its cache and its count of compiler runs
    monkeypatch.setattr(instance, "_pending", [])
    new_process()
    yield path
    new_process()


@pytest.fixture
def quick_build(root, monkeypatch):
    """``build(key)``: compile TRIVIAL into the test's cache with the real compiler, no probes."""
    cxx = shutil.which("g++") or shutil.which("clang++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    fixed = toolchain.CompilerSettings(cxx=cxx, version="test", openmp=False, arch="-O0")
    monkeypatch.setattr(jit, "settings", lambda: fixed)

    def build(key: str, source: str = TRIVIAL, label: str = "t"):
        return jit.build(key, source, label, {"tid_dims": 1})

    return build


FAKE_CXX = textwrap.dedent('''
    import os, sys
    args = sys.argv[1:]
    with open(os.environ["FAKE_CXX_LOG"], "a") as log:
        log.write(" ".join(args) + "\\n")
    if "--version" in args:
        print("fakecxx 1.0")
        sys.exit(0)
    if "-dM" in args:  # the predefined macros of -march=native on the faked CPU
        if os.environ.get("FAKE_DM_FAIL"):
            sys.exit(1)
        for name in os.environ.get("FAKE_ISA", "").split():
            print(f"#define {name} 1")
        print("#define __tune_fakecpu__ 1")
        sys.exit(0)
    omp = os.environ.get("FAKE_OMP", "1")
    if "-fopenmp" in args and omp == "0":
        print("fakecxx: error: unsupported option '-fopenmp'", file=sys.stderr)
        sys.exit(1)
    if "-fopenmp" in args and omp == "enospc":
        print("fakecxx: fatal error: error writing to /tmp/ccX.s: No space left on device", file=sys.stderr)
        sys.exit(1)
    if "-fopenmp" not in args and os.environ.get("FAKE_CONTROL_FAIL"):
        sys.exit(1)
    with open(args[args.index("-o") + 1], "w") as out:
        out.write("not a library")
''')

CPU_A = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Platinum 8480+
cpu MHz\t\t: 2000.000
flags\t\t: fpu sse sse2 avx avx2 avx512f avx512bw
bugs\t\t: spectre_v1
bogomips\t: 4000.00

processor\t: 1
vendor_id\t: GenuineIntel
"""

CPU_B = CPU_A.replace("Platinum 8480+", "Gold 6130").replace(" avx512f avx512bw", "").replace("143", "85")


class FakeCompiler:
    """A compiler script whose answers come from the environment, and a faked /proc/cpuinfo."""

    def __init__(self, tmp_path, monkeypatch):
        self.monkeypatch = monkeypatch
        self.path = tmp_path / "fakecxx"
        self.path.write_text(f"#!{sys.executable}\n" + FAKE_CXX)
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR)
        self.log = tmp_path / "fakecxx.log"
        self.log.write_text("")
        self.cpuinfo = tmp_path / "cpuinfo"
        monkeypatch.setenv("FAKE_CXX_LOG", str(self.log))
        monkeypatch.setattr(config, "cxx", str(self.path))
        monkeypatch.setattr(config, "extra_cflags", "")
        monkeypatch.setattr(toolchain, "CPUINFO", str(self.cpuinfo))
        self.cpu(CPU_A, "__SSE2__ __AVX2__ __AVX512F__")

    def cpu(self, text: str, isa: str) -> None:
        """Run on another (faked) CPU from now on: its /proc/cpuinfo and what -march=native means."""
        self.cpuinfo.write_text(text)
        self.monkeypatch.setenv("FAKE_ISA", isa)

    def calls(self, flag: str) -> int:
        """How many times the compiler was run with ``flag``."""
        return sum(flag in line.split() for line in self.log.read_text().splitlines())

    def notes(self, root) -> list:
        return sorted(n for n in os.listdir(root) if n.startswith("toolchain-")) if os.path.isdir(root) else []


@pytest.fixture
def fake_cxx(root, tmp_path, monkeypatch):
    return FakeCompiler(tmp_path, monkeypatch)

"""The compiler identity in every cache key: the CPU -march=native resolves to, and OpenMP on/off."""

import errno
import os
import shutil
import subprocess
import tempfile

import pytest

from brickwork.jit import toolchain

from .conftest import CPU_A, CPU_B, new_process


def _fields(identity: str) -> dict:
    return dict(part.split("=", 1) for part in identity.split("|") if part.startswith(("openmp=", "target=")))


# -- 2. -march=native is resolved into the key --------------------------------------------------


def test_two_cpus_give_two_identities_and_the_same_cpu_the_same(fake_cxx, root):
    on_a = toolchain.identity()
    assert _fields(on_a)["target"].startswith("fakecpu/")
    assert fake_cxx.calls("-dM") == 1

    new_process()  # a node without AVX-512 sharing the home directory
    fake_cxx.cpu(CPU_B, "__SSE2__ __AVX2__")
    on_b = toolchain.identity()
    assert on_b != on_a
    assert _fields(on_b)["target"] != _fields(on_a)["target"]
    assert fake_cxx.calls("-dM") == 2

    new_process()  # back on the first kind of node: the remembered answer, no compiler run
    fake_cxx.cpu(CPU_A, "__WOULD_BE_WRONG_IF_ASKED__")
    assert toolchain.identity() == on_a
    assert fake_cxx.calls("-dM") == 2
    assert len(fake_cxx.notes(root)) == 2

    new_process()
    fake_cxx.cpu(CPU_B, "__WOULD_BE_WRONG_IF_ASKED__")
    assert toolchain.identity() == on_b
    assert fake_cxx.calls("-dM") == 2


def test_same_isa_on_another_cpu_model_shares_the_key(fake_cxx, root):
    """The key holds what the compiler will use, not the CPU's name: same macros, same key."""
    on_a = toolchain.identity()
    new_process()
    fake_cxx.cpu(CPU_A.replace("Platinum 8480+", "Platinum 8490H"), "__SSE2__ __AVX2__ __AVX512F__")
    assert toolchain.identity() == on_a
    assert fake_cxx.calls("-dM") == 2  # asked, because the CPU description changed


GCC12_AVX512 = ["#define __GNUC__ 12", "#define __AVX512F__ 1", "#define __x86_64__ 1"]


@pytest.mark.parametrize("macros, flags", [
    (GCC12_AVX512, ("-mprefer-vector-width=512", "--param", "sccvn-max-alias-queries-per-access=100")),
    (["#define __GNUC__ 12", "#define __AVX2__ 1"], ("--param", "sccvn-max-alias-queries-per-access=100")),
    (GCC12_AVX512 + ["#define __clang__ 1"], ()),  # clang defines __GNUC__ 4 too, and has no such flags
    (["#define __GNUC__ 7", "#define __AVX512F__ 1"], ()),  # older than the flags
    (["#define __AVX512F__ 1"], ()),
])
def test_tuning_flags_follow_the_compiler_and_the_cpu(macros, flags):
    assert toolchain.tuning_flags(sorted(macros)) == flags


def test_a_note_without_tuning_flags_is_asked_again(fake_cxx, root):
    fake_cxx.cpu(CPU_A, "__GNUC__ __AVX512F__")  # the fake prints value 1: "g++ 1", too old for the flags
    old = toolchain.identity()
    assert "-mprefer-vector-width" not in toolchain.settings().command("s", "o", "i")
    note = root / fake_cxx.notes(root)[0]
    text = note.read_text()
    assert '"tuning": []' in text
    # a note written before tuning flags existed is asked again, not trusted without them
    note.write_text(text.replace(', "tuning": []', ""))
    new_process()
    assert toolchain.identity() == old
    assert fake_cxx.calls("-dM") == 2
    assert '"tuning": []' in note.read_text()


def test_real_gcc_on_avx512_compiles_with_full_width_vectors(root, monkeypatch):
    cxx = shutil.which("g++")
    macros = toolchain.predefined_macros(cxx, "-march=native") if cxx else None
    if not macros or toolchain.tuning_flags(macros) == ():
        pytest.skip("needs g++ 8 or later")
    monkeypatch.setattr(toolchain.config, "cxx", cxx)
    monkeypatch.setattr(toolchain.config, "extra_cflags", "")
    cmd = toolchain.settings().command("s.cpp", "o.so", "inc")
    assert ("-mprefer-vector-width=512" in cmd) == any(m.split()[1] == "__AVX512F__" for m in macros)
    assert cmd[cmd.index("--param") + 1] == "sccvn-max-alias-queries-per-access=100"
    assert "|".join(toolchain.tuning_flags(macros)) in toolchain.identity().replace(" ", "|")


def test_without_the_compilers_answer_the_cpu_itself_is_keyed(fake_cxx, root, monkeypatch):
    monkeypatch.setenv("FAKE_DM_FAIL", "1")
    on_a = toolchain.identity()
    assert _fields(on_a)["target"].startswith("cpu-")
    new_process()
    fake_cxx.cpu(CPU_B, "")
    on_b = toolchain.identity()
    assert on_b != on_a
    new_process()
    fake_cxx.cpu(CPU_A, "")
    assert toolchain.identity() == on_a
    assert fake_cxx.notes(root) == []  # not remembered: the compiler is asked again next time
    assert fake_cxx.calls("-dM") == 3


def test_cpu_description_ignores_what_varies_between_cores_and_over_time(tmp_path, monkeypatch):
    cpuinfo = tmp_path / "cpuinfo"
    monkeypatch.setattr(toolchain, "CPUINFO", str(cpuinfo))
    cpuinfo.write_text(CPU_A)
    a = toolchain.cpu_description()
    assert a == ("vendor_id=GenuineIntel;cpu family=6;model=143;model name=Intel(R) Xeon(R) Platinum 8480+;"
                 "flags=fpu sse sse2 avx avx2 avx512f avx512bw")
    cpuinfo.write_text(CPU_A.replace("2000.000", "3100.512").replace("4000.00", "6200.00")
                       .replace("spectre_v1", "spectre_v1 retbleed"))
    assert toolchain.cpu_description() == a
    cpuinfo.write_text(CPU_B)
    assert toolchain.cpu_description() != a
    arm = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd sve\nCPU implementer\t: 0x41\nCPU part\t: 0xd40\n"
    cpuinfo.write_text(arm)
    assert toolchain.cpu_description() == "features=fp asimd sve;cpu implementer=0x41;cpu part=0xd40"


def test_real_compiler_warm_identity_runs_nothing(root, monkeypatch):
    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    monkeypatch.setattr(toolchain.config, "cxx", cxx)
    monkeypatch.setattr(toolchain.config, "extra_cflags", "")
    cold = toolchain.identity()
    assert _fields(cold)["openmp"] in ("on", "off") and _fields(cold)["target"]
    assert [n for n in os.listdir(root) if n.startswith("toolchain-")]
    new_process()

    def no_compiler(*args, **kwargs):
        raise AssertionError("the compiler ran on the warm path")

    monkeypatch.setattr(subprocess, "run", no_compiler)
    assert toolchain.identity() == cold


# -- 3. OpenMP: failures of the machine are not remembered, and on/off is in the key ------------


def test_openmp_probe_that_failed_for_lack_of_disk_is_retried(fake_cxx, root, monkeypatch):
    monkeypatch.setenv("FAKE_OMP", "enospc")
    assert toolchain.probe_openmp(str(fake_cxx.path)) is None
    first = toolchain.identity()
    assert _fields(first)["openmp"] == "off"
    assert toolchain.settings().openmp is False  # the build agrees with its key
    assert "-fopenmp" not in toolchain.settings().command("s", "o", "i")
    assert fake_cxx.notes(root) == []

    new_process()  # space freed: the next process probes again
    monkeypatch.setenv("FAKE_OMP", "1")
    second = toolchain.identity()
    assert _fields(second)["openmp"] == "on"
    assert second != first  # a single-threaded build never shares a key with an OpenMP build
    assert toolchain.settings().openmp is True
    assert "-fopenmp" in toolchain.settings().command("s", "o", "i")
    assert len(fake_cxx.notes(root)) == 1


def test_openmp_probe_that_cannot_make_its_temporary_directory_is_retried(fake_cxx, root, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/tmp")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", full)
    assert toolchain.probe_openmp(str(fake_cxx.path)) is None
    assert _fields(toolchain.identity())["openmp"] == "off"
    assert fake_cxx.notes(root) == []


def test_a_compiler_without_openmp_is_remembered_and_keyed(fake_cxx, root, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_OMP", "0")
    assert toolchain.probe_openmp(str(fake_cxx.path)) is False
    without = toolchain.identity()
    assert _fields(without)["openmp"] == "off"
    assert len(fake_cxx.notes(root)) == 1
    probes = fake_cxx.calls("-fopenmp")

    new_process()  # remembered: no probe in the next process
    assert toolchain.identity() == without
    assert fake_cxx.calls("-fopenmp") == probes

    new_process()  # the same compiler with OpenMP (another cache) has another key
    monkeypatch.setattr(toolchain.config, "cache_dir", str(tmp_path / "other-cache"))
    monkeypatch.setenv("FAKE_OMP", "1")
    with_openmp = toolchain.identity()
    assert _fields(with_openmp)["openmp"] == "on"
    assert with_openmp != without


def test_openmp_failure_whose_control_build_fails_too_is_the_machines(fake_cxx, monkeypatch):
    monkeypatch.setenv("FAKE_OMP", "0")
    monkeypatch.setenv("FAKE_CONTROL_FAIL", "1")
    assert toolchain.probe_openmp(str(fake_cxx.path)) is None


@pytest.mark.parametrize("stderr, cause", [
    ("x.cpp:1:1: error: 'foo' was not declared in this scope", None),
    ("/usr/bin/ld: final link failed: No space left on device", "/usr/bin/ld: final link failed: No space left on "
                                                                "device"),
    ("cc1plus: fatal error: cannot create temporary file: Read-only file system",
     "cc1plus: fatal error: cannot create temporary file: Read-only file system"),
    ("g++: fatal error: Killed signal terminated program cc1plus", "g++: fatal error: Killed signal terminated "
                                                                   "program cc1plus"),
])
def test_environment_cause(stderr, cause):
    assert toolchain.environment_cause(1, stderr) == cause

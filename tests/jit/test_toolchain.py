"""The compiler identity in every cache key: the CPU -march=native resolves to, and OpenMP on/off."""

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import brickwork as wp
from brickwork.jit import cache, compiler_probe, toolchain
from brickwork.jit import compile as jit

from .conftest import CPU_A, CPU_B, TRIVIAL, new_process


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
    assert compiler_probe.tuning_flags(sorted(macros)) == flags


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
    macros = compiler_probe.predefined_macros(cxx, "-march=native") if cxx else None
    if not macros or compiler_probe.tuning_flags(macros) == ():
        pytest.skip("needs g++ 8 or later")
    monkeypatch.setattr(toolchain.config, "cxx", cxx)
    monkeypatch.setattr(toolchain.config, "extra_cflags", "")
    cmd = toolchain.settings().command("s.cpp", "o.so", "inc")
    assert ("-mprefer-vector-width=512" in cmd) == any(m.split()[1] == "__AVX512F__" for m in macros)
    assert cmd[cmd.index("--param") + 1] == "sccvn-max-alias-queries-per-access=100"
    assert "|".join(compiler_probe.tuning_flags(macros)) in toolchain.identity().replace(" ", "|")


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


def test_a_process_whose_kernels_are_cached_does_not_load_the_compiler_probes(tmp_path):
    """``compiler_probe`` runs the compiler and reads its failures: a warm process, which does neither, does
    not pay for loading it (every module the first launch loads is part of the warm load's time)."""
    if shutil.which("g++") is None and shutil.which("clang++") is None:
        pytest.skip("no C++ compiler")
    script = tmp_path / "script.py"
    script.write_text(
        "import json, sys\n"
        "import brickwork as wp\n\n"
        "@wp.kernel\n"
        "def add_one(x: wp.array(dtype=float)):\n"
        "    i = wp.tid()\n"
        "    x[i] = x[i] + 1.0\n\n"
        "x = wp.zeros(3, dtype=wp.float32)\n"
        "wp.launch(add_one, dim=3, inputs=[x])\n"
        "print(json.dumps({'x': x.numpy().tolist(), 'probes': 'brickwork.jit.compiler_probe' in sys.modules}))\n")
    env = {k: v for k, v in os.environ.items() if k != "BRICKWORK_LOG"}
    env["BRICKWORK_CACHE_DIR"] = str(tmp_path / "cache")

    def run() -> dict:
        out = subprocess.run([sys.executable, str(script)], env=env, check=True, capture_output=True, text=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    assert run() == {"x": [1.0, 1.0, 1.0], "probes": True}  # cold: the compiler was asked
    assert run() == {"x": [1.0, 1.0, 1.0], "probes": False}


# -- 3. OpenMP: failures of the machine are not remembered, and on/off is in the key ------------


def test_openmp_probe_that_failed_for_lack_of_disk_is_retried(fake_cxx, root, monkeypatch):
    monkeypatch.setenv("FAKE_OMP", "enospc")
    assert compiler_probe.probe_openmp(str(fake_cxx.path)) is None
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
    assert compiler_probe.probe_openmp(str(fake_cxx.path)) is None
    assert _fields(toolchain.identity())["openmp"] == "off"
    assert fake_cxx.notes(root) == []


def test_a_compiler_without_openmp_is_remembered_and_keyed(fake_cxx, root, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_OMP", "0")
    assert compiler_probe.probe_openmp(str(fake_cxx.path)) is False
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
    assert compiler_probe.probe_openmp(str(fake_cxx.path)) is None


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
    assert compiler_probe.environment_cause(1, stderr) == cause


# -- AVX512-FP16 code the assembler rejects ---------------------------------------------------------

VMOVSH = "/tmp/ccTk.s: Assembler messages:\n/tmp/ccTk.s:70: Error: unsupported masking for `vmovsh'\n"


@pytest.mark.parametrize("stderr, flags", [
    (VMOVSH, ("-mno-avx512fp16",)),
    ("/tmp/a.s:9: Error: unsupported masking for `vmulph'", ("-mno-avx512fp16",)),
    ("/tmp/a.s:9: Error: unsupported instruction `vmovw'", ("-mno-avx512fp16",)),
    ("/tmp/a.s:9: Error: unsupported masking for `vmovss'", ()),  # not an FP16 instruction
    ("x.cpp:1:1: error: 'vmovsh' was not declared in this scope", ()),  # the code's own error
])
def test_assembler_fallback(stderr, flags):
    assert compiler_probe.assembler_fallback(stderr) == flags


def _assembler_rejecting_fp16(monkeypatch, marker: str = ""):
    """Compiler runs fail as binutils fails g++ 12's masked ``vmovsh`` (for units that hold ``marker``), unless
    they pass ``-mno-avx512fp16`` (which is then dropped: any g++ or clang++ runs the test)."""
    real = subprocess.run

    def run(cmd, **kwargs):
        with open(cmd[cmd.index("-o") - 1]) as f:
            rejected = marker in f.read()
        if "-mno-avx512fp16" in cmd:
            cmd = [a for a in cmd if a != "-mno-avx512fp16"]
        elif rejected:
            return subprocess.CompletedProcess(cmd, 1, "", VMOVSH)
        return real(cmd, **kwargs)

    monkeypatch.setattr(jit.subprocess, "run", run)


def test_a_unit_the_assembler_rejects_for_fp16_is_built_without_it(quick_build, root, monkeypatch):
    _assembler_rejecting_fp16(monkeypatch)
    before = jit.compiler_calls
    lib, meta = quick_build("ab" + "c" * 38, label="k[float16]")
    assert jit.compiler_calls == before + 2
    assert meta["added_flags"] == ["-mno-avx512fp16"] and cache.lookup("ab" + "c" * 38) == (lib, meta)


def test_in_a_batch_only_the_rejected_instance_loses_fp16(quick_build, root, monkeypatch):
    _assembler_rejecting_fp16(monkeypatch, marker="bw_test_half")
    jobs = [("a" * 40, TRIVIAL, "good", {"tid_dims": 1}),
            ("b" * 40, TRIVIAL.replace("answer", "half"), "half", {"tid_dims": 1})]
    with toolchain.config.override(compile_batch=8, compile_jobs=1):
        good, half = jit.compile_many(jobs)
    assert "added_flags" not in good[1] and half[1]["added_flags"] == ["-mno-avx512fp16"]


@wp.kernel
def f16_select_clamp(b: wp.array(dtype=wp.float16), c: wp.array(dtype=wp.float16),
                     out: wp.array(dtype=wp.float16, ndim=2)):
    i = wp.tid()
    out[i, 0] = wp.floor(wp.where(wp.radians(c[i]) < wp.float16(1.0), wp.float16(1.0), wp.float16(0.0)))
    out[i, 1] = wp.exp(wp.clamp(c[i], b[i], wp.float16(2.0)))


def test_float16_select_and_clamp_builds_and_gives_warps_values(root):
    """On a CPU with AVX512-FP16 g++ 12 assembled this kernel into a ``vmovsh`` binutils rejects ("a
    brickwork bug"); it builds, with Warp's values: each operation rounded to float16."""
    b = np.array([0.5, -1, 3, 0], dtype=np.float16)
    c = np.array([1.5, 0.2, -3, 10], dtype=np.float16)
    out = wp.zeros((4, 2), dtype=wp.float16)
    wp.launch(f16_select_clamp, dim=4, inputs=[wp.array(b, dtype=wp.float16), wp.array(c, dtype=wp.float16), out])
    h = np.float16
    radians = (c.astype(np.float32) * np.float32(np.pi / 180)).astype(h)
    clamped = np.minimum(np.maximum(c, b), h(2.0))  # Warp: min(max(x, lo), hi)
    expected = np.stack([np.where(radians < h(1.0), h(1.0), h(0.0)), np.exp(clamped.astype(np.float32)).astype(h)], 1)
    np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(out.numpy(), np.array([[1, 4.48], [1, 1.222], [1, 7.39], [1, 7.39]], dtype=h))

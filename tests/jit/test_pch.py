"""The precompiled runtime header (``jit.pch``): built once per cache in the background, read by g++
in place of ``brickwork.h``, and never a cause of a wrong or failed build."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit import cache, compiler_probe, pch, toolchain

from .conftest import new_process

GCC_MACROS = ["#define __GNUC__ 12", "#define __x86_64__ 1"]
CLANG_MACROS = ["#define __GNUC__ 4", "#define __clang__ 1"]


@wp.kernel
def add_one(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] + wp.float64(1.0)


@wp.kernel
def times_three(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * wp.float64(3.0)


@wp.kernel
def minus_two(a: wp.array(dtype=wp.float64)):  # launched by one test only: it compiles there
    i = wp.tid()
    a[i] = a[i] - wp.float64(2.0)


@pytest.fixture(autouse=True)
def _each_kernel_at_its_own_launch():
    """A kernel compiles in the test that launches it (into that test's cache), not as another's companion."""
    with config.override(compile_module=False):
        yield


def _gnu_settings():
    s = toolchain.settings()
    if not s.pch:
        pytest.skip("the compiler is not g++: it reads no precompiled brickwork.h.gch")
    return s


def _launch(kernel, values):
    a = wp.array(np.array(values, dtype=np.float64))
    wp.launch(kernel, dim=len(values), inputs=[a])
    return a.numpy()


def test_only_gnu_compilers_use_the_precompiled_header():
    assert compiler_probe.is_gnu(GCC_MACROS)
    assert not compiler_probe.is_gnu(CLANG_MACROS)
    assert not compiler_probe.is_gnu(["#define __x86_64__ 1"])


def test_units_read_the_precompiled_header_once_it_is_built(root):
    s = _gnu_settings()
    assert pch.include_dir(s) == toolchain.include_dir()  # not built yet: the package's headers
    np.testing.assert_array_equal(_launch(add_one, [1.0, 2.0]), [2.0, 3.0])
    pch.wait()
    folder = pch.folder_for(s)
    assert os.path.dirname(folder) == str(root) and pch.include_dir(s) == folder
    for name in os.listdir(toolchain.include_dir()):
        if name.endswith(".h"):
            with open(os.path.join(folder, name), "rb") as a, open(os.path.join(toolchain.include_dir(), name), "rb") as b:
                assert a.read() == b.read(), name
    # g++ -H marks a precompiled header it reads with "!" (and one it rejects with "x")
    unit = root / "unit.cpp"
    unit.write_text('#include "brickwork.h"\nextern "C" int f() { return 1; }\n')
    cmd = s.command(str(unit), str(root / "unit.so"), folder) + ["-H"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"! {folder}/brickwork.h.gch" in proc.stderr.splitlines()
    np.testing.assert_array_equal(_launch(times_three, [1.0, 2.0]), [3.0, 6.0])  # built with it


def test_switched_off_or_another_compiler_reads_the_package_headers(root, monkeypatch):
    s = _gnu_settings()
    monkeypatch.setattr(config, "pch", False)
    assert pch.include_dir(s) == toolchain.include_dir()
    monkeypatch.setattr(config, "pch", True)
    clang = toolchain.CompilerSettings(cxx=s.cxx, version=s.version, openmp=s.openmp, pch=False)
    assert pch.include_dir(clang) == toolchain.include_dir()
    pch.wait()
    assert not [n for n in os.listdir(root) if n.startswith("pch-")] if root.exists() else True


def _damage(folder, names=("brickwork.h.gch",)):
    for name in names:
        os.chmod(os.path.join(folder, name), 0o600)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(b"junk")


def _rebuilt(folder) -> bool:
    """Whether ``folder`` holds a fresh precompiled header (after the rebuild ``pch`` started)."""
    pch.wait()
    new_process()
    return pch._matches_stamp(folder) and os.path.getsize(os.path.join(folder, "brickwork.h.gch")) > 1000


@pytest.mark.parametrize("names", [("brickwork.h.gch",), ("brickwork.h", "brickwork.h.gch", "brickwork_noise.h")])
def test_a_damaged_folder_is_set_aside_and_built_again(root, names):
    """Files changed since the build (overwritten with junk: every compile failed, "a brickwork bug")
    no longer match the stamp: the first compile sets the folder aside, reads the package's headers and
    starts a new build."""
    s = _gnu_settings()
    folder = pch.folder_for(s)
    assert pch.build(s, folder) and pch.include_dir(s) == folder
    new_process()
    _damage(folder, names)
    assert pch.include_dir(s) == toolchain.include_dir()
    np.testing.assert_array_equal(_launch(add_one, [5.0]), [6.0])
    assert _rebuilt(folder) and pch.include_dir(s) == folder
    assert [n for n in os.listdir(root) if ".damaged-" in n] == []


def test_a_folder_without_a_stamp_is_built_again(root):
    """Made by an older brickwork, or damaged in a way its files cannot tell."""
    s = _gnu_settings()
    folder = pch.folder_for(s)
    assert pch.build(s, folder)
    new_process()
    os.unlink(os.path.join(folder, pch.STAMP))
    assert pch.include_dir(s) == toolchain.include_dir()
    assert _rebuilt(folder)


def test_a_unit_that_fails_against_the_folder_is_compiled_without_it_and_the_folder_rebuilt(root):
    """Damage the stamp does not show (the stamp rewritten to match the junk): the unit fails with the
    folder, compiles with the package's headers, and the folder is set aside and built again."""
    s = _gnu_settings()
    folder = pch.folder_for(s)
    assert pch.build(s, folder)
    new_process()
    _damage(folder, ("brickwork.h", "brickwork.h.gch"))
    os.unlink(os.path.join(folder, pch.STAMP))
    pch._write_stamp(folder)
    assert pch.include_dir(s) == folder
    np.testing.assert_array_equal(_launch(minus_two, [1.0, 2.0]), [-1.0, 0.0])
    pch.include_dir(s)  # as the next compile does: builds it again, if no compile of the launch did
    assert _rebuilt(folder)
    with open(os.path.join(folder, "brickwork.h"), "rb") as a, open(os.path.join(toolchain.include_dir(),
                                                                                "brickwork.h"), "rb") as b:
        assert a.read() == b.read()


def test_one_process_builds_and_a_dead_builders_folder_is_taken_over(root):
    s = _gnu_settings()
    folder = pch.folder_for(s)
    cache.ensure_root(str(root))
    os.mkdir(folder + ".building", 0o700)  # another process is building it
    assert not pch.build(s, folder)
    assert not os.path.exists(folder) and os.path.isdir(folder + ".building")
    old = time.time() - pch.STALE_SECONDS - 10
    os.utime(folder + ".building", (old, old))  # ... and died long ago
    assert pch.build(s, folder)
    assert pch.include_dir(s) == folder and not os.path.exists(folder + ".building")
    assert not pch.build(s, folder)  # published: a second build changes nothing
    assert pch.include_dir(s) == folder


def test_clear_removes_the_precompiled_folders(root):
    s = _gnu_settings()
    assert pch.build(s, pch.folder_for(s))
    cache.clear()
    new_process()
    assert not root.exists()


def test_a_folder_others_can_write_is_refused(root):
    s = _gnu_settings()
    folder = pch.folder_for(s)
    assert pch.build(s, folder)
    new_process()
    os.chmod(folder, 0o777)
    with pytest.raises(cache.UnsafeCacheError, match="pch-"):
        pch.include_dir(s)


def test_a_process_whose_one_compile_started_the_build_publishes_it_before_it_exits(tmp_path):
    if not toolchain.settings().pch:
        pytest.skip("the compiler is not g++: it reads no precompiled brickwork.h.gch")
    script = tmp_path / "one_kernel.py"
    script.write_text(
        "import numpy as np\nimport brickwork as wp\n\n"
        "@wp.kernel\ndef k(a: wp.array(dtype=wp.float64)):\n    i = wp.tid()\n    a[i] = a[i] + wp.float64(2.0)\n\n"
        "a = wp.array(np.zeros(3))\nwp.launch(k, dim=3, inputs=[a])\nassert (a.numpy() == 2.0).all()\n")
    cache_dir = tmp_path / "cache"
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(cache_dir))
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    names = os.listdir(cache_dir)
    folders = [n for n in names if n.startswith("pch-")]
    assert len(folders) == 1 and not folders[0].endswith(".building"), names
    assert os.path.isfile(cache_dir / folders[0] / "brickwork.h.gch")

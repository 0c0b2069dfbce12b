"""A "compiler" that exits 0 without making a shared library (no output, junk, a truncated library) is
refused as no C++ compiler (``CompilerUnavailableError``, naming the command and what it wrote), before
the cache publishes anything: not blamed on a concurrent ``brickwork cache clear``, no bare ``OSError``
from the loader, and no entry left behind to fail every later run."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from brickwork.jit.compile import _not_a_library

from .test_cache import SRC

PROBE = """
import json
import numpy as np
import brickwork as wp
@wp.kernel
def k(a: wp.array(dtype=wp.float64)):
    a[wp.tid()] = wp.float64(2.0)
try:
    wp.launch(k, dim=1, inputs=[np.zeros(1)])
    print(json.dumps(["ran"]))
except Exception as e:
    print(json.dumps([type(e).__name__, isinstance(e, wp.ToolchainError), str(e)]))
"""

#: Fake compilers: each writes what ``-o`` names (or nothing), and exits 0.
FAKES = {
    "silent": 'echo "junk output $@" | head -c 200\necho "more junk" >&2\n',
    "text": 'printf "not an ELF" > "$out"\n',
    "truncated": '"$REAL_CXX" "$@" || exit $?\n[ -n "$out" ] && truncate -s 200 "$out"\n',
}
WHAT = {"silent": "wrote no shared library at ", "text": "is not a shared library (10 bytes starting b'not an E')",
        "truncated": "is a truncated or damaged shared library (200 bytes)"}


def _fake(tmp_path, kind):
    path = tmp_path / f"{kind}cxx.sh"
    path.write_text('#!/bin/sh\nout=""\nprev=""\nfor a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done\n'
                    + FAKES[kind])
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("kind", sorted(FAKES))
def test_a_compiler_that_makes_no_library_is_refused_and_leaves_no_entry(tmp_path, kind):
    real = shutil.which("g++") or shutil.which("clang++")
    if kind == "truncated" and (real is None or not sys.platform.startswith("linux")):
        pytest.skip("needs a real compiler making ELF libraries")
    script = tmp_path / "probe.py"  # a file: kernels need their source
    script.write_text(PROBE)
    cache = tmp_path / "cache"
    cxx = _fake(tmp_path, kind)
    env = dict(os.environ, PYTHONPATH=SRC, BRICKWORK_CACHE_DIR=str(cache), BRICKWORK_CXX=cxx, REAL_CXX=real or "")
    for _ in range(2):  # the second run finds no entry of the first: it fails the same way
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        name, toolchain, message = json.loads(out.stdout.splitlines()[-1])
        assert (name, toolchain) == ("CompilerUnavailableError", True)
        assert message.startswith(f"cannot compile k: the C++ compiler {cxx} exited with status 0 but ")
        assert WHAT[kind] in message
        assert message.endswith("it does not work as a C++ compiler (point BRICKWORK_CXX or CXX at g++ or clang++)")
        assert not list(cache.glob("*/*/kernel.so")) and not list(cache.glob("*/*/meta.json"))
        assert not list(cache.glob(".build-*"))  # the staging folder went too


def test_the_library_check_accepts_a_real_library_and_refuses_others(tmp_path):
    real = shutil.which("g++") or shutil.which("clang++")
    if real is None:
        pytest.skip("needs a C++ compiler")
    src = tmp_path / "x.cpp"
    src.write_text('extern "C" int f() { return 1; }\n')
    lib = tmp_path / "x.so"
    subprocess.run([real, "-shared", "-fPIC", str(src), "-o", str(lib)], check=True)
    assert _not_a_library(str(lib)) is None
    obj = tmp_path / "x.o"
    subprocess.run([real, "-c", "-fPIC", str(src), "-o", str(obj)], check=True)
    if sys.platform.startswith("linux"):
        assert _not_a_library(str(obj)) == f"{obj} is an ELF file of type 1, not a shared library"
    (tmp_path / "link.so").symlink_to(lib)
    assert _not_a_library(str(tmp_path / "link.so")) == f"wrote no shared library at {tmp_path / 'link.so'}"
    (tmp_path / "empty.so").write_bytes(b"")
    assert _not_a_library(str(tmp_path / "empty.so")) == f"{tmp_path / 'empty.so'} is not a shared library (0 bytes starting b'')"

"""BRICKWORK_CFLAGS that keep kernels from loading are named (attacker round 19, lead 2).

A sanitizer whose runtime must be preloaded is refused before a kernel is loaded: BRICKWORK_CFLAGS=-fsanitize=address compiled the kernel and its dlopen ended the process
("ASan runtime does not come first in initial library list", status 1, no exception: a notebook's kernel
dies); -fsanitize=thread and -fsanitize=leak were a bare OSError ("cannot allocate memory in static TLS
block"). Now a SettingError names the flag and the LD_PRELOAD that makes it work (checked: with
LD_PRELOAD=$(g++ -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 the kernel runs).

A flag that stops the compiler before it links (-E, -fsyntax-only, -c) made 'the C++ compiler /usr/bin/g++ exited
with status 0 but wrote no shared library ...; it does not work as a C++ compiler': the compiler was blamed for
the setting's doing. The message now names BRICKWORK_CFLAGS and such flags.
"""

import json
import os
import subprocess
import sys

import pytest
from tests.jit.test_broken_compiler import PROBE
from tests.jit.test_cache import SRC

from brickwork import config
from brickwork.config import SettingError
from brickwork.jit.sanitizers import runtime_problem
from brickwork.jit.toolchain import settings
from brickwork.targets.cpu import CpuTarget


@pytest.mark.parametrize("cflags, name, library, outcome", [
    ("-fsanitize=address", "address", "libasan.so", "ends the process"),
    ("-O2 -fsanitize=undefined,thread", "thread", "libtsan.so", "fails"),
    ("-fsanitize=leak", "leak", "liblsan.so", "fails"),
])
def test_a_sanitizer_whose_runtime_is_not_loaded_is_refused_before_the_load(monkeypatch, tmp_path, cflags, name,
                                                                             library, outcome):
    monkeypatch.setattr(config, "extra_cflags", cflags)
    missing = tmp_path / "kernel.so"  # never opened: the refusal comes first (else OSError: no such file)
    with pytest.raises(SettingError) as e:
        CpuTarget().load(str(missing), {})
    cxx = settings().cxx
    assert str(e.value) == (f"BRICKWORK_CFLAGS={cflags!r} builds kernels with -fsanitize={name}, whose runtime must "
                            f"be loaded when the program starts, before any other library; loaded with a kernel it "
                            f"{outcome}. Run Python under LD_PRELOAD=$({cxx} -print-file-name={library}), or leave "
                            f"-fsanitize={name} out of BRICKWORK_CFLAGS")


@pytest.mark.parametrize("cflags", ["", "-O2", "-fsanitize=undefined", "-fno-sanitize=address", "-fsanitize-recover"])
def test_flags_that_need_no_preloaded_runtime_pass(cflags):
    assert runtime_problem(cflags) is None


@pytest.mark.parametrize("flag, what", [("-fsyntax-only", "wrote no shared library at "),
                                        ("-E", "is not a shared library (")])
def test_a_flag_that_stops_before_linking_is_named_not_the_compiler(tmp_path, flag, what):
    script = tmp_path / "probe.py"  # a file: kernels need their source
    script.write_text(PROBE)
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=SRC, BRICKWORK_CACHE_DIR=str(cache), BRICKWORK_CFLAGS=flag)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    name, toolchain, message = json.loads(out.stdout.splitlines()[-1])
    assert (name, toolchain) == ("CompilerUnavailableError", True)
    assert " exited with status 0 but " in message and what in message
    assert message.endswith(f"; BRICKWORK_CFLAGS adds {flag!r} to its command: a flag there that stops before linking "
                            f"(-E, -S, -c, -fsyntax-only) makes no library; unset it first to see whether it is the "
                            f"cause, else the compiler does not work as one (point BRICKWORK_CXX or CXX at g++ or "
                            f"clang++)")
    assert not list(cache.glob("*/*/kernel.so"))

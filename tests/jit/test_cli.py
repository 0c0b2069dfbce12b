"""The ``brickwork`` command and the machine's setup: an invalid ``BRICKWORK_*`` value, an unsafe or
unwritable kernel cache, or no working compiler ends ``run`` with one line and a non-zero status; ``info``
reports such a value instead of failing. A compiler that rejects generated code stays a traceback."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from brickwork import cli, config
from brickwork.errors import ToolchainError
from brickwork.jit import cache, toolchain

from .test_cache import SRC

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SOD = os.path.join(ROOT, "examples", "sod.toml")


def brickwork(tmp_path, *args, **env):
    env = {**os.environ, "PYTHONPATH": SRC, "BRICKWORK_CACHE_DIR": str(tmp_path / "cache"), **env}
    return subprocess.run([sys.executable, "-m", "brickwork.cli", *args], capture_output=True, text=True, env=env,
                          timeout=600)


def one_line(err: str) -> str:
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize(("error", "code"), [
    (config.SettingError("environment variable BRICKWORK_MODE='fast' must be one of release, debug"), 2),
    (cache.UnsafeCacheError("refusing to use kernel cache /c: it must be owned by you"), 1),
    (cache.BuildEnvironmentError("cannot compile k: read-only file system (/c)"), 1),
    (cache.CacheChangedError("k", "/c/.build-x"), 1),
    (toolchain.CompilerUnavailableError("no C++ compiler found (tried g++)"), 1),
])
def test_setup_errors_are_one_line(capsys, error, code):
    def fail():
        raise error

    assert cli._hydro_errors(fail) == code
    assert capsys.readouterr().err == f"brickwork: error: {error}\n"


def test_a_compiler_rejecting_generated_code_stays_a_traceback():
    def fail():
        raise ToolchainError("internal error: the C++ compiler rejected the code generated for k. This is a "
                             "brickwork bug")

    with pytest.raises(ToolchainError, match="brickwork bug"):
        cli._hydro_errors(fail)


@pytest.mark.parametrize(("name", "value", "message"), [
    ("BRICKWORK_NUM_THREADS", "0", "must be at least 1"),
    ("BRICKWORK_MODE", "fast", "must be one of release, debug"),
    ("BRICKWORK_LOG", "verbose", "must be one of debug, info, warning"),
    ("BRICKWORK_PCH", "maybe", "must be one of 1, true, yes, on (on) or 0, false, no, off (off)"),
])
def test_run_with_an_invalid_setting_is_one_line_and_makes_nothing(tmp_path, name, value, message):
    out = brickwork(tmp_path, "run", SOD, f"output.dir={tmp_path / 'out'}", "--quiet", **{name: value})
    assert out.returncode == 2
    assert one_line(out.stderr) == f"brickwork: error: environment variable {name}={value!r} {message}"
    assert not (tmp_path / "out").exists() and not (tmp_path / "cache").exists()


def test_info_reports_an_invalid_setting(tmp_path):
    out = brickwork(tmp_path, "info", BRICKWORK_NUM_THREADS="0")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "setting:    invalid: environment variable BRICKWORK_NUM_THREADS='0' must be at least 1" in lines
    assert any(line.startswith("threads:    ") for line in lines)


def _unsafe_root(tmp_path):
    (tmp_path / "cache").mkdir()
    os.chmod(tmp_path / "cache", 0o777)
    return {}


def _root_under_a_file(tmp_path):
    (tmp_path / "file").write_text("")
    return {"BRICKWORK_CACHE_DIR": str(tmp_path / "file" / "cache")}


@pytest.mark.parametrize(("setup", "expected"), [
    (_unsafe_root, "refusing to use kernel cache {tmp}/cache: it must be owned by you and not writable by group or "
                   "others (chmod 700 {tmp}/cache)"),
    (_root_under_a_file, "cannot compile copy_boxes: not a directory ({tmp}/file/cache); set BRICKWORK_CACHE_DIR "
                         "(and TMPDIR) to a directory you can write"),
    pytest.param(lambda tmp: {"BRICKWORK_CACHE_DIR": "/proc/self"},
                 "no file can be created in the kernel cache /proc/self (no such file or directory, although the "
                 "directory exists: not an ordinary directory); set BRICKWORK_CACHE_DIR to a directory you can write",
                 marks=pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc"),
                 id="proc-root"),  # it said the cache was removed by a concurrent 'brickwork cache clear'
    (lambda tmp: {"BRICKWORK_CXX": "/nonexistent/g++"}, "no C++ compiler found (tried /nonexistent/g++)."),
    (lambda tmp: {"BRICKWORK_CXX": shutil.which("false") or "/bin/false"},
     "the C++ compiler {false} exited with status 1 without a message"),
])
def test_run_with_an_unusable_cache_or_compiler_is_one_line(tmp_path, setup, expected):
    env = setup(tmp_path)
    out = brickwork(tmp_path, "run", SOD, f"output.dir={tmp_path / 'out'}", "--quiet", "time.nlim=1", **env)
    assert out.returncode == 1
    line = one_line(out.stderr)
    assert line.startswith("brickwork: error: ")
    assert expected.format(tmp=tmp_path, false=env.get("BRICKWORK_CXX")) in line


def test_version_prints_the_package_version(capsys):
    import brickwork

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"brickwork {brickwork.__version__}\n"



def test_python_dash_m_brickwork_is_the_command(tmp_path):
    """``python -m brickwork`` runs the command, for a venv whose scripts are not on PATH."""
    import brickwork

    env = {**os.environ, "PYTHONPATH": SRC, "BRICKWORK_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-m", "brickwork", "--version"], capture_output=True, text=True, env=env,
                         timeout=600)
    assert (out.returncode, out.stdout, out.stderr) == (0, f"brickwork {brickwork.__version__}\n", "")
    out = subprocess.run([sys.executable, "-m", "brickwork", "cache", "dir"], capture_output=True, text=True, env=env,
                         timeout=600)
    assert (out.returncode, out.stdout.strip()) == (0, str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-m", "brickwork", "frobnicate"], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 2 and "invalid choice: 'frobnicate'" in out.stderr
    out = subprocess.run([sys.executable, "-m", "brickwork"], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 2 and out.stdout == ""  # no command: the help, which lists them, on standard error
    assert out.stderr.startswith("usage: brickwork [-h] [--version] {info,cache,run,demo} ...")
    assert re.search(r"^ +run +run the hydro application", out.stderr, flags=re.M)  # wrapped to the terminal
    out = subprocess.run([sys.executable, "-m", "brickwork", "run", "--help"], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0 and "Every input key, the problems, the outputs and the errors: docs/hydro.md" in \
        " ".join(out.stdout.split())  # where to read about the input file, whatever the terminal's width

def test_a_cache_directory_path_too_long_is_an_invalid_setting(tmp_path):
    """It was a raw OSError (ENAMETOOLONG) at the first launch; now a setting error everywhere, shown by info."""
    long = str(tmp_path / ("x" * 300))
    out = brickwork(tmp_path, "cache", "dir", BRICKWORK_CACHE_DIR=long)
    assert out.returncode == 2
    assert one_line(out.stderr).startswith(f"brickwork: error: environment variable BRICKWORK_CACHE_DIR='{long[:40]}...")
    assert out.stderr.strip().endswith("is too long for a directory path (at most 255 bytes a name, 3800 in all)")
    info = brickwork(tmp_path, "info", BRICKWORK_CACHE_DIR=long)
    assert info.returncode == 0, info.stderr
    assert "cache:      invalid (see setting:)" in info.stdout.splitlines()
    assert any(line.startswith("setting:    invalid: environment variable BRICKWORK_CACHE_DIR=")
               for line in info.stdout.splitlines())


@pytest.mark.parametrize("args", [["info"], ["cache", "list"], ["cache", "dir"]])
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path, args):
    """``brickwork cache list | head -1``: the pipe's reader closes it; the command stops with the status a
    shell gives SIGPIPE, 141, and no traceback (it printed two, one per print in info's fallback)."""
    env = {**os.environ, "PYTHONPATH": SRC, "BRICKWORK_CACHE_DIR": str(tmp_path / "cache")}
    (tmp_path / "cache").mkdir()
    for n in range(3):  # a cache to list
        entry = tmp_path / "cache" / f"{n:040x}"
        entry.mkdir()
        (entry / "meta.json").write_text('{"label": "k"}')
    done = subprocess.Popen([sys.executable, "-m", "brickwork.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    done.stdout.close()  # before the command writes a byte: every write of it fails
    err = done.stderr.read().decode()
    assert done.wait(timeout=600) == 141
    assert err == ""

"""Environment variables with values brickwork does not accept (attacker round 16, lead 2): each is an error naming the
variable and the value, or a documented fallback, never a silent setting or a process that dies.
BRICKWORK_QUIET=maybe turned the notices off without a word (it was read after the loop that unsets invalid settings,
so its placeholder object, a true value, stayed); OMP_STACKSIZE=100000G ended the process at the first parallel launch
('libgomp: Thread creation failed', exit status 1, no Python error); XDG_CACHE_HOME=relative/dir put the cache under
the working directory (the XDG spec says to ignore a relative path)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from brickwork import config
from brickwork.runtime import launch_threads

ENV_DOC = Path(__file__).resolve().parents[2] / "docs" / "env.md"
FREE_TEXT = {"BRICKWORK_CACHE_DIR", "BRICKWORK_CXX", "BRICKWORK_CFLAGS", "BRICKWORK_TERM_GRACE"}  # any text is a value


def documented_settings() -> dict:
    """variable -> config attribute, from the table of docs/env.md."""
    rows = re.findall(r"^\| `(BRICKWORK_[A-Z_]+)`[^|]*\| `([a-z_]+)`", ENV_DOC.read_text(), re.M)
    return {name: attr for name, attr in rows if name not in FREE_TEXT}


def test_every_documented_setting_refuses_a_value_it_does_not_accept():
    settings = documented_settings()
    assert {"BRICKWORK_QUIET", "BRICKWORK_NUM_THREADS", "BRICKWORK_PCH", "BRICKWORK_MODE"} <= settings.keys()
    env = {**os.environ, **dict.fromkeys(settings, "maybe")}
    script = ("import json, brickwork as wp\n"
              "read = {}\n"
              f"for attr in {sorted(settings.values())!r}:\n"
              "    try:\n"
              "        read[attr] = repr(getattr(wp.config, attr))\n"
              "    except wp.config.SettingError as e:\n"
              "        read[attr] = 'SettingError: ' + str(e)\n"
              "print(json.dumps([wp.config.problems(), read]))")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout
    import json

    problems, read = json.loads(out)
    for name, attr in settings.items():
        assert any(f"environment variable {name}='maybe'" in p for p in problems), name
        assert read[attr].startswith(f"SettingError: environment variable {name}='maybe'"), (name, read[attr])


@pytest.mark.parametrize("xdg", ["relative/dir", "", "."])
def test_a_relative_xdg_cache_home_is_ignored(monkeypatch, xdg):
    monkeypatch.delenv("BRICKWORK_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    monkeypatch.setattr(sys, "platform", "linux")
    path = config._default_cache_dir()
    assert os.path.isabs(path) and path.startswith(os.path.expanduser("~/.cache/brickwork/"))
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere/cache")
    assert config._default_cache_dir().startswith("/somewhere/cache/brickwork/")


@pytest.mark.parametrize("name", ["OMP_STACKSIZE", "GOMP_STACKSIZE"])
def test_openmp_stacks_that_cannot_be_mapped_are_refused_before_the_first_parallel_region(monkeypatch, name):
    monkeypatch.delenv("OMP_STACKSIZE", raising=False)
    monkeypatch.setenv(name, "300000G")  # 293 TiB: beyond x86-64's and AArch64's 48-bit user address space
    monkeypatch.setattr(config, "num_threads", 2)
    monkeypatch.setattr(launch_threads, "_pool_started", False)
    with pytest.raises(config.SettingError) as e:
        launch_threads.thread_count()
    assert str(e.value).startswith(f"environment variable {name}='300000G' asks for a stack of 300000.0 GiB for each "
                                   f"OpenMP thread, which this machine cannot map (")
    assert "GNU OpenMP would end the process at this parallel launch" in str(e.value)
    assert launch_threads._pool_started is False  # asked again at the next parallel launch
    for fine in ("64M", "99999999999999999999G", "abc"):  # mapped; beyond 2**64 and not a size: libgomp ignores them
        monkeypatch.setenv(name, fine)
        assert launch_threads.thread_count() == 2
        monkeypatch.setattr(launch_threads, "_pool_started", False)


def test_a_long_value_is_quoted_by_its_ends(monkeypatch):
    """BRICKWORK_NUM_THREADS of 5000 digits (more than int() reads) was quoted whole: a 5000-character message."""
    monkeypatch.setenv("BRICKWORK_COMPILE_BATCH", "1" * 5000)
    with pytest.raises(config.SettingError) as e:
        config._env_int("BRICKWORK_COMPILE_BATCH", 8)
    assert str(e.value) == f"environment variable BRICKWORK_COMPILE_BATCH='{'1' * 40}...{'1' * 12}' is not an integer"
    monkeypatch.setenv("BRICKWORK_COMPILE_BATCH", "9" * 30)
    with pytest.raises(config.SettingError, match=rf"^environment variable BRICKWORK_COMPILE_BATCH='{'9' * 30}' must "
                                                  rf"be at most 2147483647$"):
        config._env_int("BRICKWORK_COMPILE_BATCH", 8)

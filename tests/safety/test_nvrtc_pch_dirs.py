"""NVRTC's precompiled-header directory of a process that never ran its exit handlers (SIGTERM, SIGKILL,
os._exit) stayed in the temporary directory for good (attacker probe: 23 of them, 690 MB, in /tmp after a
day of test runs). Its name now holds the process id, and the next process to make one removes those of
processes that are gone; a forked child makes its own and never removes its parent's at exit."""

from __future__ import annotations

import os

import pytest

from brickwork.targets.cuda import build

PREFIX = build.PCH_PREFIX


def _gone_pid() -> int:
    with open("/proc/sys/kernel/pid_max") as f:
        return int(f.read()) + 1  # no process can have it


def test_only_the_directories_of_processes_that_are_gone_are_removed(tmp_path):
    gone = tmp_path / f"{PREFIX}{_gone_pid()}-abcd1234"
    alive = tmp_path / f"{PREFIX}{os.getppid()}-abcd1234"
    mine = tmp_path / f"{PREFIX}{os.getpid()}-abcd1234"
    unnamed = tmp_path / f"{PREFIX}abcd1234"  # the form before process ids: whose it is cannot be told
    other = tmp_path / f"other-{_gone_pid()}-abcd1234"
    for d in (gone, alive, mine, unnamed, other):
        d.mkdir()
        (d / "batch.pch").write_bytes(b"x" * 16)
    link = tmp_path / f"{PREFIX}{_gone_pid()}-link"
    link.symlink_to(alive)
    plain = tmp_path / f"{PREFIX}{_gone_pid()}-file"
    plain.write_text("not a directory")
    assert build.remove_abandoned_pch_dirs(str(tmp_path)) == [str(gone)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in (alive, mine, unnamed, other,
                                                                                  link, plain))
    assert (alive / "batch.pch").read_bytes() == b"x" * 16
    assert build.remove_abandoned_pch_dirs(str(tmp_path / "missing")) == []


def test_a_forked_child_makes_its_own_directory_and_leaves_its_parents(monkeypatch, tmp_path):
    if build.nvrtc.version() < build.PCH_SINCE:
        pytest.skip("NVRTC without automatic precompiled headers")
    monkeypatch.setattr(build.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(build, "_pch_dir", None)
    monkeypatch.setattr(build, "_pch_owner", 0)
    (parent,) = [o.split("=", 1)[1] for o in build.pch_options() if o.startswith("--pch-dir=")]
    assert os.path.basename(parent).startswith(f"{PREFIX}{os.getpid()}-")
    assert build.pch_options() == [*build.PCH_OPTIONS, f"--pch-dir={parent}"]  # the same while the process is
    parent_pid, child_pid = os.getpid(), _gone_pid() - 1
    monkeypatch.setattr(build.os, "getpid", lambda: child_pid)  # as after os.fork
    (child,) = [o.split("=", 1)[1] for o in build.pch_options() if o.startswith("--pch-dir=")]
    assert child != parent and os.path.basename(child).startswith(f"{PREFIX}{child_pid}-")
    build._remove_own_pch_dir(parent, parent_pid)  # the child's exit handler for its parent's directory
    assert os.path.isdir(parent)
    build._remove_own_pch_dir(child, child_pid)
    assert not os.path.exists(child)
    monkeypatch.undo()
    build._remove_own_pch_dir(parent, parent_pid)
    assert not os.path.exists(parent)

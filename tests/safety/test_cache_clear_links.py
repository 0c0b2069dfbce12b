"""'brickwork cache clear' never follows a symbolic link planted under one of its names (attacker round 16, lead 1):
a shard 'aa' linked to a folder of the user's had that folder's 'aaa...a' (40 hex digits: an entry's name) removed
with everything in it, and 'locks' or 'by-source' linked to a folder had its lock- or digest-named files removed.
The links themselves go; their targets stay whole. No compile: the cache is laid out by hand."""

from __future__ import annotations

import os

import pytest

from brickwork import config
from brickwork.jit import cache


@pytest.fixture
def root(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    path.mkdir(mode=0o700)
    monkeypatch.setattr(config, "kernel_cache_dir", str(path))
    cache._verified.clear()
    yield path
    cache._verified.clear()


@pytest.mark.parametrize(("link", "inside"), [("aa", "a" * 40), ("locks", "c" * 40 + ".lock"),
                                               ("claims", "d" * 40 + ".claim"), ("by-source", "e" * 64),
                                               ("pch-" + "f" * 24, "brickwork.h")])
def test_a_planted_link_is_removed_and_its_target_kept(root, tmp_path, link, inside):
    victim = tmp_path / "mine"
    victim.mkdir()
    (victim / inside).write_text("precious")
    (victim / "ab").mkdir()
    (victim / "ab" / ("ab" + "0" * 38)).write_text("also precious")
    os.symlink(victim, root / link)
    os.symlink(victim, root / "notes")  # not a name brickwork gives: stays
    (root / "bb").mkdir(mode=0o700)  # a real shard, whose entry is a link to the user's folder
    os.symlink(victim / "ab", root / "bb" / ("bb" + "1" * 38))
    assert cache.clear() == 0
    assert sorted(p.name for p in victim.iterdir()) == sorted(["ab", inside])
    assert (victim / inside).read_text() == "precious"
    assert (victim / "ab" / ("ab" + "0" * 38)).read_text() == "also precious"
    assert sorted(os.listdir(root)) == ["notes"]


def test_the_stale_sweep_of_a_build_does_not_follow_a_linked_locks_folder(root, tmp_path):
    from brickwork.jit import sweep

    victim = tmp_path / "mine"
    victim.mkdir()
    old = victim / ("c" * 40 + ".lock")
    old.write_text("precious")
    os.utime(old, (0, 0))  # older than any stale limit
    os.symlink(victim, root / "locks")
    assert sweep.clean_stale(str(root)) == []
    assert old.read_text() == "precious"

"""'brickwork cache list' lists what lookups find and nothing outside the cache (attacker round 17, lead 4): a shard
linked to a folder of the user's is never followed, nor an entry that is a link, and a copy of an entry under a shard
that is not its key's (no lookup reaches it) was listed a second time. No compile: entries are laid out by hand."""

from __future__ import annotations

import os

from tests.safety.test_cache_clear_links import root  # noqa: F401 - the fixture: a fresh cache root

from brickwork.jit import cache


def _entry(folder, key: str, label: str) -> None:
    entry = folder / key
    entry.mkdir(parents=True, mode=0o700)
    text, _ = cache._sealed(key, {"label": label})
    (entry / cache.META).write_text(text)
    (entry / "lib.so").write_bytes(b"\0" * 100)


def test_links_and_misplaced_copies_are_not_listed(root, tmp_path):
    key = "ab" + "1" * 38
    _entry(root / "ab", key, "kept")
    outside = tmp_path / "mine"
    _entry(outside, "cd" + "2" * 38, "outside")
    os.symlink(outside, root / "cd")  # a linked shard
    os.symlink(outside / ("cd" + "2" * 38), root / "ab" / ("ab" + "3" * 38))  # a linked entry
    _entry(root / "ee", key, "copy")  # the same key under another shard
    rows = cache.entries()
    assert [(r["key"], r["label"]) for r in rows] == [(key, "kept")]
    assert rows[0]["bytes"] == os.path.getsize(root / "ab" / key / cache.META) + 100


def test_the_cli_lists_the_same(root, tmp_path, capsys):
    from brickwork import cli

    key = "ab" + "1" * 38
    _entry(root / "ab", key, "kept")
    _entry(root / "ee", key, "copy")
    assert cli.main(["cache", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith(key) and out[0].endswith("kept")
    assert out[1].startswith("1 entries")


def test_a_cache_that_is_a_file_is_an_error_not_an_empty_list(tmp_path, monkeypatch, capsys):
    from brickwork import cli, config

    path = tmp_path / "cache"
    path.write_bytes(b"not a folder")
    monkeypatch.setattr(config, "kernel_cache_dir", str(path))
    assert cli.main(["cache", "list"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and f"the kernel cache {path} is not a folder" in captured.err
    assert path.read_bytes() == b"not a folder"

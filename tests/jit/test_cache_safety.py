"""Loading from the kernel cache checks who could have written it; broken entries rebuild."""

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from brickwork import config
from brickwork.errors import BrickworkError
from brickwork.jit import cache, sweep, toolchain
from brickwork.jit import compile as jit

from .conftest import new_process

KEY = "ab" + "c" * 38


def _entry(root, key=KEY):
    return root / key[:2] / key


def _root_only():
    if os.geteuid() != 0:
        pytest.skip("needs root to give files to another user")


# -- 1. who may write what is loaded -----------------------------------------------------------


@pytest.mark.parametrize("where", ["root", "shard", "entry"])
def test_lookup_refuses_a_directory_others_can_write(quick_build, root, where):
    lib, _ = quick_build(KEY)
    assert cache.lookup(KEY)[0] == lib
    target = {"root": root, "shard": root / KEY[:2], "entry": _entry(root)}[where]
    os.chmod(target, 0o777)
    new_process()
    with pytest.raises(cache.UnsafeCacheError) as info:
        cache.lookup(KEY)
    message = str(info.value)
    assert isinstance(info.value, BrickworkError)
    if where == "root":
        assert message == (f"refusing to use kernel cache {root}: it must be owned by you and not writable by "
                           f"group or others (chmod 700 {root})")
    else:
        assert message == (f"refusing to use kernel cache entry {target}: it is writable by group or others; "
                           f"another user may have written it; remove it (rm -rf {target}) or run "
                           f"'brickwork cache clear'")


@pytest.mark.parametrize("name", ["kernel.so", "meta.json"])
def test_lookup_refuses_entry_files_others_can_write(quick_build, root, name):
    quick_build(KEY)
    os.chmod(_entry(root) / name, 0o666)
    new_process()
    with pytest.raises(cache.UnsafeCacheError, match=f"entry {_entry(root) / name}: it is writable by group"):
        cache.lookup(KEY)


@pytest.mark.parametrize("what", ["entry", "kernel.so", "meta.json"])
def test_lookup_never_follows_a_symbolic_link(quick_build, root, tmp_path, what):
    """A link to a planted library (with a matching sha256) is refused, not loaded."""
    quick_build(KEY)
    entry = _entry(root)
    planted = tmp_path / "planted"
    shutil.copytree(entry, planted)
    if what == "entry":
        shutil.rmtree(entry)
        os.symlink(planted, entry)
    else:
        os.unlink(entry / what)
        os.symlink(planted / what, entry / what)
    new_process()
    with pytest.raises(cache.UnsafeCacheError, match="is a symbolic link"):
        cache.lookup(KEY)


@pytest.mark.parametrize("where", ["root", "shard", "entry", "kernel.so", "meta.json"])
def test_lookup_refuses_what_another_user_owns(quick_build, root, where):
    _root_only()
    quick_build(KEY)
    entry = _entry(root)
    target = {"root": root, "shard": root / KEY[:2], "entry": entry, "kernel.so": entry / "kernel.so",
              "meta.json": entry / "meta.json"}[where]
    os.chown(target, 65534, 65534)
    new_process()
    with pytest.raises(cache.UnsafeCacheError, match="it is owned by uid 65534, not by you"):
        cache.lookup(KEY)


EVIL = r'''
#include <cstdio>
__attribute__((constructor)) static void planted() { if (FILE* f = std::fopen("MARKER", "w")) std::fclose(f); }
extern "C" void bw_entry(const char*) {}
'''


@pytest.mark.parametrize("how", ["world-writable shard", "shard made by another user"])
def test_a_kernel_planted_by_another_user_is_never_loaded(quick_build, monkeypatch, how):
    """The attack of the issue: another local user plants kernel.so plus a meta.json whose sha256
    matches; loading it would run its constructor as the victim."""
    _root_only()
    base = tempfile.mkdtemp(prefix="bw-plant-", dir="/tmp")
    try:
        os.chmod(base, 0o755)
        root = os.path.join(base, "cache")
        os.mkdir(root, 0o755)  # not writable by others: passes the root check
        monkeypatch.setattr(config, "cache_dir", root)
        marker = os.path.join(base, "constructor-ran")
        src = os.path.join(base, "evil.cpp")
        with open(src, "w") as f:
            f.write(EVIL.replace("MARKER", marker))
        evil = os.path.join(base, "evil.so")
        subprocess.run(["g++", "-shared", "-fPIC", src, "-o", evil], check=True)
        with open(evil, "rb") as f:
            meta = {"label": "k", "tid_dims": 1, "sha256": hashlib.sha256(f.read()).hexdigest()}
        with open(os.path.join(base, "meta.json"), "w") as f:
            json.dump(meta, f)
        os.chmod(evil, 0o644)
        os.chmod(os.path.join(base, "meta.json"), 0o644)
        shard = os.path.join(root, KEY[:2])
        if how == "world-writable shard":
            os.mkdir(shard)
            os.chmod(shard, 0o777)
        else:
            os.chmod(root, 0o777)  # open for a while; the attacker makes the shard then
        plant = (f"mkdir -p {shard}/{KEY} && cp {evil} {shard}/{KEY}/kernel.so && "
                 f"cp {base}/meta.json {shard}/{KEY}/meta.json")
        try:
            out = subprocess.run(["/bin/sh", "-c", plant], user=65534, group=65534, extra_groups=[],
                                 capture_output=True, text=True)
        except (PermissionError, OSError) as e:
            pytest.skip(f"cannot run as another user: {e}")
        if out.returncode != 0:
            pytest.skip(f"cannot run as another user: {out.stderr}")
        os.chmod(root, 0o755)  # the victim fixes the root's mode: the planted shard stays
        assert os.stat(os.path.join(shard, KEY, "kernel.so")).st_uid == 65534
        new_process()
        with pytest.raises(cache.UnsafeCacheError, match=f"refusing to use kernel cache entry {shard}"):
            cache.lookup(KEY)
        with pytest.raises(cache.UnsafeCacheError):  # building does not load it either
            jit.build(KEY, "", "k", {})
        assert not os.path.exists(marker)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_checks_cost_a_stat_per_directory_once_per_process(quick_build, root, monkeypatch):
    quick_build(KEY)
    new_process()
    assert cache.lookup(KEY) is not None
    calls = []
    real_lstat = os.lstat
    monkeypatch.setattr(cache.os, "lstat", lambda p, *a, **k: calls.append(p) or real_lstat(p, *a, **k))
    for _ in range(3):
        assert cache.lookup(KEY) is not None
    assert calls == []  # root, shard and entry were checked by the first lookup


@pytest.mark.parametrize("size", [0, 1, 3 * 2**20 + 1])
def test_an_entry_file_is_read_whole_and_its_descriptor_closed(root, size):
    """The loader reads a library or meta.json through its descriptor (no file object), to the end."""
    from brickwork.jit import store

    root.mkdir()
    path = root / "file"
    data = os.urandom(size)
    path.write_bytes(data)
    fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    assert store._read_entry_file(str(path), str(root)) == data
    if fds is not None:
        assert len(os.listdir("/proc/self/fd")) == fds


def test_an_entry_file_others_can_write_is_refused_and_its_descriptor_closed(root):
    from brickwork.jit import store

    root.mkdir()
    path = root / "file"
    path.write_bytes(b"x")
    path.chmod(0o666)
    fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    with pytest.raises(store.UnsafeCacheError, match="writable by group or others"):
        store._read_entry_file(str(path), str(root))
    if fds is not None:
        assert len(os.listdir("/proc/self/fd")) == fds


# -- 4. entries that could never recover ------------------------------------------------------


OTHER = "cd" + "e" * 38


@pytest.mark.parametrize("damage", ["not an object", "an edited field", "another key's", "nested too deeply"])
def test_a_damaged_or_foreign_meta_json_is_rebuilt(quick_build, root, damage):
    """Not the metadata this key's build wrote: another key's (with a library of the same bytes, so its
    sha256 matches) or a field edited since, which loaders would trust."""
    quick_build(KEY)
    meta = _entry(root) / "meta.json"
    if damage == "not an object":
        meta.write_text("[]")
    elif damage == "an edited field":
        meta.write_text(json.dumps(dict(json.loads(meta.read_text()), tid_dims=-1)))
    elif damage == "another key's":
        quick_build(OTHER)  # the same source: a copy of KEY's library
        shutil.copyfile(_entry(root, OTHER) / "meta.json", meta)
    else:
        meta.write_text("[" * 100_000 + "]" * 100_000)
    assert cache.lookup(KEY) is None
    assert [row["key"] for row in cache.entries()] == ([OTHER] if damage == "another key's" else [])
    before = jit.compiler_calls
    lib, meta = quick_build(KEY)
    assert jit.compiler_calls == before + 1
    assert cache.lookup(KEY) == (lib, meta)
    assert meta["label"] == "t" and meta["tid_dims"] == 1 and meta["key"] == KEY


@pytest.mark.parametrize("name", ["kernel.so", "meta.json"])
def test_a_directory_in_place_of_an_entry_file_is_rebuilt(quick_build, root, name):
    """It raised IsADirectoryError naming the file descriptor ('Is a directory: 3')."""
    quick_build(KEY)
    (_entry(root) / name).unlink()
    (_entry(root) / name).mkdir()
    new_process()
    assert cache.lookup(KEY) is None
    before = jit.compiler_calls
    lib, meta = quick_build(KEY)
    assert jit.compiler_calls == before + 1 and (_entry(root) / name).is_file()
    assert cache.lookup(KEY) == (lib, meta)


@pytest.mark.parametrize("junk", ["file at entry", "dangling link at entry", "file at shard"])
def test_a_file_or_dangling_link_in_place_of_an_entry_is_rebuilt(quick_build, root, tmp_path, junk):
    quick_build(KEY)
    shutil.rmtree(root / KEY[:2])
    if junk == "file at shard":
        (root / KEY[:2]).write_text("junk")
    else:
        (root / KEY[:2]).mkdir()
        if junk == "file at entry":
            _entry(root).write_text("junk")
        else:
            os.symlink(tmp_path / "nowhere", _entry(root))
    new_process()
    assert cache.lookup(KEY) is None
    assert cache.entries() == []
    lib, meta = quick_build(KEY)
    assert lib == str(_entry(root) / "kernel.so") and os.path.isdir(_entry(root))
    assert not os.path.islink(_entry(root))
    new_process()
    assert cache.lookup(KEY) == (lib, meta)


# -- 5. disk full, read-only, leaks, clear -----------------------------------------------------


def _staging_dirs(root):
    return [n for n in os.listdir(root) if n.startswith(".build-")]


def test_disk_full_in_the_compiler_is_reported_as_such(quick_build, root, monkeypatch):
    def full(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 1, "", "cc1plus: fatal error: error writing to /tmp/ccQ7.s: "
                                                       "No space left on device\ncompilation terminated.\n")

    monkeypatch.setattr(jit.subprocess, "run", full)
    with pytest.raises(cache.BuildEnvironmentError) as info:
        quick_build(KEY, label="k[float32]")
    message = str(info.value)
    assert isinstance(info.value, jit.ToolchainError)
    assert message.startswith("cannot compile k[float32]: the compiler failed for a reason outside brickwork: "
                              "cc1plus: fatal error: error writing to /tmp/ccQ7.s: No space left on device")
    assert "brickwork bug" not in message and "internal error" not in message
    assert _staging_dirs(root) == []


def test_compiler_killed_by_a_signal_is_not_a_brickwork_bug(quick_build, root, monkeypatch):
    monkeypatch.setattr(jit.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, -9, "", ""))
    with pytest.raises(cache.BuildEnvironmentError, match="the compiler was killed by signal 9"):
        quick_build(KEY)
    assert _staging_dirs(root) == []


def test_disk_full_writing_the_source_names_the_path(quick_build, root, monkeypatch):
    def full_open(path, *args, **kwargs):
        raise OSError(28, os.strerror(28), path)

    monkeypatch.setattr(jit, "open", full_open, raising=False)
    with pytest.raises(cache.BuildEnvironmentError) as info:
        quick_build(KEY, label="k")
    message = str(info.value)
    assert message.startswith(f"cannot compile k: no space left on device ({root}/.build-{KEY}-")
    assert message.endswith("free some space, or set BRICKWORK_CACHE_DIR (and TMPDIR) to another file system")
    assert _staging_dirs(root) == []


def test_read_only_cache_is_reported_as_such(quick_build, root, monkeypatch):
    def read_only(*args, dir=None, **kwargs):
        raise OSError(30, os.strerror(30), dir)

    quick_build("ff" + "0" * 38)  # the root exists
    monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    with pytest.raises(cache.BuildEnvironmentError) as info:
        quick_build(KEY, label="k")
    assert str(info.value) == (f"cannot compile k: read-only file system ({root}); set BRICKWORK_CACHE_DIR "
                               f"(and TMPDIR) to a directory you can write")


def test_rejected_code_is_still_a_brickwork_bug_and_keeps_its_source(quick_build, root):
    with pytest.raises(jit.ToolchainError) as info:
        quick_build(KEY, source="this is not C++", label="k")
    assert not isinstance(info.value, cache.BuildEnvironmentError)
    assert "internal error: the C++ compiler rejected the code generated for k. This is a brickwork bug" in str(
        info.value)
    (kept,) = _staging_dirs(root)
    assert (root / kept / "kernel.cpp").read_text() == "this is not C++"


def test_a_compiler_failing_without_a_message_is_named_not_called_a_brickwork_bug(quick_build, monkeypatch):
    # e.g. BRICKWORK_CXX=/bin/false: a compiler that rejects code says why
    monkeypatch.setattr(jit.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, "", "  \n"))
    with pytest.raises(jit.ToolchainError) as info:
        quick_build(KEY, label="k")
    message = str(info.value)
    assert message.startswith(f"cannot compile k: the C++ compiler {jit.settings().cxx} exited with status 1 "
                              f"without a message; it does not work as a C++ compiler (point BRICKWORK_CXX or CXX")
    assert "brickwork bug" not in message
    assert cache.entries() == []


def test_rejected_code_built_with_extra_flags_names_them(quick_build, monkeypatch):
    s = jit.settings()
    flagged = toolchain.CompilerSettings(cxx=s.cxx, version="test", openmp=False, arch="-O0", extra=("-Dint=float",))
    monkeypatch.setattr(jit, "settings", lambda: flagged)
    with pytest.raises(jit.ToolchainError, match=r"This is a brickwork bug.*\(BRICKWORK_CFLAGS adds '-Dint=float' "
                                                 r"to the command: unset it first to see whether it is the cause\)"):
        quick_build(KEY, source="this is not C++", label="k")


def test_stale_staging_dirs_and_lock_files_are_removed_by_the_next_build(quick_build, root):
    import fcntl

    quick_build("ff" + "0" * 38)  # the root and locks/ exist
    new_process()
    old = os.path.getmtime(root) - 2 * cache.STALE_SECONDS
    keys = {name: name[0] * 2 + "1" * 38 for name in ("abandoned", "building", "fresh")}
    made = {}
    for name, key in keys.items():
        made[name] = root / f".build-{key}-x{name}"
        made[name].mkdir()
        (made[name] / "kernel.cpp").write_text("//")
        made["lock " + name] = root / "locks" / f"{key}.lock"
        made["lock " + name].write_text("")
    made["old style"] = root / ".build-q9w8e7r6"
    made["old style"].mkdir()
    for name, path in made.items():
        if "fresh" not in name:
            os.utime(path, (old, old))
    made["same key"] = root / f".build-{KEY}-xkilled"  # an earlier build of this key, killed
    made["same key"].mkdir()
    os.utime(made["same key"], (old, old))
    held = os.open(made["lock building"], os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)  # a build of that key runs in another process
    try:
        quick_build(KEY)
        gone = {name for name, path in made.items() if not os.path.lexists(path)}
    finally:
        os.close(held)
    assert gone == {"abandoned", "lock abandoned", "old style", "same key"}


def test_key_lock_relocks_when_a_cleaner_removed_its_file(root, monkeypatch):
    """Between open and flock the stale-lock cleaner may unlink the file; the lock must then be
    taken on the file now at the path, or two processes could both hold "the" lock."""
    import fcntl

    real_flock = fcntl.flock
    removed = []

    def flock(fd, op):
        if op == fcntl.LOCK_EX and not removed:
            removed.append(True)
            os.unlink(cache._lock_path(str(root), KEY))
        return real_flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)  # the module cache imports when it locks
    with cache.key_lock(KEY):
        other = os.open(cache._lock_path(str(root), KEY), os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                real_flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(other)
    assert removed == [True]


def test_clear_through_a_symbolic_link_root_keeps_the_link_and_other_files(quick_build, root, tmp_path,
                                                                           monkeypatch):
    real = tmp_path / "real-cache"
    real.mkdir(mode=0o700)
    (real / "README").write_text("mine")
    os.symlink(real, root)
    quick_build(KEY)
    assert (real / KEY[:2] / KEY / "kernel.so").is_file()
    assert cache.clear() == 1
    assert os.path.islink(root) and os.readlink(root) == str(real)
    assert sorted(os.listdir(real)) == ["README"]
    assert cache.lookup(KEY) is None
    quick_build(KEY)  # usable again at once
    assert cache.lookup(KEY) is not None


def test_clear_of_a_plain_root_removes_it_when_only_brickwork_files_were_there(quick_build, root):
    quick_build(KEY)
    assert cache.clear() == 1
    assert not root.exists()
    assert cache.clear() == 0


def test_clear_refuses_a_root_another_user_owns(quick_build, root, tmp_path):
    _root_only()
    quick_build(KEY)
    os.chown(root, 65534, 65534)
    with pytest.raises(cache.UnsafeCacheError, match="owned by uid 65534, not by you; nothing was removed"):
        cache.clear()
    assert (_entry(root) / "kernel.so").is_file()


def test_cli_list_and_clear_with_a_symbolic_link_root_and_junk_entries(quick_build, root, tmp_path):
    import sys

    real = tmp_path / "real-cache"
    real.mkdir(mode=0o700)
    os.symlink(real, root)
    quick_build(KEY, label="good[float32]")
    quick_build("ab" + "d" * 38)
    (real / "ab" / ("ab" + "d" * 38) / "meta.json").write_text("[]")
    (real / "ab" / ("ab" + "e" * 38)).write_text("junk")
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(root),
               PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "src"))

    def cli(*args):
        out = subprocess.run([sys.executable, "-m", "brickwork.cli", "cache", *args], capture_output=True, text=True,
                             env=env)
        assert out.returncode == 0, out.stderr
        return out.stdout

    listing = cli("list").splitlines()
    assert listing[0].startswith(KEY) and listing[0].endswith("good[float32]")
    assert listing[1].startswith(f"1 entries, 0.0 MiB in {root}")
    assert cli("clear") == f"removed 1 entries from {root}\n"
    assert os.path.islink(root) and os.listdir(real) == []


def test_a_claim_whose_builder_died_is_taken_over(quick_build, root, monkeypatch):
    monkeypatch.setattr(config, "cache_lock", "claim")
    cache.ensure_root(str(root))
    claims = root / "claims"
    claims.mkdir(mode=0o700)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (claims / f"{KEY}.claim").write_text(f"{socket.gethostname()} {dead.pid}")
    before = jit.compiler_calls
    lib, meta = quick_build(KEY)
    assert jit.compiler_calls == before + 1 and cache.lookup(KEY) == (lib, meta)
    assert list(claims.iterdir()) == []


def test_a_waiting_process_loads_what_the_claim_holder_published(quick_build, root, monkeypatch):
    monkeypatch.setattr(config, "cache_lock", "claim")
    quick_build(KEY)  # published
    claims = root / "claims"
    (claims / f"{KEY}.claim").write_text(f"{socket.gethostname()} {os.getpid()}")  # a live holder
    before = jit.compiler_calls
    assert cache.claimed_build(KEY, lambda: pytest.fail("must not build")) == cache.lookup(KEY)
    assert jit.compiler_calls == before


def test_publishing_over_an_intact_entry_keeps_it(quick_build, root):
    lib, meta = quick_build(KEY)
    staging = cache.staging_dir(KEY)
    with open(os.path.join(staging, cache.LIBRARY), "wb") as f:
        f.write(b"another build")
    assert cache.publish(KEY, staging, {"label": "second"}) == (lib, meta)
    assert not os.path.exists(staging)
    assert cache.lookup(KEY) == (lib, meta)


def test_clear_and_the_stale_cleaner_keep_a_users_files_beside_brickworks(quick_build, root):
    """A cache directory may be one that holds other things: only the names brickwork gives are removed,
    in the root and in its folders, however much a user's file looks like them."""
    quick_build(KEY)
    mine = ["ab/notes.txt", "locks/notes.txt", "by-source/notes.txt", ".build-mine/keep.txt", "pch-mine/f",
            "toolchain-mine.json", "README", "zz/data"]
    for name in mine:
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text("mine")
    old = time.time() + 2 * cache.STALE_SECONDS
    assert sweep.clean_stale(str(root), now=old) == [str(root / "locks" / f"{KEY}.lock")]
    assert cache.clear() == 1
    assert cache.lookup(KEY) is None
    kept = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, files in os.walk(root) for f in files)
    assert kept == sorted(mine)

"""``brickwork cache clear`` while builds run: what a running build uses stays, and a build that loses a
race anyway (its staging directory, lock file or root removed under it) starts again once."""

import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from brickwork.jit import cache, sweep
from brickwork.jit import compile as jit

from .test_cache import PROGRAM, SRC

KEY = "ab" + "c" * 38
A, B, C = ("a1" + "0" * 38), ("b1" + "0" * 38), ("c1" + "0" * 38)
PCH_X, PCH_Y = f"pch-{'e' * 24}.building", f"pch-{'f' * 24}.building"  # header builds: running, abandoned


def _names(root) -> set:
    found = set()
    for folder, dirs, files in os.walk(root):
        found |= {os.path.relpath(os.path.join(folder, n), root) for n in dirs + files}
    return found


def test_clear_and_the_stale_cleaner_leave_what_running_builds_use(quick_build, root):
    quick_build(KEY)
    claims = root / "claims"
    claims.mkdir(mode=0o700)
    # running: a flock build of A, a claim build of B (this process, alive), a batch, a header build
    # left behind by dead processes: a build of C, its lock, a claim, a header build
    (claims / f"{B}.claim").write_text(f"{socket.gethostname()} {os.getpid()}")
    (root / f".build-{B}-running").mkdir()
    (claims / f"{C}.claim").write_text(f"{socket.gethostname()} 999999999")
    (root / f".build-{C}-dead").mkdir()
    (root / "locks" / f"{C}.lock").write_text("")
    (root / PCH_X).mkdir()
    (root / PCH_Y).mkdir()
    held_pch = cache.hold(str(root / PCH_X))
    try:
        with cache.key_lock(A), cache.work_dir() as batch:
            staging = cache.staging_dir(A)
            in_use = {"locks", f"locks/{A}.lock", os.path.basename(staging), os.path.basename(batch), "claims",
                      f"claims/{B}.claim", f".build-{B}-running", PCH_X}
            old = time.time() + 2 * cache.STALE_SECONDS  # everything counts as an hour old
            removed = {os.path.relpath(p, root) for p in sweep.clean_stale(str(root), now=old)}
            assert removed == {f".build-{C}-dead", f"locks/{C}.lock", f"locks/{KEY}.lock"}
            assert cache.clear() == 1
            assert _names(root) == in_use
            assert cache.lookup(KEY) is None
    finally:
        os.close(held_pch)
    (claims / f"{B}.claim").unlink()  # every build has ended
    assert cache.clear() == 0
    assert not root.exists()


def _removing_the_staging_directory(monkeypatch, times: int):
    """Make the next ``times`` compiler runs find their staging directory removed (by a clear that did not
    see it in use: between its creation and its lock)."""
    real = subprocess.run
    left = [times]

    def run(cmd, **kwargs):
        if left[0] > 0:
            left[0] -= 1
            shutil.rmtree(os.path.dirname(cmd[cmd.index("-o") + 1]))
        return real(cmd, **kwargs)

    monkeypatch.setattr(jit.subprocess, "run", run)


def test_a_build_whose_staging_directory_was_removed_starts_again(quick_build, root, monkeypatch):
    _removing_the_staging_directory(monkeypatch, 1)
    before = jit.compiler_calls
    lib, meta = quick_build(KEY)
    assert jit.compiler_calls == before + 2
    assert cache.lookup(KEY) == (lib, meta)
    assert [n for n in os.listdir(root) if n.startswith(".build-")] == []


def test_a_build_that_loses_twice_names_the_concurrent_clear(quick_build, root, monkeypatch):
    _removing_the_staging_directory(monkeypatch, 2)
    with pytest.raises(cache.CacheChangedError) as info:
        quick_build(KEY, label="k[float32]")
    message = str(info.value)
    assert isinstance(info.value, cache.BuildEnvironmentError)
    assert message.startswith(f"cannot compile k[float32]: {root}/.build-{KEY}-")
    assert message.endswith("was removed while it was being built; is 'brickwork cache clear' running in another "
                            "process? Run again once it has finished")
    assert "brickwork bug" not in message
    assert cache.entries() == []


def test_a_build_after_another_process_cleared_the_whole_root(quick_build, root):
    """This process checked the root and the lock folder before: the lock file cannot be made until it
    makes them again."""
    quick_build(KEY)
    shutil.rmtree(root)  # ``brickwork cache clear`` of an idle cache, in another process
    before = jit.compiler_calls
    lib, meta = quick_build(A)
    assert jit.compiler_calls == before + 1 and cache.lookup(A) == (lib, meta)
    assert cache.lookup(KEY) is None


def test_an_entry_is_published_into_a_shard_removed_meanwhile(quick_build, root):
    quick_build(KEY)
    shutil.rmtree(root / KEY[:2])
    other = KEY[:2] + "d" * 38
    before = jit.compiler_calls
    assert quick_build(other) == cache.lookup(other)
    assert jit.compiler_calls == before + 1  # published on the first try


#: Clears the cache each time a build of a new key holds its lock (as ``brickwork cache clear`` typed in
#: another shell while a run compiles), until told to stop; prints how many times it cleared.
CLEARER = """
import glob, os, sys, time
from brickwork.jit import cache, sweep
seen, n = set(), 0
while not os.path.exists(sys.argv[1]):
    for lock in glob.glob(os.path.join(sys.argv[2], "locks", "*.lock")):
        if lock not in seen and sweep._locked(lock):
            seen.add(lock)
            cache.clear()
            n += 1
    time.sleep(0.005)
print(n)
"""


@pytest.mark.parametrize("order", ["forward", "declared"])  # one instance at a time; a batch
def test_builds_succeed_while_another_process_clears(tmp_path, order):
    cache_dir, stop = tmp_path / "cache", tmp_path / "stop"
    env = dict(os.environ, BRICKWORK_CACHE_DIR=str(cache_dir), PYTHONPATH=SRC, BRICKWORK_COMPILE_JOBS="2")
    clearer = subprocess.Popen([sys.executable, "-c", CLEARER, str(stop), str(cache_dir)], env=env,
                               stdout=subprocess.PIPE, text=True)
    try:
        script = tmp_path / "prog.py"
        script.write_text(PROGRAM)
        out = subprocess.run([sys.executable, str(script), order], capture_output=True, text=True, env=env,
                             timeout=600)
    finally:
        stop.write_text("")
        clears = int(clearer.communicate(timeout=60)[0])
    assert out.returncode == 0, out.stderr
    assert clears >= 1

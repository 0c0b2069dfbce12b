"""Removing what the kernel cache no longer needs, never what a running build uses.

The first build of a process removes the staging directories and lock files that processes which died
left an hour or more ago (``clean_stale``); ``brickwork cache clear`` removes everything brickwork made
(``clear``). Both leave alone what is in use, as the builders mark it:

- a lock file, while a process holds its ``flock`` (``cache.key_lock``);
- a staging directory ``.build-<key>-*``, while its key's lock is held or a live claim names its key
  (``cache.claimed_build``); any staging or precompiled-header build folder, while its builder holds a
  ``flock`` on the folder itself (``cache.work_dir``, ``pch.build``);
- a claim, while its builder lives.

Where ``flock`` does not work, a folder or file changed within ``cache.STALE_SECONDS`` counts as in use.
A build that loses a race anyway (its folder removed between its creation and its mark, the root or a
shard removed after it was checked) makes what it needs again, or retries once (``jit.compile.build``).
"""

from __future__ import annotations

import errno
import os
import stat
import time

from . import cache


def _locked(path: str) -> bool:
    """Whether some process (this one included) holds a ``flock`` on the file or folder ``path``; False
    when it is missing."""
    import fcntl  # a build's import, like cache's locks: the warm path never sweeps

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:  # no flock on this file system: what changed lately may be in use
        return time.time() - os.fstat(fd).st_mtime < cache.STALE_SECONDS
    finally:
        os.close(fd)  # releases the lock if we took it
    return False


def staging_in_use(root: str, name: str, held: str = "") -> bool:
    """Whether the staging directory ``name`` of the root belongs to a running build. ``held`` is a key
    whose lock the caller holds: its staging directories are leftovers of a build that died."""
    if _locked(os.path.join(root, name)):
        return True
    key = name[len(".build-"):].rpartition("-")[0]  # .build-<key>-XXXXXXXX; "" for a batch's .build-XXXXXXXX
    if not key or key == held:
        return False
    if _locked(cache._lock_path(root, key)):
        return True
    claim = os.path.join(root, "claims", key + ".claim")
    return os.path.lexists(claim) and not cache._claim_is_stale(claim)


def _remove_tree(path: str) -> bool:
    """Remove a file, link or folder; False when it vanished first, or kept getting new content (a build
    published an entry into a shard being removed: that entry stays)."""
    for _ in range(3):
        try:
            cache._remove(path)
            return True
        except FileNotFoundError:  # it, or something in it, was removed meanwhile: what is left goes next time
            if not os.path.lexists(path):
                return False
        except OSError as e:
            if e.errno != errno.ENOTEMPTY:
                raise
    return False


def _remove_locks(root: str, older_than: float | None = None) -> list[str]:
    """Remove the lock files no process holds (only those last changed before ``older_than``, if given)."""
    lock_dir = os.path.join(root, "locks")
    removed = []
    if os.path.islink(lock_dir):  # planted, not brickwork's: its target's files are not swept (clear removes it)
        return removed
    try:
        names = os.listdir(lock_dir)
    except OSError:
        return removed
    for name in names:
        if not cache._is_ours(name, "locks"):
            continue
        path = os.path.join(lock_dir, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if older_than is not None and st.st_mtime > older_than:
            continue
        if not stat.S_ISREG(st.st_mode):  # no lock anyone can hold: junk
            if older_than is None and _remove_tree(path):
                removed.append(path)
            continue
        fd = cache.try_flock(path, os.O_RDWR)  # the lock file, unless another process holds it
        if fd is None:
            continue
        try:  # unlink only the file we hold (see cache.key_lock)
            if os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
                os.unlink(path)
                removed.append(path)
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def _remove_claims(root: str) -> None:
    """Remove the claims whose builder is gone (``cache._claim_is_stale``)."""
    claim_dir = os.path.join(root, "claims")
    if os.path.islink(claim_dir):  # as for locks
        return
    try:
        names = os.listdir(claim_dir)
    except OSError:
        return
    for name in names:
        path = os.path.join(claim_dir, name)
        if cache._is_ours(name, "claims") and cache._claim_is_stale(path):
            _remove_tree(path)


def _remove_ours_in(path: str, folder: str) -> None:
    """Remove what brickwork made in the root's folder ``folder`` (entries of a shard, source notes), then
    the folder if that emptied it: a user's own file in it stays."""
    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        if cache._is_ours(name, folder):
            _remove_tree(os.path.join(path, name))
    _remove_if_empty(path)


def _remove_if_empty(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:  # in use, or made again meanwhile
        pass


def clean_stale(root: str, now: float | None = None, held: str = "") -> list[str]:
    """Remove staging directories and lock files older than ``STALE_SECONDS`` that no build uses (``held``:
    a key whose lock the caller holds). Returns the removed paths."""
    now = time.time() if now is None else now
    removed = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(".build-") and cache._is_ours(name)):
            continue
        path = os.path.join(root, name)
        try:
            if now - os.lstat(path).st_mtime < cache.STALE_SECONDS:
                continue
        except OSError:
            continue
        if not staging_in_use(root, name, held) and _remove_tree(path):
            removed.append(path)
    return removed + _remove_locks(root, now - cache.STALE_SECONDS)


def clear() -> int:
    """Remove every entry and everything else brickwork made in the root; returns how many entries.

    Only what brickwork creates (shards, locks, claims, staging directories, toolchain notes, precompiled
    headers) is removed, never other files, and nothing a running build uses (see the module docstring):
    such a build completes, and the root stays until it has. When the root is a symbolic link, the link
    and its target directory stay and the target's brickwork content is removed; a target that is not
    yours is refused."""
    root = cache.cache_root()
    try:
        lst = os.lstat(root)
    except FileNotFoundError:
        return 0
    real = os.path.realpath(root)
    try:
        st = os.stat(real)
    except FileNotFoundError:  # a dangling symbolic link: nothing to remove
        return 0
    if not stat.S_ISDIR(st.st_mode):
        raise cache._refuse_root(root, "it is not a directory")
    if st.st_uid != os.geteuid() or (stat.S_ISLNK(lst.st_mode) and lst.st_uid not in (os.geteuid(), 0)):
        raise cache._refuse_root(root, f"it is owned by uid {st.st_uid}, not by you; nothing was removed")
    n = len(cache.entries())
    from . import pch

    pch.wait()  # this process's own header build (a second): done, it is cleared too, not left in use
    cache.unpin()  # this process's own pinned libraries: its loads are done (the next build pins again)
    for name in os.listdir(real):
        if not cache._is_ours(name):
            continue
        path = os.path.join(real, name)
        if os.path.islink(path):  # brickwork makes no links here: one planted under its names is removed, never
            _remove_tree(path)  # followed (a shard 'aa' linked to a folder of the user's had its 'aaa...' removed)
        elif name == "locks":
            _remove_locks(real)
            _remove_if_empty(path)
        elif name == "claims":
            _remove_claims(real)
            _remove_if_empty(path)
        elif name.startswith(".build-") and staging_in_use(real, name):
            continue
        elif name.startswith("pch-") and name.endswith(".building") and _locked(path):
            continue
        elif cache._is_shard(name) or name == "by-source":
            _remove_ours_in(path, name)
        else:
            _remove_tree(path)
    cache._verified.clear()
    cache._cleaned.discard(root)
    if not stat.S_ISLNK(lst.st_mode):
        _remove_if_empty(root)
    return n

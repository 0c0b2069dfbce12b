"""The content-addressed kernel cache: one directory per instance key.

An entry is built in a temporary directory and published by an atomic rename while a per-key
file lock is held, so many processes (pytest-xdist workers, MPI ranks) compile each key once. Under
an MPI launcher (or with ``BRICKWORK_CACHE_LOCK=claim``) the builder is chosen by an exclusively
created claim file instead (``claimed_build``), since ``flock`` is unreliable on some parallel file
systems; the other ranks wait for the published entry and load it.
Entries carry a checksum of their library; a corrupt entry is rebuilt.

Reading the cache (its location, the safety checks of every load, lookup) is ``store``'s job; its
names are available here too.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import time

from ..errors import ToolchainError
from .store import (  # noqa: F401  (re-exported: the cache's reading side)
    _WRITABLE_BY_OTHERS,
    CUBIN,
    LIBRARY,
    META,
    SOURCE,
    UnsafeCacheError,
    _check_dir,
    _check_root,
    _refuse_entry,
    _refuse_root,
    _verified,
    cache_root,
    check_dir,
    entry_dir,
    lookup,
)

#: Staging directories and lock files older than this (seconds) and not in use are removed.
STALE_SECONDS = 3600.0


class BuildEnvironmentError(ToolchainError):
    """A build failed for a reason outside brickwork: disk full, read-only file system, no memory."""


#: Roots whose stale staging directories and lock files were cleaned in this process.
_cleaned: set = set()

def ensure_root(root: str) -> None:
    """Create the cache directory (0700) and refuse one that others can write."""
    _check_root(root, create=True)


def _lock_path(root: str, key: str) -> str:
    return os.path.join(root, "locks", key + ".lock")


@contextlib.contextmanager
def key_lock(key: str):
    """An exclusive inter-process lock for one key."""
    root = cache_root()
    ensure_root(root)
    lock_dir = os.path.join(root, "locks")
    if not _check_dir(lock_dir, lock_dir):
        _replace_with_dir(lock_dir)
    path = _lock_path(root, key)
    import fcntl  # here, not at the top: a warm launch only looks entries up

    while True:
        fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        # A stale-lock cleaner may have removed the file between our open and our flock: then
        # another process can lock a new file of the same name, so lock that one instead.
        try:
            same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


#: A claim older than this (seconds) whose builder cannot be checked is taken over.
CLAIM_STALE_SECONDS = 600.0


def _claim_is_stale(path: str) -> bool:
    """A claim whose builder has died (same host, process gone) or that is older than
    ``CLAIM_STALE_SECONDS``."""
    try:
        st = os.stat(path, follow_symlinks=False)
        with open(path) as f:
            host, _, pid = f.read().strip().partition(" ")
    except (OSError, ValueError):
        return False  # gone (the builder finished) or being written: look again
    if time.time() - st.st_mtime > CLAIM_STALE_SECONDS:
        return True
    import socket  # builds only: the warm path (lookup) stays import-light

    if host == socket.gethostname() and pid.isdigit():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
    return False


def claimed_build(key: str, build):
    """Build ``key`` with ``build()`` in at most one process, without ``flock``.

    The process that creates ``claims/<key>.claim`` exclusively (``O_EXCL``: atomic on local and
    parallel file systems) builds and publishes the entry by atomic rename; the others wait until
    the entry appears, then load it. A claim whose builder died is taken over. Returns what
    ``build()`` returns, or ``lookup(key)`` of the entry another process published."""
    root = cache_root()
    ensure_root(root)
    claim_dir = os.path.join(root, "claims")
    if not _check_dir(claim_dir, claim_dir):
        _replace_with_dir(claim_dir)
    path = os.path.join(claim_dir, key + ".claim")
    pause = 0.01
    while True:
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            found = lookup(key)
            if found is not None:
                return found
            if _claim_is_stale(path):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
                continue
            time.sleep(pause)
            pause = min(pause * 1.5, 0.25)
            continue
        try:
            import socket

            with open(fd, "w") as f:
                f.write(f"{socket.gethostname()} {os.getpid()}")
            found = lookup(key)  # published between our lookup and our claim
            return found if found is not None else build()
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def _try_lock(path: str) -> int | None:
    """A descriptor holding the lock file ``path``, or None if another process holds it."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def clean_stale(root: str, now: float | None = None, held: str = "") -> list[str]:
    """Remove staging directories and lock files older than ``STALE_SECONDS`` that no process uses.

    A staging directory ``.build-<key>-*`` is in use while its key's lock is held; a lock file while
    it is locked. ``held`` is a key whose lock the caller holds: its old staging directories are
    leftovers. Returns the removed paths."""
    now = time.time() if now is None else now
    removed = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    for name in names:
        if not name.startswith(".build-"):
            continue
        path = os.path.join(root, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if now - st.st_mtime < STALE_SECONDS:
            continue
        key = name[len(".build-"):].rpartition("-")[0]
        fd = _try_lock(_lock_path(root, key)) if key and key != held else None
        if key and key != held and fd is None and os.path.exists(_lock_path(root, key)):
            continue  # its build is still running
        try:
            _remove(path)
            removed.append(path)
        except OSError:
            pass
        finally:
            if fd is not None:
                os.close(fd)
    lock_dir = os.path.join(root, "locks")
    try:
        names = os.listdir(lock_dir)
    except OSError:
        names = []
    for name in names:
        path = os.path.join(lock_dir, name)
        try:
            if now - os.lstat(path).st_mtime < STALE_SECONDS:
                continue
        except OSError:
            continue
        fd = _try_lock(path)
        if fd is None:
            continue
        try:  # unlink only the file we hold (see key_lock)
            if os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
                os.unlink(path)
                removed.append(path)
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def staging_dir(key: str = "") -> str:
    """A fresh private directory in the root to build ``key`` in (``.build-<key>-XXXXXXXX``), called
    with the key's lock held.

    The first call in a process also removes stale staging directories and lock files."""
    root = cache_root()
    ensure_root(root)
    if root not in _cleaned:
        _cleaned.add(root)
        clean_stale(root, held=key)
    import tempfile

    return tempfile.mkdtemp(prefix=f".build-{key}-" if key else ".build-", dir=root)


def _remove(path: str) -> None:
    """Remove a file, a symbolic link (never followed) or a directory tree."""
    if stat.S_ISDIR(os.lstat(path).st_mode):
        import shutil

        shutil.rmtree(path)
    else:
        os.unlink(path)


def _replace_with_dir(path: str) -> None:
    """Make ``path`` a private directory, removing a file or dangling link that is in the way."""
    if os.path.lexists(path) and not os.path.isdir(path):
        os.unlink(path)
    with contextlib.suppress(FileExistsError):  # another process made it
        os.mkdir(path, 0o700)
    if not _check_dir(path, path):
        raise _refuse_entry(path, "it is not a directory", path)


def publish(key: str, staging: str, meta: dict) -> tuple[str, dict]:
    """Move a finished build into place atomically; returns the library path and metadata.

    An intact entry already in place (a process using the other lock kind published it meanwhile)
    is kept, and this build is discarded: a library another process may be loading never vanishes.

    A corrupt entry in the way (a directory, a file or a dangling symbolic link) is replaced."""
    for name in os.listdir(staging):  # a umask like 002 must not leave files others can write
        p = os.path.join(staging, name)
        os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) & ~_WRITABLE_BY_OTHERS)
    artifact = meta.get("artifact", LIBRARY)
    with open(os.path.join(staging, artifact), "rb") as f:
        meta = dict(meta, sha256=hashlib.sha256(f.read()).hexdigest())
    fd = os.open(os.path.join(staging, META), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    with open(fd, "w") as f:
        json.dump(meta, f, indent=1)
    root = cache_root()
    ensure_root(root)
    shard = os.path.join(root, key[:2])
    if not _check_dir(shard, shard):
        _replace_with_dir(shard)
    final = os.path.join(shard, key)
    if os.path.lexists(final):
        found = lookup(key)
        if found is not None:  # another builder (one using the other lock kind) published first: keep theirs
            import shutil

            shutil.rmtree(staging, ignore_errors=True)
            return found
    _verified.discard(final)
    if os.path.lexists(final):  # a corrupt or stale entry: replace it
        _remove(final)
    os.rename(staging, final)
    return os.path.join(final, artifact), meta


def environment_error(e: OSError, doing: str) -> BuildEnvironmentError:
    """A clear error for a file-system failure while ``doing`` something (not a brickwork bug)."""
    reason = (e.strerror or str(e)).lower()
    where = f" ({e.filename})" if e.filename else ""
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = "free some space, or set BRICKWORK_CACHE_DIR (and TMPDIR) to another file system"
    elif e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        hint = "set BRICKWORK_CACHE_DIR (and TMPDIR) to a directory you can write"
    else:
        hint = "this is a problem of the machine, not of your kernel"
    return BuildEnvironmentError(f"cannot {doing}: {reason}{where}; {hint}")


def _is_shard(name: str) -> bool:
    return len(name) == 2 and all(c in "0123456789abcdef" for c in name)


def entries() -> list[dict]:
    """Every complete entry: key, label and size in bytes (symbolic links are skipped)."""
    root = cache_root()
    out = []
    try:
        shards = sorted(n for n in os.listdir(root) if _is_shard(n))
    except OSError:
        return out
    for shard in shards:
        shard_dir = os.path.join(root, shard)
        try:
            keys = sorted(os.listdir(shard_dir)) if stat.S_ISDIR(os.lstat(shard_dir).st_mode) else []
        except OSError:
            continue
        for key in keys:
            entry = os.path.join(shard_dir, key)
            try:
                if not stat.S_ISDIR(os.lstat(entry).st_mode):
                    continue
                fd = os.open(os.path.join(entry, META), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
                with open(fd) as f:
                    meta = json.load(f) if stat.S_ISREG(os.fstat(fd).st_mode) else None
                size = sum(os.lstat(os.path.join(entry, n)).st_size for n in os.listdir(entry))
            except (OSError, ValueError):
                continue
            if isinstance(meta, dict):
                out.append({"key": key, "label": str(meta.get("label", "?")), "bytes": size,
                            "key_parts": meta.get("key_parts")})
    return out


def _is_ours(name: str) -> bool:
    """Whether a name in the root is something brickwork creates (``clear`` removes only these)."""
    return (_is_shard(name) or name in ("locks", "claims", "by-source") or name.startswith((".build-", ".tmp-"))
            or name.startswith(("openmp-", "toolchain-", "pch-")))


def clear() -> int:
    """Remove every entry and everything else brickwork made in the root; returns how many entries.

    Only what brickwork creates (shards, locks, staging directories, toolchain notes) is removed,
    never other files. When the root is a symbolic link, the link and its target directory stay and
    the target's brickwork content is removed; a target that is not yours is refused."""
    root = cache_root()
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
        raise _refuse_root(root, "it is not a directory")
    if st.st_uid != os.geteuid() or (stat.S_ISLNK(lst.st_mode) and lst.st_uid not in (os.geteuid(), 0)):
        raise _refuse_root(root, f"it is owned by uid {st.st_uid}, not by you; nothing was removed")
    n = len(entries())
    for name in os.listdir(real):
        if _is_ours(name):
            _remove(os.path.join(real, name))
    _verified.clear()
    _cleaned.discard(root)
    if not stat.S_ISLNK(lst.st_mode) and not os.listdir(real):
        os.rmdir(root)
    return n


def write_note(name: str, text: str, folder: str = "") -> None:
    """Write a small file in the root (or in its sub-folder ``folder``, made if missing) atomically;
    failures (read-only cache, full disk) are ignored."""
    root = cache_root()
    try:
        ensure_root(root)
        import tempfile

        where = os.path.join(root, folder) if folder else root
        if folder and not _check_dir(where, where):
            _replace_with_dir(where)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=where)
        try:
            with open(fd, "w") as f:
                f.write(text)
            os.replace(tmp, os.path.join(where, name))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        pass


def explain_miss(label: str, key_parts: dict) -> str:
    """Which parts of a key differ from the cached entries of the same instance label."""
    nearest = None
    for row in entries():
        if row["label"] != label:
            continue
        parts = row["key_parts"] if isinstance(row["key_parts"], dict) else {}
        differing = [name for name, value in key_parts.items() if parts.get(name) != value]
        if nearest is None or len(differing) < len(nearest):
            nearest = differing
    if nearest is None:
        return "no cached entry of this instance"
    return "differs from the nearest cached entry in: " + ", ".join(nearest)

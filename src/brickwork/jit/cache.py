"""The content-addressed kernel cache: one directory per instance key.

An entry is built in a temporary directory and published by an atomic rename while a per-key
file lock is held, so many processes (pytest-xdist workers, MPI ranks) compile each key once. Under
an MPI launcher (or with ``BRICKWORK_CACHE_LOCK=claim``) the builder is chosen by an exclusively
created claim file instead (``claimed_build``), since ``flock`` is unreliable on some parallel file
systems; the other ranks wait for the published entry and load it.
Entries record their key and checksums of their library and metadata; a corrupt or moved entry is rebuilt.

Reading the cache (its location, the safety checks of every load, lookup) is ``store``'s job; its
names are available here too. Removing what is no longer needed (stale leftovers, ``brickwork cache
clear``) without touching what a running build uses is ``sweep``'s.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import itertools
import json
import os
import re
import stat
import time

from ..errors import ToolchainError
from . import json_text
from .store import (  # noqa: F401  (re-exported: the cache's reading side)
    _WRITABLE_BY_OTHERS,
    CUBIN,
    LIBRARY,
    META,
    META_DIGEST,
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
    parse_meta,
)

#: Staging directories and lock files older than this (seconds) and not in use are removed.
STALE_SECONDS = 3600.0


class BuildEnvironmentError(ToolchainError):
    """A build failed for a reason outside brickwork: disk full, read-only file system, no memory."""


class CacheChangedError(BuildEnvironmentError):
    """Part of the cache a build was using (its staging folder, its lock file, the root) was removed under
    it: ``brickwork cache clear`` in another process. ``jit.compile.build`` retries once."""

    def __init__(self, label: str, path: str):
        self.label, self.path = label, path
        super().__init__(f"cannot compile {label}: {path} was removed while it was being built; is "
                         f"'brickwork cache clear' running in another process? Run again once it has finished")


def removed_under_build(e: OSError) -> bool:
    """Whether ``e`` says a path in the cache root vanished (removed by a concurrent clear), not a
    missing compiler or header."""
    root = cache_root()
    return isinstance(e, FileNotFoundError) and any(
        isinstance(p, str) and (p == root or p.startswith(root + os.sep)) for p in (e.filename, e.filename2))


def unwritable_root_error(label: str) -> BuildEnvironmentError | None:
    """The error for a root that exists but in which no file can be made (``/proc/self``: a new name there is
    "not found", which otherwise reads as a root removed by a concurrent clear), or None for any other root."""
    root = cache_root()
    try:
        probe = os.path.join(root, f".probe-{os.getpid()}-{time.monotonic_ns()}")
        os.mkdir(probe)
        os.rmdir(probe)
    except FileNotFoundError as e:
        if os.path.isdir(root):
            return BuildEnvironmentError(f"cannot compile {label}: no file can be created in the kernel cache "
                                         f"{root} ({e.strerror.lower()}, although the directory exists: not an "
                                         f"ordinary directory); set BRICKWORK_CACHE_DIR to a directory you can write")
    except OSError:
        pass
    return None


def forget() -> None:
    """Forget which directories of the root passed their checks and were cleaned: after a concurrent clear
    they are made again on the next use."""
    root = cache_root()
    for path in [p for p in _verified if p == root or p.startswith(root + os.sep)]:
        _verified.discard(path)
    _cleaned.discard(root)


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
    fd = _lock_key(key, wait=True)
    try:
        yield
    finally:
        unlock_key(fd)


def try_key_lock(key: str) -> int | None:
    """The lock of ``key`` (a file descriptor, for ``unlock_key``) if no one holds it, else None at once.
    A batch of instances locks its keys so: another process building the same instances then waits for
    their entries instead of compiling them too, and a batch never waits while it holds locks."""
    return _lock_key(key, wait=False)


def unlock_key(fd: int) -> None:
    """Release a lock taken by ``try_key_lock``."""
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def _lock_key(key: str, wait: bool) -> int | None:
    root = cache_root()
    ensure_root(root)
    lock_dir = os.path.join(root, "locks")
    if not _check_dir(lock_dir, lock_dir):
        _replace_with_dir(lock_dir)
    path = _lock_path(root, key)
    import fcntl  # here, not at the top: a warm launch only looks entries up

    while True:
        fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        # A stale-lock cleaner may have removed the file between our open and our flock: then
        # another process can lock a new file of the same name, so lock that one instead.
        try:
            same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
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


def staging_dir(key: str = "") -> str:
    """A fresh private directory in the root to build ``key`` in (``.build-<key>-XXXXXXXX``), called
    with the key's lock held.

    The first call in a process also removes stale staging directories and lock files."""
    root = cache_root()
    ensure_root(root)
    if root not in _cleaned:
        _cleaned.add(root)
        from .sweep import clean_stale

        clean_stale(root, held=key)
    import tempfile

    return tempfile.mkdtemp(prefix=f".build-{key}-" if key else ".build-", dir=root)


def hold(folder: str) -> int | None:
    """Mark ``folder`` as in use by this process (a ``flock`` on it, until the returned descriptor is
    closed), so that ``sweep`` leaves it alone; None where the file system has no ``flock``."""
    return try_flock(folder, os.O_RDONLY | os.O_DIRECTORY)


def try_flock(path: str, flags: int) -> int | None:
    """A descriptor of ``path`` (opened with ``flags``, never through a link) holding an exclusive ``flock`` on
    it, taken without waiting; None when it cannot be opened, another process holds the lock, or the file system
    has no ``flock``."""
    import fcntl

    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


#: Per root: this process's folder of second names for the libraries it built (``pin``) and its descriptor.
_pins: dict = {}
_pin_count = itertools.count()


def pin(found: tuple[str, dict]) -> tuple[str, dict] | None:
    """``found`` (an entry's library path and metadata) with a second name for the library that lasts as
    long as this process: what a build hands to the loader. The loader opens it later (a batch's parts
    once all are published), and a ``brickwork cache clear`` in between removes the entry but not this
    name: its folder ``.build-pins-*`` is held (``sweep`` leaves it alone) and is removed at exit.

    None when the entry was removed before it could be pinned (build it again); the entry's own path
    where no hard link can be made."""
    path, meta = found
    root = cache_root()
    for _ in range(2):
        try:
            name = os.path.join(_pin_folder(root), f"{next(_pin_count)}-{os.path.basename(path)}")
            os.link(path, name)
            return name, meta
        except FileNotFoundError:
            if not os.path.exists(path):
                return None
            with _pin_lock():  # our folder was removed (by a clear in this process): make another
                _release_pins([_pins.pop(root)] if root in _pins else [])
        except OSError:
            break
    return found


def _pin_folder(root: str) -> str:
    with _pin_lock():
        if root not in _pins:
            import atexit
            import tempfile

            folder = tempfile.mkdtemp(prefix=".build-pins-", dir=root)
            _pins[root] = (folder, hold(folder))
            if len(_pins) == 1:
                atexit.register(unpin)
        return _pins[root][0]


def _release_pins(pins: list) -> None:
    import shutil

    for folder, fd in pins:
        shutil.rmtree(folder, ignore_errors=True)
        if fd is not None:
            os.close(fd)


def unpin() -> None:
    """Remove this process's folders of pinned libraries (at exit, and when it clears the cache itself)."""
    with _pin_lock():
        _release_pins(list(_pins.values()))
        _pins.clear()


@functools.cache
def _pin_lock():
    import threading

    return threading.Lock()


@contextlib.contextmanager
def work_dir():
    """A staging directory for a build of no single key (a batch), held while in use, then removed.
    (A key's staging directory is in use while its key's lock or claim is held.)"""
    path = staging_dir()
    fd = hold(path)
    try:
        yield path
    finally:
        import shutil

        shutil.rmtree(path, ignore_errors=True)
        if fd is not None:
            os.close(fd)


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
        if not os.path.lexists(path):  # removed again at once: a concurrent clear
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        raise _refuse_entry(path, "it is not a directory", path)


def _sealed(key: str, meta: dict) -> tuple[str, dict]:
    """The text of ``meta.json`` for ``meta`` published under ``key``, sealed with the digest of its bytes
    (``store.parse_meta`` checks both), and the metadata as a later lookup reads it back (JSON values:
    lists, string keys)."""
    text = json_text.seal(json.dumps(dict(meta, key=key, **{META_DIGEST: json_text.UNSEALED}), indent=1), META_DIGEST)
    return text, json_text.loads(text)


#: The keys whose entries this process published (compiled, or copied from an entry of the same code): an entry a
#: build was handed but did not publish came from another process (an MPI rank), which the build waited for.
_published_here: set = set()


def published_here(key: str) -> bool:
    """Whether this process published the entry of ``key`` (else it was found: another process built it)."""
    return key in _published_here


def publish(key: str, staging: str, meta: dict) -> tuple[str, dict]:
    """Move a finished build into place atomically; returns the library path and metadata (as a later
    ``lookup`` reads it: with the key and the digests that tie the entry to it, ``_sealed``).

    An intact entry already in place (a process using the other lock kind published it meanwhile)
    is kept, and this build is discarded: a library another process may be loading never vanishes.

    A corrupt entry in the way (a directory, a file or a dangling symbolic link) is replaced."""
    for name in os.listdir(staging):  # a umask like 002 must not leave files others can write
        p = os.path.join(staging, name)
        os.chmod(p, stat.S_IMODE(os.lstat(p).st_mode) & ~_WRITABLE_BY_OTHERS)
    artifact = meta.get("artifact", LIBRARY)
    with open(os.path.join(staging, artifact), "rb") as f:
        text, meta = _sealed(key, dict(meta, sha256=hashlib.sha256(f.read()).hexdigest()))
    fd = os.open(os.path.join(staging, META), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    with open(fd, "w", encoding="utf-8") as f:
        f.write(text)
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
    try:
        os.rename(staging, final)
    except FileNotFoundError:
        if not os.path.isdir(staging):
            raise
        _verified.discard(shard)  # removed by a concurrent clear since it was checked: make it again
        _replace_with_dir(shard)
        os.rename(staging, final)
    _published_here.add(key)
    return os.path.join(final, artifact), meta


def environment_error(e: OSError, doing: str) -> BuildEnvironmentError:
    """A clear error for a file-system failure while ``doing`` something (not a brickwork bug)."""
    reason = (e.strerror or str(e)).lower()
    # a write through a file descriptor (meta.json's) names no file: name the cache the build was writing into
    where = f" ({e.filename})" if e.filename else f" (writing in the kernel cache {cache_root()})"
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = "free some space, or set BRICKWORK_CACHE_DIR (and TMPDIR) to another file system"
    elif e.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR):
        hint = "set BRICKWORK_CACHE_DIR (and TMPDIR) to a directory you can write"
    else:
        hint = "this is a problem of the machine, not of your kernel"
    return BuildEnvironmentError(f"cannot {doing}: {reason}{where}; {hint}")


def _is_shard(name: str) -> bool:
    return len(name) == 2 and _is_hex(name)


def entries() -> list[dict]:
    """Every complete entry: key, label and size in bytes (symbolic links, folders under a shard that is not
    their key's, and entries whose metadata is damaged or names another key, are skipped)."""
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
            if not key.startswith(shard):  # no lookup reaches it (a copy under 'ee' was listed twice)
                continue
            entry = os.path.join(shard_dir, key)
            try:
                if not stat.S_ISDIR(os.lstat(entry).st_mode):
                    continue
                fd = os.open(os.path.join(entry, META), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
                with open(fd, "rb") as f:
                    meta = parse_meta(f.read(), key) if stat.S_ISREG(os.fstat(fd).st_mode) else None
                size = sum(os.lstat(os.path.join(entry, n)).st_size for n in os.listdir(entry))
            except OSError:
                continue
            if meta is not None:
                out.append({"key": key, "label": str(meta.get("label", "?")), "bytes": size,
                            "key_parts": meta.get("key_parts")})
    return out


_RANDOM = r"[a-z0-9_]{8}"  # the random part of tempfile's names
#: The names brickwork gives what it makes, in the root ("") and in its folders: ``clear`` and the stale
#: cleaner remove nothing else, since the cache directory may be one that holds a user's own files.
_NAMES = {
    "": re.compile(rf"[0-9a-f]{{2}}|locks|claims|by-source|\.tmp-{_RANDOM}"
                   rf"|\.build-(?:[0-9a-f]+-[a-z0-9_]+|(?:pins-)?{_RANDOM})"
                   rf"|pch-[0-9a-f]{{24}}(?:\.building|\.damaged-{_RANDOM})?|toolchain-[0-9a-f]{{24}}\.json"),
    "locks": re.compile(r"[0-9a-f]+\.lock"),
    "claims": re.compile(r"[0-9a-f]+\.claim"),
    "by-source": re.compile(rf"[0-9a-f]{{64}}|\.tmp-{_RANDOM}"),
}


def _is_ours(name: str, folder: str = "") -> bool:
    """Whether ``name``, in the root or in its folder ``folder``, is something brickwork creates."""
    if _is_shard(folder):  # an entry: its key, which starts with the shard's name
        return len(name) == 40 and name.startswith(folder) and _is_hex(name)
    pattern = _NAMES.get(folder)
    return pattern is not None and pattern.fullmatch(name) is not None


def _is_hex(name: str) -> bool:
    return all(c in "0123456789abcdef" for c in name)


def clear() -> int:
    """Remove every entry and everything else brickwork made in the root, except what a running build
    uses; returns how many entries there were (see ``sweep.clear``)."""
    from .sweep import clear

    return clear()


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

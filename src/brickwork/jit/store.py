"""Reading the kernel cache: where it is, the safety checks of every load, and entry lookup.

This is all a warm launch needs of the cache (``cache`` builds and publishes entries, and holds the
locks and claims), so a program whose instances are all cached imports only this module of it.

The cache holds code that will run, so every load checks who could have written it: the root, the
shard (``<key[:2]>``) and the entry directory must be real directories owned by you that neither
your group nor others can write, and ``meta.json`` and ``kernel.so`` must be regular files (opened
without following symbolic links) with the same owner and mode. Each directory is checked once per
process. Anything else is refused with ``UnsafeCacheError``.

An entry is intact when its ``meta.json`` names the key it is looked up under (``key``: an entry moved to
another key's directory would run the other kernel), its text is the one the digest it records seals
(``meta_sha256``, over the file's exact bytes: the loaders trust every field of it) and its library
matches the ``sha256`` it records; anything else is a corrupt entry, rebuilt. These digests only detect
damage: whoever can write an entry can write matching ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat

from .. import config
from ..errors import BrickworkError
from .json_text import loads, sealed_digest

LIBRARY = "kernel.so"
SOURCE = "kernel.cpp"
CUBIN = "kernel.cubin"  # the CUDA target's artifact; meta.json's "artifact" names it (default: LIBRARY)
ARTIFACTS = (LIBRARY, CUBIN)
META = "meta.json"
#: The field of ``meta.json`` that holds the digest of the file's text (``json_text.seal``).
META_DIGEST = "meta_sha256"


class UnsafeCacheError(BrickworkError):
    """A cache directory or file that someone other than you could have written; it is never loaded."""


def cache_root() -> str:
    """The cache directory: Warp's ``config.kernel_cache_dir`` when a program sets it, else ``config.cache_dir``
    ($BRICKWORK_CACHE_DIR as given, else the user cache dir plus a version)."""
    if config.kernel_cache_dir:  # Warp code that sets it would otherwise compile into the default cache unawares
        return os.path.abspath(os.path.expanduser(os.fspath(config.kernel_cache_dir)))
    return config.cache_dir


#: Directories (the root, shards, entries) that passed the safety check in this process.
_verified: set = set()
_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH
_REMOVE_HINT = "another user may have written it; remove it (rm -rf {path}) or run 'brickwork cache clear'"


def _refuse_root(root: str, why: str) -> UnsafeCacheError:
    return UnsafeCacheError(f"refusing to use kernel cache {root}: {why}")


def _refuse_entry(path: str, why: str, remove: str) -> UnsafeCacheError:
    return UnsafeCacheError(f"refusing to use kernel cache entry {path}: {why}; " + _REMOVE_HINT.format(path=remove))


def _ownership_problem(st: os.stat_result) -> str | None:
    """Why a file or directory with this status is unsafe, or None."""
    uid = os.geteuid()
    if st.st_uid != uid:
        return f"it is owned by uid {st.st_uid}, not by you (uid {uid})"
    if st.st_mode & _WRITABLE_BY_OTHERS:
        return "it is writable by group or others"
    return None


def _check_root(root: str, create: bool = False) -> bool:
    """Whether the cache root exists and is safe; raises ``UnsafeCacheError`` if it is not safe.

    A symbolic link as the root is followed (a cache moved to another disk), but the link must be
    yours (or root's) and its target must pass the check."""
    if root in _verified:
        return True
    if create:
        with contextlib.suppress(FileExistsError):  # a dangling symbolic link: refused below
            os.makedirs(root, mode=0o700, exist_ok=True)
    try:
        st = os.lstat(root)
    except (FileNotFoundError, NotADirectoryError):  # missing, or under a file: a build reports it
        return False
    if stat.S_ISLNK(st.st_mode):
        if st.st_uid not in (os.geteuid(), 0):
            raise _refuse_root(root, f"it is a symbolic link owned by uid {st.st_uid}, not by you")
        try:
            st = os.stat(root)
        except FileNotFoundError:
            if create:
                target = os.readlink(root)
                raise _refuse_root(root, f"it is a symbolic link to a missing directory ({target})") from None
            return False
        except OSError as e:  # a loop of links (ELOOP): the raw error named no setting
            raise _refuse_root(root, f"its symbolic link cannot be followed: {e.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise _refuse_root(root, "it is not a directory")
    problem = _ownership_problem(st)
    if problem is not None:
        if st.st_uid != os.geteuid():
            raise _refuse_root(root, f"{problem}; set BRICKWORK_CACHE_DIR to a directory of your own")
        raise _refuse_root(root, f"it must be owned by you and not writable by group or others (chmod 700 {root})")
    _verified.add(root)
    return True


def _check_dir(path: str, entry: str) -> bool:
    """Whether ``path`` (a shard or an entry directory) is a safe directory.

    False when it is missing or is not a directory (a file, a dangling symbolic link): a corrupt
    entry that ``publish`` replaces. Raises ``UnsafeCacheError`` for a symbolic link to a directory,
    or a directory that is not yours or that others can write. ``entry`` is what to remove."""
    if path in _verified:
        return True
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if stat.S_ISLNK(st.st_mode):
        if os.path.isdir(path):
            raise _refuse_entry(path, f"it is a symbolic link (to {os.readlink(path)})", entry)
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    problem = _ownership_problem(st)
    if problem is not None:
        raise _refuse_entry(path, problem, entry)
    _verified.add(path)
    return True


def check_dir(path: str) -> bool:
    """Whether ``path`` is a safe directory of the root (False when missing; see ``_check_dir``)."""
    return _check_dir(path, path)


def _read_entry_file(path: str, entry: str) -> bytes | None:
    """Content of a file of an entry, opened without following a symbolic link; None if missing or
    not a regular file (corrupt). Raises ``UnsafeCacheError`` for a link or a file others could write."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        import errno  # here, not at the top: the warm path never fails to open, and errno is an import

        if e.errno == errno.ELOOP:
            raise _refuse_entry(path, "it is a symbolic link", entry) from None
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # a directory or device where the file should be: corrupt, rebuilt
            return None
        problem = _ownership_problem(st)
        if problem is not None:
            raise _refuse_entry(path, problem, entry)
        return _read_to_end(fd, st.st_size)
    finally:
        os.close(fd)


def _read_to_end(fd: int, size: int) -> bytes:
    """Everything left in ``fd``, expected to be ``size`` bytes. Plain reads of the descriptor: a file object
    around it would cost three more system calls and its buffer, on every load of the warm path."""
    chunks = []
    while chunk := os.read(fd, size + 1):  # size + 1: a file that grew since the fstat is read to its end too
        chunks.append(chunk)
    return b"".join(chunks)


def entry_dir(key: str) -> str:
    return os.path.join(cache_root(), key[:2], key)


def lookup(key: str) -> tuple[str, dict] | None:
    """Path and metadata of the cached library for ``key`` if the entry is intact, else None.

    Raises ``UnsafeCacheError`` if the root, the shard, the entry or one of its files could have
    been written by someone else (see the module docstring), and ``config.SettingError`` while a
    ``BRICKWORK_*`` variable (or an assigned ``log_level``) holds an invalid value: every kernel load passes here
    first, so no kernel runs under a setting that was ignored."""
    if config.invalid:
        config.check()
    config.settle()  # a log_level or a misspelt setting assigned since the last load
    found = read_entry(key)
    return None if found is None else (found[0], found[2])


def parse_meta(raw: bytes, key: str) -> dict | None:
    """The metadata in ``raw`` (a ``meta.json``) of the entry of ``key``, or None if it is damaged: not a
    JSON object, not the exact text its digest seals (``json_text.seal``), naming another key (a moved
    entry) or an unknown artifact."""
    try:
        meta = loads(raw)
        if not isinstance(meta, dict) or meta.get("key") != key or meta.get("artifact", LIBRARY) not in ARTIFACTS:
            return None
        digest = meta.get(META_DIGEST)
        return meta if isinstance(digest, str) and sealed_digest(raw, META_DIGEST, digest) else None
    except (ValueError, RecursionError):  # RecursionError: nested too deeply to read
        return None


def read_entry(key: str) -> tuple[str, bytes, dict] | None:
    """``lookup`` with the library's bytes: ``(path, bytes, meta)`` of an intact entry, else None."""
    root = cache_root()
    if not _check_root(root):
        return None
    shard = os.path.join(root, key[:2])
    path = os.path.join(shard, key)
    if not _check_dir(shard, shard) or not _check_dir(path, path):
        return None
    raw = _read_entry_file(os.path.join(path, META), path)
    meta = None if raw is None else parse_meta(raw, key)
    if meta is None:
        return None
    lib = os.path.join(path, meta.get("artifact", LIBRARY))
    code = _read_entry_file(lib, path)
    if code is None or meta.get("sha256") != hashlib.sha256(code).hexdigest():
        return None
    return lib, code, meta


def read_note(name: str) -> str | None:
    """A small file brickwork keeps in the root (toolchain facts), if the root is safe and has it."""
    root = cache_root()
    if not _check_root(root):
        return None
    raw = _read_entry_file(os.path.join(root, name), os.path.join(root, name))
    return None if raw is None else raw.decode("utf-8", "replace")


def symbol(meta: dict, name: str) -> str:
    """The name in an entry's artifact of the exported symbol ``name`` (renamed where the instance was
    compiled in a batch with others: ``batch.combine``). Here, not in ``batch``, so that loading a cached
    entry does not import the batching code."""
    return meta.get("symbols", {}).get(name, name)

"""The content-addressed kernel cache: one directory per instance key.

An entry is built in a temporary directory and published by an atomic rename while a per-key
file lock is held, so many processes (MPI ranks, pytest-xdist workers) compile each key once.
Entries carry a checksum of their library; a corrupt entry is rebuilt. The cache holds code that
will run, so it refuses a directory that other users can write.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import stat
import tempfile

from .. import config
from ..errors import BrickworkError

LIBRARY = "kernel.so"
SOURCE = "kernel.cpp"
META = "meta.json"


def cache_root() -> str:
    """The cache directory: $BRICKWORK_CACHE_DIR as given, else the user cache dir plus a version."""
    return config.cache_dir


_checked: set = set()


def ensure_root(root: str) -> None:
    """Create the cache directory (0700) and refuse one that others can write."""
    if root in _checked:
        return
    os.makedirs(root, mode=0o700, exist_ok=True)
    st = os.stat(root)
    if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise BrickworkError(f"refusing to use kernel cache {root}: it must be owned by you and not writable "
                             f"by group or others (chmod 700 {root})")
    _checked.add(root)


def entry_dir(key: str) -> str:
    return os.path.join(cache_root(), key[:2], key)


def lookup(key: str) -> tuple[str, dict] | None:
    """Path and metadata of the cached library for ``key`` if the entry is intact, else None."""
    path = entry_dir(key)
    lib = os.path.join(path, LIBRARY)
    try:
        with open(os.path.join(path, META)) as f:
            meta = json.load(f)
        with open(lib, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
    except (OSError, ValueError):
        return None
    if meta.get("sha256") != digest:
        return None
    return lib, meta


@contextlib.contextmanager
def key_lock(key: str):
    """An exclusive inter-process lock for one key."""
    root = cache_root()
    ensure_root(root)
    lock_dir = os.path.join(root, "locks")
    os.makedirs(lock_dir, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(lock_dir, key + ".lock"), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def staging_dir() -> str:
    root = cache_root()
    ensure_root(root)
    return tempfile.mkdtemp(prefix=".build-", dir=root)


def publish(key: str, staging: str, meta: dict) -> tuple[str, dict]:
    """Move a finished build into place atomically; returns the library path and metadata."""
    with open(os.path.join(staging, LIBRARY), "rb") as f:
        meta = dict(meta, sha256=hashlib.sha256(f.read()).hexdigest())
    with open(os.path.join(staging, META), "w") as f:
        json.dump(meta, f, indent=1)
    final = entry_dir(key)
    os.makedirs(os.path.dirname(final), mode=0o700, exist_ok=True)
    if os.path.exists(final):  # a corrupt or stale entry: replace it
        shutil.rmtree(final, ignore_errors=True)
    os.rename(staging, final)
    return os.path.join(final, LIBRARY), meta


def entries() -> list[dict]:
    """Every complete entry: key, label and size in bytes."""
    root = cache_root()
    out = []
    if not os.path.isdir(root):
        return out
    for shard in sorted(os.listdir(root)):
        shard_dir = os.path.join(root, shard)
        if len(shard) != 2 or not os.path.isdir(shard_dir):
            continue
        for key in sorted(os.listdir(shard_dir)):
            try:
                with open(os.path.join(shard_dir, key, META)) as f:
                    meta = json.load(f)
            except (OSError, ValueError):
                continue
            entry = os.path.join(shard_dir, key)
            size = sum(os.path.getsize(os.path.join(entry, n)) for n in os.listdir(entry))
            out.append({"key": key, "label": meta.get("label", "?"), "bytes": size})
    return out


def clear() -> int:
    """Remove every entry; returns how many were removed."""
    root = cache_root()
    n = len(entries())
    if os.path.isdir(root):
        shutil.rmtree(root)
    _checked.discard(root)
    return n


def explain_miss(label: str, key_parts: dict) -> str:
    """Which parts of a key differ from the cached entries of the same instance label."""
    nearest = None
    for row in entries():
        if row["label"] != label:
            continue
        try:
            with open(os.path.join(entry_dir(row["key"]), META)) as f:
                parts = json.load(f).get("key_parts", {})
        except (OSError, ValueError):
            continue
        differing = [name for name, value in key_parts.items() if parts.get(name) != value]
        if nearest is None or len(differing) < len(nearest):
            nearest = differing
    if nearest is None:
        return "no cached entry of this instance"
    return "differs from the nearest cached entry in: " + ", ".join(nearest)

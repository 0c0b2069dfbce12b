"""Instances whose generated source is the same share one compiler run.

Different cache keys can generate the same C++ (an index space's loop tags that lower to the same
loops, a kernel form that changes nothing for a body): the library is then the same too. The cache
keeps an index ``by-source/<digest>`` from the digest of what a library is made of (the source, the
compiler and its flags, the code generator and runtime header) to the key of an entry built from it;
a build whose digest is indexed copies that entry's library instead of running the compiler.

The index only names an entry: the entry itself passes ``store``'s checks (owner, mode, checksum)
before its library is copied, so a stale or damaged index costs at most one compiler run.
"""

from __future__ import annotations

import hashlib
import os
import re

from . import store
from .cache import write_note
from .toolchain import generator_digest

INDEX = "by-source"
_KEY = re.compile(r"[0-9a-f]{40}")


def digest(identity: str, source: str) -> str:
    """What a library built from ``source`` by the compiler ``identity`` depends on, as a hex digest."""
    h = hashlib.sha256()
    for part in (identity, generator_digest(), source):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


#: The names an entry keeps its source under (the CPU's and a batch's; a cubin built alone).
_SOURCE_FILES = (store.SOURCE, "kernel.cu")


def find(source_digest: str, source: str) -> tuple[str, bytes, dict] | None:
    """``(key, library bytes, meta)`` of an intact entry built from the same source, or None. The entry must keep
    that very source (as ``kernel.cpp``, or ``kernel.cu`` for a cubin built alone): an index naming another
    kernel's entry (a damaged or planted file) made the kernel being built run the other's code (attacker probe),
    and is then a cache miss instead."""
    root = store.cache_root()
    folder = os.path.join(root, INDEX)
    if not store._check_root(root) or not store.check_dir(folder):
        return None
    raw = store._read_entry_file(os.path.join(folder, source_digest), folder)
    key = raw.decode("ascii", "replace").strip() if raw else ""
    if not _KEY.fullmatch(key):
        return None
    found = store.read_entry(key)
    if found is None:
        return None
    entry = os.path.dirname(found[0])
    wanted = source.encode()
    if not any(store._read_entry_file(os.path.join(entry, name), entry) == wanted for name in _SOURCE_FILES):
        return None
    return key, found[1], found[2]


def adopt(staging: str, same: tuple, artifact: str) -> dict:
    """Write the artifact of the entry ``same`` (from ``find``) into ``staging`` as ``artifact``; the
    metadata that says where it came from (with the renamed entry points of a batch-built library)."""
    key, data, found = same
    with open(os.path.join(staging, artifact), "wb") as f:
        f.write(data)
    built = {"compile_seconds": 0.0, "same_source_as": key}
    for name in ("symbols", "resources"):  # a cubin's resource report (targets/cuda/resources.py) comes along
        if name in found:
            built[name] = found[name]
    return built


def record(source_digest: str, key: str) -> None:
    """Index the entry ``key`` under ``source_digest``; a failure (read-only cache, full disk) is ignored."""
    write_note(source_digest, key, folder=INDEX)

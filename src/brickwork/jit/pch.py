"""A precompiled runtime header for g++: ``brickwork.h.gch`` next to a copy of the headers.

Every C++ unit starts with ``#include "brickwork.h"``; parsing it is about a quarter of a small
kernel's compile (0.07 s of 0.25 s). g++ looks for ``brickwork.h.gch`` in each include directory
before ``brickwork.h`` and uses it when it was made with the same flags, so the units need no
change: only their ``-I`` points at a folder of the cache root, ``pch-<digest>``, that holds the
headers and the precompiled one. The digest names the headers' content and the compiler's flags.

The folder is made once per machine and cache, in a background thread, the first time a process
compiles without it: that compile (and any that start before the folder is published) reads the
package's headers, so the first kernel of a fresh cache waits for nothing; a process that ends
sooner waits for the build at exit. A precompiled header
g++ cannot use is ignored by g++ itself (it reads the header instead): the generated code is the
same either way, so the folder is not part of any cache key.

A damaged folder repairs itself. The build writes ``stamp.json`` last, with the size and modification
time of every file; the first compile of a process that finds a folder whose files differ from it
(overwritten, truncated, removed) sets the folder aside and builds it again (a few ``stat`` calls, once
per process; a warm launch compiles nothing and never looks). And a unit that fails to compile against
the folder is compiled again against the package's headers (``jit.compile``): if that works, the folder
was at fault and is set aside the same way (``discard``).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time

from .. import config
from . import cache, store
from .toolchain import include_dir as package_include_dir

HEADER = "brickwork.h"
STAMP = "stamp.json"
STALE_SECONDS = 300.0  # a build folder this old belongs to a process that died while building
BUILD_TIMEOUT = 120.0  # seconds; the header precompiles in well under one

_started: set = set()
_lock = threading.Lock()
_threads: list = []
_folders: dict = {}
_intact: set = set()  # folders whose files matched their stamp in this process
_discarded: set = set()  # folders set aside in this process: built again once, not over and over


def folder_for(s) -> str:
    """The cache folder of the precompiled header for the compiler settings ``s``."""
    flags, root = s.identity() + "|" + " ".join(s.command("", "", "")), cache.cache_root()
    found = _folders.get((flags, root))
    if found is None:
        h = hashlib.sha256(flags.encode())
        for name in _header_names():
            with open(os.path.join(package_include_dir(), name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
        found = _folders[(flags, root)] = os.path.join(root, "pch-" + h.hexdigest()[:24])
    return found


def include_dir(s) -> str:
    """The ``-I`` folder for a compile with settings ``s``: the precompiled folder once it is
    published, else the package's headers (and the precompiled folder starts building)."""
    if not (config.pch and s.pch):
        return package_include_dir()
    folder = folder_for(s)
    if _usable(folder):
        return folder
    with _lock:
        if folder not in _started:
            _started.add(folder)
            # Not a daemon: a process whose only compile started the build waits for it at exit
            # (a fraction of a second, once per cache), else the header would never be published
            # by short scripts, and their killed builds would hold the claim for STALE_SECONDS.
            t = threading.Thread(target=build, args=(s, folder), name="brickwork-pch", daemon=False)
            _threads.append(t)
            t.start()
    return package_include_dir()


def wait() -> None:
    """Wait for the builds this process started (tests; at exit Python waits for them anyway)."""
    for t in list(_threads):
        t.join()


def build(s, folder: str) -> bool:
    """Precompile the header into ``folder`` (published by one rename); False when another process is
    building it, or when the compiler failed (then every compile reads the header, as before)."""
    import subprocess

    staging = folder + ".building"
    try:
        cache.ensure_root(os.path.dirname(folder))
        if not _claim(staging):
            return False
    except OSError:
        return False
    held = cache.hold(staging)  # in use: ``brickwork cache clear`` leaves it alone
    try:
        for name in _header_names():
            with open(os.path.join(package_include_dir(), name), "rb") as src, \
                    open(os.path.join(staging, name), "xb") as dst:
                dst.write(src.read())
        header = os.path.join(staging, HEADER)
        cmd = s.header_command(header, header + ".gch", staging)
        try:
            if subprocess.run(cmd, capture_output=True, timeout=BUILD_TIMEOUT).returncode != 0:
                return False
        except subprocess.TimeoutExpired:
            return False
        for name in os.listdir(staging):
            os.chmod(os.path.join(staging, name), 0o600)
        _write_stamp(staging)
        try:
            os.rename(staging, folder)
        except OSError:  # published meanwhile by a process that took over a stale build
            return False
        return True
    except OSError:
        return False
    finally:
        if os.path.isdir(staging):
            import shutil

            shutil.rmtree(staging, ignore_errors=True)
        if held is not None:
            os.close(held)


def _files(folder: str) -> dict:
    """``name: [size, mtime_ns]`` of every file of ``folder`` but the stamp (a rename keeps both)."""
    found = {}
    for name in os.listdir(folder):
        if name != STAMP:
            st = os.lstat(os.path.join(folder, name))
            found[name] = [st.st_size, st.st_mtime_ns]
    return found


def _write_stamp(folder: str) -> None:
    import json

    fd = os.open(os.path.join(folder, STAMP), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    with open(fd, "w") as f:
        json.dump(_files(folder), f)


def _matches_stamp(folder: str) -> bool:
    """Whether the files of ``folder`` are those its build stamped (a folder without a stamp is not)."""
    import json

    try:
        raw = store._read_entry_file(os.path.join(folder, STAMP), folder)
        return raw is not None and json.loads(raw) == _files(folder)
    except (OSError, ValueError):
        return False


def discard(folder: str) -> None:
    """Set a damaged ``folder`` aside (renamed, then removed) so that the next compile builds it again,
    once per process (a compiler whose fresh folder fails too reads the package's headers from then on)."""
    with _lock:
        _intact.discard(folder)
        cache._verified.discard(folder)
        if folder not in _discarded:
            _discarded.add(folder)
            _started.discard(folder)
    import shutil
    import tempfile

    try:
        aside = tempfile.mkdtemp(prefix=os.path.basename(folder) + ".damaged-", dir=os.path.dirname(folder))
    except OSError:
        return
    try:  # a rename first: the name is free at once, for this process's or another's rebuild
        os.rename(folder, os.path.join(aside, "folder"))
    except OSError:  # gone already (set aside by another process, or cleared)
        pass
    shutil.rmtree(aside, ignore_errors=True)


def forget() -> None:
    """Forget which folders were found intact (after a concurrent ``brickwork cache clear``)."""
    with _lock:
        _intact.clear()


def _claim(staging: str) -> bool:
    """Make the build folder (the claim), taking over one left by a process that died."""
    try:
        os.mkdir(staging, 0o700)
        return True
    except FileExistsError:
        pass
    try:
        if time.time() - os.lstat(staging).st_mtime < STALE_SECONDS:
            return False  # another process is building it
        import shutil

        shutil.rmtree(staging)
        os.mkdir(staging, 0o700)
        return True
    except OSError:
        return False


def _usable(folder: str) -> bool:
    """Whether ``folder`` is a published precompiled folder that is safe to read (``cache`` refuses
    a folder that is a link, not yours, or writable by others) and intact (a damaged one is set aside)."""
    if folder in _intact:
        return True
    if not cache.check_dir(folder):
        return False
    if not _matches_stamp(folder):
        discard(folder)
        return False
    _intact.add(folder)
    return True


def _header_names() -> list[str]:
    return sorted(n for n in os.listdir(package_include_dir()) if n.endswith(".h"))

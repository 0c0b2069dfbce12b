"""Restart files: the exact state of a run in one ``.npz`` with its metadata and a checksum.

``save(path, arrays, meta)`` writes every array bit for bit plus ``meta`` (JSON) and a SHA-256 of
the arrays and the metadata, through a temporary file and an atomic rename. ``load(path)`` returns
``(arrays, meta)`` or raises ``RestartError`` saying what is wrong: a missing file, one that is
not a regular file (a named pipe or a device: refused at once, never waited on), a file that is
not a restart file (a ``.npy`` array, any other file), a truncated or corrupt one (a member
claiming more bytes than the file holds, a checksum mismatch). Files of the first format
(``brickwork-restart-1``, whose checksum covers the arrays only) are still read, and so are those of
the third (``io.block_restart``: a digest per block, read a block at a time by the mesh's ranks);
what the metadata says is for the application to check either way.

``open_restart``, ``check_magic`` and ``members`` are the steps of a read that holds no array: the
open file, its first bytes, and where each array of the archive lies (``Member``).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
import tokenize
import warnings
import zipfile
from typing import NamedTuple

import numpy as np

from ..errors import BrickworkError
from .files import staged

FORMAT = "brickwork-restart-2"
#: the first format: the same file, but its checksum covers the arrays only
FORMAT_1 = "brickwork-restart-1"


class RestartError(BrickworkError, RuntimeError):
    """A restart file that cannot be used (the message says why)."""


def _digest(arrays: dict, meta: dict | None = None) -> str:
    """SHA-256 of the arrays and, unless None, of the metadata (as canonical JSON, its own
    ``sha256`` entry left out)."""
    h = hashlib.sha256()
    if meta is not None:
        h.update(_canonical({k: v for k, v in meta.items() if k != "sha256"}).encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.reshape(-1).view(np.uint8))  # the bytes where they are (tobytes copied 270 MB at 4096 blocks)
    return h.hexdigest()


def _canonical(meta: dict) -> str:
    return json.dumps(meta, sort_keys=True, separators=(",", ":"))


def save(path: str, arrays: dict, meta: dict) -> str:
    """Write a restart file; returns ``path`` (``OutputError``, and no temporary file left, if it
    cannot be written)."""
    meta = dict(meta, format=FORMAT)
    meta["sha256"] = _digest(arrays, meta)
    with staged(path) as (tmp,):
        with open(tmp, "wb") as f:
            np.savez(f, __meta__=np.array(json.dumps(meta)), **arrays)
    return path


def load(path: str) -> tuple[dict, dict]:
    """``(arrays, meta)`` of a restart file; ``RestartError`` if it is missing or damaged."""
    from . import block_restart

    with open_restart(path) as f:
        arrays, meta = _read(f, path)
    check_format(path, meta, (FORMAT, FORMAT_1, block_restart.FORMAT))
    if meta["format"] == block_restart.FORMAT:
        block_restart.check_whole(path, arrays, meta)  # takes its table of digests out of arrays
    elif _digest(arrays, meta if meta["format"] == FORMAT else None) != meta.get("sha256"):
        raise corrupt(path)
    return arrays, meta


def check_format(path: str, meta, formats: tuple) -> None:
    """``RestartError`` unless ``meta`` is a table naming one of ``formats``."""
    not_restart = f"restart file {path!r} is not a brickwork restart file"
    if not isinstance(meta, dict):
        raise RestartError(f"{not_restart} (its metadata is not a table)")
    if meta.get("format") not in formats:
        raise RestartError(f"{not_restart} (format {meta.get('format')!r})")


def corrupt(path: str) -> RestartError:
    return RestartError(f"restart file {path!r} is corrupt: its checksum does not match its contents")


def open_restart(path: str):
    """``path`` opened for reading in binary (see ``_open``); ``RestartError`` if it cannot be."""
    if isinstance(path, str) and "\0" in path:  # os.path.exists says False: no file can have such a name
        raise RestartError(f"restart file {path!r} contains a NUL character, which no file name can hold")
    return _open(path)


def _open(path: str):
    """``path`` opened for reading in binary; ``RestartError`` unless it is a regular file (after
    symbolic links). Opened without blocking, so that a named pipe without a writer is refused at
    once rather than waited on, and checked on the open file, so that it cannot change in between."""
    if not os.path.exists(path):
        if os.path.islink(path):  # a link to nothing, or links that lead back to themselves (ELOOP)
            try:
                os.stat(path)
            except OSError as e:
                raise RestartError(f"restart file {path!r} is a symbolic link that leads to no file "
                                   f"({e.strerror.lower()}: {path!r} -> {os.readlink(path)!r})") from None
        raise RestartError(f"restart file {path!r} does not exist")
    if os.path.isdir(path):
        raise RestartError(f"restart file {path!r} is a directory")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise RestartError(f"restart file {path!r} cannot be read: {e.strerror or e}") from None
    f = os.fdopen(fd, "rb", buffering=0)  # unbuffered: a block read reads that block, no more
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a pipe, a device, a socket: no restart file
        f.close()
        raise RestartError(f"restart file {path!r} is not a regular file (a restart file is an .npz archive "
                           f"written by output.restart_dt)")
    return f


def check_magic(f, path: str) -> None:
    """``RestartError`` unless the open file ``f`` starts as an ``.npz`` archive does."""
    not_restart = f"restart file {path!r} is not a brickwork restart file"
    try:
        magic = f.read(6)
    except OSError as e:
        raise RestartError(f"restart file {path!r} cannot be read: {e.strerror or e}") from None
    if not magic:
        raise RestartError(f"restart file {path!r} is empty")
    if magic.startswith(b"\x93NUMPY"):
        raise RestartError(f"{not_restart} (it is a .npy array; restart files are .npz archives written by "
                           f"output.restart_dt)")
    if not magic.startswith(b"PK"):
        raise RestartError(f"restart file {path!r} is corrupt or not a brickwork restart file (not an .npz "
                           f"archive; restart files are written by output.restart_dt)")


#: what reading a damaged archive raises (turned into a ``RestartError``): a zip version zipfile cannot read
#: (``NotImplementedError``), an array header numpy cannot parse as a literal, which it tokenizes as a Python 2
#: header would be (``TokenError``, ``SyntaxError``)
DAMAGED = (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError, json.JSONDecodeError, RecursionError,
           struct.error, tokenize.TokenError, SyntaxError, NotImplementedError)


def _read(f, path: str) -> tuple[dict, object]:
    """The arrays and the decoded metadata of the open restart file ``f`` (named ``path``)."""
    not_restart = f"restart file {path!r} is not a brickwork restart file"
    check_magic(f, path)
    try:
        members(f, path)  # before anything is read: what a member declares is what it holds
        f.seek(0)
        data = np.load(f, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):  # pragma: no cover - the magic bytes say zip
            raise RestartError(f"{not_restart} (not an .npz archive)")
        with data:
            if "__meta__" not in data.files:
                raise RestartError(f"{not_restart} (no metadata)")
            meta = json.loads(str(data["__meta__"]))
            arrays = {name: data[name] for name in data.files if name != "__meta__"}
    except RestartError:
        raise
    except DAMAGED as e:
        raise RestartError(f"restart file {path!r} is corrupt or not a brickwork restart file: {e}") from None
    return arrays, meta


class Member(NamedTuple):
    """An array of a restart archive: its dtype and shape, whether it is stored in Fortran order, and where
    its values start in the file (after the zip member's local header and the array's header)."""
    dtype: np.dtype
    shape: tuple
    fortran: bool
    offset: int


def members(f, path: str) -> dict:
    """``{name: Member}`` of the archive ``f`` (names as ``np.load`` gives them: without ``.npy``);
    ``RestartError`` unless every member is stored as it is (restart files are never compressed, so a
    small file cannot unpack into gigabytes), fits in the file, and holds exactly the bytes its array
    header declares (a header claiming a huge shape would otherwise be allocated before any check).
    Other damage raises one of ``DAMAGED``."""
    not_restart = f"restart file {path!r} is not a brickwork restart file"
    size = os.fstat(f.fileno()).st_size
    f.seek(0)
    found = {}
    with zipfile.ZipFile(f) as zf:
        for info in zf.infolist():
            if info.compress_type != zipfile.ZIP_STORED:
                raise RestartError(f"{not_restart} (its member {info.filename!r} is compressed; restart files "
                                   f"store their arrays as they are)")
            if info.flag_bits & 0x1:  # zipfile asks for a password (a RuntimeError) rather than read it
                raise RestartError(f"{not_restart} (its member {info.filename!r} is encrypted; restart files "
                                   f"store their arrays as they are)")
            # stored as it is, a member lies in the file after its local header: a larger claim is a lie
            if info.header_offset + info.file_size > size:
                raise RestartError(f"restart file {path!r} is corrupt: its member {info.filename!r} declares "
                                   f"{info.file_size} bytes, but the file holds only {size}")
            f.seek(info.header_offset)  # the member's local header: its name and extra field lengths
            local = f.read(30)
            if len(local) < 30 or local[:4] != b"PK\x03\x04":
                raise RestartError(f"restart file {path!r} is corrupt: its member {info.filename!r} has no header")
            name_length, extra_length = struct.unpack("<HH", local[26:30])
            start = info.header_offset + 30 + name_length + extra_length
            if start + info.file_size > size:
                raise RestartError(f"restart file {path!r} is corrupt: its member {info.filename!r} declares "
                                   f"{info.file_size} bytes, but the file holds only {size}")
            f.seek(start)  # the array's header, read from the file itself (no more than it is)
            version = np.lib.format.read_magic(f)
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0
            # a damaged header's backslash escapes make Python's parser warn: the header is read or refused here,
            # and the program gets no warning
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                warnings.simplefilter("ignore", SyntaxWarning)
                shape, fortran, dtype = read_header(f)
            header = f.tell() - start
            declared = header + dtype.itemsize * int(np.prod(shape, dtype=object))
            if declared != info.file_size:
                raise RestartError(f"restart file {path!r} is corrupt: its member {info.filename!r} declares an "
                                   f"array of shape {shape} ({dtype}) but holds {info.file_size} bytes")
            name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            found[name] = Member(dtype, tuple(shape), fortran, start + header)
    return found

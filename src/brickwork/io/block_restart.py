"""Restart files written and read a block at a time (format ``brickwork-restart-3``), for a mesh whose
blocks live on several MPI ranks: no process holds more than one block of the file at a time.

The file is an ``.npz`` archive (``np.load`` opens it) whose arrays all have one row per block
(``(nblocks, ...)``, C order, stored as they are, so each block is one range of bytes), a table
``__digests__`` ``(narrays, nblocks, 32)`` of the SHA-256 of every block of every array (arrays in the
order of the metadata's ``arrays`` entry), and ``__meta__`` (JSON), whose ``sha256`` covers the
metadata and the table. ``save`` writes it from blocks given in order; ``BlockFile`` opens one, checks
the metadata and the table (a few bytes per block), and reads any block, checked against its digest:
each rank reads its own blocks only. Files of the earlier formats are read too, their whole-file
checksum computed by streaming through the file (a chunk at a time).
"""

from __future__ import annotations

import hashlib
import json
import zipfile

import numpy as np

from . import restart
from .files import reason, staged
from .restart import DAMAGED, RestartError, _canonical, check_format, check_magic, corrupt, members, open_restart

FORMAT = "brickwork-restart-3"
DIGESTS = "__digests__"
_CHUNK = 1 << 24  # bytes read at a time when streaming through a file of an earlier format


def save(path: str, layout: list, nblocks: int, meta: dict, blocks) -> str:
    """Write a restart file of the arrays ``layout`` lists (``(name, dtype, block shape)``), each of
    ``nblocks`` rows, from ``blocks``: an iterator giving every block of the first array in order, then of
    the second, ... (each only needed during its write). Returns ``path``; ``OutputError`` (no temporary
    file left) if it cannot be written."""
    names = [name for name, _, _ in layout]
    if len(set(names)) != len(names) or DIGESTS in names or "__meta__" in names:
        raise ValueError(f"block_restart.save: array names must be unique and not {DIGESTS!r} or '__meta__': {names}")
    table = np.zeros((len(layout), nblocks, 32), dtype=np.uint8)
    with staged(path) as (tmp,):
        with open(tmp, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            for i, (name, dtype, shape) in enumerate(layout):
                dtype, shape = np.dtype(dtype), tuple(shape)
                with zf.open(name + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array_header_1_0(member, {
                        "descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False,
                        "shape": (nblocks, *shape)})
                    for gid in range(nblocks):
                        block = next(blocks)
                        if block.dtype != dtype or block.shape != shape:
                            raise ValueError(f"block_restart.save: block {gid} of {name!r} is {block.dtype} of shape "
                                             f"{block.shape}, not {dtype} of shape {shape}")
                        raw = np.ascontiguousarray(block).reshape(-1).view(np.uint8)
                        member.write(raw)
                        table[i, gid] = np.frombuffer(hashlib.sha256(raw).digest(), dtype=np.uint8)
            meta = dict(meta, format=FORMAT, blocks=nblocks, arrays=names)
            meta["sha256"] = _top_digest(meta, table)
            for name, value in ((DIGESTS, table), ("__meta__", np.array(json.dumps(meta)))):
                with zf.open(name + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, value, allow_pickle=False)
    return path


def _top_digest(meta: dict, table: np.ndarray) -> str:
    """The SHA-256 of the metadata (canonical JSON, its ``sha256`` left out) and the table of block digests."""
    h = hashlib.sha256(_canonical({k: v for k, v in meta.items() if k != "sha256"}).encode())
    h.update(np.ascontiguousarray(table).reshape(-1).view(np.uint8))
    return h.hexdigest()


def _layout(path: str, meta: dict) -> tuple[int, list]:
    """``(nblocks, array names)`` from the metadata of a file of the third format; ``RestartError`` when absent
    or not of their types."""
    nblocks, names = meta.get("blocks"), meta.get("arrays")
    if isinstance(nblocks, bool) or not isinstance(nblocks, int) or nblocks < 0 or not isinstance(names, list) \
            or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        raise RestartError(f"restart file {path!r} is corrupt or not a brickwork restart file: its metadata does not "
                           f"describe its arrays (blocks {nblocks!r}, arrays {names!r})")
    return nblocks, names


def _check_table(path: str, table, nblocks: int, names: list, meta: dict) -> None:
    want = (len(names), nblocks, 32)
    if table is None or table.dtype != np.uint8 or tuple(table.shape) != want:
        raise RestartError(f"restart file {path!r} is corrupt: its table of block digests is missing or misshapen")
    if _top_digest(meta, table) != meta.get("sha256"):
        raise corrupt(path)


def check_whole(path: str, arrays: dict, meta: dict) -> None:
    """Check the arrays of a file of the third format read whole (``restart.load``), and take the table of
    digests out of ``arrays``: ``RestartError`` for any block whose digest does not match, or an array the
    metadata does not list."""
    nblocks, names = _layout(path, meta)
    table = arrays.pop(DIGESTS, None)
    _check_table(path, table, nblocks, names, meta)
    if sorted(arrays) != sorted(names):
        raise corrupt(path)
    for i, name in enumerate(names):
        a = np.ascontiguousarray(arrays[name])
        if a.ndim == 0 or len(a) != nblocks:
            raise corrupt(path)
        for gid in range(nblocks):
            if hashlib.sha256(a[gid:gid + 1].reshape(-1).view(np.uint8)).digest() != table[i, gid].tobytes():
                raise corrupt(path)


class BlockFile:
    """A restart file open for reading a block at a time: ``meta``, ``arrays`` (``{name: (dtype, shape)}``),
    ``read(name, gid, out)``. Opening it checks what every rank needs (the metadata, and the table of block
    digests of the third format, or the whole-file checksum of an earlier one by streaming through the file);
    each block read is checked against its digest. ``RestartError`` for anything wrong; a context manager
    (closes the file). ``bytes_read`` counts the bytes of blocks read."""

    def __init__(self, path: str):
        self.path = path
        self.bytes_read = 0
        self._f = open_restart(path)
        try:
            check_magic(self._f, path)
            try:
                self._open()
            except RestartError:
                raise
            except DAMAGED as e:
                raise RestartError(f"restart file {path!r} is corrupt or not a brickwork restart file: {e}") from None
        except BaseException:
            self._f.close()
            raise

    def __enter__(self) -> BlockFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._f.close()

    def _open(self) -> None:
        path, f = self.path, self._f
        self._members = found = members(f, path)
        if "__meta__" not in found:
            raise RestartError(f"restart file {path!r} is not a brickwork restart file (no metadata)")
        self.meta = meta = json.loads(str(self._whole("__meta__")))
        check_format(path, meta, (FORMAT, restart.FORMAT, restart.FORMAT_1))
        self.format = meta["format"]
        names = [n for n in found if n not in ("__meta__", DIGESTS)] if self.format != FORMAT else None
        if self.format == FORMAT:
            self.nblocks, names = _layout(path, meta)
            self._table = self._whole(DIGESTS) if DIGESTS in found else None
            _check_table(path, self._table, self.nblocks, names, meta)
            if sorted(n for n in found if n not in ("__meta__", DIGESTS)) != sorted(names):
                raise corrupt(path)  # an array the checksum does not cover, or one it lists missing
            self._row = {name: i for i, name in enumerate(names)}
        elif DIGESTS in found:
            names.append(DIGESTS)  # an array like any other in these formats
        for name in names:
            m = found[name]
            if m.fortran or m.dtype.hasobject or not m.shape:  # never written so: not readable by rows
                raise RestartError(f"restart file {path!r} is corrupt or not a brickwork restart file: its array "
                                   f"{name!r} is not stored as rows of C-ordered values")
            if self.format == FORMAT and m.shape[0] != self.nblocks:  # a block without a digest, or a digest of none
                raise RestartError(f"restart file {path!r} is corrupt: its array {name!r} has {m.shape[0]} rows, but "
                                   f"its metadata says {self.nblocks} blocks")
        if self.format != FORMAT:
            self._stream_checksum(sorted(names))
        self.arrays = {name: (found[name].dtype, found[name].shape) for name in names}

    def _whole(self, name: str) -> np.ndarray:
        """A small member (the metadata, the digests), read whole."""
        m = self._members[name]
        if m.fortran or m.dtype.hasobject:
            raise RestartError(f"restart file {self.path!r} is corrupt or not a brickwork restart file: its member "
                               f"{name!r} is not stored as restart files store it")
        out = np.empty(m.shape, dtype=m.dtype)
        self._read_into(m.offset, out)
        return out

    def _read_into(self, offset: int, out: np.ndarray) -> None:
        view = memoryview(out.reshape(-1).view(np.uint8))
        try:
            self._f.seek(offset)
            while len(view):  # readinto may return fewer bytes (a pipe never: the file is a regular one)
                n = self._f.readinto(view)
                if not n:
                    raise RestartError(f"restart file {self.path!r} is corrupt: it ends inside an array (truncated?)")
                view = view[n:]
        except OSError as e:  # an I/O error of the disk or a network file system, met reading a block
            raise RestartError(f"restart file {self.path!r} cannot be read: {reason(e)}") from None

    def _stream_checksum(self, names: list) -> None:
        """Check the whole-file checksum of the first two formats (``restart._digest``) a chunk at a time."""
        h = hashlib.sha256()
        if self.format == restart.FORMAT:
            h.update(_canonical({k: v for k, v in self.meta.items() if k != "sha256"}).encode())
        for name in names:
            m = self._members[name]
            h.update(name.encode())
            h.update(str(m.dtype).encode())
            h.update(str(m.shape).encode())
            left = m.dtype.itemsize * int(np.prod(m.shape, dtype=object))
            self._f.seek(m.offset)
            while left:
                chunk = self._f.read(min(left, _CHUNK))
                if not chunk:
                    raise RestartError(f"restart file {self.path!r} is corrupt: it ends inside an array (truncated?)")
                h.update(chunk)
                left -= len(chunk)
        if h.hexdigest() != self.meta.get("sha256"):
            raise corrupt(self.path)

    def read(self, name: str, gid: int, out: np.ndarray | None = None) -> np.ndarray:
        """Block ``gid`` of array ``name`` (into ``out``, a C-contiguous array of its dtype and shape, if
        given); ``RestartError`` when its digest does not match (the third format: the earlier ones were
        checked whole on opening)."""
        dtype, shape = self.arrays[name]
        if isinstance(gid, bool) or not isinstance(gid, (int, np.integer)) or not 0 <= gid < shape[0]:
            raise IndexError(f"BlockFile.read: block {gid!r} of array {name!r}, which has blocks 0 to {shape[0] - 1}")
        if out is None:
            out = np.empty(shape[1:], dtype=dtype)
        elif out.dtype != dtype or out.shape != shape[1:] or not out.flags.c_contiguous:
            raise ValueError(f"BlockFile.read: out is {out.dtype} of shape {out.shape}, not a C-contiguous "
                             f"{dtype} of shape {shape[1:]} (a block of {name!r})")
        size = out.nbytes
        self._read_into(self._members[name].offset + gid * size, out)
        self.bytes_read += size
        if self.format == FORMAT:
            raw = out.reshape(-1).view(np.uint8)
            if hashlib.sha256(raw).digest() != self._table[self._row[name], gid].tobytes():
                raise RestartError(f"restart file {self.path!r} is corrupt: block {gid} of its array {name!r} does "
                                   f"not match its checksum")
        return out


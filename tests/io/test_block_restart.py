"""``io.block_restart``: restart files written from blocks given one at a time and read a block at a time,
each block checked against its own SHA-256, the metadata and the table of digests against one more; and
files of the second format read through the same reader (their whole-file checksum streamed)."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import zipfile

import numpy as np
import pytest

from brickwork.io import block_restart, restart
from brickwork.io.restart import RestartError

NBLOCKS = 5
ARRAYS = {
    "T": np.arange(NBLOCKS * 2 * 3 * 4, dtype=np.float64).reshape(NBLOCKS, 2, 3, 4) * 0.5,
    "f": -np.arange(NBLOCKS * 7, dtype=np.float32).reshape(NBLOCKS, 7),
    "allocated:s": np.array([True, False, False, True, True]),
    "i": np.arange(NBLOCKS, dtype=np.int64) * 10**12,
}


def _save(path, arrays=ARRAYS, meta=None):
    layout = [(name, a.dtype, a.shape[1:]) for name, a in arrays.items()]
    blocks = (a[gid] for a in arrays.values() for gid in range(NBLOCKS))
    return block_restart.save(str(path), layout, NBLOCKS, meta or {"time": 0.5}, blocks)


def _rewrite(path, edit):
    """The archive ``path`` rewritten with ``edit(members)`` applied to ``{member name: bytes}``."""
    with zipfile.ZipFile(path) as z:
        members = {info.filename: z.read(info) for info in z.infolist()}
    edit(members)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, raw in members.items():
            z.writestr(name, raw)


def _flip(path, member: str, at: int):
    """Flip one bit ``at`` bytes into the values of ``member`` (after its array header)."""
    with block_restart.BlockFile(str(path)) as source:
        offset = restart.members(source._f, str(path))[member].offset
    raw = bytearray(path.read_bytes())
    raw[offset + at] ^= 0x04
    path.write_bytes(bytes(raw))


def test_every_block_reads_back_bit_for_bit(tmp_path):
    path = _save(tmp_path / "r.npz")
    with block_restart.BlockFile(path) as source:
        assert source.format == "brickwork-restart-3" and source.meta["time"] == 0.5
        assert source.arrays == {name: (a.dtype, a.shape) for name, a in ARRAYS.items()}
        for name, a in ARRAYS.items():
            for gid in reversed(range(NBLOCKS)):  # any order
                block = source.read(name, gid)
                assert block.dtype == a.dtype and block.shape == a.shape[1:]
                np.testing.assert_array_equal(block, a[gid])
        assert source.bytes_read == sum(a.nbytes for a in ARRAYS.values())
    with np.load(path) as z:  # an .npz like any other
        assert sorted(z.files) == sorted([*ARRAYS, "__digests__", "__meta__"])
        np.testing.assert_array_equal(z["T"], ARRAYS["T"])
    arrays, meta = restart.load(path)  # read whole: every block's digest checked
    assert sorted(arrays) == sorted(ARRAYS) and meta["blocks"] == NBLOCKS and meta["arrays"] == list(ARRAYS)
    for name, a in ARRAYS.items():
        np.testing.assert_array_equal(arrays[name], a)


def test_a_corrupted_block_is_refused_when_read_and_the_others_still_read(tmp_path):
    path = _save(tmp_path / "r.npz")
    _flip(tmp_path / "r.npz", "T", 3 * 24 * 8 + 5)  # in block 3
    with block_restart.BlockFile(path) as source:  # the metadata and the table are whole
        np.testing.assert_array_equal(source.read("T", 2), ARRAYS["T"][2])
        with pytest.raises(RestartError) as info:
            source.read("T", 3)
        np.testing.assert_array_equal(source.read("f", 3), ARRAYS["f"][3])
    assert str(info.value) == f"restart file {path!r} is corrupt: block 3 of its array 'T' does not match its checksum"
    with pytest.raises(RestartError, match="is corrupt"):  # read whole (the zip's CRC-32 may say it first)
        restart.load(path)


@pytest.mark.parametrize("edit", ["meta", "table", "extra", "missing"])
def test_an_edited_file_is_refused_on_opening(tmp_path, edit):
    """The metadata or the table of digests changed (each block then still matches its digest), an array the
    checksum does not cover added, or one it lists removed."""
    path = tmp_path / "r.npz"
    _save(path)

    def change(members):
        if edit == "meta":
            meta = json.loads(str(np.load(path)["__meta__"]))
            meta["time"] = 0.75
            members["__meta__.npy"] = _npy(np.array(json.dumps(meta)))
        elif edit == "table":
            table = np.load(path)["__digests__"].copy()
            table[0, 0, 0] ^= 1
            members["__digests__.npy"] = _npy(table)
        elif edit == "extra":
            members["x.npy"] = _npy(np.zeros(NBLOCKS))
        else:
            del members["f.npy"]

    _rewrite(path, change)
    with pytest.raises(RestartError, match="is corrupt: its checksum does not match its contents"):
        block_restart.BlockFile(str(path))
    with pytest.raises(RestartError, match="is corrupt: its checksum does not match its contents"):
        restart.load(str(path))


def _npy(value: np.ndarray) -> bytes:
    import io

    out = io.BytesIO()
    np.lib.format.write_array(out, value, allow_pickle=False)
    return out.getvalue()


@pytest.mark.parametrize("keep", [0.3, 0.9, 0.9999])
def test_a_truncated_file_is_refused_on_opening(tmp_path, keep):
    path = tmp_path / "r.npz"
    _save(path)
    raw = path.read_bytes()
    path.write_bytes(raw[:int(len(raw) * keep)])
    with pytest.raises(RestartError, match=r"is corrupt or not a brickwork restart file"):
        block_restart.BlockFile(str(path))


def test_a_block_of_the_wrong_shape_writes_nothing(tmp_path):
    layout = [("T", np.float64, (2, 3))]
    blocks = iter([np.zeros((2, 3)), np.zeros((3, 2))])
    with pytest.raises(ValueError, match=r"block 1 of 'T' is float64 of shape \(3, 2\), not float64 of shape \(2, 3\)"):
        block_restart.save(str(tmp_path / "r.npz"), layout, 2, {}, blocks)
    assert os.listdir(tmp_path) == []


def test_a_file_of_the_second_format_is_read_by_blocks_after_its_checksum(tmp_path):
    path = restart.save(str(tmp_path / "r2.npz"), ARRAYS, {"time": 0.5})
    with block_restart.BlockFile(path) as source:
        assert source.format == "brickwork-restart-2"
        np.testing.assert_array_equal(source.read("T", 4), ARRAYS["T"][4])
        assert bool(source.read("allocated:s", 3))
    _flip(tmp_path / "r2.npz", "f", 9)
    with pytest.raises(RestartError, match="is corrupt: its checksum does not match its contents"):
        block_restart.BlockFile(path)


def _forge(path, arrays, nblocks, meta=None):
    """A third-format file whose metadata says ``nblocks`` blocks, digests and top checksum made consistent (as
    anyone can: the checksums find damage, they are no signature) over ``arrays`` of any number of rows."""
    names = list(arrays)
    table = np.zeros((len(names), nblocks, 32), np.uint8)
    for i, name in enumerate(names):
        for gid in range(min(nblocks, len(arrays[name]))):
            table[i, gid] = np.frombuffer(hashlib.sha256(arrays[name][gid].tobytes()).digest(), np.uint8)
    meta = dict(meta or {"time": 0.5}, format=block_restart.FORMAT, blocks=nblocks, arrays=names)
    meta["sha256"] = block_restart._top_digest(meta, table)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, a in arrays.items():
            z.writestr(name + ".npy", _npy(a))
        z.writestr("__digests__.npy", _npy(table))
        z.writestr("__meta__.npy", _npy(np.array(json.dumps(meta))))
    return str(path)


@pytest.mark.parametrize("nblocks", [NBLOCKS - 2, NBLOCKS + 1, 0])
def test_metadata_that_lies_about_the_number_of_blocks_is_refused_on_opening(tmp_path, nblocks):
    """Every block that has a digest matches it, and the checksum over metadata and digests matches: the arrays'
    rows must still be the metadata's blocks (fewer: a block read past the table raised IndexError; more: the
    file's blocks without a digest were read unchecked)."""
    path = _forge(tmp_path / "r.npz", ARRAYS, nblocks)
    with pytest.raises(RestartError) as info:
        block_restart.BlockFile(path)
    assert str(info.value) == (f"restart file {path!r} is corrupt: its array 'T' has {NBLOCKS} rows, but its "
                               f"metadata says {nblocks} blocks")
    with pytest.raises(RestartError, match="is corrupt"):
        restart.load(path)
    with block_restart.BlockFile(_forge(tmp_path / "ok.npz", ARRAYS, NBLOCKS)) as source:  # the forgery itself reads
        np.testing.assert_array_equal(source.read("T", NBLOCKS - 1), ARRAYS["T"][NBLOCKS - 1])


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("gid", [-1, NBLOCKS, 2**40, 1.0, True])
def test_a_block_outside_the_array_is_an_index_error_and_reads_nothing(tmp_path, fmt, gid):
    """Not a read of other bytes of the file (the second format has no digest per block to catch it)."""
    path = _save(tmp_path / "r.npz") if fmt == 3 else restart.save(str(tmp_path / "r.npz"), ARRAYS, {})
    with block_restart.BlockFile(path) as source:
        with pytest.raises(IndexError, match=rf"block {gid!r} of array 'f', which has blocks 0 to {NBLOCKS - 1}"):
            source.read("f", gid)
        assert source.bytes_read == 0
        np.testing.assert_array_equal(source.read("f", np.int64(NBLOCKS - 1)), ARRAYS["f"][-1])


@pytest.mark.parametrize("out", [np.empty(7, np.float64), np.empty(6, np.float32), np.empty((7, 2), np.float32)[:, 0]])
def test_an_out_array_that_cannot_hold_the_block_is_refused(tmp_path, out):
    before = out.copy()
    with block_restart.BlockFile(_save(tmp_path / "r.npz")) as source:
        with pytest.raises(ValueError, match=r"out is .* not a C-contiguous float32 of shape \(7,\) \(a block of 'f'\)"):
            source.read("f", 1, out)
        assert source.bytes_read == 0
    np.testing.assert_array_equal(out, before)


class _FailingFile:
    """An open file whose reads fail as a disk's or a network file system's do."""

    def __init__(self, f):
        self.f = f

    def seek(self, offset):
        return self.f.seek(offset)

    def readinto(self, view):
        raise OSError(errno.EIO, "Input/output error")

    def close(self):
        self.f.close()


def test_an_io_error_reading_a_block_is_a_restart_error_naming_the_file(tmp_path):
    """Before, the OSError came out as it was (no file named), and a mesh's ranks passed on RestartErrors only."""
    out = np.full(7, 5.0, np.float32)
    with block_restart.BlockFile(_save(tmp_path / "r.npz")) as source:
        source._f = _FailingFile(source._f)
        with pytest.raises(RestartError) as info:
            source.read("f", 1, out)
    assert str(info.value) == f"restart file {str(tmp_path / 'r.npz')!r} cannot be read: input/output error"
    assert (out == 5.0).all()


def _patch_member_headers(path, member: str, local_at: int, central_at: int, value: bytes):
    """Overwrite bytes of ``member``'s local header (at ``local_at``) and central directory entry (``central_at``)."""
    raw = bytearray(path.read_bytes())
    name = member.encode()
    for signature, at in ((b"PK\x03\x04", local_at), (b"PK\x01\x02", central_at)):
        start = 0
        while (start := raw.find(signature, start)) >= 0:
            length = 30 if signature == b"PK\x03\x04" else 46
            if raw[start + length:start + length + len(name)] == name:
                raw[start + at:start + at + len(value)] = value
            start += 4
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("damage", ["header", "version", "encrypted"])
def test_damage_that_escaped_as_other_exceptions_is_a_restart_error(tmp_path, damage):
    """An array header numpy cannot parse (it tokenizes it as a Python 2 header: tokenize.TokenError), a zip entry
    of a version zipfile cannot read (NotImplementedError), a member flagged encrypted (zipfile's RuntimeError
    asking for a password): found by fuzzing the file's bytes; each escaped BlockFile or restart.load as it was."""
    path = tmp_path / "r.npz"
    _save(path)
    if damage == "header":
        def change(members):
            members["f.npy"] = (b"\x93NUMPY\x01\x00" + (118).to_bytes(2, "little")
                                + b"{'descr': '<f4', 'fortran_order': False, 'shape': (5, 7,".ljust(117) + b"\n"
                                + ARRAYS["f"].tobytes())
        _rewrite(path, change)
        words = r"is corrupt or not a brickwork restart file: \('EOF in multi-line statement'"
    elif damage == "version":
        _patch_member_headers(path, "T.npy", 4, 6, bytes([64, 0]))  # version needed to extract: 6.4
        words = r"is corrupt or not a brickwork restart file: zip file version 6.4"
    else:
        _patch_member_headers(path, "T.npy", 6, 8, bytes([1]))  # general purpose flag bit 0
        words = r"is not a brickwork restart file \(its member 'T.npy' is encrypted; restart files store their arrays"
    for read in (block_restart.BlockFile, restart.load):
        with pytest.raises(RestartError, match=rf"^restart file {str(path)!r} {words}"):
            read(str(path))

"""``Mesh.save_restart`` and ``Mesh.load_restart``: the whole state of a mesh's fields in one restart file.

The file (``io.block_restart``: an ``.npz`` with a SHA-256 of every block of every array, and one over the
metadata and those digests) holds every field's storage, ghosts included, for every block in global id
order, which sparse instances are allocated on which block, the mesh's geometry and fields, and the
caller's own metadata (JSON: a time, a cycle, ...). A mesh built the same way (the same cells, blocks,
ghosts, domain and fields; any number of MPI ranks, any device) loads it and continues bit for bit.

Both calls are collective on several ranks, and no rank holds the whole mesh: saving, rank 0 writes
the file receiving the blocks a few at a time (``streams.write_on_rank_0``); loading, every rank reads the
metadata and the table of digests, then its own blocks only, each checked against its digest: first
to check them (a block at a time), then, once the ranks agree, into the fields. A rank that cannot use
the file (whatever it met: its own exception is the cause there), or that read other content under the
same path, is a ``RestartError`` on every rank, and nothing changes; a rank whose
blocks then fail to read into the fields (the file changed in place) is a ``RestartError`` on every rank
too, the fields partly loaded. Files of the earlier formats (one checksum over the whole file) load too: every rank
streams through the whole file to check it, then reads its own blocks.
"""

from __future__ import annotations

import hashlib
import json
import math
import re

import numpy as np

from ..io import block_restart
from ..io.restart import RestartError
from ..same_on_ranks import check_same
from . import storage
from .output import checked_path, host_storage
from .streams import write_on_rank_0

#: The entries of the mesh's description a restart must match (not its boundaries or exchange strategy,
#: which change how it continues, not what it holds).
MATCHING = ("nx", "block_nx", "nghost", "xmin", "xmax", "fields", "sparse fields")
_ALLOCATED = "allocated:"  # array name prefix of a sparse instance's allocation flags, one per block


def save_restart(mesh, path, meta=None) -> str:
    """Write the restart file ``path`` (see ``Mesh.save_restart``)."""
    path = checked_path(path, "save_restart")
    user = {} if meta is None else meta
    if not isinstance(user, dict):
        raise TypeError(f"save_restart: meta must be a dict (of JSON values), got {type(user).__name__}")
    try:
        user = plain_json(user, "meta")  # a new dict of plain values: what load_restart will return
    except (TypeError, ValueError, RecursionError) as e:
        raise TypeError(f"save_restart: meta must hold JSON values only (str, finite numbers, bools, None, "
                        f"lists, dicts with str keys; numpy scalars as the Python values they hold): {e}") from None
    check_same(mesh._halo_comm, "save_restart", {"path": path, "meta": user},
               hint="every rank calls mesh.save_restart with the same arguments (saving is collective)")
    layout, parts = [], []
    for name, field in mesh.fields.items():
        spec = field.spec
        layout.append((name, spec.dtype, (spec.nslots, *field.extents)))
        parts.append(lambda field=field: host_storage(mesh, field))  # a device field's copy: one at a time
        if spec.is_sparse:
            layout.append((_ALLOCATED + name, np.dtype(bool), ()))
            parts.append(lambda field=field: field.allocated.copy())
    meta = {"kind": "brickwork-mesh", "mesh": _described(mesh), "user": user}
    nblocks = len(mesh.block_list)
    write_on_rank_0(mesh, parts, lambda blocks: block_restart.save(path, layout, nblocks, meta, blocks),
                    "the restart file")
    return path


def load_restart(mesh, path) -> dict:
    """Load the restart file ``path`` into ``mesh``; returns the metadata it was saved with."""
    path = checked_path(path, "load_restart")
    check_same(mesh._halo_comm, "load_restart", {"path": path},
               hint="every rank loads the same restart file (loading is collective)")
    source, failure, flags = None, None, {}
    try:
        try:
            source = block_restart.BlockFile(path)
            flags = _check_blocks(mesh, source)
        except Exception as e:  # not only RestartError: the other ranks would wait in _agree for ever
            if mesh.nranks == 1:
                raise
            failure = e
        if mesh.nranks > 1:  # before anything changes: every rank goes on, or none does
            _agree(mesh, path, failure, None if failure else content_digest(source.meta))
        try:
            _fill(mesh, source, flags)
        except Exception as e:
            if mesh.nranks == 1:
                raise
            failure = e
        if mesh.nranks > 1:  # a rank whose fill failed (the file changed meanwhile): none goes on alone
            _agree_filled(mesh, path, failure)
        return source.meta.get("user", {})
    finally:
        if source is not None:
            source.close()


def _fill(mesh, source, flags: dict) -> None:
    """Set the sparse allocation (``flags``: this rank's, read by ``_check_blocks``) and every field's
    storage on this rank's blocks from ``source``, a block at a time (a device field: into one host copy,
    uploaded once). Each block is checked again: a file changed in place meanwhile is a ``RestartError``
    (on every rank: ``_agree_filled``)."""
    for name, field in mesh.fields.items():
        spec = field.spec
        if spec.is_sparse:
            for block in mesh.blocks:
                if flags[name][block.lid]:
                    mesh.allocate_sparse(block, spec.base_name, spec.sparse_id)
                else:
                    mesh.deallocate_sparse(block, spec.base_name, spec.sparse_id)
            if field.data is None:  # allocated on none of this rank's blocks
                continue
        data = mesh.data(name)
        direct = isinstance(data, np.ndarray) and data.flags.c_contiguous
        host = data if direct else np.empty(data.shape, dtype=data.dtype)  # a device field: one upload
        for block in mesh.blocks:  # straight into the storage (a block of a C-ordered array is C-ordered)
            source.read(name, block.gid, host[block.lid])
        if isinstance(data, storage.DeviceStorage):
            data.assign(host)
        elif not direct:
            data[...] = host


def _check_blocks(mesh, source) -> dict:
    """Check the restart file ``source`` against ``mesh`` (``RestartError``): what it describes, each array's
    dtype and shape, and the digest of every block of this rank (read one at a time and dropped). Returns
    this rank's sparse allocation flags ``{instance name: [flag per local block]}``."""
    path, meta = source.path, source.meta
    if meta.get("kind") != "brickwork-mesh" or not isinstance(meta.get("mesh"), dict):
        raise RestartError(f"restart file {path!r} is not a mesh restart (Mesh.save_restart writes those)")
    if not isinstance(meta.get("user", {}), dict):  # save_restart always stores a dict
        raise RestartError(f"restart file {path!r} is not a mesh restart as Mesh.save_restart writes it: its "
                           f"'user' entry (the meta saved with it) is {type(meta['user']).__name__}, not a dict")
    theirs, mine = meta["mesh"], _described(mesh)
    for key in MATCHING:
        if theirs.get(key) != mine[key]:
            if key in _PROPERTIES and isinstance(theirs.get(key), dict):  # name the fields, not all of them
                what = f"other {key}: {_field_differences(key, theirs[key], mine[key])}"
            else:
                what = f"{key} {theirs.get(key)!r}, but this mesh has {mine[key]!r}"
            raise RestartError(f"restart file {path!r} was written by a mesh with {what}: build the mesh as the run "
                               f"that saved it did")
    nblocks = len(mesh.block_list)
    wanted = []
    for name, field in mesh.fields.items():  # every array checked before anything changes
        spec = field.spec
        wanted.append((name, (nblocks, spec.nslots, *field.extents), spec.dtype))
        if spec.is_sparse:
            wanted.append((_ALLOCATED + name, (nblocks,), np.dtype(bool)))
    for name, shape, dtype in wanted:
        _check(path, name, source.arrays.get(name), shape, dtype)
    flags = {}
    for name, shape, dtype in wanted:
        flag = name.startswith(_ALLOCATED)
        if not flag and source.format != block_restart.FORMAT:
            continue  # an earlier format is checked whole on opening: only its flags are wanted here
        buffer = np.empty(shape[1:], dtype=dtype)
        values = []
        for block in mesh.blocks:
            source.read(name, block.gid, buffer)  # checked against its digest, then dropped
            if flag:
                values.append(bool(buffer))
        if flag:
            flags[name[len(_ALLOCATED):]] = values
    return flags


def content_digest(meta: dict) -> str:
    """A SHA-256 that tells restart files of different content apart, from the metadata ``restart.load`` (or a
    ``block_restart.BlockFile``) read: its ``sha256`` entry, checked on loading, covers the arrays (their
    blocks' digests in the third format; the metadata too, from the second on), so hashing the whole metadata
    with it covers everything without reading the arrays again."""
    return hashlib.sha256(json.dumps(meta, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _message(failure: Exception) -> str:
    """What other ranks are told of ``failure``: a ``RestartError``'s message, else the exception's type too."""
    return str(failure) if isinstance(failure, RestartError) else f"{type(failure).__name__}: {failure}"


def _raise_agreed(failure: Exception | None, message: str) -> None:
    """``RestartError(message)`` on every rank (one type: ``except RestartError`` works alike on each), caused
    by this rank's own ``failure`` where it is another exception."""
    cause = None if isinstance(failure, RestartError) else failure
    raise RestartError(message) from cause


def _agree(mesh, path: str, failure: Exception | None, digest: str | None) -> None:
    """``RestartError`` on every rank (collective) when some rank could not read or use the file (caused by that
    rank's own exception where it is another), or when the ranks read files of different content under one path
    (node-local disks): loading on some ranks only would leave the mesh half restored, and ghosts mixing two
    states."""
    everyone = mesh._halo_comm.allgather((None if failure is None else _message(failure), digest))
    failed = [rank for rank, (message, _) in enumerate(everyone) if message is not None]
    if failed:
        message = everyone[failed[0]][0]
        if len(failed) < len(everyone):  # the ranks that read it would not know where to look
            message += f" (on rank{'s' if len(failed) > 1 else ''} {', '.join(map(str, failed))} of {len(everyone)})"
        _raise_agreed(failure, message)
    for rank, (_, theirs) in enumerate(everyone[1:], start=1):
        if theirs != everyone[0][1]:
            raise RestartError(f"restart file {path!r} differs between the MPI ranks: rank {rank} read other "
                               f"content (SHA-256 {theirs[:12]}...) than rank 0 ({everyone[0][1][:12]}...); every "
                               f"rank must read the same restart file (copy it to each node's disk)")


def _agree_filled(mesh, path: str, failure: Exception | None) -> None:
    """``RestartError`` on every rank (collective) when some rank could not read its blocks into the fields after
    the ranks agreed on the file (it changed in place meanwhile): the fields are then partly loaded."""
    everyone = mesh._halo_comm.allgather(None if failure is None else _message(failure))
    failed = [rank for rank, message in enumerate(everyone) if message is not None]
    if failed:
        _raise_agreed(failure, f"{everyone[failed[0]]} (on rank{'s' if len(failed) > 1 else ''} "
                               f"{', '.join(map(str, failed))} of {len(everyone)}, while reading the blocks into the "
                               f"fields: the mesh's fields are partly loaded)")


#: What ``Mesh._description`` records of each field and sparse pool, in order (a pool as its repr).
_PROPERTIES = {"fields": ("metadata", "shape", "dtype"),
               "sparse fields": ("base_name", "metadata", "shape", "dtype", "package", "sparse_ids")}
_POOL = re.compile(r"SparsePool\(base_name=(.*), metadata=(.*), shape=(.*), dtype=(.*), package=(.*), "
                   r"sparse_ids=(.*)\)")
#: The most differences a mismatch names (a mesh may have hundreds of fields)
_SHOWN = 4


def _field_differences(key: str, theirs: dict, mine: dict) -> str:
    """The fields (or sparse pools) of ``theirs`` (the file's) and ``mine`` (the mesh's) that differ, by name,
    in one line: those missing on either side, then each differing property."""
    only_here = [n for n in mine if n not in theirs]
    only_there = [n for n in theirs if n not in mine]
    parts = []
    if only_here:
        parts.append(f"{_names(only_here)} {'is' if len(only_here) == 1 else 'are'} in this mesh but not in the file")
    if only_there:
        parts.append(f"{_names(only_there)} {'is' if len(only_there) == 1 else 'are'} in the file but not in this mesh")
    for name in (n for n in mine if n in theirs and theirs[n] != mine[n]):
        a, b = _properties(key, theirs[name]), _properties(key, mine[name])
        if a is None or b is None or a == b:  # not in the form this mesh writes: the whole entry
            parts.append(f"{name!r} is {theirs[name]!r} in the file but {mine[name]!r} here")
            continue
        parts += [f"{name!r} has {label} {x} in the file but {y} here"
                  for label, x, y in zip(_PROPERTIES[key], a, b) if x != y]
    more = f"; and {len(parts) - _SHOWN} more differences" if len(parts) > _SHOWN else ""
    return "; ".join(parts[:_SHOWN]) + more


def _properties(key: str, entry) -> tuple | None:
    """The properties of a field's (or pool's) ``entry`` in the description, as they read best (tuples for
    shapes, ``Metadata(Cell, FillGhost)``, ``float64``); None for an entry of another form."""
    if key == "fields":
        values = tuple(entry) if isinstance(entry, list) and len(entry) == 3 else None
    else:
        match = _POOL.fullmatch(entry) if isinstance(entry, str) else None
        values = match.groups() if match else None
    if values is None:
        return None
    return tuple(_plain_property(v) for v in values)


def _plain_property(value) -> str:
    if isinstance(value, list):  # a shape, as JSON gives it back
        return str(tuple(value))
    text = str(value).replace("Metadata.", "")
    dtype = re.fullmatch(r"dtype\('(.*)'\)", text)
    return dtype.group(1) if dtype else text


def _names(names: list) -> str:
    shown = ", ".join(map(repr, names[:_SHOWN]))
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


def _described(mesh) -> dict:
    """The matching entries of the mesh's description, as JSON gives them back (tuples as lists)."""
    description = mesh._description()
    return json.loads(json.dumps({key: description[key] for key in MATCHING}))


def _check(path: str, name: str, found: tuple | None, shape: tuple, dtype) -> None:
    """``RestartError`` unless the file's array ``name`` (``found``: its dtype and shape) is ``dtype`` of ``shape``."""
    if found is None:
        raise RestartError(f"restart file {path!r}: array {name!r} is missing")
    if found[0] != dtype or found[1] != shape:
        raise RestartError(f"restart file {path!r}: array {name!r} is {found[0]} of shape {found[1]}, but "
                           f"this mesh needs {np.dtype(dtype)} of shape {shape}")


def plain_json(value, where: str):
    """``value`` with numpy scalars (``np.int64``, ``np.float32``, ``np.bool_``, ``np.str_``) as the Python
    values they hold, and tuples as lists, so that the metadata loaded is the metadata saved; ``TypeError``
    naming the entry (``meta['a'][2]``) for anything else that is no JSON value, ``ValueError`` for a NaN
    or an infinity. Dict keys must be strings: JSON would turn ``{1: 2}`` into ``{"1": 2}``."""
    if value is None or isinstance(value, bool):  # before int: a bool is an int
        return value
    if isinstance(value, np.bool_):  # not a bool (nor an int): json cannot write it
        return bool(value)
    if isinstance(value, str):
        return str(value)  # np.str_ too
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)  # exact: every float16/32 is a double; float128 rounds, as any JSON number would
        if not math.isfinite(number):
            raise ValueError(f"{where} is {number!r}, which JSON cannot hold")
        return number
    if isinstance(value, dict):
        for k in value:
            if not isinstance(k, str):
                raise TypeError(f"key {k!r} is not a string (in {where})")
        return {k: plain_json(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise TypeError(f"{where} is {_kind(value)}, not a JSON value")


def _kind(value) -> str:
    """``a numpy.ndarray of shape (2,)``, ``a complex``: what ``value`` is, in words."""
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    article = "an" if name[0] in "aeiou" else "a"
    return f"{article} {name}" + (f" of shape {value.shape}" if isinstance(value, np.ndarray) else "")

"""``Mesh.write_output``: a mesh's cell and node fields as HDF5 + XDMF, the files ParaView and VisIt open;
``Mesh.global_array``: a field over the whole mesh as one numpy array.

The interior cells of every block are written (a node field: the nodes on and inside each block's
bounds, as XDMF node values), a field of several components as one variable per
component (``velocity_1``, ``velocity_2``, ...; ``stress_1_2`` for a matrix; ``_re`` and ``_im`` parts of a
complex field; float16 written as float32, bool as uint8), in the format of
``io.hdf5`` (one dataset ``/cells/<name>`` of shape ``(nblocks, nk, nj, ni)`` per variable, one grid per
block in the XDMF file). On several MPI ranks the call is collective: rank 0 writes both files,
receiving the blocks a few at a time, variable by variable (``streams.write_on_rank_0``: no rank holds
more than its own blocks and one field's values for the output), and every rank returns their paths,
or raises the error rank 0 met (the other ranks as an ``OutputError``).
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from ..io import hdf5
from ..same_on_ranks import check_same
from .indexing import TE, IndexDomain
from .metadata import TopologicalType
from .streams import write_on_rank_0

#: The centrings written (as XDMF's Cell and Node attributes).
_WRITTEN = (TopologicalType.Cell, TopologicalType.Node)


def write_output(mesh, path_stem, fields=None, time: float = 0.0, cycle: int = 0) -> tuple[str, str]:
    """Write ``path_stem.h5`` and ``path_stem.xdmf`` (see ``Mesh.write_output``)."""
    stem = _checked_stem(path_stem)
    names = _checked_fields(mesh, fields)
    time, cycle = _checked_number(time, "time", float), _checked_number(cycle, "cycle", int)
    check_same(mesh._halo_comm, "write_output", {"path_stem": stem, "fields": names, "time": time, "cycle": cycle},
               hint="every rank calls mesh.write_output with the same arguments (writing is collective)")
    hdf5._require_h5py()  # before any block is sent: the same on every rank
    cells, nodes, owner = {}, {}, {}
    parts = {"cells": [], "nodes": []}
    values = _FieldValues(mesh)
    nblocks = len(mesh.block_list)
    for name in names:
        node = mesh.field(name).spec.topological_type == TopologicalType.Node
        shape = (nblocks, *_block_shape(mesh, node))
        for label, dtype, take in _variables(mesh, name):
            if "/" in label or label == ".":  # HDF5 reads '/' as a group separator
                raise ValueError(f"write_output: field {name!r} cannot name an HDF5 dataset ('/' separates groups); "
                                 f"leave it out (fields=...)")
            if label in owner:  # a field "v_1" beside a vector field "v" (the same on every rank)
                raise ValueError(f"write_output: fields {owner[label]!r} and {name!r} would both be written as "
                                 f"{label!r}; write them to separate outputs (fields=...)")
            owner[label] = name
            (nodes if node else cells)[label] = hdf5.Variable(dtype, shape)
            parts["nodes" if node else "cells"].append(lambda name=name, take=take: take(values(name)))
    write_on_rank_0(mesh, parts["cells"] + parts["nodes"],
                    lambda blocks: hdf5.write_blocks(stem, cells, *block_geometry(mesh), time, cycle, nodes, blocks),
                    "the output")
    return stem + ".h5", stem + ".xdmf"


def block_geometry(mesh) -> tuple[np.ndarray, np.ndarray]:
    """The lower corners ``(nblocks, 3)`` and cell widths ``(nblocks, 3)`` of every block, in global order."""
    blocks = mesh.block_list
    return np.array([b.coords.xmin for b in blocks]), np.array([[b.coords.dx(d) for d in (1, 2, 3)] for b in blocks])


def checked_path(value, what: str, name: str = "path", hint: str = "") -> str:
    """``value`` (a str or os.PathLike) as a string; ``TypeError``/``ValueError`` naming ``what`` and ``name``
    when it is no file's path."""
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{what}: {name} must be a path (str or os.PathLike), got {type(value).__name__}")
    text = os.fspath(value)
    if not text or text.endswith(os.sep):
        raise ValueError(f"{what}: {name} {text!r} names no file{hint}")
    if isinstance(text, str) and "\0" in text:  # the operating system would refuse it part-way (a raw ValueError)
        raise ValueError(f"{what}: {name} {text!r} contains a NUL character, which no file name can hold")
    return text


def _checked_stem(path_stem, what: str = "write_output") -> str:
    hint = " (give a name such as 'out/heat.00010')"
    stem = checked_path(path_stem, what, "path_stem", hint)
    if os.path.basename(stem) in (".", ".."):
        raise ValueError(f"{what}: path_stem {stem!r} names no file{hint}")
    try:  # on every rank, before anything is gathered (hdf5.write checks again on rank 0)
        hdf5.check_file_name(stem)
    except hdf5.OutputNameError as e:
        raise ValueError(f"{what}: {e.args[0]}") from None
    return stem


def _checked_fields(mesh, fields, what: str = "write_output", readers: str = "XDMF readers") -> list[str]:
    """The names to write: ``fields`` (one name or several) checked, or every cell and node field."""
    if fields is None:
        names = [n for n, f in mesh.fields.items() if f.spec.topological_type in _WRITTEN]
        if not names:
            raise ValueError(f"{what}: the mesh has no cell- or node-centred field to write")
    else:
        names = _named_fields(mesh, fields, what)
    for name in names:
        _check_readable_dtype(name, mesh.field(name).spec.dtype, what, readers)
    return names


def _named_fields(mesh, fields, what: str = "write_output") -> list[str]:
    """The fields ``fields`` names (one name or several), checked."""
    names = [fields] if isinstance(fields, str) else list(fields) if isinstance(fields, (list, tuple)) else None
    if names is None or not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"{what}: fields must be a field name or a non-empty list of them, got {fields!r}")
    expanded = []
    for n in names:  # a sparse pool's base name stands for all of its instances
        expanded += [i.name for i in mesh._pools[n].instances] if n in mesh._pools else [n]
    names = expanded
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: fields names a field twice: {names}")
    for name in names:
        spec = mesh.field(name).spec  # KeyError naming the close matches for an unknown name
        if spec.topological_type not in _WRITTEN:
            raise ValueError(f"{what}: field {name!r} is a {spec.topological_type.name} field; only cell- "
                             f"and node-centred fields can be written (XDMF readers take no other centring)")
    return names


def _check_readable_dtype(name: str, dtype, what: str = "write_output", readers: str = "XDMF readers") -> None:
    """``ValueError`` for a field of long doubles (float128, complex256): XDMF knows floats of 4 and 8 bytes
    only (readers fail on ``Precision="16"``), and no type they read holds every long double."""
    dtype = np.dtype(dtype)
    if (dtype.kind == "f" and dtype.itemsize > 8) or (dtype.kind == "c" and dtype.itemsize > 16):
        wide = "float64" if dtype.kind == "f" else "complex128"
        raise ValueError(f"{what}: field {name!r} is {dtype.name}, which {readers} cannot read (they take "
                         f"floats of 4 and 8 bytes, and {wide} would round it); copy it into a {wide} field and "
                         f"write that, or leave it out (fields=...)")


def _checked_number(value, what: str, kind, caller: str = "write_output"):
    numbers = (int, np.integer) if kind is int else (int, float, np.integer, np.floating)
    ok = isinstance(value, numbers)
    if not ok or isinstance(value, bool) or (kind is float and not np.isfinite(value)):
        need = "an integer" if kind is int else "a finite number"
        raise TypeError(f"{caller}: {what} must be {need}, got {value!r}")
    if kind is int and not -2**63 <= value < 2**63:  # what the HDF5 attribute holds
        raise ValueError(f"{caller}: {what} must fit a 64-bit integer, got {value}")
    return kind(value)


def interior_values(mesh, name: str) -> np.ndarray:
    """``(local blocks, nslots, nk, nj, ni)``: field ``name``'s interior cells on this rank's blocks (a node
    field: the nodes on and inside each block's bounds), on the host; a sparse instance gives zeros on the
    blocks where it is not allocated."""
    field = mesh.field(name)
    spec = field.spec
    te = TE.NN if spec.topological_type == TopologicalType.Node else TE.CC
    bounds = mesh.cellbounds
    interior = tuple(b(IndexDomain.interior, te).as_slice() for b in (bounds.get_bounds_k, bounds.get_bounds_j,
                                                                       bounds.get_bounds_i))
    data = host_storage(mesh, field)[(slice(None), slice(None)) + interior]
    if field.data is not None and not field.allocated.all():  # a sparse instance: its unallocated blocks hold no values
        data = np.where(field.allocated[:, None, None, None, None], data, np.zeros((), data.dtype))
    return data


def host_storage(mesh, field) -> np.ndarray:
    """A field's whole storage on this rank's blocks, on the host (a device field's copy; zeros for a sparse
    instance without storage on this rank)."""
    if field.data is None:
        return np.zeros((mesh.nblocks, field.spec.nslots, *field.extents), dtype=field.spec.dtype)
    return np.asarray(field.data if isinstance(field.data, np.ndarray) else field.data.numpy())


def assemble_blocks(mesh, per_block: np.ndarray, nodes: bool = False) -> np.ndarray:
    """``(..., nk, nj, ni)`` arrays of every block (global id order: ``mesh.gather_blocks``) placed into one
    ``(..., nx3, nx2, nx1)`` array (``nodes``: node values, one more per active direction; blocks share
    the nodes on their common faces, which the later block writes)."""
    if len(per_block) != len(mesh.block_list):
        raise ValueError(f"assemble_blocks needs one entry per block of the mesh ({len(mesh.block_list)}), got "
                         f"{len(per_block)}: gather a distributed mesh's blocks with mesh.gather_blocks first")
    extra = [1 if nodes and d < mesh.ndim else 0 for d in range(3)]  # x1, x2, x3
    shape = tuple(mesh.nx[d] + extra[d] for d in (2, 1, 0))
    out = np.zeros((*per_block.shape[1:-3], *shape), dtype=per_block.dtype)
    b1, b2, b3 = mesh.block_nx
    for block in mesh.block_list:
        l1, l2, l3 = block.location
        out[..., l3 * b3:(l3 + 1) * b3 + extra[2], l2 * b2:(l2 + 1) * b2 + extra[1],
            l1 * b1:(l1 + 1) * b1 + extra[0]] = per_block[block.gid]
    return out


def global_array(mesh, name: str, root: int = 0):
    """Field ``name`` over the whole mesh on rank ``root`` (see ``Mesh.global_array``); None on the others."""
    spec = mesh.field(name).spec
    if spec.topological_type not in _WRITTEN:
        raise ValueError(f"global_array: field {name!r} is a {spec.topological_type.name} field; only cell- and "
                         f"node-centred fields have one value per cell or node")
    if not isinstance(root, (int, np.integer)) or isinstance(root, bool) or not 0 <= root < mesh.nranks:
        raise ValueError(f"global_array: root must be a rank of the mesh (0 to {mesh.nranks - 1}), got {root!r}")
    check_same(mesh._halo_comm, "global_array", {"name": name, "root": int(root)},
               hint="every rank calls mesh.global_array with the same arguments (gathering is collective)")
    gathered = mesh.gather_blocks(interior_values(mesh, name), root)
    if gathered is None:
        return None
    whole = assemble_blocks(mesh, gathered, nodes=spec.topological_type == TopologicalType.Node)
    whole = whole[(slice(None),) + (0,) * (3 - mesh.ndim)]  # without the directions the mesh lacks
    return whole.reshape(*spec.shape, *whole.shape[1:])


class _FieldValues:
    """``values(name)``: field ``name``'s values on this rank's blocks as ``write_output`` writes them
    (``interior_values``; a node field's repeated along the directions a 1-D or 2-D mesh does not have: its
    XDMF grid is one cell, two nodes, thick there), kept for the next call (a field's components are taken
    in turn) and dropped when another field is asked for: one field at a time."""

    def __init__(self, mesh):
        self.mesh, self.name, self.data = mesh, None, None

    def __call__(self, name: str) -> np.ndarray:
        if name != self.name:
            self.name, self.data = None, None  # the previous field's values go first
            data = interior_values(self.mesh, name)
            if self.mesh.field(name).spec.topological_type == TopologicalType.Node:
                for axis in range(3 - self.mesh.ndim):  # k (and j): the inactive directions
                    data = np.repeat(data, 2, axis=2 + axis)
            self.name, self.data = name, data
        return self.data


def _block_shape(mesh, node: bool) -> tuple:
    """``(nk, nj, ni)`` of a block of a cell variable (``node``: of a node variable, one more node per
    active direction and two along the others) as ``write_output`` writes it."""
    return tuple(mesh.block_nx[d] + 1 if d < mesh.ndim else 2 for d in (2, 1, 0)) if node else \
        tuple(mesh.block_nx[d] for d in (2, 1, 0))


def _variables(mesh, name: str) -> list:
    """``(variable name, dtype, take)`` for each variable of field ``name``: a component (``velocity_1``,
    ``stress_1_2``), or a part of one (``_re`` and ``_im`` of a complex component), in a type XDMF readers
    take (float16 as float32, bool as uint8); ``take(values)`` gives its ``(local blocks, nk, nj, ni)`` from
    the field's values (``_FieldValues``)."""
    spec = mesh.field(name).spec
    dtype = np.dtype(spec.dtype)
    labels = [""] if not spec.shape else \
        ["".join(f"_{i}" for i in label) for label in itertools.product(*(range(1, n + 1) for n in spec.shape))]
    out = []
    for slot, label in enumerate(labels):
        if dtype == np.float16:
            out.append((name + label, np.dtype(np.float32), lambda v, s=slot: v[:, s].astype(np.float32)))
        elif dtype == np.bool_:
            out.append((name + label, np.dtype(np.uint8), lambda v, s=slot: v[:, s].astype(np.uint8)))
        elif dtype.kind == "c":
            part = np.dtype(f"f{dtype.itemsize // 2}")
            out += [(name + label + "_re", part, lambda v, s=slot: np.ascontiguousarray(v[:, s].real)),
                    (name + label + "_im", part, lambda v, s=slot: np.ascontiguousarray(v[:, s].imag))]
        else:
            out.append((name + label, dtype, lambda v, s=slot: v[:, s]))
    return out

"""``Mesh.write_vtk``: a mesh's cell fields as VTK XML files, which ParaView and VisIt open with no extra Python
package: ``path_stem.vtm`` (a multiblock file) naming one image per block, ``path_stem/block_GGGGGG.vti``
(``io.vtk``: interior cells, a field of several components as one variable per component, as
``write_output`` names them). With ``collection=``, a ``.pvd`` file lists the outputs with their times, so
that ParaView opens them as a time series.

On several MPI ranks the call is collective and the files are those of one process: rank 0 writes every
file, receiving the blocks a few at a time (``streams.write_on_rank_0``), each block's variables as one
run of bytes, so that rank 0 writes a block's file as soon as it has it.
"""

from __future__ import annotations

import os

import numpy as np

from ..io import vtk
from ..io.files import OutputError, discard, output_error
from ..same_on_ranks import check_same
from .metadata import TopologicalType
from .output import (
    _block_shape,
    _check_readable_dtype,
    _checked_number,
    _checked_stem,
    _FieldValues,
    _named_fields,
    _variables,
    block_geometry,
    checked_path,
)
from .streams import write_on_rank_0

WHAT = "write_vtk"


def write_vtk(mesh, path_stem, fields=None, time: float = 0.0, cycle: int = 0, collection=None) -> str:
    """Write ``path_stem.vtm`` and its blocks' ``.vti`` files (see ``Mesh.write_vtk``); returns the ``.vtm``."""
    stem = _checked_stem(path_stem, WHAT)
    names = _cell_fields(mesh, fields)
    time, cycle = _checked_number(time, "time", float, WHAT), _checked_number(cycle, "cycle", int, WHAT)
    series = None if collection is None else _checked_collection(collection)
    check_same(mesh._halo_comm, WHAT, {"path_stem": stem, "fields": names, "time": time, "cycle": cycle,
                                       "collection": series},
               hint="every rank calls mesh.write_vtk with the same arguments (writing is collective)")
    layout = _layout(mesh, names)
    xmin, dx = block_geometry(mesh)
    folder = os.path.basename(stem)
    pieces = [f"{folder}/block_{gid:06d}.vti" for gid in range(len(mesh.block_list))]
    written: list[str] = []
    made: list[bool] = []  # whether this call made the blocks' folder

    def write(blocks) -> None:
        try:
            made.append(not os.path.lexists(stem))
            _make_folder(stem)
            for gid, raw in enumerate(blocks):
                variables = {label: raw[start:end].view(dtype).reshape(shape)
                             for label, dtype, shape, start, end in layout}
                path = os.path.join(os.path.dirname(stem), pieces[gid])
                written.append(vtk.write_block(path, variables, xmin[gid], dx[gid], time, cycle, mesh.ndim))
            written.append(vtk.write_multiblock(stem + ".vtm", pieces))
            if series is not None:
                vtk.update_collection(series, os.path.relpath(stem + ".vtm", os.path.dirname(series) or "."), time,
                                      _listed(series, stem, time))
        except BaseException:  # nothing of a half-written output stays behind
            discard(*written)
            if made and made[0]:
                try:
                    os.rmdir(stem)
                except OSError:  # not empty: something else is in it
                    pass
            raise

    write_on_rank_0(mesh, [lambda: _block_bytes(mesh, names)], write, "the VTK output")
    return stem + ".vtm"


def _cell_fields(mesh, fields) -> list[str]:
    """The cell fields to write: those ``fields`` names (checked), or every cell field of the mesh."""
    if fields is None:
        names = [n for n, f in mesh.fields.items() if f.spec.topological_type == TopologicalType.Cell]
        if not names:
            raise ValueError(f"{WHAT}: the mesh has no cell-centred field to write")
    else:
        names = _named_fields(mesh, fields, WHAT)
    for name in names:
        if mesh.field(name).spec.topological_type != TopologicalType.Cell:
            raise ValueError(f"{WHAT}: field {name!r} is a node field; VTK outputs hold cell fields: write node "
                             f"fields with mesh.write_output (HDF5 + XDMF), or leave it out (fields=...)")
        _check_readable_dtype(name, mesh.field(name).spec.dtype, WHAT, "VTK readers")
    return names


def _checked_collection(collection) -> str:
    path = checked_path(collection, WHAT, "collection", " (give a name such as 'out/heat.pvd')")
    if not path.endswith(".pvd"):
        raise ValueError(f"{WHAT}: collection {path!r} must be a .pvd file (ParaView's time series), such as "
                         f"'out/heat.pvd'")
    return path


def _layout(mesh, names: list[str]) -> list[tuple]:
    """``(label, dtype, (nk, nj, ni), start, end)`` of every variable in a block's run of bytes."""
    shape = _block_shape(mesh, node=False)
    layout, owner, start = [], {}, 0
    for name in names:
        for label, dtype, _ in _variables(mesh, name):
            if label in owner:  # a field "v_1" beside a vector field "v"
                raise ValueError(f"{WHAT}: fields {owner[label]!r} and {name!r} would both be written as {label!r}; "
                                 f"write them to separate outputs (fields=...)")
            owner[label] = name
            end = start + int(np.prod(shape)) * dtype.itemsize
            layout.append((label, dtype, shape, start, end))
            start = end
    return layout


def _block_bytes(mesh, names: list[str]) -> np.ndarray:
    """``(local blocks, bytes)``: each of this rank's blocks' variables, one after the other, as bytes."""
    values = _FieldValues(mesh)
    columns = []
    for name in names:
        for _, _, take in _variables(mesh, name):
            v = np.ascontiguousarray(take(values(name)))
            columns.append(v.view(np.uint8).reshape(len(v), int(np.prod(v.shape[1:])) * v.itemsize))
    return np.concatenate(columns, axis=1)


def _make_folder(stem: str) -> None:
    try:  # in a directory that exists, as write_output's files
        if not os.path.isdir(stem):
            os.mkdir(stem)
    except OSError as e:
        raise output_error(e, stem) from None
    if os.path.islink(stem):  # a planted link must not send the blocks' files elsewhere
        raise OutputError(f"cannot write {stem!r}: it is a symbolic link, which outputs are not written through", stem)


def _listed(series: str, stem: str, time: float) -> list[str]:
    """The outputs the collection ``series`` lists at times before ``time`` (``update_collection`` keeps those
    that exist): a series rewritten from an earlier state drops the later outputs of the first run. None
    when it does not exist yet or is no collection."""
    if not os.path.isfile(series):
        return []
    try:
        entries = vtk.read_collection(series)
    except ValueError:
        return []
    here = os.path.relpath(stem + ".vtm", os.path.dirname(series) or ".")
    return [name for when, name in entries if name != here and when < time]

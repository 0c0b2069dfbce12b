"""HDF5 outputs with an XDMF description that ParaView and VisIt open directly.

One output is ``NAME.h5`` plus ``NAME.xdmf``. The HDF5 file holds, for every variable, one dataset
``/cells/<var>`` of shape ``(nblocks, nk, nj, ni)`` (the interior cells of each block; node-centred
variables: ``/nodes/<var>``, ``(nblocks, nk + 1, nj + 1, ni + 1)``), and the
blocks' lower corners ``/blocks/xmin`` ``(nblocks, 3)`` and cell widths ``/blocks/dx``; attributes
``time`` and ``cycle`` on the root. The XDMF file is a spatial collection of one uniform grid per
block (``3DCoRectMesh``: origin and spacing, z y x order) whose cell-centred attributes are
hyperslabs of the block axis of those datasets. 1-D and 2-D meshes are written as 3-D grids one
cell thick. ``write`` takes whole arrays; ``write_blocks`` the same output from blocks given one at
a time (a distributed mesh's rank 0 receives them so, never holding the whole mesh).

XDMF has no unsigned 64-bit type: readers (VTK's, Xdmf3) read ``NumberType="UInt"`` as 32 bits whatever
its ``Precision``, clipping larger values to 4294967295. A uint64 dataset (kept exact in the HDF5 file) is
therefore described as ``Int`` of 8 bytes, which readers read exactly below 2**63 (larger values clip to
2**63 - 1); no XDMF description keeps every uint64 value.
"""

from __future__ import annotations

import errno
import os
import re
import unicodedata
from contextlib import contextmanager
from typing import NamedTuple
from xml.sax.saxutils import escape

import numpy as np

from .files import OutputError, staged, writing


def _require_h5py():
    try:
        import h5py
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError("HDF5 output needs h5py: pip install 'brickwork[io]' (or set output.hdf5_dt = -1)") from e
    return h5py


class Variable(NamedTuple):
    """A dataset of an output, described before its values exist: dtype and shape ``(nblocks, nk, nj, ni)``."""
    dtype: np.dtype
    shape: tuple


def write(path_stem: str, variables: dict, block_xmin: np.ndarray, block_dx: np.ndarray, time: float,
          cycle: int, nodes: dict | None = None) -> tuple[str, str]:
    """Write ``path_stem.h5`` and ``path_stem.xdmf``; ``variables`` maps names to ``(nblocks, nk, nj, ni)``
    arrays of cell values, ``nodes`` names to ``(nblocks, nk + 1, nj + 1, ni + 1)`` arrays of node values
    (``/nodes/<name>``). Returns both paths. Both files are written under temporary names and renamed
    once both are complete, so a crash never leaves a half-written output under the final name; a
    failed write (e.g. a full disk) removes the temporary files and raises ``OutputError``. A file name the
    XDMF file cannot refer to raises ``OutputNameError`` (``check_file_name``) before anything is written."""
    nodes = nodes or {}
    arrays = [np.ascontiguousarray(a) for a in (*variables.values(), *nodes.values())]

    def fill(datasets):
        for dataset, data in zip(datasets, arrays):
            dataset[...] = data

    return _write(path_stem, _described(variables), _described(nodes), block_xmin, block_dx, time, cycle, fill)


def write_blocks(path_stem: str, variables: dict, block_xmin: np.ndarray, block_dx: np.ndarray, time: float,
                 cycle: int, nodes: dict, blocks) -> tuple[str, str]:
    """``write`` a block at a time: ``variables`` and ``nodes`` map names to ``Variable`` (dtype and shape),
    and ``blocks`` is an iterator giving every block ``(nk, nj, ni)`` of the first cell variable in order,
    then of the next, ..., then of the node variables: each is written as it comes, so that no more than
    one block need exist at a time (a mesh's rank 0 receives them from the ranks that hold them)."""
    h5py = _require_h5py()

    def fill(datasets):
        for dataset in datasets:
            nblocks, *shape = dataset.shape
            space, memory = dataset.id.get_space(), h5py.h5s.create_simple(tuple(shape))
            for gid in range(nblocks):
                block = next(blocks)
                if block.dtype != dataset.dtype or block.shape != tuple(shape) or not block.flags.c_contiguous:
                    raise ValueError(f"hdf5.write_blocks: block {gid} of {dataset.name} is {block.dtype} of shape "
                                     f"{block.shape}, not {dataset.dtype} of shape {tuple(shape)} (C-ordered)")
                space.select_hyperslab((gid, *(0 for _ in shape)), (1, *shape))
                dataset.id.write(memory, space, block)  # dataset[gid] = block, without h5py's selection per call

    return _write(path_stem, variables, nodes, block_xmin, block_dx, time, cycle, fill)


def _described(arrays: dict) -> dict:
    return {name: Variable(np.asarray(a).dtype, np.shape(a)) for name, a in arrays.items()}


def _write(path_stem: str, variables: dict, nodes: dict, block_xmin, block_dx, time: float, cycle: int,
           fill) -> tuple[str, str]:
    """Write an output of the datasets ``variables`` and ``nodes`` describe (``Variable``), which
    ``fill(datasets)`` fills (h5py datasets: the cell variables', then the node variables')."""
    h5py = _require_h5py()
    check_file_name(path_stem)
    h5_path, xdmf_path = path_stem + ".h5", path_stem + ".xdmf"
    text = xdmf(os.path.basename(h5_path), variables, block_xmin, block_dx, time, nodes)
    with staged(h5_path, xdmf_path) as (h5_tmp, xdmf_tmp):
        _check_room(h5_path, _file_bytes(variables, nodes, np.size(block_xmin) + np.size(block_dx)), len(text.encode()))
        with writing(h5_tmp), _system_errors(), h5py.File(h5_tmp, "w") as f:
            f.attrs["time"] = float(time)
            f.attrs["cycle"] = int(cycle)
            f.create_dataset("blocks/xmin", data=np.asarray(block_xmin, dtype=np.float64))
            f.create_dataset("blocks/dx", data=np.asarray(block_dx, dtype=np.float64))
            fill([f.create_dataset(f"{group}/{name}", shape=v.shape, dtype=v.dtype)
                  for group, described in (("cells", variables), ("nodes", nodes)) for name, v in described.items()])
        with writing(xdmf_tmp), open(xdmf_tmp, "w", encoding="utf-8") as f:
            f.write(text)
    return h5_path, xdmf_path


def _file_bytes(variables: dict, nodes: dict, block_values: int) -> int:
    """An upper estimate of the HDF5 file's size: its datasets' bytes, the blocks' corners and widths (float64),
    and room for HDF5's own structures (measured: 2 KiB and a half for each dataset, 4 KiB more)."""
    data = sum(int(np.prod(v.shape, dtype=np.int64)) * np.dtype(v.dtype).itemsize
               for v in (*variables.values(), *nodes.values()))
    return data + 8 * int(block_values) + 16384 + 4096 * (len(variables) + len(nodes))


def _check_room(h5_path: str, h5_bytes: int, xdmf_bytes: int) -> None:
    """``OutputError`` before HDF5 writes anything when the file system has less room than the output needs, or
    the process's file size limit (``ulimit -f``) is below the HDF5 file's size. HDF5 must not meet a failed
    write: a file whose close fails stays half closed in the library, which then dies of a segmentation fault
    when the process exits (h5py 3.16, HDF5 2.0). A write that fails nonetheless (the disk filled meanwhile)
    is still an ``OutputError`` (``_system_errors``)."""
    import resource

    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY and h5_bytes > limit:
        raise OutputError(f"cannot write {h5_path!r}: file too large (the output needs up to {h5_bytes} bytes, more "
                          f"than this process's file size limit, ulimit -f, of {limit} bytes)", h5_path, errno.EFBIG)
    try:
        fs = os.statvfs(os.path.dirname(h5_path) or ".")
    except OSError:
        return  # the write itself will say why
    free = (fs.f_bfree if os.geteuid() == 0 else fs.f_bavail) * fs.f_frsize
    if h5_bytes + xdmf_bytes > free:
        raise OutputError(f"cannot write {h5_path!r}: no space left on device (the output needs up to "
                          f"{h5_bytes + xdmf_bytes} bytes, and {free} bytes are free there)", h5_path, errno.ENOSPC)


@contextmanager
def _system_errors():
    """HDF5's failed system calls as ``OSError``: h5py raises a bare ``RuntimeError`` for a write that fails
    while the file is flushed or closed (``... errno = 27, error message = 'File too large'``, under
    ``ulimit -f``), which ``staged`` would let through as a traceback rather than an ``OutputError``."""
    try:
        yield
    except RuntimeError as e:
        found = re.search(r"errno = (\d+)", str(e))
        if found is None or isinstance(e, OutputError):
            raise
        code = int(found.group(1))
        raise OSError(code, os.strerror(code)) from e


class OutputNameError(OutputError, ValueError):
    """An output whose file name its XDMF file cannot refer to. An ``OutputError`` too, so that a mesh's
    collective ``write_output`` reports it on every MPI rank as it does a file that cannot be written."""


def check_file_name(path_stem: str) -> None:
    """``OutputNameError`` (a ``ValueError``) when the XDMF file cannot name ``path_stem.h5``: a ':' in the file
    name (XDMF readers split ``file.h5:/cells/rho`` at the first ':', and read another file, or garbage, without
    an error) or a control character (not allowed in XML 1.0). The directory part is never written in the XDMF."""
    name = os.path.basename(path_stem)
    if ":" in name:
        raise OutputNameError(f"output file name {name!r} contains ':', which XDMF readers take as the end of the "
                              f"HDF5 file name; choose a name without ':'", path_stem)
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise OutputNameError(f"output file name {name!r} contains a control character, which an XDMF (XML) file "
                              f"cannot hold; choose a name without one", path_stem)


def number(x) -> str:
    """``x`` as XML text: the shortest decimal that reads back as the same double (``0.03125``,
    ``1e-05``), never a numpy repr such as ``np.float64(0.0)``."""
    return repr(float(x))


def _attribute(text: str) -> str:
    """``text`` escaped for a double-quoted XML attribute value (``escape`` alone leaves ``"`` as it is)."""
    return escape(text, {'"': "&quot;"})


def _number_type(dtype: np.dtype) -> tuple[str, int]:
    """The XDMF ``NumberType`` and ``Precision`` of ``dtype``; uint64 as Int 8 (see the module's docstring)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "u" and dtype.itemsize == 8:
        return "Int", 8
    kind = {"f": "Float", "i": "Int", "u": "UInt"}[dtype.kind]
    return kind, dtype.itemsize


def xdmf(h5_name: str, variables: dict, block_xmin, block_dx, time: float, nodes: dict | None = None) -> str:
    """The XDMF (version 3) text describing an output written by ``write``: ``variables`` and ``nodes`` map
    names to arrays or ``Variable`` (their dtypes and shapes are what it needs)."""
    nodes = nodes or {}
    if variables:
        nblocks, nk, nj, ni = next(iter(variables.values())).shape
    else:
        nblocks, nk, nj, ni = (n - (d > 0) for d, n in enumerate(next(iter(nodes.values())).shape))
    lines = ['<?xml version="1.0" ?>', '<Xdmf Version="3.0">', "  <Domain>",
             '    <Grid Name="mesh" GridType="Collection" CollectionType="Spatial">',
             f'      <Time Value="{number(time)}"/>']
    # what each variable's attribute says but the block, worked out once (a mesh may have thousands of blocks)
    attributes = [(center, _attribute(name), dims, counts,
                   '            <DataItem Dimensions="{} {}" NumberType="{}" Precision="{}" Format="HDF">{}:/{}/{}'
                   '</DataItem>'.format(nblocks, dims, *_number_type(data.dtype), escape(h5_name), group, escape(name)))
                  for center, group, values, dims, counts in (
                      ("Cell", "cells", variables, f"{nk} {nj} {ni}", f"1 {nk} {nj} {ni}"),
                      ("Node", "nodes", nodes, f"{nk + 1} {nj + 1} {ni + 1}", f"1 {nk + 1} {nj + 1} {ni + 1}"))
                  for name, data in values.items()]
    for b in range(nblocks):
        x0 = block_xmin[b]
        dx = block_dx[b]
        lines += [f'      <Grid Name="block{b}" GridType="Uniform">',
                  f'        <Topology TopologyType="3DCoRectMesh" Dimensions="{nk + 1} {nj + 1} {ni + 1}"/>',
                  '        <Geometry GeometryType="ORIGIN_DXDYDZ">',
                  f'          <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">'
                  f'{number(x0[2])} {number(x0[1])} {number(x0[0])}</DataItem>',
                  f'          <DataItem Dimensions="3" NumberType="Float" Precision="8" Format="XML">'
                  f'{number(dx[2])} {number(dx[1])} {number(dx[0])}</DataItem>',
                  "        </Geometry>"]
        for center, name, dims, counts, dataset in attributes:
            lines += [f'        <Attribute Name="{name}" AttributeType="Scalar" Center="{center}">',
                      f'          <DataItem ItemType="HyperSlab" Dimensions="{dims}" Type="HyperSlab">',
                      f'            <DataItem Dimensions="3 4" NumberType="Int" Format="XML">{b} 0 0 0 1 1 1 1 '
                      f'{counts}</DataItem>',
                      dataset,
                      "          </DataItem>",
                      "        </Attribute>"]
        lines.append("      </Grid>")
    lines += ["    </Grid>", "  </Domain>", "</Xdmf>", ""]
    return "\n".join(lines)

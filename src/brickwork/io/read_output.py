"""Reading an HDF5 output back as arrays over the whole mesh: ``read_output("out/sod.out.00002.h5")``.

An output holds each variable per block (``/cells/<var>``: ``(nblocks, nk, nj, ni)``) with each block's
lower corner and cell widths (``/blocks/xmin``, ``/blocks/dx``, x1 first); ``read_output`` puts the blocks
where their corners say, as ParaView does with the XDMF file, giving one ``(nk, nj, ni)`` array per cell
variable over the whole mesh (``(nk + 1, nj + 1, ni + 1)`` per node variable). 1-D and 2-D meshes keep
their directions of one cell: ``density[0, 0]`` is the line of a 1-D run. A VTK output (``NAME.vtm``,
the hydro application's ``output.format = "vtk"``) is read the same way, from its blocks' origins and
spacings.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from . import vtk


class Output(NamedTuple):
    """One output read back: its ``time`` and ``cycle``, ``cells`` and ``nodes`` (name -> array over the
    whole mesh, ``[k, j, i]``), the domain's lower corner ``xmin`` and the cell widths ``dx`` (x1, x2, x3)."""

    time: float
    cycle: int
    cells: dict
    nodes: dict
    xmin: tuple
    dx: tuple

    def x_center(self, direction: int) -> np.ndarray:
        """The cell centres along ``direction`` (1, 2 or 3), one per index of that axis of ``cells``."""
        if direction not in (1, 2, 3):
            raise ValueError(f"x_center: direction must be 1, 2 or 3, got {direction!r}")
        n = next(iter(self.cells.values())).shape[3 - direction] if self.cells else \
            next(iter(self.nodes.values())).shape[3 - direction] - 1
        return self.xmin[direction - 1] + (np.arange(n) + 0.5) * self.dx[direction - 1]


def read_output(path: str, names=None) -> Output:
    """The output ``path`` (its ``.h5`` file, its ``.xdmf`` file or their common stem; a VTK output's
    ``.vtm`` file) as arrays over the whole mesh; ``names`` (a name or a list) reads only those variables.
    ``FileNotFoundError`` for a missing file, ``KeyError`` naming the variables there are for an unknown
    one, ``ValueError`` for a file that is not an output of brickwork's (``mesh.write_output``, the hydro
    application's) and for a time series (``.pvd``) of them."""
    path = os.fspath(path)
    wanted = [names] if isinstance(names, str) else None if names is None else list(names)
    stem = path[:-5] if path.endswith(".xdmf") else path[:-3] if path.endswith(".h5") else path
    h5_path = stem + ".h5"
    if path.endswith(".pvd"):  # it said "no output file 'NAME.pvd.h5'"
        raise ValueError(f"read_output: {path!r} is a time series (a VTK collection of outputs), not one output: "
                         f"read one of the .vtm files it lists; brickwork.io.vtk.read_collection({path!r}) gives "
                         f"each file with its time")
    if path.endswith(".vtm") or (stem == path and not os.path.isfile(h5_path) and os.path.isfile(path + ".vtm")):
        return _read_vtk(path if path.endswith(".vtm") else path + ".vtm", wanted)
    try:
        import h5py
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("read_output needs h5py: pip install 'brickwork[io]'") from e
    if not os.path.isfile(h5_path):
        raise FileNotFoundError(f"read_output: no output file {h5_path!r}")
    with h5py.File(h5_path, "r") as f:
        if not isinstance(f.get("blocks/xmin"), h5py.Dataset) or not isinstance(f.get("blocks/dx"), h5py.Dataset):
            raise ValueError(f"read_output: {h5_path!r} is not a brickwork output: it has no /blocks/xmin and "
                             f"/blocks/dx")
        groups = {group: sorted(f[group]) if group in f else [] for group in ("cells", "nodes")}
        _check_wanted(h5_path, wanted, groups["cells"] + groups["nodes"])
        xmin, dx = f["blocks/xmin"][...], f["blocks/dx"][...]
        place = _placement(h5_path, xmin, dx)
        read = {group: {n: _assemble(h5_path, f[f"{group}/{n}"][...], place, group == "nodes")
                        for n in names_ if wanted is None or n in wanted}
                for group, names_ in groups.items()}
        time, cycle = _attribute(f, h5_path, "time", 0.0, float), _attribute(f, h5_path, "cycle", 0, int)
        return Output(time, cycle, read["cells"], read["nodes"], tuple(float(v) for v in xmin.min(axis=0)),
                      tuple(float(v) for v in dx[0]))


def _check_wanted(path: str, wanted: list | None, there: list) -> None:
    """``KeyError`` naming the variables of ``wanted`` (None: all) that the output ``path`` lacks."""
    unknown = [n for n in wanted or () if n not in there]
    if unknown:
        raise KeyError(f"read_output: {path!r} has no variable {', '.join(map(repr, unknown))}; it has "
                       f"{', '.join(there)}")


def _read_vtk(path: str, wanted: list | None) -> Output:
    """A VTK output (``vtk.write_multiblock``'s ``.vtm`` and its blocks) as ``read_output`` gives it."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"read_output: no output file {path!r}")
    blocks = vtk.read(path)
    if not blocks:
        raise ValueError(f"read_output: {path!r} lists no blocks")
    there = sorted(blocks[0].cells)
    _check_wanted(path, wanted, there)
    xmin = np.array([b.origin for b in blocks])
    dx = np.array([b.spacing for b in blocks])
    place = _placement(path, xmin, dx)
    cells = {n: _assemble(path, np.stack([b.cells[n] for b in blocks]), place, False)
             for n in there if wanted is None or n in wanted}
    return Output(blocks[0].time, blocks[0].cycle, cells, {}, tuple(float(v) for v in xmin.min(axis=0)),
                  tuple(float(v) for v in dx[0]))


def _attribute(f, path: str, name: str, default, kind):
    """The file's attribute ``name`` as a number of ``kind`` (``default`` when absent); a ValueError naming it
    for anything else (a string, an array, a cycle of 2.5)."""
    value = f.attrs.get(name, default)
    try:
        number = kind(value.item() if isinstance(value, np.ndarray) and value.size == 1 else value)
        if kind is int and number != value:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"read_output: {path!r} has the attribute {name} = {value!r}, which is not "
                         f"{'an integer' if kind is int else 'a number'}") from None
    return number


def _placement(path: str, xmin: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """The (k, j, i) cell index of each block's first cell, from the corners and widths."""
    if xmin.ndim != 2 or xmin.shape[1] != 3 or dx.shape != xmin.shape or not len(xmin):
        raise ValueError(f"read_output: {path!r} has /blocks/xmin of shape {xmin.shape} and /blocks/dx of shape "
                         f"{dx.shape}; a brickwork output has (nblocks, 3) of each")
    if not np.all(np.isfinite(xmin)) or not np.all(np.isfinite(dx)) or not np.all(dx[0] > 0):
        raise ValueError(f"read_output: {path!r} has a block corner or cell width that is not a finite number "
                         f"(widths must be positive)")
    if not np.all(dx == dx[0]):
        raise ValueError(f"read_output: the blocks of {path!r} have different cell widths; only a uniform mesh "
                         f"can be put together into one array")
    with np.errstate(over="ignore"):
        index = np.rint((xmin - xmin.min(axis=0)) / dx[0])
    if not np.all(index < 2.0**40):  # an index no mesh reaches; and int64 holds it
        raise ValueError(f"read_output: the blocks of {path!r} are {float(index.max()):.4g} cells apart; they do "
                         f"not tile a box")
    return index.astype(np.int64)[:, ::-1]  # x1, x2, x3 -> k, j, i


def _assemble(path: str, blocks: np.ndarray, place: np.ndarray, nodes: bool) -> np.ndarray:
    """One array over the whole mesh from per-block arrays ``(nblocks, nk, nj, ni)`` at ``place``."""
    nblocks, *shape = blocks.shape
    if nblocks != len(place) or len(shape) != 3:
        raise ValueError(f"read_output: a variable of {path!r} has shape {blocks.shape}, not (nblocks={len(place)}, "
                         f"nk, nj, ni)")
    cells = np.array(shape) - (1 if nodes else 0)
    box = (place + cells).max(axis=0)
    # blocks that tile a box fill it exactly: tested before a box the corners make up is allocated
    if np.prod(box.astype(float)) != len(place) * np.prod(cells.astype(float)):
        raise ValueError(f"read_output: the blocks of {path!r} do not tile a box: {len(place)} blocks of "
                         f"{tuple(int(n) for n in cells)} cells, placed by their corners in a box of "
                         f"{tuple(int(n) for n in box)}")
    total = box + (1 if nodes else 0)
    out = np.zeros(tuple(total), dtype=blocks.dtype)
    filled = np.zeros(tuple(total), dtype=np.int32)
    for block, (k, j, i) in zip(blocks, place):
        region = (slice(k, k + shape[0]), slice(j, j + shape[1]), slice(i, i + shape[2]))
        out[region] = block
        filled[region] += 1
    if not nodes and not np.all(filled == 1):
        raise ValueError(f"read_output: the blocks of {path!r} do not tile a box (cells covered "
                         f"{int(filled.min())} to {int(filled.max())} times)")
    return out

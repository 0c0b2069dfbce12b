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
    wanted = [names] if isinstance(names, str) else None if names is None else _names(names)
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
        _check_corners(h5_path, f["blocks/xmin"], f["blocks/dx"])
        xmin, dx = f["blocks/xmin"][...], f["blocks/dx"][...]
        place = _placement(h5_path, xmin, dx)
        datasets = {group: _variables(f, h5_path, group) for group in ("cells", "nodes")}
        _check_wanted(h5_path, wanted, sorted(datasets["cells"]) + sorted(datasets["nodes"]))
        wanted_sets = {group: {n: d for n, d in sorted(sets.items()) if wanted is None or n in wanted}
                       for group, sets in datasets.items()}
        for group, sets in wanted_sets.items():  # every shape checked before any values are read
            for n, d in sets.items():
                _box(h5_path, d.shape, place, group == "nodes", f"/{group}/{n}")
        read = {group: {n: _assemble(h5_path, d[...], place, group == "nodes") for n, d in sets.items()}
                for group, sets in wanted_sets.items()}
        time, cycle = _attribute(f, h5_path, "time", 0.0, float), _attribute(f, h5_path, "cycle", 0, int)
        return Output(time, cycle, read["cells"], read["nodes"], tuple(float(v) for v in xmin.min(axis=0)),
                      tuple(float(v) for v in dx[0]))


def _check_corners(path: str, xmin, dx) -> None:
    """A ValueError naming ``path`` when the datasets /blocks/xmin and /blocks/dx are not (nblocks, 3) real
    numbers each; checked before they are read (a file may declare any size)."""
    _check_corner_shapes(path, xmin.shape, dx.shape)
    for d in (xmin, dx):
        if d.dtype.kind not in "iuf":
            raise ValueError(f"read_output: {path!r} has {d.name} of type {d.dtype}; a brickwork output has numbers")


def _check_corner_shapes(path: str, xmin_shape: tuple, dx_shape: tuple) -> None:
    if len(xmin_shape) != 2 or xmin_shape[1] != 3 or dx_shape != xmin_shape or not xmin_shape[0]:
        raise ValueError(f"read_output: {path!r} has /blocks/xmin of shape {xmin_shape} and /blocks/dx of shape "
                         f"{dx_shape}; a brickwork output has (nblocks, 3) of each")


def _variables(f, path: str, group: str) -> dict:
    """name -> dataset of the variables in ``group`` (none when the file has no such group); a ValueError
    naming the file and the entry for one that is no dataset of numbers (a group, a link leading nowhere,
    strings, records), before anything is read."""
    import h5py

    if group not in f:
        return {}
    if not isinstance(f.get(group), h5py.Group):
        raise ValueError(f"read_output: {path!r} has /{group} that is not a group of variables")
    found = {}
    for name in sorted(f[group]):
        try:
            dataset = f[group].get(name)
        except (KeyError, OSError) as e:  # an external or soft link whose target cannot be opened
            raise ValueError(f"read_output: {path!r} has /{group}/{name} that cannot be opened ({e})") from None
        if not isinstance(dataset, h5py.Dataset) or dataset.dtype.kind not in "iuf":
            what = f"a dataset of {dataset.dtype}" if isinstance(dataset, h5py.Dataset) else \
                f"{'a group' if isinstance(dataset, h5py.Group) else 'a link to nothing'}, not a dataset"
            raise ValueError(f"read_output: {path!r}: /{group}/{name} is {what}; a variable of a brickwork "
                             f"output is a dataset of integers or floating-point numbers")
        found[name] = dataset
    return found


def _names(names) -> list:
    """``names`` (not a str, not None) as a list of variable names; a TypeError naming it for anything else."""
    try:
        listed = list(names) if not isinstance(names, (bytes, dict)) else None
    except TypeError:
        listed = None
    if listed is None or not all(isinstance(n, str) for n in listed):
        raise TypeError(f"read_output: names must be a variable's name or a list of names (str), got {names!r}")
    return listed


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
    for block in blocks[1:]:
        _check_like_first(path, blocks[0], block)
    _check_wanted(path, wanted, there)
    xmin = np.array([b.origin for b in blocks])
    dx = np.array([b.spacing for b in blocks])
    place = _placement(path, xmin, dx)
    cells = {n: _assemble(path, np.stack([b.cells[n] for b in blocks]), place, False)
             for n in there if wanted is None or n in wanted}
    return Output(blocks[0].time, blocks[0].cycle, cells, {}, tuple(float(v) for v in xmin.min(axis=0)),
                  tuple(float(v) for v in dx[0]))


def _check_like_first(path: str, first, block) -> None:
    """A ValueError naming ``block``'s file when its cell variables differ from those of the output ``path``'s
    first block in name, shape or type: the blocks of one output hold the same variables."""
    def variables(b):
        return {name: (values.shape, values.dtype) for name, values in b.cells.items()}
    if variables(block) != variables(first):
        raise ValueError(f"read_output: the blocks of {path!r} hold different variables: {first.path!r} has "
                         f"{_listed(variables(first))}, {block.path!r} has {_listed(variables(block))}")


def _listed(variables: dict) -> str:
    return ", ".join(f"{name} {shape} {dtype}" for name, (shape, dtype) in sorted(variables.items())) or "none"


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
    _check_corner_shapes(path, xmin.shape, dx.shape)
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


def _box(path: str, shape: tuple, place: np.ndarray, nodes: bool, name: str = "a variable") -> np.ndarray:
    """The extent (k, j, i) of the box that blocks of ``shape`` (``(nblocks, nk, nj, ni)``) placed at ``place``
    fill; a ValueError naming ``path`` when the shape is not that of ``place``'s blocks or they do not fill it."""
    nblocks, *cells_shape = shape if len(shape) == 4 else (-1,)
    if nblocks != len(place):
        raise ValueError(f"read_output: {name} of {path!r} has shape {tuple(shape)}, not (nblocks={len(place)}, "
                         f"nk, nj, ni)")
    cells = np.array(cells_shape) - (1 if nodes else 0)
    box = (place + cells).max(axis=0)
    # blocks that tile a box fill it exactly: tested before a box the corners make up is allocated
    if np.prod(box.astype(float)) != len(place) * np.prod(cells.astype(float)):
        raise ValueError(f"read_output: the blocks of {path!r} do not tile a box: {len(place)} blocks of "
                         f"{tuple(int(n) for n in cells)} cells, placed by their corners in a box of "
                         f"{tuple(int(n) for n in box)}")
    return box


def _assemble(path: str, blocks: np.ndarray, place: np.ndarray, nodes: bool) -> np.ndarray:
    """One array over the whole mesh from per-block arrays ``(nblocks, nk, nj, ni)`` at ``place``."""
    shape = blocks.shape[1:]
    total = _box(path, blocks.shape, place, nodes) + (1 if nodes else 0)
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

"""``hdf5.write_blocks``: an output written a block at a time (as a mesh's rank 0 receives the blocks) holds
the same datasets, attributes and XDMF text as ``hdf5.write`` of the whole arrays; a block that does not
fit its dataset leaves no file. ``Mesh.write_output`` gives what ``hdf5.write`` of the interior cells gives."""

from __future__ import annotations

import os

import numpy as np
import pytest

from brickwork.io import hdf5
from brickwork.mesh import Mesh, Metadata, Package

h5py = pytest.importorskip("h5py")

RNG = np.random.default_rng(3)
CELLS = {"rho": RNG.normal(size=(6, 2, 3, 4)), "n": RNG.integers(0, 2**40, size=(6, 2, 3, 4), dtype=np.uint64),
         "f": RNG.normal(size=(6, 2, 3, 4)).astype(np.float32)}
NODES = {"phi": RNG.normal(size=(6, 3, 4, 5))}
XMIN, DX = RNG.normal(size=(6, 3)), RNG.random((6, 3))


def _contents(h5_path) -> dict:
    """Every dataset (dtype, shape, values) and attribute of an HDF5 file."""
    out = {}
    with h5py.File(h5_path) as f:
        f.visititems(lambda name, obj: out.__setitem__(name, (obj.dtype, obj.shape, obj[()].tolist()))
                     if isinstance(obj, h5py.Dataset) else None)
        out["attrs"] = dict(f.attrs)
    return out


def test_blocks_written_one_at_a_time_equal_the_whole_arrays(tmp_path):
    whole = hdf5.write(str(tmp_path / "whole"), CELLS, XMIN, DX, 0.5, 7, NODES)
    described = {name: hdf5.Variable(a.dtype, a.shape) for name, a in CELLS.items()}
    nodes = {name: hdf5.Variable(a.dtype, a.shape) for name, a in NODES.items()}
    blocks = (a[gid] for a in (*CELLS.values(), *NODES.values()) for gid in range(6))
    parts = hdf5.write_blocks(str(tmp_path / "parts"), described, XMIN, DX, 0.5, 7, nodes, blocks)
    assert parts == (str(tmp_path / "parts.h5"), str(tmp_path / "parts.xdmf"))
    assert _contents(parts[0]) == _contents(whole[0])
    assert sorted(_contents(parts[0])) == ["attrs", "blocks/dx", "blocks/xmin", "cells/f", "cells/n", "cells/rho",
                                           "nodes/phi"]
    with open(whole[1]) as a, open(parts[1]) as b:
        assert b.read() == a.read().replace("whole.h5", "parts.h5")


def test_a_block_that_does_not_fit_its_dataset_leaves_no_file(tmp_path):
    described = {"rho": hdf5.Variable(np.dtype(np.float64), (2, 2, 3, 4))}
    blocks = iter([np.zeros((2, 3, 4)), np.zeros((2, 3, 4), dtype=np.float32)])
    with pytest.raises(ValueError, match=r"block 1 of /cells/rho is float32 of shape \(2, 3, 4\), not float64"):
        hdf5.write_blocks(str(tmp_path / "o"), described, XMIN[:2], DX[:2], 0.0, 0, {}, blocks)
    assert os.listdir(tmp_path) == []


def test_write_output_equals_hdf5_write_of_the_interior_cells(tmp_path):
    """What the output held when rank 0 gathered every block and called ``hdf5.write``: the same datasets (every
    component, types converted as XDMF readers need), attributes and XDMF text."""
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell"))
    pkg.add_field("v", Metadata("Cell"), shape=(2,), dtype=np.float32)
    pkg.add_field("z", Metadata("Cell"), dtype=np.complex64)
    pkg.add_field("wet", Metadata("Cell"), dtype=np.bool_)
    pkg.add_field("phi", Metadata("Node"))
    mesh = Mesh((8, 6), (4, 3), nghost=1, packages=[pkg])
    rng = np.random.default_rng(0)
    for name in ("T", "v", "phi"):
        mesh.data(name)[...] = rng.normal(size=mesh.data(name).shape)
    mesh.data("z")[...] = rng.normal(size=mesh.data("z").shape) + 2j
    mesh.data("wet")[...] = rng.random(mesh.data("wet").shape) < 0.5
    mesh.write_output(str(tmp_path / "mesh"), time=0.25, cycle=3)
    inner = (slice(None), slice(None), slice(0, 1), slice(1, 4), slice(1, 5))
    cell = {name: mesh.data(name)[inner] for name in ("T", "v", "z", "wet")}
    cells = {"T": cell["T"][:, 0], "v_1": cell["v"][:, 0], "v_2": cell["v"][:, 1], "z_re": cell["z"][:, 0].real,
             "z_im": cell["z"][:, 0].imag, "wet": cell["wet"][:, 0].astype(np.uint8)}
    nodes = {"phi": np.repeat(mesh.data("phi")[:, 0, 0:1, 1:5, 1:6], 2, axis=1)}
    xmin = np.array([b.coords.xmin for b in mesh.block_list])
    dx = np.array([[b.coords.dx(d) for d in (1, 2, 3)] for b in mesh.block_list])
    hdf5.write(str(tmp_path / "gathered"), cells, xmin, dx, 0.25, 3, nodes)
    assert _contents(tmp_path / "mesh.h5") == _contents(tmp_path / "gathered.h5")
    assert (tmp_path / "mesh.xdmf").read_text() == (tmp_path / "gathered.xdmf").read_text().replace("gathered.h5",
                                                                                                     "mesh.h5")

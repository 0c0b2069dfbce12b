"""read_output: an HDF5 output read back as arrays over the whole mesh, the blocks placed by their corners
as ParaView places them; the same arrays as ``mesh.global_array`` and the hydro application's ``to_global``."""

import h5py
import numpy as np
import pytest

from brickwork.io import read_output
from brickwork.mesh import Mesh, Metadata, Package


@pytest.mark.parametrize("nx, block_nx", [((12,), (4,)), ((8, 6), (4, 3)), ((4, 4, 6), (2, 4, 3))])
def test_the_arrays_of_global_array(tmp_path, nx, block_nx):
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell"))
    pkg.add_field("v", Metadata("Cell", "Vector"), shape=(3,))
    pkg.add_field("phi", Metadata("Node"))
    pkg.add_field("n", Metadata("Cell"), dtype=np.int32)
    ndim = len(nx)
    mesh = Mesh(nx, block_nx, nghost=1, xmin=(-1.0,) * ndim, xmax=(2.0, 1.0, 3.0)[:ndim], packages=[pkg])
    rng = np.random.default_rng(len(nx))
    for name in ("T", "v", "phi", "n"):
        data = mesh.data(name)
        data[...] = rng.integers(0, 1000, data.shape).astype(data.dtype) / (1 if name == "n" else 7)
    mesh.write_output(tmp_path / "o.00003", time=0.25, cycle=3)
    out = read_output(str(tmp_path / "o.00003.xdmf"))
    assert (out.time, out.cycle) == (0.25, 3)
    assert sorted(out.cells) == ["T", "n", "v_1", "v_2", "v_3"] and sorted(out.nodes) == ["phi"]
    lead = (1,) * (3 - ndim)  # read_output keeps the directions of one cell, as hydro's to_global does
    for name in ("T", "n"):
        assert out.cells[name].dtype == mesh.data(name).dtype
        assert np.array_equal(out.cells[name], mesh.global_array(name).reshape(lead + mesh.global_array(name).shape))
    whole_v = mesh.global_array("v")
    for c in range(3):
        assert np.array_equal(out.cells[f"v_{c + 1}"].reshape(whole_v.shape[1:]), whole_v[c])
    phi = mesh.global_array("phi")
    assert np.array_equal(out.nodes["phi"][(0,) * (3 - ndim)], phi)
    assert out.xmin[:ndim] == (-1.0,) * ndim
    dx = [(hi + 1.0) / n for hi, n in zip((2.0, 1.0, 3.0), nx)]
    assert np.allclose(out.x_center(1), -1.0 + (np.arange(nx[0]) + 0.5) * dx[0], rtol=0, atol=1e-15)
    only = read_output(tmp_path / "o.00003", names="T")  # the stem, and one variable
    assert list(only.cells) == ["T"] and only.nodes == {}


def test_a_hydro_output_reads_back_as_the_runs_state(tmp_path):
    from brickwork.apps import hydro

    cfg = hydro.build_config({"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]},
                              "time": {"nlim": 2}, "output": {"dir": str(tmp_path), "hdf5_dt": 0.0, "history": False,
                                                               "progress": False}})
    result = hydro.run(cfg)
    out = read_output(tmp_path / "kelvin_helmholtz.out.00001.h5")
    assert out.cycle == 2 and out.time == result.time
    sim = result.hydro
    for name in ("density", "pressure", "velocity_1"):
        assert np.array_equal(out.cells[name], sim.to_global(sim.primitive(name)))


def test_mistakes(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"read_output: no output file '.*nothing.h5'"):
        read_output(tmp_path / "nothing.h5")
    with h5py.File(tmp_path / "other.h5", "w") as f:
        f["x"] = np.zeros(3)
    with pytest.raises(ValueError, match=r"is not a brickwork output: it has no /blocks/xmin and /blocks/dx"):
        read_output(tmp_path / "other.h5")
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell"))
    Mesh((12,), (4,), packages=[pkg]).write_output(tmp_path / "m")
    with pytest.raises(KeyError, match=r"has no variable 'rho'; it has T"):
        read_output(tmp_path / "m.h5", names=["rho"])
    with h5py.File(tmp_path / "m.h5", "r+") as f:  # a block moved onto the other: not a tiling
        f["blocks/xmin"][1] = f["blocks/xmin"][2]
    with pytest.raises(ValueError, match=r"the blocks of '.*m.h5' do not tile a box \(cells covered 0 to 2 times\)"):
        read_output(tmp_path / "m.h5")


def _edited(tmp_path, edit):
    """An output of a 12-cell mesh in 3 blocks, changed by ``edit(h5py.File)``."""
    pkg = Package("p")
    pkg.add_field("T", Metadata("Cell"))
    Mesh((12,), (4,), packages=[pkg]).write_output(tmp_path / "m")
    with h5py.File(tmp_path / "m.h5", "r+") as f:
        edit(f)
    return tmp_path / "m.h5"


def _set(name, value):
    def edit(f):
        f[name][...] = value
    return edit


def _attr(name, value):
    def edit(f):
        f.attrs[name] = value
    return edit


@pytest.mark.parametrize("edit, message", [
    # corners far apart (dx = 1/12): a box of 6e11 cells (4.8 TB) was allocated before the tiling was tested
    (_set("blocks/xmin", [[0, 0, 0], [5e10, 0, 0], [8 / 12, 0, 0]]),
     r"the blocks of '.*m\.h5' do not tile a box: 3 blocks of \(1, 1, 4\) cells, placed by their corners in a box "
     r"of \(1, 1, 600000000004\)"),
    (_set("blocks/dx", 1e-300), r"the blocks of '.*m\.h5' are 6\.667e\+299 cells apart; they do not tile a box"),
    (_set("blocks/xmin", [[0, 0, 0], [np.nan, 0, 0], [8, 0, 0]]), r"has a block corner or cell width that is not a "
                                                                  r"finite number"),
    (_set("blocks/dx", np.inf), r"not a finite number"),
    (_attr("time", "soon"), r"has the attribute time = 'soon', which is not a number"),
    (_attr("time", np.array([1.0, 2.0])), r"has the attribute time = array\(\[1\., 2\.\]\), which is not a number"),
    (_attr("cycle", 2.5), r"has the attribute cycle = .*2\.5\)?, which is not an integer"),
])
def test_hand_edited_outputs_are_refused_naming_the_problem(tmp_path, edit, message):
    with pytest.raises(ValueError, match=r"^read_output: '.*m\.h5' |^read_output: the blocks of") as e:
        read_output(_edited(tmp_path, edit))
    assert e.match(message)


def test_an_integral_float_cycle_reads(tmp_path):
    assert read_output(_edited(tmp_path, _attr("cycle", 7.0))).cycle == 7

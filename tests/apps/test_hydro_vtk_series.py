"""The time collection of VTK outputs, ``NAME.pvd`` (ParaView's file of a time series): read by the format's
rules (a ``VTKFile`` of type ``Collection`` whose ``DataSet`` entries give a ``timestep`` and a ``file``
relative to it), it lists every ``.vtm`` output of the run in order with the time its blocks hold; a
restarted run lists the outputs before its restart with their times and drops those a longer run left after
it, whether the collection is still there or not; ``vtk.update_collection`` leaves out what it cannot read."""

import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from test_hydro_vtk import CASES, pieces, read_vti

from brickwork.io import read_output, vtk

SOD = dict(CASES[1], time={"nlim": 6}, output={"hdf5_dt": -1.0, "hdf5_dn": 1, "restart_dn": 3, "format": "vtk"})


def collection(path) -> list[tuple[float, str]]:
    """The ``(timestep, file)`` entries of a ``.pvd`` file, checked against the format."""
    root = ET.parse(path).getroot()
    assert root.tag == "VTKFile" and root.get("type") == "Collection" and root.get("byte_order") == "LittleEndian"
    (entries,) = root.findall("Collection")
    assert all(d.tag == "DataSet" and d.get("part") == "0" for d in entries)
    return [(float(d.get("timestep")), d.get("file")) for d in entries]


def time_in_blocks(vtm) -> float:
    times = {float(read_vti(block)["field"]["TimeValue"]) for block in pieces(vtm)}
    assert len(times) == 1
    return times.pop()


def test_the_collection_lists_each_output_with_the_time_its_blocks_hold(run_hydro, tmp_path):
    result = run_hydro(SOD)
    out = tmp_path / "out"
    entries = collection(out / "sod.pvd")
    assert [name for _, name in entries] == [f"sod.out.{n:05d}.vtm" for n in range(7)]
    assert [when for when, _ in entries] == [time_in_blocks(out / name) for _, name in entries]
    assert [when for when, _ in entries] == sorted({when for when, _ in entries})  # increasing
    assert entries[0][0] == 0.0 and entries[-1][0] == result.time
    assert [str(out / name) for _, name in entries] == [p for p in result.outputs if p.endswith(".vtm")]


@pytest.mark.parametrize("keep_collection", [True, False])
def test_a_restart_lists_the_outputs_before_it_and_drops_the_later_ones(run_hydro, tmp_path, keep_collection):
    out = tmp_path / "out"
    run_hydro(SOD)
    first = collection(out / "sod.pvd")
    restart = out / "sod.rst.00000.npz"  # cycle 3: the outputs 0 to 3 were written before it
    if not keep_collection:  # a collection deleted, or outputs of a version that wrote none
        os.remove(out / "sod.pvd")
    result = run_hydro(dict(SOD, time={"nlim": 5}, hydro={"cfl": 0.5}), restart=str(restart))
    entries = collection(out / "sod.pvd")
    assert entries[:4] == first[:4]  # the times as the first run wrote them
    assert [name for _, name in entries] == [f"sod.out.{n:05d}.vtm" for n in range(6)]
    assert [when for when, _ in entries[4:]] == [time_in_blocks(out / name) for _, name in entries[4:]]
    assert entries[4][0] != first[4][0] and entries[-1][0] == result.time  # another CFL number: other times
    assert os.path.exists(out / "sod.out.00006.vtm")  # the longer run's last output, no longer listed


def test_update_collection_leaves_out_what_it_cannot_read(tmp_path):
    vtk.write_block(str(tmp_path / "a.vti"), {"rho": np.ones((1, 1, 2))}, (0.0, 0.0, 0.0), (0.5, 1.0, 1.0), 0.25, 3, 1)
    vtk.write_multiblock(str(tmp_path / "x.out.00000.vtm"), ["a.vti"])
    (tmp_path / "x.out.00001.vtm").write_text("not VTK")  # its time cannot be read
    (tmp_path / "x.pvd").write_text("<VTKFile")  # no XML: listed again from the files
    earlier = [f"x.out.{n:05d}.vtm" for n in range(3)]  # the third does not exist
    vtk.update_collection(str(tmp_path / "x.pvd"), 'x "&" y.vtm', 0.5, earlier)
    assert collection(tmp_path / "x.pvd") == [(0.25, "x.out.00000.vtm"), (0.5, 'x "&" y.vtm')]
    assert vtk.read_collection(str(tmp_path / "x.pvd")) == collection(tmp_path / "x.pvd")
    with pytest.raises(ValueError, match=r"read_output: '.*x\.out\.00000\.vtm' is not a VTK Collection file"):
        vtk.read_collection(str(tmp_path / "x.out.00000.vtm"))
    assert sorted(os.listdir(tmp_path)) == ["a.vti", "x.out.00000.vtm", "x.out.00001.vtm", "x.pvd"]  # no temporaries


def test_read_output_names_a_collection_as_a_series_and_read_collection_lists_it(run_hydro, tmp_path):
    run_hydro(dict(SOD, time={"nlim": 2}))
    pvd = str(tmp_path / "out" / "sod.pvd")
    with pytest.raises(ValueError) as info:
        read_output(pvd)
    assert str(info.value) == (f"read_output: {pvd!r} is a time series (a VTK collection of outputs), not one output: "
                               f"read one of the .vtm files it lists; brickwork.io.vtk.read_collection({pvd!r}) "
                               f"gives each file with its time")
    series = vtk.read_collection(pvd)
    assert [read_output(tmp_path / "out" / name).time for _, name in series] == [when for when, _ in series]
    assert [read_output(tmp_path / "out" / name).cycle for _, name in series] == [0, 1, 2]

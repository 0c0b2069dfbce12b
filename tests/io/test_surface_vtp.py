"""``brickwork.io.surface.write_vtp``: VTK XML PolyData files of surfaces, read back by a reader of the format
written here from its specification (raw appended data, UInt64 byte counts), so each value is checked; and
examples/blast_isosurface.py, run small: a 3-D blast's shock front extracted by marching cubes from the gathered
pressure is one closed surface centred on the blast, and its .vtp file holds that surface."""

from __future__ import annotations

import builtins
import errno
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brickwork as wp
from brickwork.io.files import OutputError
from brickwork.io.surface import write_vtp

NUMPY = {"Float32": "<f4", "Float64": "<f8", "Int32": "<i4", "Int64": "<i8", "UInt8": "u1", "Int8": "i1",
         "UInt32": "<u4", "UInt64": "<u8", "Int16": "<i2", "UInt16": "<u2"}


def read_vtp(path):
    """{"points", "connectivity", "offsets", "point:<name>", "cell:<name>"} -> arrays, and the piece's counts."""
    blob = open(path, "rb").read()
    start = blob.index(b'<AppendedData encoding="raw">')
    data_at = blob.index(b"_", start) + 1
    header = blob[:data_at - 1].decode() + "</AppendedData></VTKFile>"
    root = ET.fromstring(header)
    assert root.get("type") == "PolyData" and root.get("byte_order") == "LittleEndian"
    assert root.get("header_type") == "UInt64"
    piece = root.find("PolyData/Piece")
    out = {}
    for parent, prefix in (("Points", ""), ("Polys", ""), ("PointData", "point:"), ("CellData", "cell:")):
        for array in piece.find(parent):
            at = data_at + int(array.get("offset"))
            nbytes = int(np.frombuffer(blob[at:at + 8], "<u8")[0])
            values = np.frombuffer(blob[at + 8:at + 8 + nbytes], NUMPY[array.get("type")])
            components = int(array.get("NumberOfComponents"))
            name = array.get("Name").lower() if parent in ("Points", "Polys") else array.get("Name")
            out[prefix + name] = values.reshape(-1, components) if components > 1 else values
    assert blob.endswith(b"</AppendedData>\n</VTKFile>\n")
    return out, {k: int(v) for k, v in piece.attrib.items()}


def test_a_triangle_surface_with_point_and_cell_values_reads_back(tmp_path):
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    tris = np.array([0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], np.int32)
    normals = np.random.default_rng(1).normal(size=(4, 3))
    path = write_vtp(str(tmp_path / "tet.vtp"), wp.array(pts, dtype=wp.vec3), wp.array(tris, dtype=wp.int32),
                     point_data={"normal": normals, "id": np.arange(4)}, cell_data={"area": np.ones(4, np.float32)})
    arrays, counts = read_vtp(path)
    assert counts["NumberOfPoints"] == 4 and counts["NumberOfPolys"] == 4
    np.testing.assert_array_equal(arrays["points"], pts)
    np.testing.assert_array_equal(arrays["connectivity"], tris)
    np.testing.assert_array_equal(arrays["offsets"], [3, 6, 9, 12])
    np.testing.assert_array_equal(arrays["point:normal"], normals)
    np.testing.assert_array_equal(arrays["point:id"], np.arange(4))
    np.testing.assert_array_equal(arrays["cell:area"], np.ones(4, np.float32))


def test_quads_flat_with_a_face_size_or_as_rows(tmp_path):
    pts = np.random.default_rng(2).random((6, 3))
    quads = np.array([[0, 1, 2, 3], [2, 3, 4, 5]])
    for faces, size in ((quads.reshape(-1), 4), (quads, None), (quads, 4)):
        arrays, counts = read_vtp(write_vtp(str(tmp_path / "q.vtp"), pts, faces, face_size=size))
        assert counts["NumberOfPolys"] == 2
        np.testing.assert_array_equal(arrays["connectivity"], quads.reshape(-1))
        np.testing.assert_array_equal(arrays["offsets"], [4, 8])
        np.testing.assert_array_equal(arrays["points"], pts)  # float64 kept


def test_an_empty_surface_is_a_valid_file(tmp_path):
    arrays, counts = read_vtp(write_vtp(str(tmp_path / "e.vtp"), np.zeros((0, 3), np.float32),
                                        np.zeros(0, np.int32)))
    assert counts["NumberOfPoints"] == 0 and counts["NumberOfPolys"] == 0
    assert arrays["points"].size == 0 and arrays["connectivity"].size == 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 40), st.integers(0, 30), st.sampled_from([3, 4]), st.integers(0, 2**32 - 1))
def test_any_surface_reads_back_exactly(tmp_path_factory, npoints, nfaces, size, seed):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(max(npoints, 1), 3)).astype(np.float32)
    faces = rng.integers(0, pts.shape[0], size=(nfaces, size))
    path = str(tmp_path_factory.mktemp("vtp") / "s.vtp")
    arrays, _ = read_vtp(write_vtp(path, pts, faces.reshape(-1), face_size=size,
                                   cell_data={"f": rng.random((nfaces, 2))}))
    np.testing.assert_array_equal(arrays["points"], pts)
    np.testing.assert_array_equal(arrays["connectivity"], faces.reshape(-1))
    np.testing.assert_array_equal(arrays["offsets"], np.arange(1, nfaces + 1) * size)


@pytest.mark.parametrize("points, faces, kwargs, error, match", [
    (np.zeros((3, 2)), [0, 1, 2], {}, ValueError, "'points' must be \\(n, 3\\)"),
    (np.zeros((3, 3), np.int32), [0, 1, 2], {}, ValueError, "'points' must be \\(n, 3\\) floating-point"),
    (np.zeros((3, 3)), [0, 1, 3], {}, ValueError, "face indices must lie in \\[0, 3\\)"),
    (np.zeros((3, 3)), [0, -1, 2], {}, ValueError, "face indices must lie in"),
    (np.zeros((3, 3)), [0.0, 1.0, 2.0], {}, TypeError, "'faces' must hold integer vertex indices"),
    (np.zeros((3, 3)), [0, 1, 2, 0], {}, ValueError, "4 face indices are not a whole number of faces of 3"),
    (np.zeros((3, 3)), [0, 1, 2], {"face_size": 2}, ValueError, "face_size must be an integer of at least 3"),
    (np.zeros((3, 3)), [[0, 1, 2]], {"face_size": 4}, ValueError, "face_size=4 does not match"),
    (np.zeros((3, 3)), [0, 1, 2], {"point_data": {"v": np.ones(2)}}, ValueError, "point_data 'v' must have shape"),
    (np.zeros((3, 3)), [0, 1, 2], {"cell_data": {"c": np.ones((2, 1))}}, ValueError, "cell_data 'c' must have"),
    (np.zeros((3, 3)), [0, 1, 2], {"point_data": {"a<b": np.ones(3)}}, ValueError, "point_data name 'a<b'"),
    (np.zeros((3, 3)), [0, 1, 2], {"point_data": {"s": np.array(["x"] * 3)}}, TypeError, "VTK files do not hold"),
])
def test_bad_input_is_refused_before_anything_is_written(tmp_path, points, faces, kwargs, error, match):
    path = tmp_path / "bad.vtp"
    with pytest.raises(error, match=match):
        write_vtp(str(path), points, np.asarray(faces), **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_leaves_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "s.vtp"
    write_vtp(str(path), np.zeros((3, 3)), [0, 1, 2])
    before = path.read_bytes()
    real_open = builtins.open

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(builtins, "open", lambda p, mode="r", *a, **k: Full(real_open(p, mode, *a, **k))
                        if str(p).endswith(".tmp.vtp") else real_open(p, mode, *a, **k))
    with pytest.raises(OutputError, match=f"^cannot write {str(path)!r}: no space left on device$"):
        write_vtp(str(path), np.ones((4, 3)), [0, 1, 2, 1, 2, 3])
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.vtp"]


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "blast_isosurface.py"


def test_the_shock_front_is_one_closed_centred_surface_written_for_paraview(tmp_path):
    env = dict(os.environ, OMP_NUM_THREADS="1", BRICKWORK_NUM_THREADS="1")
    done = subprocess.run([sys.executable, str(EXAMPLE), "--n", "32", "--tlim", "0.1", "--out", "front.vtp"],
                          capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    found = re.search(r"(\d+) vertices, (\d+) triangles, Euler characteristic 2\nradius ([0-9.]+)", done.stdout)
    assert found, done.stdout
    nverts, ntris, radius = int(found[1]), int(found[2]), float(found[3])
    assert 0.15 < radius < 0.35  # the front has left the initial sphere (0.1) and not reached the walls
    arrays, counts = read_vtp(tmp_path / "front.vtp")
    assert counts["NumberOfPoints"] == nverts and counts["NumberOfPolys"] == ntris
    np.testing.assert_allclose(np.linalg.norm(arrays["points"], axis=1), arrays["point:radius"], rtol=1e-6)
    assert abs(np.mean(arrays["point:radius"]) - radius) < 1e-4

"""Triangle and quad surfaces (an isosurface of ``brickwork.geometry``, a ``wp.Mesh``'s triangles) as VTK XML
PolyData files (``.vtp``), which ParaView and VisIt open, with values per vertex and per face.

The arrays go in one raw appended block (each a little-endian UInt64 byte count, then its bytes), the format's
most compact uncompressed form; the file is written through ``files.staged``, so a failed write leaves no
partial file and raises ``OutputError``.
"""

from __future__ import annotations

import numpy as np

from .vtk import TYPES, Appended


def _host(name: str, value) -> np.ndarray:
    """``value`` (a brickwork array, on any device, or anything numpy takes) as a numpy array."""
    if hasattr(value, "numpy") and hasattr(value, "device"):
        value = value.numpy()
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"write_vtp: '{name}' is not an array ({type(value).__name__}): {e}") from None


def _faces(faces, face_size: int | None, npoints: int) -> np.ndarray:
    data = _host("faces", faces)
    if data.dtype.kind not in "iu":
        raise TypeError(f"write_vtp: 'faces' must hold integer vertex indices, got {data.dtype}")
    if data.ndim == 1:
        size = 3 if face_size is None else face_size
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 3:
            raise ValueError(f"write_vtp: face_size must be an integer of at least 3, got {face_size!r}")
        if data.size % size:
            raise ValueError(f"write_vtp: {data.size} face indices are not a whole number of faces of {size}")
        data = data.reshape(-1, size)
    elif data.ndim != 2 or data.shape[1] < 3:
        raise ValueError(f"write_vtp: 'faces' must be flat or of shape (faces, corners >= 3), got {data.shape}")
    elif face_size is not None and face_size != data.shape[1]:
        raise ValueError(f"write_vtp: face_size={face_size} does not match faces of shape {data.shape}")
    if data.size and (data.min() < 0 or data.max() >= npoints):
        raise ValueError(f"write_vtp: face indices must lie in [0, {npoints}) (the points), got "
                         f"[{data.min()}, {data.max()}]")
    return data.astype(np.int64)


def _attributes(kind: str, values: dict | None, count: int) -> list[tuple[str, np.ndarray]]:
    out = []
    for name, value in (values or {}).items():
        if not isinstance(name, str) or not name or any(c in name for c in "<>&\"'"):
            raise ValueError(f"write_vtp: {kind} name {name!r} must be a non-empty string without <>&\"'")
        data = _host(f"{kind}['{name}']", value)
        if data.dtype == np.bool_:
            data = data.astype(np.uint8)
        if data.dtype not in TYPES:
            raise TypeError(f"write_vtp: {kind} '{name}' has dtype {data.dtype}, which VTK files do not hold")
        if data.ndim == 0 or data.shape[0] != count or data.ndim > 2:
            raise ValueError(f"write_vtp: {kind} '{name}' must have shape ({count},) or ({count}, components), "
                             f"got {data.shape}")
        out.append((name, data.reshape(count, data.shape[1] if data.ndim == 2 else 1)))
    return out


def write_vtp(path: str, points, faces, *, face_size: int | None = None, point_data: dict | None = None,
              cell_data: dict | None = None) -> str:
    """Write a surface as a VTK XML PolyData file (``.vtp``) and return ``path``.

    ``points``: ``(n, 3)`` positions (a ``wp.vec3`` array, on any device, or numpy). ``faces``: vertex indices,
    flat with ``face_size`` per face (default 3: the ``indices`` of an isosurface; 4 for surface nets' quads) or
    of shape ``(faces, corners)``. ``point_data`` / ``cell_data``: ``{name: values}`` with one value (or one row
    of components) per point / face. Bad input raises ``TypeError``/``ValueError`` naming the argument before
    anything is written; a file that cannot be written ``OutputError``.
    """
    pts = _host("points", points)
    if pts.dtype.kind != "f" or pts.ndim != 2 or pts.shape[1] != 3:
        if pts.dtype.kind == "f" and pts.ndim == 1 and pts.size % 3 == 0:
            pts = pts.reshape(-1, 3)
        else:
            raise ValueError(f"write_vtp: 'points' must be (n, 3) floating-point positions, got {pts.dtype} "
                             f"of shape {pts.shape}")
    polys = _faces(faces, face_size, pts.shape[0])
    pdata = _attributes("point_data", point_data, pts.shape[0])
    cdata = _attributes("cell_data", cell_data, polys.shape[0])

    data = Appended()
    array_xml = data.array

    corners = polys.shape[1]
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="PolyData" version="1.0" byte_order="LittleEndian" header_type="UInt64">',
             "<PolyData>",
             f'<Piece NumberOfPoints="{pts.shape[0]}" NumberOfVerts="0" NumberOfLines="0" NumberOfStrips="0" '
             f'NumberOfPolys="{polys.shape[0]}">',
             "<Points>", array_xml("Points", pts, 3), "</Points>",
             "<Polys>", array_xml("connectivity", polys.reshape(-1), 1),
             array_xml("offsets", np.arange(1, polys.shape[0] + 1, dtype=np.int64) * corners, 1), "</Polys>"]
    for tag, attributes in (("PointData", pdata), ("CellData", cdata)):
        lines.append(f"<{tag}>")
        lines += [array_xml(name, data, data.shape[1]) for name, data in attributes]
        lines.append(f"</{tag}>")
    lines += ["</Piece>", "</PolyData>", '<AppendedData encoding="raw">']
    return data.write(path, lines, suffix=".tmp.vtp")

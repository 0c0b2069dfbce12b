"""VTK XML outputs that ParaView and VisIt open without any extra Python package: one ``.vti`` image per
block, and a ``.vtm`` multiblock file naming them.

A block file (``ImageData``, ``write_block``) holds the block's cells: ``WholeExtent`` ``0 ni 0 nj 0 nk``
in points (a direction the mesh lacks has extent ``0 0``: a 2-D block is a sheet of quads, a 1-D one a line),
``Origin`` its lower corner and ``Spacing`` its cell widths (x1, x2, x3), one cell array per variable
(``CellData``, x1 fastest: a ``(nk, nj, ni)`` C-ordered array as it is), and the field data ``TimeValue``
(the time, which ParaView shows) and ``CYCLE``. The values follow the XML as appended raw data, little-endian,
each array after its ``UInt64`` byte count. ``write_multiblock`` writes the ``.vtm`` that lists the block
files, relative to it. ``read`` reads either kind back (what this module writes), for ``read_output``.
``update_collection`` keeps a ``.pvd`` collection (ParaView's time series) listing the ``.vtm`` outputs with
their times.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

import numpy as np

from .files import staged, writing

#: VTK's names of the types its XML files hold
TYPES = {np.dtype("float32"): "Float32", np.dtype("float64"): "Float64", np.dtype("int32"): "Int32",
         np.dtype("int64"): "Int64", np.dtype("uint8"): "UInt8", np.dtype("int8"): "Int8",
         np.dtype("uint32"): "UInt32", np.dtype("uint64"): "UInt64", np.dtype("int16"): "Int16",
         np.dtype("uint16"): "UInt16"}
DTYPES = {name: dtype.newbyteorder("<") for dtype, name in TYPES.items()}
#: the byte count written before each array of appended data
HEADER = np.dtype("<u8")


class Appended:
    """The arrays of a VTK XML file's raw appended data (each a little-endian ``UInt64`` byte count, then its
    bytes, little-endian): ``array`` adds one and returns the ``DataArray`` element that refers to it, and
    ``write`` writes the file, its XML lines followed by the arrays (through ``files.staged``)."""

    def __init__(self):
        self.blocks: list[bytes] = []
        self.offset = 0

    def array(self, name: str, data: np.ndarray, components: int = 1, tuples: int | None = None) -> str:
        """The ``DataArray`` element of ``data`` (``tuples``: its ``NumberOfTuples``, which field data needs)."""
        data = np.asarray(data)
        kind = TYPES.get(data.dtype.newbyteorder("="))
        if kind is None:
            raise ValueError(f"VTK output: array {name!r} is {data.dtype}; VTK files take "
                             f"{', '.join(str(d) for d in TYPES)}")
        raw = np.ascontiguousarray(data, dtype=data.dtype.newbyteorder("<")).tobytes()
        self.blocks.append(np.array(len(raw), dtype=HEADER).tobytes() + raw)
        count = "" if tuples is None else f' NumberOfTuples="{tuples}"'
        xml = (f'<DataArray type="{kind}" Name="{_attribute(name)}" NumberOfComponents='
               f'"{components}"{count} format="appended" offset="{self.offset}"/>')
        self.offset += len(self.blocks[-1])
        return xml

    def write(self, path: str, lines: list[str], suffix: str = ".tmp") -> str:
        """Write ``path``: ``lines`` (the XML up to ``<AppendedData encoding="raw">``), then the arrays."""
        with staged(path, suffix=suffix) as (tmp,):
            with writing(tmp), open(tmp, "wb") as f:
                f.write(("\n".join(lines) + "\n_").encode())
                for block in self.blocks:
                    f.write(block)
                f.write(b"\n</AppendedData>\n</VTKFile>\n")
        return path


def _attribute(text: str) -> str:
    """``text`` as the value of an XML attribute in double quotes."""
    return escape(text, {chr(34): "&quot;"})


def _number(x) -> str:
    return repr(float(x))


def _extent(points: list) -> str:
    """The ``Extent`` of ``points`` points after the first along x1, x2, x3 (0: a direction the mesh lacks)."""
    return " ".join(f"0 {n}" for n in points)


def write_block(path: str, variables: dict, origin, spacing, time: float, cycle: int, ndim: int) -> str:
    """Write the block file ``path`` (``.vti``): ``variables`` maps names to ``(nk, nj, ni)`` arrays of cell
    values, ``origin`` and ``spacing`` are the block's lower corner and cell widths (x1, x2, x3), ``ndim``
    the mesh's dimensions. Written under a temporary name and renamed when complete; a failed write
    raises ``OutputError`` naming the file and leaves nothing behind. Returns ``path``."""
    nk, nj, ni = next(iter(variables.values())).shape
    extent = _extent([ni, nj, nk][:ndim] + [0] * (3 - ndim))
    data = Appended()
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">',
             f'<ImageData WholeExtent="{extent}" Origin="{" ".join(map(_number, origin))}" '
             f'Spacing="{" ".join(map(_number, spacing))}" Direction="1 0 0 0 1 0 0 0 1">',
             "<FieldData>", data.array("TimeValue", np.array([time], np.float64), tuples=1),
             data.array("CYCLE", np.array([cycle], np.int64), tuples=1), "</FieldData>",
             f'<Piece Extent="{extent}">', "<CellData>"]
    for name, values in variables.items():
        if values.shape != (nk, nj, ni):
            raise ValueError(f"vtk.write_block: variable {name!r} has shape {values.shape}, not {(nk, nj, ni)}")
        lines.append(data.array(name, values))
    lines += ["</CellData>", "</Piece>", "</ImageData>", '<AppendedData encoding="raw">']
    return data.write(path, lines)


def write_multiblock(path: str, pieces: list[str]) -> str:
    """Write the multiblock file ``path`` (``.vtm``) listing the block files ``pieces`` (paths relative to
    ``path``'s directory, in block order). Staged as ``write_block``; returns ``path``."""
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="vtkMultiBlockDataSet" version="1.0" byte_order="LittleEndian" header_type="UInt64">',
             "  <vtkMultiBlockDataSet>"]
    lines += [f'    <DataSet index="{i}" name="block{i}" file="{_attribute(piece)}"/>'
              for i, piece in enumerate(pieces)]
    lines += ["  </vtkMultiBlockDataSet>", "</VTKFile>", ""]
    return _write_lines(path, lines)


def update_collection(path: str, file: str, time: float, earlier: list[str]) -> str:
    """Write the collection ``path`` (``.pvd``: ParaView's file of a time series, ``Collection`` of
    ``DataSet`` entries, each a ``timestep`` and a ``file`` relative to ``path``'s directory) listing those
    of the outputs ``earlier`` (relative names, in order) that exist, then ``file`` at ``time``. An earlier
    output's time is the one ``path`` already lists for it, else the time in its first block (a
    collection that is missing or unreadable, or a run's outputs from before collections, are listed
    again from the files); one whose time cannot be read is left out. So a run restarted at its n-th
    output lists the n before it and drops the later ones a longer run left. Staged as ``write_block``."""
    here = os.path.dirname(path)
    listed = _collection_times(path)
    entries = []
    for name in earlier:
        if not os.path.isfile(os.path.join(here, name)):
            continue
        when = listed.get(name)
        if when is None:
            when = _output_time(os.path.join(here, name))
        if when is not None:
            entries.append((when, name))
    entries.append((float(time), file))
    lines = ['<?xml version="1.0"?>', '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">',
             "  <Collection>"]
    lines += [f'    <DataSet timestep="{_number(when)}" group="" part="0" file="{_attribute(name)}"/>'
              for when, name in entries]
    lines += ["  </Collection>", "</VTKFile>", ""]
    return _write_lines(path, lines)


def read_collection(path: str) -> list[tuple[float, str]]:
    """The ``(time, file)`` entries of the collection ``path`` (``.pvd``), files relative to its directory;
    ``ValueError`` naming the file for one that is no VTK collection."""
    root = _xml_root(path, "Collection")
    try:
        return [(float(d.get("timestep", "")), d.get("file", "")) for d in root.iter("DataSet")]
    except ValueError:
        raise ValueError(f"read_output: {path!r}: a DataSet's timestep is no number") from None


def _collection_times(path: str) -> dict:
    """file -> time of the collection ``path``; empty when there is none or it cannot be read."""
    try:
        return {name: when for when, name in read_collection(path)}
    except (OSError, ValueError):
        return {}


def _output_time(vtm: str) -> float | None:
    """The time of the ``.vtm`` output ``vtm`` (its first block's ``TimeValue``, read from the start of
    that file only); None when it cannot be read."""
    try:
        first = next(_xml_root(vtm, "vtkMultiBlockDataSet").iter("DataSet"), None)
        if first is None:
            return None
        block = os.path.join(os.path.dirname(vtm), first.get("file", ""))
        if not os.path.isfile(block):  # a FIFO would block the open
            return None
        with open(block, "rb") as f:
            head = f.read(1 << 16)  # the XML and the field data, which come first
        image, mark = _image(block, head)
        item = next(i for i in image.find("FieldData") if i.get("Name") == "TimeValue")
        return float(_values(block, head, mark, item, 1)[0])
    except (OSError, ValueError, AttributeError, StopIteration, KeyError, TypeError):
        return None


def _write_lines(path: str, lines: list[str]) -> str:
    """Write the text file ``path`` of ``lines`` (staged as ``write_block``); returns ``path``."""
    with staged(path) as (tmp,):
        with writing(tmp), open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    return path


def _image(path: str, data: bytes):
    """The ``ImageData`` element of the block file ``path`` (``data``: its bytes, or the first of them up to
    its appended data at least) and the offset in ``data`` where the appended arrays begin. A file whose
    header says its arrays are stored otherwise than this module stores them (big-endian, 32-bit byte counts,
    compressed) is refused: read as this module's, its numbers would be wrong."""
    start = data.find(b'<AppendedData encoding="raw">')
    mark = data.find(b"_", start) + 1
    if start < 0 or mark <= 0:
        raise ValueError(f"read_output: {path!r} is not a VTK image of brickwork's (no raw appended data)")
    root = _xml_root(path, "ImageData", data[:start] + b"</VTKFile>")
    for name, wanted in (("byte_order", "LittleEndian"), ("header_type", "UInt64"), ("compressor", None)):
        if root.get(name) != wanted:
            raise ValueError(f"read_output: {path!r} has {name}={root.get(name)!r}; a VTK image of brickwork's "
                             f"has {'no ' + name if wanted is None else repr(wanted)}")
    image = root.find("ImageData")
    if image is None:
        raise ValueError(f"read_output: {path!r} is not a VTK image of brickwork's (no <ImageData> element)")
    return image, mark


def _values(path: str, data: bytes, mark: int, item, count: int) -> np.ndarray:
    """The ``count`` values of the appended array that the ``DataArray`` element ``item`` describes; a
    ValueError naming the array for a description that is not this module's or points outside the file."""
    name = item.get("Name")
    dtype = DTYPES.get(item.get("type"))
    if dtype is None or item.get("format") != "appended" or item.get("NumberOfComponents", "1") != "1":
        raise ValueError(f"read_output: {path!r}: array {name!r} is described as type={item.get('type')!r}, "
                         f"format={item.get('format')!r}, NumberOfComponents={item.get('NumberOfComponents')!r}; "
                         f"brickwork writes one component of {', '.join(DTYPES)} as appended data")
    offset = _integer(item.get("offset"))
    if offset is None or mark + offset + HEADER.itemsize > len(data):
        raise ValueError(f"read_output: {path!r}: array {name!r} has offset={item.get('offset')!r}, which is not "
                         f"a place in its {len(data) - mark} bytes of appended data")
    offset += mark
    nbytes = int(np.frombuffer(data, HEADER, 1, offset)[0])
    if nbytes != count * dtype.itemsize:
        raise ValueError(f"read_output: {path!r}: array {name!r} holds {nbytes} bytes, not "
                         f"{count} values of {dtype}")
    if offset + HEADER.itemsize + nbytes > len(data):
        raise ValueError(f"read_output: {path!r}: array {name!r} ends {offset + HEADER.itemsize + nbytes - len(data)} "
                         f"bytes past the end of the file (a truncated file?)")
    return np.frombuffer(data, dtype, count, offset + HEADER.itemsize).astype(dtype.newbyteorder("="))


def _integer(text) -> int | None:
    """``text`` as a non-negative integer written in decimal digits, else None."""
    return int(text) if isinstance(text, str) and text.isascii() and text.isdigit() else None


class Block:
    """A block file read back: ``cells`` (name -> ``(nk, nj, ni)`` array), ``origin`` and ``spacing``
    (x1, x2, x3), ``time`` and ``cycle``; ``path`` the file."""

    def __init__(self, cells: dict, origin: tuple, spacing: tuple, time: float, cycle: int, path: str = ""):
        self.cells, self.origin, self.spacing, self.time, self.cycle = cells, origin, spacing, time, cycle
        self.path = path


def read(path: str) -> list[Block]:
    """The blocks of the VTK output ``path``: a ``.vtm`` file's pieces in order, or a ``.vti`` file's one
    block. ``ValueError`` naming the file for one this module did not write (or that lies about its
    contents), and for a piece that is no regular file (a ``.vtm`` may name any path: ``/dev/zero`` would
    be read for ever); ``FileNotFoundError`` naming the ``.vtm`` for a piece that does not exist."""
    if path.endswith(".vtm"):
        root = _xml_root(path, "vtkMultiBlockDataSet")
        here = os.path.dirname(path)
        pieces = [d.get("file") for d in root.iter("DataSet")]
        if None in pieces or "" in pieces:
            raise ValueError(f"read_output: {path!r}: a DataSet names no file")
        return [_read_block(os.path.join(here, piece), path) for piece in pieces]
    return [_read_block(path, path)]


def _xml_root(path: str, kind: str, text: bytes | None = None):
    if text is None and os.path.exists(path) and not os.path.isfile(path):  # /dev/zero would be read for ever
        raise ValueError(f"read_output: {path!r} is not a regular file")
    try:
        if text is None:
            with open(path, "rb") as f:
                text = f.read()
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise ValueError(f"read_output: {path!r} is not a VTK XML file: {e}") from None
    if root.tag != "VTKFile" or root.get("type") != kind:
        raise ValueError(f"read_output: {path!r} is not a VTK {kind} file")
    return root


def _read_block(path: str, listed_in: str) -> Block:
    if not os.path.exists(path):
        raise FileNotFoundError(f"read_output: {listed_in!r} lists the block file {path!r}, which does not exist")
    if not os.path.isfile(path):
        raise ValueError(f"read_output: {listed_in!r} lists {path!r}, which is not a regular file")
    with open(path, "rb") as f:
        data = f.read()
    image, mark = _image(path, data)
    extent = image.get("WholeExtent", "").split()
    points = [_integer(v) for v in extent]
    if len(points) != 6 or None in points or any(points[0::2]):
        raise ValueError(f"read_output: {path!r} has WholeExtent={image.get('WholeExtent')!r}; a block of "
                         f"brickwork's has '0 ni 0 nj 0 nk' (whole numbers)")
    shape = tuple(max(n, 1) for n in points[5::-2])

    def values(item, count: int) -> np.ndarray:
        return _values(path, data, mark, item, count)

    piece = image.find("Piece")
    cell_data = None if piece is None else piece.find("CellData")
    if cell_data is None:
        raise ValueError(f"read_output: {path!r} is not a VTK image of brickwork's (no <CellData> in a <Piece>)")
    field = {item.get("Name"): values(item, 1)[0].item() for item in image.findall("FieldData/DataArray")}
    cells = {}
    for item in cell_data:
        if item.get("Name") in cells:
            raise ValueError(f"read_output: {path!r} has two arrays named {item.get('Name')!r}")
        cells[item.get("Name")] = values(item, int(np.prod(shape))).reshape(shape)
    time, cycle = field.get("TimeValue", 0.0), field.get("CYCLE", 0)
    if not float(cycle).is_integer():
        raise ValueError(f"read_output: {path!r} has the field CYCLE = {cycle!r}, which is not an integer")
    return Block(cells, _triple(path, image, "Origin"), _triple(path, image, "Spacing"), float(time), int(cycle),
                 path)


def _triple(path: str, image, key: str) -> tuple:
    """The attribute ``key`` of ``image`` as three numbers (x1, x2, x3)."""
    try:
        numbers = tuple(float(v) for v in image.get(key).split())
    except (AttributeError, ValueError):
        numbers = ()
    if len(numbers) != 3:
        raise ValueError(f"read_output: {path!r} has {key}={image.get(key)!r}; a block of brickwork's has three "
                         f"numbers (x1, x2, x3)")
    return numbers

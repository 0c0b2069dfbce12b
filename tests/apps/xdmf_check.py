"""XDMF files checked the way a viewer reads them (ParaView's and VisIt's readers parse the XML and
read every number with strtod): ``check_xdmf(path)``."""

import os
import re
import xml.etree.ElementTree as ET

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")  # what strtod-based XDMF readers accept
INTEGER = re.compile(r"[-+]?\d+")


def _dims(item) -> tuple:
    text = item.get("Dimensions")
    assert text is not None and all(INTEGER.fullmatch(t) for t in text.split()), f"bad Dimensions {text!r}"
    return tuple(int(t) for t in text.split())


def check_xdmf(path) -> int:
    """Parse ``path`` as ParaView's and VisIt's XDMF readers do and check every DataItem: XML items hold
    exactly ``prod(Dimensions)`` plain numbers of their NumberType, HDF items name a dataset of that shape
    and precision next to the file, hyperslabs select inside their source. Returns the number of
    DataItems checked."""
    import h5py
    import numpy as np

    root = ET.parse(path).getroot()
    assert root.tag == "Xdmf" and root.get("Version", "").split(".")[0] in ("2", "3")
    for time in root.iter("Time"):
        assert NUMBER.fullmatch(time.get("Value", "")), f"{path}: Time Value {time.get('Value')!r}"
    for topo in root.iter("Topology"):
        _dims(topo)
    checked = 0
    for item in root.iter("DataItem"):
        dims = _dims(item)
        checked += 1
        if item.get("ItemType") == "HyperSlab":
            select, source = list(item)
            sel = np.array(item_values(select, path), dtype=np.int64).reshape(3, -1)
            src_dims = _dims(source)
            start, stride, count = sel
            assert tuple(int(c) for c in count) == tuple(d for d in (1,) * (len(count) - len(dims)) + dims)
            assert np.all(start >= 0) and np.all(stride >= 1)
            assert np.all(start + stride * (count - 1) < np.array(src_dims)), (path, sel, src_dims)
            continue
        fmt = item.get("Format", "XML")
        if fmt == "XML":
            values = item_values(item, path)
            assert len(values) == int(np.prod(dims)), f"{path}: {item.text!r} is not {dims} numbers"
        else:
            assert fmt == "HDF", fmt
            name, dataset = item.text.strip().split(":")
            with h5py.File(os.path.join(os.path.dirname(str(path)), name), "r") as f:
                data = f[dataset]
                assert data.shape == dims, (path, dataset, data.shape, dims)
                kind = {"Float": "f", "Int": "i", "UInt": "u"}[item.get("NumberType", "Float")]
                described = "i" if data.dtype == np.uint64 else data.dtype.kind  # uint64 as Int 8 (io/hdf5.py)
                assert described == kind and data.dtype.itemsize == int(item.get("Precision", "4"))
    return checked


def item_values(item, path) -> list:
    """The numbers of an XML DataItem, each one checked to be a plain decimal of its NumberType."""
    kind = item.get("NumberType", "Float")
    pattern = INTEGER if kind in ("Int", "UInt") else NUMBER
    tokens = (item.text or "").split()
    for token in tokens:
        assert pattern.fullmatch(token), f"{path}: {token!r} in a {kind} DataItem is not a number"
    return [int(t) if pattern is INTEGER else float(t) for t in tokens]

"""An array's ``repr``: its values as a list, summarized as numpy does past numpy's print threshold, since a
notebook shows the ``repr`` of a cell's last value and a million elements written out froze the page."""

from __future__ import annotations

import numpy as np

from .array_types import type_name


def array_repr(a, values: np.ndarray) -> str:
    """``array([...], dtype=..., device=...)`` of the array ``a`` whose elements (on the host) are ``values``: as
    ``repr(values.tolist())``, or, over ``numpy.get_printoptions()['threshold']`` scalars, numpy's summary (the
    first and last ``edgeitems`` along each axis) followed by the array's ``shape``."""
    threshold = np.get_printoptions()["threshold"]
    if values.size <= threshold:
        shown = repr(values.tolist())
    else:
        summary = np.array2string(values, separator=", ", prefix="array(", threshold=threshold)
        shown = f"{summary}, shape={tuple(a.shape)}"
    return f"array({shown}, dtype={type_name(a.dtype)}, device={a.device})"

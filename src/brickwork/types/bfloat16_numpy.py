"""bfloat16 data in numpy. numpy has no bfloat16 type; ``ml_dtypes`` (which comes with JAX) adds one. Where it
is installed, ``.numpy()`` of a bfloat16 array views the array's bits as ``ml_dtypes.bfloat16`` values, and
numpy data of that type is bfloat16 data, as in Warp 1.19; elsewhere the bits are uint16 numbers. brickwork does
not depend on ml_dtypes: ``.numpy()`` imports it (once) where it is installed, nothing else does.
"""

from __future__ import annotations

import sys

import numpy as np

_UNSET = object()
_ml_bfloat16 = _UNSET  # ml_dtypes.bfloat16, None where ml_dtypes is not installed, _UNSET before the first look


def ml_bfloat16():
    """``ml_dtypes.bfloat16`` (a numpy scalar type), or None where ml_dtypes is not installed (imported once)."""
    global _ml_bfloat16
    if _ml_bfloat16 is _UNSET:
        try:
            from ml_dtypes import bfloat16
        except ImportError:
            bfloat16 = None
        _ml_bfloat16 = bfloat16
    return _ml_bfloat16


def as_values(bits: np.ndarray) -> np.ndarray:
    """``bits`` (the uint16 data of bfloat16 values) viewed as ``ml_dtypes.bfloat16`` values where ml_dtypes is
    installed (the same memory), else ``bits`` itself."""
    kind = ml_bfloat16()
    return bits if kind is None else bits.view(kind)


def is_ml_bfloat16(dtype) -> bool:
    """Whether numpy dtype ``dtype`` is ``ml_dtypes.bfloat16``. Never imports ml_dtypes: data of its type exists
    only once it is imported."""
    module = sys.modules.get("ml_dtypes")
    return module is not None and dtype == np.dtype(module.bfloat16)

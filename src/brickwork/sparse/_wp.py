"""The names the sparse kernels and their launches use, spelled as Warp's (``wp.tid()``, ``wp.array(dtype=int)``),
taken from the layers below this package rather than from the ``brickwork`` facade, which sits above it."""

from __future__ import annotations

from types import SimpleNamespace

from ..builtins.functions import FUNCTIONS
from ..device import get_device
from ..lang.function import func
from ..lang.kernel import kernel
from ..runtime.launch import launch
from ..types.array_copy import copy
from ..types.arrays import array, array3d, empty, empty_like, zeros
from ..types.composite import matrix, vector
from ..types.scalars import float16, float32, float64, int32

wp = SimpleNamespace(
    kernel=kernel, func=func, launch=launch, array=array, array3d=array3d, empty=empty, empty_like=empty_like,
    zeros=zeros, copy=copy, get_device=get_device, matrix=matrix, vector=vector, int32=int32, float16=float16,
    float32=float32, float64=float64, vec2i=vector(length=2, dtype=int32),
    **{name: FUNCTIONS[name] for name in ("tid", "where", "min", "max", "atomic_add")},
)

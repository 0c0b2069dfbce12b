"""The kernel language spelled as Warp's (``wp.vec3``, ``wp.tid()``, ``wp.mesh_query_point``, ``wp.launch``) for
the kernels of the packages above the runtime (``sparse``, ``geometry``), which may not import the ``brickwork``
facade that sits above them: ``from ..runtime.warp_names import wp``."""

from __future__ import annotations

from types import SimpleNamespace

from ..builtins.constants import CONSTANTS
from ..builtins.functions import FUNCTIONS
from ..device import ScopedDevice, get_device, synchronize
from ..lang.function import func
from ..lang.kernel import kernel
from ..types import scalars
from ..types.array_constructors import empty, empty_like, full, zeros, zeros_like
from ..types.array_copy import clone, copy
from ..types.arrays import array, array2d, array3d
from ..types.composite import family_namespace, matrix, vector
from ..types.structs import struct
from .launch import launch
from .tape import Tape

wp = SimpleNamespace(
    kernel=kernel, func=func, launch=launch, struct=struct, Tape=Tape, array=array, array2d=array2d, array3d=array3d,
    empty=empty, empty_like=empty_like, zeros=zeros, zeros_like=zeros_like, full=full, copy=copy, clone=clone,
    get_device=get_device, ScopedDevice=ScopedDevice, synchronize=synchronize, vector=vector, matrix=matrix,
    **{name: getattr(scalars, name) for name in ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                                 "uint32", "uint64", "float16", "float32", "float64")},
    **family_namespace(), **FUNCTIONS, **CONSTANTS,
)

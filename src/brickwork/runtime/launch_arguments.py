"""Host values as launch arguments: numpy arrays (the same memory, no copy), ``None`` for an array parameter
(an empty array, Warp's null array), another library's CPU tensor; all off the launch's fast path (a signature
of such values is never in a launch table)."""

from __future__ import annotations

import numpy as np

from .. import device as _devices
from ..device import get_device
from ..errors import LaunchArgumentError, LaunchError
from ..types.array_constructors import empty, view_numpy, wrap_numpy
from ..types.array_conversions import check_conversion, element_target
from ..types.array_kinds import SIGNED
from ..types.arrays import ArrayType, array, is_foreign_cuda_array, type_name
from ..types.composite import CompositeBase, is_composite_type
from ..types.generic import is_generic
from ..types.indexed_arrays import ARRAY_KINDS, IndexedArrayType, indexedarray
from ..types.scalars import NUMPY_SCALARS, is_scalar_type
from ..types.structs import is_struct_type
from . import tape as _tape


def host_arguments(kernel, args) -> list:
    """numpy arrays as brickwork arrays over the same memory; ``None`` as an empty array of the
    parameter's declared array type (Warp's null array: shape 0)."""
    params = getattr(kernel, "params", ())
    on_cpu = get_device(None).is_cpu
    out = []
    for i, a in enumerate(args):
        if a is not None and type(a) not in SIGNED and not isinstance(a, np.ndarray):
            a = _foreign_host_array(kernel, params, i, a)
        if type(a) is not np.ndarray and isinstance(a, np.ndarray):  # a subclass: a plain view (or refused)
            a = _plain_ndarray(kernel, params, i, a)
        if type(a) is np.ndarray:
            t = params[i][1] if i < len(params) else None
            scalar = NUMPY_SCALARS.get(a.dtype)
            try:  # costs nothing unless it raises
                if on_cpu and scalar is not None and a.ndim and isinstance(t, ArrayType) and (
                        t.dtype is scalar or is_generic(t)):
                    a = wrap_numpy(a, scalar)  # the common case, without view_numpy's inference and conversions
                elif a.ndim == 0 and (is_scalar_type(t) or is_generic(t)):
                    a = a[()]  # a 0-d array is a value (a numpy scalar), not an array
                elif is_composite_type(t) and not is_generic(t) and a.size == int(np.prod(t._shape)):
                    if a.dtype.kind not in "biuf":  # complex (its imaginary part would go), strings, objects
                        raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{params[i][0]}' must be "
                                                  f"{type_name(t)}: its numpy data is of dtype {a.dtype}, not real "
                                                  f"numbers")
                    if not t._dtype.is_float:  # the constructor wraps integers (2**40 as 0)
                        check_conversion(a, np.dtype(t._dtype._np), f"numpy data for {type_name(t)}",
                                         element_target(t), "nothing ran")
                    a = t(a)  # a vector or matrix value given as numpy data, as Warp accepts
                elif (isinstance(t, ArrayType) and not is_generic(t) and is_composite_type(t.dtype)
                      and a.dtype == np.dtype(t.dtype._dtype._np)):
                    a = view_numpy(a, dtype=t.dtype)  # the same memory, seen as vectors or matrices
                else:
                    a = array(a, copy=False)  # numpy's shape kept (wp.from_numpy makes 2-D data vectors, as Warp)
            except ValueError as e:  # e.g. strides that are no whole elements (a field of a structured array)
                if isinstance(e, LaunchError):  # already names the kernel and the argument
                    raise
                name = params[i][0] if i < len(params) else str(i)
                # still a ValueError, as it was before it named the argument
                raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{name}': {e}") from None
        elif a is None:
            t = params[i][1] if i < len(params) else None
            a = None if _tape.recording else _NULL_ARRAYS.get((t, _devices._current))  # checked when made
            if a is not None:
                out.append(a)
                continue
            name = params[i][0] if i < len(params) else str(i)
            if is_struct_type(t):
                raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{name}' expects {type_name(t)} but "
                                          f"got None")
            if is_composite_type(t):
                raise LaunchArgumentError(f"launch of '{kernel.key}': Failed to convert argument for param {name} to "
                                          f"{type_name(t)} (None stands only for an array parameter)")
            if not isinstance(t, ArrayType) or is_generic(t):
                raise LaunchError(f"launch of '{kernel.key}': argument '{name}' is None, which stands only for an "
                                  f"array parameter of a known dtype (got {type_name(t) if t else 'no parameter'})")
            a = _null_array(t)
        out.append(a)
    return out


def host_value(a) -> bool:
    """Whether launch argument ``a`` may be a host value that ``host_arguments`` converts: None, a numpy array,
    an object with ``__array__`` (another library's CPU tensor), a ``from_torch(return_ctype=True)`` descriptor."""
    return a is None or isinstance(a, np.ndarray) or type(a) not in SIGNED and (
        hasattr(type(a), "__array__") or hasattr(a, "_bw_value"))


def _foreign_host_array(kernel, params, i: int, a):
    """A ``from_torch(..., return_ctype=True)`` descriptor as its array; for an array parameter, another
    library's CPU tensor as a numpy view of its memory (PyTorch's ``__array__`` copies nothing), which the numpy
    rules then take, as Warp reads such tensors through ``__array__``."""
    value = getattr(a, "_bw_value", None)
    if isinstance(value, ARRAY_KINDS):
        return value
    t = params[i][1] if i < len(params) else None
    if isinstance(t, ArrayType) and hasattr(type(a), "__array__") and not isinstance(a, (CompositeBase, *ARRAY_KINDS)) \
            and not is_foreign_cuda_array(a):  # CUDA memory: views on its device (cuda_launch), refused on the CPU
        try:
            return np.asarray(a)
        except (TypeError, ValueError, RuntimeError) as e:  # a tensor that requires grad, one on a GPU
            raise LaunchArgumentError(f"launch of '{kernel.key}': argument '{params[i][0]}': its "
                                      f"{type(a).__name__} gives no host array ({e}); wp.from_torch(t) views a "
                                      f"tensor with its gradient") from None
    return a


_NULL_ARRAYS: dict = {}  # (array type, default device) -> the empty array that a None argument stands for


def _null_array(t):
    """The empty array (Warp's null array) of array type ``t`` on the default device that a ``None`` argument
    becomes: one per type and device, kept, so that a launch with ``None`` costs no allocation. Shape 0, it holds
    nothing a kernel could change; while a tape records, each launch gets its own, as the tape's checks of reads
    and writes follow array objects."""
    key = (t, _devices._current)
    a = _NULL_ARRAYS.get(key)
    if a is None or _tape.recording:
        a = empty((0,) * t.ndim, dtype=t.dtype)
        if isinstance(t, IndexedArrayType):
            a = indexedarray(a)
        if not _tape.recording:
            _NULL_ARRAYS[key] = a
    return a


def _plain_ndarray(kernel, params, i: int, a: np.ndarray) -> np.ndarray:
    """Argument ``i``, an instance of an ndarray subclass, as a plain ndarray over the same memory (an
    ``np.memmap``: the kernel's writes reach the file); a masked array is refused, its mask would be ignored."""
    if isinstance(a, np.ma.MaskedArray):
        name = params[i][0] if i < len(params) else str(i)
        raise LaunchError(f"launch of '{kernel.key}': argument '{name}' is a numpy.ma.MaskedArray, whose mask a "
                          f"kernel would ignore; pass its data (a.data, or a.filled(value)) instead")
    return a.view(np.ndarray)

"""JAX interop, as Warp's: ``from_jax`` and ``to_jax`` share memory through DLPack (no copy), and
``device_from_jax``/``device_to_jax``, ``dtype_from_jax``/``dtype_to_jax`` name the same device and scalar type
on either side. ``jax_kernel`` and ``jax_callable`` (a kernel or a Python function as a JAX operation) live in
``jax_ops.py``. jax is imported by these functions only.

``from_jax`` is Warp's view: writes through the array change the JAX array, which JAX takes to be immutable
(Warp allows it too); copy the JAX array first where that matters.
"""

from __future__ import annotations

import math

import numpy as np

from ..device import get_device
from ..types import scalars
from ..types.arrays import array, element_layout, type_name
from ..types.dlpack_import import from_dlpack
from ..types.scalars import python_annotation_type
from .optional import import_library
from .scalar_tables import library_type, no_scalar

__all__ = ["device_from_jax", "device_to_jax", "dtype_from_jax", "dtype_to_jax", "from_jax", "to_jax"]

_TO: dict = {}  # brickwork scalar type -> jax.numpy scalar type
_FROM: dict = {}  # numpy dtype of a jax type -> brickwork scalar type


def _tables() -> None:
    jnp = import_library("jax", "the JAX dtype conversion").numpy
    pairs = [(scalars.float16, jnp.float16), (scalars.bfloat16, jnp.bfloat16), (scalars.float32, jnp.float32),
             (scalars.float64, jnp.float64), (scalars.int8, jnp.int8), (scalars.int16, jnp.int16),
             (scalars.int32, jnp.int32), (scalars.int64, jnp.int64), (scalars.uint8, jnp.uint8),
             (scalars.uint16, jnp.uint16), (scalars.uint32, jnp.uint32), (scalars.uint64, jnp.uint64),
             (scalars.bool_, jnp.bool_)]
    _FROM.update((np.dtype(theirs), ours) for ours, theirs in pairs)
    _TO.update(pairs)


def dtype_to_jax(warp_dtype):
    """The ``jax.numpy`` scalar type of a brickwork scalar type (``wp.float32`` -> ``jnp.float32``; Python's
    ``float``, ``int`` and ``bool`` stand for float32, int32 and bool). ``TypeError`` for vector, matrix and
    struct types: their arrays become JAX arrays of the scalar type with trailing dimensions (``wp.to_jax``)."""
    if not _TO:
        _tables()
    return library_type(_TO, warp_dtype, "Jax", "a JAX array")


def dtype_from_jax(jax_dtype):
    """The brickwork scalar type of a JAX type: a ``jax.numpy`` scalar type (``jnp.float32``) or a dtype
    (``x.dtype``, ``jnp.dtype(jnp.float32)``; numpy's are the same). ``TypeError`` for types brickwork has no
    scalar for (complex, float8, int4) and for values that are not types (a string, a number)."""
    if not _FROM:
        _tables()
    found = None
    if isinstance(jax_dtype, (type, np.dtype)):
        try:
            found = _FROM.get(np.dtype(jax_dtype))
        except TypeError:  # a class numpy has no dtype for
            found = None
    if found is None:
        raise no_scalar(jax_dtype)
    return found


def device_to_jax(warp_device):
    """The ``jax.Device`` of a brickwork device (or device name) in this process: JAX's first CPU device for
    ``"cpu"``, the local GPU of the same ordinal for ``"cuda:N"``. ``RuntimeError`` when JAX has none."""
    jax = import_library("jax", "wp.device_to_jax")
    device = get_device(warp_device)
    backend = "cpu" if device.is_cpu else "cuda"
    try:
        candidates = jax.local_devices(backend=backend)
    except RuntimeError:  # JAX has no such backend here (a CPU-only jaxlib)
        candidates = []
    if device.is_cpu and candidates:
        return candidates[0]
    for candidate in candidates if device.is_cuda else ():
        if candidate.local_hardware_id == device.ordinal:
            return candidate
    raise RuntimeError(f"Jax device corresponding to '{warp_device}' is not available (JAX's {backend} devices "
                       f"here: {[str(d) for d in candidates]})")


def device_from_jax(jax_device):
    """The brickwork device of a ``jax.Device``: ``"cpu"`` for JAX's CPU devices, ``"cuda:N"`` for a GPU of this
    process (N its process-local ordinal). ``RuntimeError`` for other platforms (TPU) and for another
    process's GPU; ``TypeError`` for a value that is not a JAX device."""
    platform = getattr(jax_device, "platform", None)
    if not isinstance(platform, str):
        raise TypeError(f"wp.device_from_jax needs a jax.Device, got {type(jax_device).__name__} (a brickwork "
                        f"device name goes to wp.get_device)")
    if platform == "cpu":
        return get_device("cpu")
    if platform == "gpu":
        jax = import_library("jax", "wp.device_from_jax")
        if jax_device.process_index != jax.process_index() or jax_device.local_hardware_id is None:
            raise RuntimeError(f"Jax device '{jax_device}' belongs to process {jax_device.process_index} and is not "
                               f"addressable from process {jax.process_index()}")
        return get_device(f"cuda:{jax_device.local_hardware_id}")
    raise RuntimeError(f"Unsupported Jax device platform '{platform}': brickwork has 'cpu' and 'cuda:N' devices")


def from_jax(jax_array, dtype=None) -> array:
    """A brickwork array over the JAX array's memory (no copy), as ``wp.from_dlpack``.

    - dtype: the element type; None: the array's own scalar type. A vector or matrix type (``wp.vec3``,
      ``wp.mat22``) takes the trailing dimensions, which must have its shape. Integers of the same size and
      either sign, and bool with 8-bit integers, view each other.

    Writes through the result change the JAX array (as in Warp), which JAX assumes immutable: write only to
    arrays that nothing else in JAX reads, or copy first. A 0-d JAX array is an array of one element."""
    if not hasattr(jax_array, "__dlpack__"):
        raise TypeError(f"wp.from_jax needs a jax.Array (or another object with __dlpack__), got "
                        f"{type(jax_array).__name__}")
    if dtype is not None:
        dtype = python_annotation_type(dtype)
        trailing = element_layout(dtype)[1]
        shape = tuple(jax_array.shape)
        if trailing and shape[len(shape) - len(trailing):] != trailing:  # Warp's type and words
            raise RuntimeError(f"Could not convert JAX array with shape {shape} to Warp array with dtype="
                               f"{type_name(dtype)}, ensure that source inner shape is {trailing}")
    return from_dlpack(jax_array, dtype)


def _compact(a: array) -> bool:
    """Whether the array's strides are a permutation of dense strides (what JAX's DLPack import takes)."""
    order = sorted(range(a.ndim), key=lambda d: -abs(a.strides[d]))
    comp, trailing = element_layout(a.dtype)
    expected = comp.itemsize * math.prod(trailing)
    for d in reversed(order):
        if a.shape[d] != 1 and a.strides[d] != expected:
            return False
        expected *= a.shape[d]
    return True


def to_jax(warp_array):
    """A JAX array over the brickwork array's memory (no copy, through DLPack), on the array's device. Vector
    and matrix elements become trailing dimensions. JAX arrays are dense: a strided view (a column, a step
    slice) is a ``ValueError`` with advice to copy it first. Writes to the brickwork array afterwards change
    the JAX array's values (as in Warp); copy the JAX array where it must keep them."""
    jax = import_library("jax", "wp.to_jax")
    if not isinstance(warp_array, array):
        raise TypeError(f"wp.to_jax needs a brickwork array, got {type(warp_array).__name__} (jnp.asarray copies "
                        f"other arrays)")
    if getattr(warp_array.dtype, "_bw_struct", False):
        raise RuntimeError(f"Cannot convert structured Warp arrays to Jax: an array of {type_name(warp_array.dtype)} "
                           f"has no JAX counterpart (convert its fields one by one)")
    if math.prod(warp_array.shape) and not _compact(warp_array):
        raise ValueError(f"wp.to_jax: the array's strides {warp_array.strides} skip or repeat elements (a strided "
                         f"view), and JAX arrays are dense: copy it first (a.contiguous())")
    return jax.dlpack.from_dlpack(warp_array)

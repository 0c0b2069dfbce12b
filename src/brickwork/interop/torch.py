"""PyTorch interop, as Warp's: ``from_torch`` and ``to_torch`` share memory both ways (no copy), with the
gradients linked (an array's ``grad`` views the tensor's ``.grad``); ``device_from_torch``/``device_to_torch`` and
``stream_from_torch``/``stream_to_torch`` name the same device and CUDA stream on either side.

On the CPU an array views the tensor's memory with the tensor's strides (slices, zero strides of ``expand``);
on a CUDA device it goes through DLPack (``wp.from_dlpack``), and brickwork's device arrays being contiguous,
a strided CUDA tensor is refused with advice to copy it. torch is imported by these functions only.
"""

from __future__ import annotations

import ctypes
import math

from ..device import get_device
from ..runtime.streams import Stream, get_stream
from ..types.array_constructors import zeros
from ..types.arrays import _scalar_of, array, element_layout, type_name
from ..types.dlpack_import import from_dlpack
from ..types.scalars import bfloat16
from .optional import import_library
from .torch_dtypes import dtype_from_torch, dtype_to_torch, view_dtype

__all__ = ["device_from_torch", "device_to_torch", "dtype_from_torch", "dtype_to_torch", "from_torch", "to_torch",
           "stream_from_torch", "stream_to_torch"]


def device_from_torch(torch_device):
    """The brickwork device of a ``torch.device`` or a device string (``"cpu"``, ``"cuda"``, ``"cuda:1"``).
    ``RuntimeError`` for devices brickwork has not (``"mps"``, ``"meta"``, a CUDA device this machine lacks);
    ``ValueError`` for a value that is neither."""
    if isinstance(torch_device, str):
        kind, _, index = torch_device.partition(":")
        if kind not in ("cpu", "cuda") or (index and not index.isdigit()) or (kind == "cpu" and index not in ("", "0")):
            raise RuntimeError(f"Unsupported Torch device {torch_device}: brickwork has 'cpu' and 'cuda:N' devices")
        return get_device("cpu" if kind == "cpu" else torch_device)
    torch = import_library("torch", "wp.device_from_torch")
    if not isinstance(torch_device, torch.device):
        raise ValueError(f"Argument must be a torch.device object or a string, got {type(torch_device).__name__}")
    if torch_device.type == "cpu":
        return get_device("cpu")
    if torch_device.type == "cuda":
        return get_device("cuda" if torch_device.index is None else f"cuda:{torch_device.index}")
    raise RuntimeError(f"Unsupported Torch device type {torch_device.type}: brickwork has 'cpu' and 'cuda:N' devices")


def device_to_torch(warp_device) -> str:
    """The torch device string of a brickwork device (or device name): ``"cpu"`` or ``"cuda:N"`` (brickwork uses
    each CUDA device's primary context, as torch does)."""
    return get_device(warp_device).alias


# -- tensors as arrays ----------------------------------------------------------------------------------


class _Keep:
    """The ``deleter`` of an array over a tensor's memory: holds the tensor until the last view of it is gone."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    def __call__(self, ptr, nbytes) -> None:
        self.tensor = None


def _layout(t, dtype) -> tuple[tuple, tuple]:
    """(shape, byte strides) of ``t`` read as ``dtype`` elements: a vector or matrix type takes
    the trailing dimensions, which must have its shape and be contiguous (Warp's checks and words)."""
    comp, trailing = element_layout(dtype)
    size = comp.itemsize
    shape, strides = tuple(t.shape), tuple(s * size for s in t.stride())
    if trailing:
        n = len(trailing)
        if n > len(shape) or shape[len(shape) - n:] != trailing:
            raise RuntimeError(f"Could not convert PyTorch tensor with shape {shape} to Warp array with dtype="
                               f"{type_name(dtype)}, ensure that source inner shape is {trailing}")
        if strides[-1] != size or (n > 1 and strides[-2] != size * trailing[-1]):
            raise RuntimeError(f"Could not convert PyTorch tensor with shape {shape} to Warp array with dtype="
                               f"{type_name(dtype)}, because the source inner strides are not contiguous "
                               f"(strides {t.stride()} elements): copy it first (.contiguous())")
        shape, strides = shape[:len(shape) - n], strides[:len(strides) - n]
    if not shape:  # a 0-d tensor, or one element of a vector or matrix type: an array of one
        shape, strides = (1,), (size * math.prod(trailing),)
    return shape, strides


def _view(t, dtype, shape: tuple, strides: tuple, device) -> array:
    """An array of ``dtype`` over ``t``'s memory (no copy) that keeps ``t`` alive."""
    if device.is_cuda:  # device arrays are contiguous: DLPack's import checks and refuses the rest
        source = t.detach()
        if source.dim() != len(shape) + len(element_layout(dtype)[1]):
            source = source.unsqueeze(0)  # a 0-d tensor or a single vector: an array of one
        return from_dlpack(source, dtype)
    ptr = t.data_ptr()
    capacity = 0
    if ptr:  # Warp's capacity of a view: the storage's bytes from the view's first element on
        storage = t.untyped_storage()
        capacity = storage.nbytes() - (ptr - storage.data_ptr())
    return array(ptr=ptr, dtype=dtype, shape=shape, strides=strides, capacity=capacity, device="cpu",
                 deleter=_Keep(t))


def from_torch(t, dtype=None, requires_grad=None, grad=None, return_ctype=False, retain_grad=False):
    """A brickwork array sharing the memory of the tensor ``t`` (no copy: writes through either are seen by the
    other).

    - dtype: the element type; None: the tensor's own scalar type (``dtype_from_torch``). A vector or matrix
      type (``wp.vec3``, ``wp.mat22``) takes the trailing dimensions, which must have its shape and be
      contiguous. Integers of the same size and either sign, and bool with 8-bit integers, view each other.
    - requires_grad: whether the array has a gradient (None: the tensor's ``requires_grad``). Its ``grad``
      then views ``t.grad``, which is allocated (zeros, the tensor's strides) when the tensor has none, so a
      ``wp.Tape`` backward accumulates into ``t.grad``.
    - grad: the gradient to attach instead, a brickwork array or a tensor (viewed as ``dtype``).
    - return_ctype: return the launch descriptor (Warp's ``array_t`` fields ``data``, ``grad``, ``shape``,
      ``strides``, ``ndim``) instead of the array; a CPU launch takes it as the array.
    - retain_grad: the array's ``retain_grad`` (a recorded copy into it keeps its gradient).

    A tensor on the CPU is viewed with its strides (slices, ``expand``); one on a CUDA device must be
    contiguous (brickwork's device arrays are)."""
    torch = import_library("torch", "wp.from_torch")
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"wp.from_torch needs a torch.Tensor, got {type(t).__name__}")
    dtype = view_dtype(t.dtype, dtype)
    device = device_from_torch(t.device)
    shape, strides = _layout(t, dtype)
    a = _view(t, dtype, shape, strides, device)  # first: a tensor refused here keeps its .grad
    requires_grad = t.requires_grad if requires_grad is None else bool(requires_grad)
    if grad is not None:
        if isinstance(grad, torch.Tensor):
            grad = from_torch(grad, dtype=dtype, requires_grad=False)
        elif not isinstance(grad, array):
            raise TypeError(f"wp.from_torch: grad must be a brickwork array or a torch.Tensor, got "
                            f"{type(grad).__name__}")
    elif requires_grad:
        if t.grad is not None:
            grad = from_torch(t.grad, dtype=dtype, requires_grad=False)
        else:  # allocated by brickwork with the tensor's strides, and given to the tensor
            grad = zeros(shape, dtype, device, strides=strides if device.is_cpu else None)
            t.grad = to_torch(grad, requires_grad=False)
    if grad is not None:
        a.grad = grad  # ValueError naming both shapes or dtypes when they differ
    if retain_grad:
        a.retain_grad = True
    return _descriptor(a, t) if return_ctype else a


class ArrayDescriptor(ctypes.Structure):
    """``from_torch(..., return_ctype=True)``: Warp's ``array_t`` fields of an array (``data`` and ``grad``
    addresses, ``shape`` and byte ``strides``, ``ndim``); launches read the array it stands for (``_bw_value``)."""

    _fields_ = [("data", ctypes.c_uint64), ("grad", ctypes.c_uint64), ("shape", ctypes.c_int32 * 4),
                ("strides", ctypes.c_int32 * 4), ("ndim", ctypes.c_int32)]


def _descriptor(a: array, t) -> ArrayDescriptor:
    out = ArrayDescriptor(a.ptr or 0, (a.grad.ptr or 0) if a.grad is not None else 0, tuple(a.shape),
                          tuple(a.strides), a.ndim)
    out._bw_value = a  # keeps the array, and so the tensor and its gradient, alive
    out._ref = t
    return out


# -- arrays as tensors ----------------------------------------------------------------------------------


def to_torch(a, requires_grad=None):
    """A tensor sharing the memory of the brickwork array ``a`` (no copy). Vector and matrix elements become
    trailing dimensions; strides are kept. ``requires_grad`` (None: the array's): the tensor requires grad, and
    when the array has a gradient the tensor's ``.grad`` views it. Clone the tensor if torch must keep values that
    brickwork may overwrite later (a tape's ``zero()`` clears gradients in place)."""
    torch = import_library("torch", "wp.to_torch")
    if not isinstance(a, array):
        raise TypeError(f"wp.to_torch needs a brickwork array, got {type(a).__name__}")
    if requires_grad is None:
        requires_grad = a.requires_grad
    if getattr(a.dtype, "_bw_struct", False):
        raise RuntimeError(f"Cannot convert structured Warp arrays to Torch: an array of {type_name(a.dtype)} has "
                           f"no tensor counterpart (convert its fields one by one)")
    if any(s < 0 for s in a.strides):  # torch has no negative strides (its DLPack import aborts the process)
        raise ValueError(f"wp.to_torch: the array has negative strides {a.strides} (a reversed view), which torch "
                         f"tensors cannot have: copy it first (a.contiguous())")
    if a.device.is_cpu and _scalar_of(a.dtype) is not bfloat16:
        t = torch.from_numpy(a.numpy())  # numpy holds the memory (and keeps it alive); strides as they are
    else:  # CUDA arrays, and bfloat16, which numpy has no type for: DLPack (``__dlpack__``)
        t = torch.from_dlpack(a)
    t.requires_grad = requires_grad
    if requires_grad and a.grad is not None:
        t.grad = to_torch(a.grad, requires_grad=False)
    return t


# -- streams -------------------------------------------------------------------------------------------


def stream_from_torch(stream_or_device=None) -> Stream:
    """The brickwork stream of a ``torch.cuda.Stream``, or of torch's current stream on a device (a torch device
    or name; None: torch's current device). The torch stream is kept alive with it."""
    torch = import_library("torch", "wp.stream_from_torch")
    if isinstance(stream_or_device, torch.cuda.Stream):
        stream = stream_or_device
    else:
        if not torch.cuda.is_available():
            raise RuntimeError("wp.stream_from_torch: torch has no CUDA device here (a CPU build of torch, or no "
                               "GPU); streams belong to CUDA devices")
        stream = torch.cuda.current_stream(stream_or_device)
    out = Stream(device_from_torch(stream.device), cuda_stream=stream.cuda_stream)
    out._torch_stream = stream
    return out


def stream_to_torch(stream_or_device=None):
    """The ``torch.cuda.ExternalStream`` of a brickwork stream, or of the current stream of a CUDA device (None:
    the current device). The brickwork stream is kept alive with it."""
    torch = import_library("torch", "wp.stream_to_torch")
    stream = stream_or_device if isinstance(stream_or_device, Stream) else get_stream(stream_or_device)
    out = torch.cuda.ExternalStream(stream.cuda_stream, device=device_to_torch(stream.device))
    out._warp_stream = stream
    return out

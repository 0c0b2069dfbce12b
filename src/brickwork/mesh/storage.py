"""Where field storage lives: a numpy array on the CPU, a ``DeviceStorage`` in CUDA memory.

``zeros(shape, dtype, device)`` allocates the ``(nblocks, nslots, nk, nj, ni)`` storage of a field
(see ``fields``). On the CPU that is a numpy array, as it always was. On a CUDA device it is a
``DeviceStorage``: one contiguous allocation with the same shape, dtype and C layout, whose host
side sees copies (``numpy()``, ``np.asarray``, indexing: a read-only copy, so that a write into it raises
rather than being lost), so host code written for numpy arrays keeps working, at the price of a transfer
per access; ``copy()``, ``zero()`` and ``storage[...] = other``
(another ``DeviceStorage`` of the same shape) stay on the device, as a ``wp.Tape`` needs them for the
fields it saves and their gradients. Kernels reach either through its address (``address(data)``): packs
and the ghost exchange build their tables from it.
"""

from __future__ import annotations

import numpy as np

from ..types.array_constructors import empty as empty_array
from ..types.array_constructors import zeros as zero_array
from ..types.scalars import uint8


class DeviceStorage:
    """A C-ordered array of any rank in the memory of one CUDA device (host access copies)."""

    __slots__ = ("shape", "dtype", "device", "_bytes")

    def __init__(self, shape: tuple, dtype, device, zeroed: bool = True):
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.device = device
        # bytes, so that every numpy dtype (complex, bool) has a device home of the right size
        make = zero_array if zeroed else empty_array
        self._bytes = make(max(1, self.nbytes), dtype=uint8, device=device)

    def __repr__(self) -> str:
        return f"DeviceStorage(shape={self.shape}, dtype={self.dtype}, device={self.device})"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def ptr(self) -> int:
        """The device address of the first element."""
        return self._bytes.ptr

    @property
    def strides(self) -> tuple:
        """Byte strides, as numpy's."""
        out, step = [], self.dtype.itemsize
        for n in reversed(self.shape):
            out.append(step)
            step *= n
        return tuple(reversed(out))

    def __len__(self) -> int:
        return self.shape[0]

    # -- the host side sees copies ------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """A host copy."""
        return self._bytes.numpy()[: self.nbytes].view(self.dtype).reshape(self.shape)

    def __array__(self, dtype=None, copy=None):
        data = self.numpy()
        return data if dtype is None else data.astype(dtype)

    def assign(self, values) -> None:
        """Copy ``values`` (broadcast to this shape) into the device memory."""
        host = np.empty(self.shape, dtype=self.dtype)
        host[...] = values
        self._bytes._upload(np.frombuffer(host.tobytes() or b"\0", dtype=np.uint8))

    def __getitem__(self, key) -> np.ndarray:
        """A read-only host copy of ``storage[key]`` (a scalar for a single element). Read-only because a write
        into it (``mesh.data("u")[0][...] = v``, which writes the field on the CPU) would be lost without a word:
        numpy raises "assignment destination is read-only"; write through ``storage[key] = value`` instead."""
        view = self.numpy()[key]
        if isinstance(view, np.ndarray):
            view.flags.writeable = False
        return view

    # -- on the device: no host transfer ------------------------------------------------------------
    def copy(self) -> "DeviceStorage":
        """A copy in the same device's memory (a device-to-device copy: a ``wp.Tape`` saves mesh fields so)."""
        out = DeviceStorage(self.shape, self.dtype, self.device, zeroed=False)
        out._bytes.assign(self._bytes, stream=self.device.stream)  # ordered with the launches around it
        return out

    def zero(self) -> None:
        """Set every element to zero (a memset on the device)."""
        self._bytes.zero_()

    def __setitem__(self, key, value) -> None:
        if key is Ellipsis and isinstance(value, DeviceStorage) and value.device == self.device \
                and value.shape == self.shape and value.dtype == self.dtype:
            # whole storage from storage on the device: no host copy; on the current stream, with the launches
            self._bytes.assign(value._bytes, stream=self.device.stream)
            return
        host = self.numpy()
        host[key] = value
        self.assign(host)


def host_view(data, key):
    """``data[key]``: a view of a host array, or of a device's storage a read-only host copy
    (``DeviceStorage.__getitem__``). A write into such a copy (``block.data("u")[...] = u0``, the CPU's way
    to set initial values) would be lost without a word; read-only, it raises numpy's "assignment
    destination is read-only"."""
    return data[key]


def zeros(shape: tuple, dtype, device):
    """Zero-filled field storage on ``device`` (a ``brickwork.device.Device``)."""
    if device.is_cpu:
        return np.zeros(shape, dtype=dtype)
    return DeviceStorage(shape, dtype, device)


def address(data) -> int:
    """The address of the first element of field storage (host or device)."""
    if isinstance(data, DeviceStorage):
        return data.ptr
    return data.__array_interface__["data"][0]


def host(data) -> np.ndarray:
    """Field storage as a numpy array: itself on the CPU, a copy of device storage."""
    return data.numpy() if isinstance(data, DeviceStorage) else data

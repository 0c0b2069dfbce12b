"""``wp.Texture1D``/``Texture2D``/``Texture3D``: regularly gridded data sampled in kernels with
``wp.texture_sample``, as Warp 1.19's textures (experimental there too).

A texture holds 1, 2 or 4 channels of uint8, uint16, uint32, int8, int16, int32, float16 or float32 texels,
optionally with a mip chain (built from the data with a 2x box filter). Its data and a descriptor (modes,
extents, level addresses) live in one buffer on its device (``texture_data.py``); the descriptor's address is
the texture's ``id``. A texture is also the struct kernels receive (``tex``: the id, ``width``/``height``/
``depth``, ``metadata``: Warp's packed bits), so it can be a kernel parameter, a struct field or an array
element, and ``tex.width`` reads in kernels. Sampling is software (``include/brickwork_texture.h``) on the
CPU and on CUDA devices alike: the values are Warp's CPU sampler's.
"""

from __future__ import annotations

import ctypes
import enum
import weakref

import numpy as np

from ..device import get_device
from ..types.array_copy import copy
from ..types.arrays import array, type_name
from ..types.scalars import int32, uint8, uint32, uint64
from ..types.structs import struct, struct_devices
from . import texture_data as T
from .texture_data import TextureError, TextureStateError


class TextureFilterMode(enum.IntEnum):
    """How a texture is filtered within a level (and between mip levels)."""

    CLOSEST = 0
    """Nearest texel."""
    LINEAR = 1
    """Linear, bilinear or trilinear interpolation."""


class TextureAddressMode(enum.IntEnum):
    """What coordinates outside the texture read."""

    WRAP = 0
    """The texture repeats."""
    CLAMP = 1
    """The edge texel."""
    MIRROR = 2
    """The texture repeats, every other copy reflected."""
    BORDER = 3
    """Zero."""


class TextureResourceFlags(enum.IntEnum):
    """Warp's flags for registering graphics resources (accepted for compatibility; brickwork has no
    OpenGL interop)."""

    NONE = 0x00
    READ_ONLY = 0x01
    WRITE_DISCARD = 0x02
    SURFACE_LDST = 0x04
    TEXTURE_GATHER = 0x08


_SHIFTS = {"num_channels": 0, "dtype": 3, "filter_mode": 6, "mip_filter_mode": 7, "num_mip_levels": 8,
           "normalized": 13, "address_u": 14, "address_v": 16, "address_w": 18}


def _metadata(**fields) -> int:
    return sum(int(v) << _SHIFTS[k] for k, v in fields.items())


def _address_mode(address_mode, axis_mode, axis: int):
    if axis_mode is not None:
        mode = axis_mode
    elif isinstance(address_mode, tuple):
        mode = address_mode[axis] if axis < len(address_mode) else TextureAddressMode.CLAMP
    else:
        mode = TextureAddressMode.CLAMP if address_mode is None else address_mode
    try:
        return TextureAddressMode(mode)
    except (TypeError, ValueError):
        raise TextureError(f"Invalid texture address mode for axis {axis}: {mode}") from None


def _filter_mode(mode, what: str):
    if mode is None:
        return None
    try:
        return TextureFilterMode(mode)
    except (TypeError, ValueError):
        raise TextureError(f"Invalid texture {what}: {mode}") from None


def _positive_int(n) -> bool:
    return isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) and n > 0


class Texture:
    """Base class of :class:`Texture1D`, :class:`Texture2D` and :class:`Texture3D` (use those).

    Data arrays are ``(width[, channels])``, ``(height, width[, channels])`` or ``(depth, height,
    width[, channels])``, or the same without the channel axis with a vector dtype. 8- and 16-bit integers
    sample normalized (unsigned to [0, 1], signed to [-1, 1]), 32-bit integers convert to float32 as they are
    and filter with ``CLOSEST`` only, floats sample as they are."""

    _ndim = 0
    device = None  # a null texture's (Texture2D()): it points nowhere
    _own_devices: frozenset = frozenset()  # {device}: what a launch compares with its device, as a struct's arrays

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        object.__setattr__(self, "_buffer", None)
        object.__setattr__(self, "_is_mipmapped", False)
        return self

    def __setattr__(self, name, value):
        if name in self._field_types:
            super().__setattr__(name, value)
        else:
            object.__setattr__(self, name, value)

    def __init__(self, data=None, width: int = 0, height: int = 0, depth: int = 0, num_channels: int = 0,
                 dtype=None, filter_mode=None, address_mode=TextureAddressMode.CLAMP, address_mode_u=None,
                 address_mode_v=None, address_mode_w=None, normalized_coords: bool = True, num_mip_levels: int = 1,
                 mip_filter_mode=None, device=None, surface_access: bool = False, cuda_array: int = 0):
        ndim = self._ndim
        for name, _ in self._fields:  # a null descriptor until the texture exists (a struct field's default)
            self._store(name, 0)
        object.__setattr__(self, "_bytes", None)
        if data is None and not (width or height or depth or num_channels or dtype is not None or cuda_array):
            self._null = True  # Texture2D(): the empty value a struct field holds before a texture is set
            return
        self._null = False
        if cuda_array:
            raise TextureError("Texture cuda_array was given, but brickwork textures do not wrap CUDA arrays "
                               "(they sample from global memory)")
        device = get_device(device)
        filter_mode = _filter_mode(filter_mode, "filter mode")
        mip_filter_mode = _filter_mode(mip_filter_mode, "mip filter mode")
        modes = tuple(_address_mode(address_mode, m, a) if a < ndim else TextureAddressMode.CLAMP
                      for a, m in enumerate((address_mode_u, address_mode_v, address_mode_w)))
        if data is not None:
            if isinstance(data, np.ndarray):
                data = array(np.ascontiguousarray(data), device="cpu")
            if not isinstance(data, array):
                raise TextureError("Data must be a Warp array or NumPy array")
            dw, dh, dd, dc, dt = T.shape_of(data, ndim)
            for given, found, what in ((width, dw, "width"), (height, dh, "height"), (depth, dd, "depth")):
                if given and given != found:
                    raise TextureError(f"Specified texture {what} does not match data {what}")
            if num_channels and num_channels != dc:
                raise TextureError(f"Specified texture channels do not match data channels (expected "
                                   f"{num_channels}, got {dc})")
            if dtype is not None and T.canonical_dtype(dtype) is not dt:
                raise TextureError("Specified texture dtype does not match data dtype")
            width, height, depth, num_channels, dtype = dw, dh, dd, dc, dt
        if not _positive_int(width):  # a float (4.5, or 4.0) was numpy's error at the allocation, naming nothing
            raise TextureError("Texture width must be a positive integer")
        if not _positive_int(height) and ndim > 1:
            raise TextureError("Texture height must be a positive integer")
        if not _positive_int(depth) and ndim > 2:
            raise TextureError("Texture depth must be a positive integer")
        if num_channels not in (1, 2, 4) or not _positive_int(num_channels):
            raise TextureError("Texture num_channels must be 1, 2, or 4")
        dtype = T.canonical_dtype(dtype)
        base = (width, height if ndim > 1 else 1, depth if ndim > 2 else 1)
        shapes = T.mip_shapes(base, ndim, num_mip_levels)
        mipmapped = len(shapes) > 1
        int32_data = dtype in (int32, uint32)
        default = TextureFilterMode.CLOSEST if int32_data else TextureFilterMode.LINEAR
        filter_mode = default if filter_mode is None else filter_mode
        mip_filter_mode = default if mip_filter_mode is None else mip_filter_mode
        if int32_data and filter_mode != TextureFilterMode.CLOSEST:
            raise TextureError("32-bit integer textures require filter_mode=TextureFilterMode.CLOSEST")
        if int32_data and mipmapped and mip_filter_mode != TextureFilterMode.CLOSEST:
            raise TextureError("32-bit integer mipmapped textures require mip_filter_mode=TextureFilterMode.CLOSEST")
        if mipmapped and data is None:
            raise TextureError("Mipmapped textures require data to be provided at construction")
        if mipmapped and surface_access:
            raise TextureError("surface_access is not supported for mipmapped textures")

        self.device = device
        self._width, self._height, self._depth = base
        self._num_channels, self._dtype = num_channels, dtype
        self._filter_mode, self._mip_filter_mode = filter_mode, mip_filter_mode
        self._address_mode_u, self._address_mode_v, self._address_mode_w = modes
        self._normalized_coords = bool(normalized_coords)
        self._mip_shapes, self._num_mip_levels, self._is_mipmapped = shapes, len(shapes), mipmapped
        self._surface_access = False  # no CUDA surfaces: see cuda_surface
        itemsize = np.dtype(dtype._np).itemsize
        self._level_offsets, total = T.layout(shapes, num_channels, itemsize)
        self._buffer = array(np.zeros(total, dtype=np.uint8), device=device)
        code = T.DTYPE_CODES[dtype]
        head = T.descriptor_bytes(self._buffer.ptr, ndim, shapes, self._level_offsets, num_channels, code,
                                  filter_mode, mip_filter_mode, self._normalized_coords, modes)
        self._write_bytes(0, head)
        fields = {"tex": self._buffer.ptr, "width": base[0], "height": base[1], "depth": base[2],
                  "metadata": _metadata(num_channels=num_channels, dtype=code, filter_mode=filter_mode,
                                        mip_filter_mode=mip_filter_mode, num_mip_levels=len(shapes),
                                        normalized=self._normalized_coords, address_u=modes[0],
                                        address_v=modes[1], address_w=modes[2])}
        for name, _ in self._fields:  # plain ints, as Warp's properties give them
            self._store(name, int(fields[name]))
        self._own_devices = struct_devices({device})
        _LIVE[self._buffer.ptr] = self
        if data is not None:
            if mipmapped:
                for level, level_data in enumerate(self._generate_mipmap_chain(data.numpy())):
                    self._write_level(level, level_data)
            else:
                self.copy_from(data)

    def __del__(self):
        # the buffer is an array of the texture's own: released with it (nothing to free by hand)
        object.__setattr__(self, "_buffer", None)

    def _copy(self):
        return self  # a texture's descriptor never changes: a struct field holds the texture (and keeps it alive)

    def _to_bytes(self) -> bytes:
        data = self.__dict__.get("_bytes")
        if data is None:  # packed as a struct; where its memory lives is the texture's device, not its fields'
            data = super()._to_bytes()
            object.__setattr__(self, "_devices", self._own_devices)
        return data

    @classmethod
    def _from_record(cls, record, device=None, held=None):
        """The texture an element of an array of textures describes (``a.list()``, ``a[i]``): the live texture of
        that descriptor address, a null texture for a null record."""
        address = int(record["tex"])
        if address == 0:
            return cls()
        found = _LIVE.get(address)
        if type(found) is not cls:
            raise TextureStateError(f"an element of this array of {cls.__name__} describes a texture that no longer "
                                    f"exists (descriptor address {address:#x}): an array of textures does not keep "
                                    f"its textures alive, as in Warp; keep a reference to each texture")
        return found

    # -- data --------------------------------------------------------------------------------------

    def _get_shape(self) -> tuple:
        shape = (self._width, self._height, self._depth)[: self._ndim][::-1]
        return shape if self._num_channels == 1 else (*shape, self._num_channels)

    def _level_bytes(self, level: int) -> int:
        w, h, d = self._mip_shapes[level]
        return w * h * d * self._num_channels * np.dtype(self._dtype._np).itemsize

    def _write_bytes(self, offset: int, data: np.ndarray) -> None:
        # copies by offset: a CUDA array has no sliced views
        copy(self._buffer, array(data, dtype=uint8, device="cpu"), dest_offset=offset, count=data.size)

    def _write_level(self, level: int, values: np.ndarray) -> None:
        self._write_bytes(self._level_offsets[level], np.ascontiguousarray(values).reshape(-1).view(np.uint8))

    def _generate_mipmap_chain(self, data: np.ndarray) -> list:
        """Every level's texels (numpy, the texture's dtype) from the base level's ``data`` (Warp's name)."""
        base = np.ascontiguousarray(data).reshape(self._get_shape())
        return T.mip_chain(base, self._ndim, self._mip_shapes)

    def __ctype__(self):
        """The struct kernels receive, as a ``ctypes.Structure`` with Warp's field names and its metadata's bits
        as properties (``num_channels``, ``filter_mode``, ``address_mode_u``, ...)."""
        if not self.tex:
            raise TextureStateError("Texture was created with data=None but never initialized.")
        ctype = _CTYPES[self._ndim]
        return ctype.from_buffer_copy(self._to_bytes())

    def _read_level(self, level: int) -> np.ndarray:
        n = self._level_bytes(level)
        out = array(np.zeros(n, dtype=np.uint8), device="cpu")
        copy(out, self._buffer, src_offset=self._level_offsets[level], count=n)
        w, h, d = self._mip_shapes[level]
        shape = (w, h, d)[: self._ndim][::-1] + ((self._num_channels,) if self._num_channels > 1 else ())
        return out.numpy().view(self._dtype._np).reshape(shape)

    def _check_copy(self, other, direction: str) -> np.ndarray | None:
        """The other side of a copy as an array (None for a texture), after Warp's checks."""
        if self._is_mipmapped:
            raise TextureStateError(f"copy_{direction} is not supported for mipmapped textures; mipmap contents "
                                    f"are immutable after construction")
        role = "source" if direction == "from" else "destination"
        if isinstance(other, Texture):
            if (other.width, other.height, other.depth) != (self.width, self.height, self.depth):
                first, second = (self, other) if direction == "from" else (other, self)
                raise TextureError(f"Incompatible texture shapes for copy: destination shape={first._get_shape()}, "
                                   f"source shape={second._get_shape()}")
            if other.dtype is not self.dtype or other.num_channels != self.num_channels:
                dst, src = (self, other) if direction == "from" else (other, self)
                raise TextureError(f"Incompatible texture data types for copy: destination dtype="
                                   f"{type_name(dst.dtype)}, source dtype={type_name(src.dtype)}, destination "
                                   f"channels={dst.num_channels}, source channels={src.num_channels}")
            return None
        if isinstance(other, np.ndarray):
            other = array(other, device="cpu", copy=False)
        elif not isinstance(other, array):
            raise TextureError(f"Expected contiguous array or Texture, got {type(other)}")
        w, h, d, c, dt = T.shape_of(other, self._ndim)
        if (w, h, d) != (self.width, self.height, self.depth):
            raise TextureError(f"Incompatible array shape for copy: texture shape={self._get_shape()}, {role} "
                               f"shape={tuple(other.shape)}")
        if dt is not self.dtype or c != self.num_channels:
            raise TextureError(f"Incompatible array data type for copy: texture dtype={type_name(self.dtype)}, "
                               f"{role} dtype={type_name(dt)}, texture channels={self.num_channels}, {role} "
                               f"channels={c}")
        if not other.is_contiguous:
            raise TextureError(f"{role.capitalize()} array must be contiguous")
        return other

    def copy_from(self, src) -> None:
        """Copy texels from ``src``: an array (NumPy or brickwork, on any device) of the texture's shape and
        dtype, or a texture of the same shape and type. Not for mipmapped textures."""
        checked = self._check_copy(src, "from")
        self._write_level(0, src._read_level(0) if checked is None else checked.numpy())

    def copy_to(self, dst) -> None:
        """Copy the texels into ``dst``: an array (NumPy or brickwork) of the texture's shape and dtype, or a
        texture of the same shape and type. Not for mipmapped textures."""
        checked = self._check_copy(dst, "to")
        values = self._read_level(0)
        if checked is None:
            dst._write_level(0, values)
        elif isinstance(dst, np.ndarray):
            np.copyto(dst, values.reshape(dst.shape))
        else:
            dst.assign(values.reshape(dst.shape) if checked.dtype is self._dtype else values)

    # -- properties --------------------------------------------------------------------------------

    @property
    def ndim(self) -> int:
        """1, 2 or 3."""
        return self._ndim

    @property
    def num_channels(self) -> int:
        """1, 2 or 4."""
        return self._num_channels

    @property
    def dtype(self):
        """The texel scalar type."""
        return self._dtype

    @property
    def filter_mode(self) -> TextureFilterMode:
        """Filtering within a level."""
        return self._filter_mode

    @property
    def mip_filter_mode(self) -> TextureFilterMode:
        """Filtering between mip levels."""
        return self._mip_filter_mode

    @property
    def num_mip_levels(self) -> int:
        """Levels stored (1 without mipmaps)."""
        return self._num_mip_levels

    @property
    def is_mipmapped(self) -> bool:
        """Whether the texture has more than one level."""
        return self._is_mipmapped

    @property
    def address_mode_u(self) -> TextureAddressMode:
        """Addressing along the width."""
        return self._address_mode_u

    @property
    def address_mode_v(self) -> TextureAddressMode:
        """Addressing along the height (CLAMP for 1D textures)."""
        return self._address_mode_v

    @property
    def address_mode_w(self) -> TextureAddressMode:
        """Addressing along the depth (CLAMP for 1D and 2D textures)."""
        return self._address_mode_w

    @property
    def normalized_coords(self) -> bool:
        """Whether coordinates are in [0, 1] (else in texels)."""
        return self._normalized_coords

    @property
    def id(self) -> int:
        """The descriptor's address on the texture's device (what kernels receive in ``tex``)."""
        return int(self.tex)

    def _cuda_only(self, what: str):
        raise TextureStateError(f"{what} is only supported for CUDA textures. Use id for a device-independent "
                                f"handle. (brickwork textures have no CUDA array, texture or surface objects: "
                                f"they sample from global memory on every device)")

    @property
    def cuda_array(self) -> int:
        """Not available: brickwork textures have no CUDA arrays (RuntimeError)."""
        if getattr(self, "device", None) is None or not self.device.is_cuda:
            self._cuda_only("cuda_array")
        if self._is_mipmapped:
            raise TextureStateError("cuda_array is currently limited to non-mipmapped CUDA textures.")
        self._cuda_only("cuda_array")

    @property
    def cuda_texture(self) -> int:
        """Not available: brickwork textures have no CUDA texture objects (RuntimeError)."""
        self._cuda_only("cuda_texture")

    @property
    def cuda_surface(self) -> int:
        """Not available: brickwork textures have no CUDA surface objects (RuntimeError)."""
        self._cuda_only("cuda_surface")


def _bits(shift: int, mask: int):
    return property(lambda self: (self.metadata >> shift) & mask)


def _ctype(name: str, axes: tuple):
    fields = [("tex", ctypes.c_uint64), *((a, ctypes.c_int32) for a in axes), ("metadata", ctypes.c_uint32)]
    attrs = {"_fields_": fields}
    for key, shift, mask in (("num_channels", 0, 7), ("dtype", 3, 7), ("filter_mode", 6, 1),
                             ("mip_filter_mode", 7, 1), ("num_mip_levels", 8, 0x1F),
                             ("use_normalized_coords", 13, 1), ("address_mode_u", 14, 3),
                             ("address_mode_v", 16, 3), ("address_mode_w", 18, 3)):
        attrs[key] = _bits(shift, mask)
    return type(name, (ctypes.Structure,), attrs)


#: Every texture alive, by its descriptor's address: what an element of an array of textures gives back
_LIVE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

#: The ctypes form of each texture struct (``__ctype__``), with Warp's names.
_CTYPES = {1: _ctype("texture1d_t", ("width",)), 2: _ctype("texture2d_t", ("width", "height")),
           3: _ctype("texture3d_t", ("width", "height", "depth"))}


def _descriptor(name: str, axes: tuple):
    """The struct kernels receive for a texture of these axes: Warp's layout (16 or 24 bytes)."""
    fields = {"tex": uint64, **{a: int32 for a in axes}, "metadata": uint32}
    return struct(type(name, (), {"__annotations__": fields, "__module__": __name__}))


def _texture_class(name: str, ndim: int, axes: tuple, doc: str):
    attrs = {"_ndim": ndim, "_bw_texture": ndim, "__doc__": doc, "__module__": __name__}
    cls = type(name, (Texture, _descriptor(name, axes)), attrs)
    cls.vars = {a: cls.vars[a] for a in axes}  # the fields Warp exposes in kernels
    for axis in ("height", "depth")[ndim - 1:]:  # extents past the texture's axes: 1, as Warp's
        setattr(cls, axis, property(lambda self, a=axis: getattr(self, f"_{a}", 1), doc="1 (past the axes)."))
    return cls


Texture1D = _texture_class("Texture1D", 1, ("width",), """A 1D texture (see :class:`Texture`): ``Texture1D(data,
filter_mode=..., address_mode=..., normalized_coords=True, num_mip_levels=1, device=...)``, or ``width``,
``num_channels`` and ``dtype`` for an empty one.""")
Texture2D = _texture_class("Texture2D", 2, ("width", "height"), """A 2D texture (see :class:`Texture`); ``address_mode``
may be a tuple per axis, or ``address_mode_u``/``address_mode_v``.""")
Texture3D = _texture_class("Texture3D", 3, ("width", "height", "depth"), """A 3D texture (see :class:`Texture`);
``address_mode`` may be a tuple per axis, or ``address_mode_u``/``_v``/``_w``.""")

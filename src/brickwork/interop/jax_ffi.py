"""XLA's FFI from Python: a Python function registered as the handler of a JAX ``ffi_call`` target.

XLA calls an FFI handler with one ``XLA_FFI_CallFrame*`` (``xla/ffi/api/c_api.h`` of jaxlib, the structures
below): the argument and result buffers (address, element type, dimensions) and the call's attributes. A ctypes
callback is such a handler: XLA runs it on the thread executing the computation, which takes the GIL, and it
reads the frame, calls ``handler(inputs, outputs, attrs)`` with ``Buffer`` views and returns NULL, or an
``XLA_FFI_Error`` made through the frame's API table when the handler raises (JAX then raises with the message).
The buffers are XLA's own memory: results are written in place, nothing is copied.
"""

from __future__ import annotations

import ctypes
import threading
import traceback

import numpy as np

from ..types import scalars

_c = ctypes


class _ExtensionBase(_c.Structure):
    pass


_ExtensionBase._fields_ = [("struct_size", _c.c_size_t), ("type", _c.c_int), ("next", _c.POINTER(_ExtensionBase))]


class _ApiVersion(_c.Structure):
    _fields_ = [("struct_size", _c.c_size_t), ("extension_start", _c.c_void_p), ("major_version", _c.c_int),
                ("minor_version", _c.c_int)]


class _Metadata(_c.Structure):
    _fields_ = [("struct_size", _c.c_size_t), ("api_version", _ApiVersion), ("traits", _c.c_uint32),
                ("state_type_id", _c.c_int64)]


class _MetadataExtension(_c.Structure):
    _fields_ = [("extension_base", _ExtensionBase), ("metadata", _c.POINTER(_Metadata))]


class _ErrorCreateArgs(_c.Structure):
    _fields_ = [("struct_size", _c.c_size_t), ("extension_start", _c.c_void_p), ("message", _c.c_char_p),
                ("errc", _c.c_int)]


_ErrorCreate = _c.CFUNCTYPE(_c.c_void_p, _c.POINTER(_ErrorCreateArgs))


class _Api(_c.Structure):  # the leading fields: error creation is the only entry used
    _fields_ = [("struct_size", _c.c_size_t), ("extension_start", _c.c_void_p), ("api_version", _ApiVersion),
                ("internal_api", _c.c_void_p), ("error_create", _ErrorCreate)]


class _Buffer(_c.Structure):
    _fields_ = [("struct_size", _c.c_size_t), ("extension_start", _c.c_void_p), ("dtype", _c.c_int),
                ("data", _c.c_void_p), ("rank", _c.c_int64), ("dims", _c.POINTER(_c.c_int64))]


class _List(_c.Structure):  # XLA_FFI_Args and XLA_FFI_Rets have the same layout
    _fields_ = [("struct_size", _c.c_size_t), ("extension_start", _c.c_void_p), ("size", _c.c_int64),
                ("types", _c.POINTER(_c.c_int)), ("items", _c.POINTER(_c.c_void_p))]


class _ByteSpan(_c.Structure):
    _fields_ = [("ptr", _c.c_void_p), ("len", _c.c_size_t)]


class _Scalar(_c.Structure):
    _fields_ = [("dtype", _c.c_int), ("value", _c.c_void_p)]


class _Attrs(_c.Structure):
    _fields_ = [("struct_size", _c.c_size_t), ("extension_start", _c.c_void_p), ("size", _c.c_int64),
                ("types", _c.POINTER(_c.c_int)), ("names", _c.POINTER(_c.POINTER(_ByteSpan))),
                ("attrs", _c.POINTER(_c.c_void_p))]


class _CallFrame(_c.Structure):
    _fields_ = [("struct_size", _c.c_size_t), ("extension_start", _c.POINTER(_ExtensionBase)),
                ("api", _c.POINTER(_Api)), ("ctx", _c.c_void_p), ("stage", _c.c_int), ("args", _List),
                ("rets", _List), ("attrs", _Attrs), ("future", _c.c_void_p)]


_Handler = _c.CFUNCTYPE(_c.c_void_p, _c.POINTER(_CallFrame))

_METADATA_EXTENSION = 1
_ATTR_SCALAR = 3
_ERROR_UNKNOWN = 2
#: XLA_FFI_DataType -> brickwork scalar type
SCALARS = {1: scalars.bool_, 2: scalars.int8, 3: scalars.int16, 4: scalars.int32, 5: scalars.int64,
           6: scalars.uint8, 7: scalars.uint16, 8: scalars.uint32, 9: scalars.uint64, 10: scalars.float16,
           11: scalars.float32, 12: scalars.float64, 16: scalars.bfloat16}
_SCALAR_VALUES = {4: _c.c_int32, 5: _c.c_int64, 8: _c.c_uint32, 9: _c.c_uint64, 11: _c.c_float, 12: _c.c_double,
                  1: _c.c_bool}


class Buffer:
    """One argument or result buffer of an FFI call: its address, dimensions and brickwork scalar type."""

    __slots__ = ("ptr", "shape", "scalar")

    def __init__(self, ptr: int, shape: tuple, scalar):
        self.ptr, self.shape, self.scalar = ptr, shape, scalar

    def __repr__(self):
        return f"Buffer(0x{self.ptr or 0:x}, {self.shape}, {getattr(self.scalar, '__name__', self.scalar)})"


def _buffers(items: _List) -> list:
    out = []
    for i in range(items.size):
        b = _c.cast(items.items[i], _c.POINTER(_Buffer)).contents
        out.append(Buffer(b.data or 0, tuple(b.dims[d] for d in range(b.rank)), SCALARS.get(b.dtype, b.dtype)))
    return out


def _attrs(attrs: _Attrs) -> dict:
    """The call's scalar attributes by name (the integers and floats ``ffi_call`` passes as keywords)."""
    out = {}
    for i in range(attrs.size):
        span = attrs.names[i].contents
        name = _c.string_at(span.ptr, span.len).decode()
        if attrs.types[i] == _ATTR_SCALAR:
            scalar = _c.cast(attrs.attrs[i], _c.POINTER(_Scalar)).contents
            kind = _SCALAR_VALUES.get(scalar.dtype)
            if kind is not None:
                out[name] = _c.cast(scalar.value, _c.POINTER(kind)).contents.value
    return out


def _error(frame: _CallFrame, message: str) -> int:
    args = _ErrorCreateArgs(_c.sizeof(_ErrorCreateArgs), None, message.encode(errors="replace"), _ERROR_UNKNOWN)
    return frame.api.contents.error_create(_c.byref(args))


_REGISTERED: dict = {}  # target name -> the ctypes callback (kept alive: XLA holds its address)
_LOCK = threading.Lock()  # handlers run one at a time (pmap runs a computation per device on its own thread)


def _make_handler(handler):
    def call(frame_ptr):
        frame = frame_ptr.contents
        ext = frame.extension_start
        if ext and ext.contents.type == _METADATA_EXTENSION:  # XLA's first call asks for the API version
            meta = _c.cast(ext, _c.POINTER(_MetadataExtension)).contents.metadata.contents
            meta.api_version.major_version, meta.api_version.minor_version = 0, 1
            meta.traits = 0
            return None
        try:
            with _LOCK:
                handler(_buffers(frame.args), _buffers(frame.rets), _attrs(frame.attrs))
        except BaseException as e:  # XLA must get an error back: an exception cannot cross the C frames
            detail = "".join(traceback.format_exception_only(type(e), e)).strip()
            return _error(frame, f"brickwork FFI callback error: {detail}")
        return None

    return _Handler(call)


def register(name: str, handler) -> None:
    """Register ``handler(inputs, outputs, attrs)`` as the CPU FFI target ``name`` (once per name)."""
    import jax

    if name in _REGISTERED:
        return
    callback = _make_handler(handler)
    new_capsule = _c.pythonapi.PyCapsule_New
    new_capsule.restype, new_capsule.argtypes = _c.py_object, [_c.c_void_p, _c.c_char_p, _c.c_void_p]
    capsule = new_capsule(_c.cast(callback, _c.c_void_p).value, None, None)
    jax.ffi.register_ffi_target(name, capsule, platform="cpu", api_version=1)
    _REGISTERED[name] = callback


def view(buffer: Buffer, dtype, ndim: int):
    """A brickwork CPU array over ``buffer``'s memory read as ``ndim`` dimensions of ``dtype`` elements (the
    trailing dimensions of a vector or matrix type dropped; leading batch dimensions of ``vmap`` folded into
    the first)."""
    from ..types.arrays import array, dense_strides, element_layout

    comp, trailing = element_layout(dtype)
    shape = buffer.shape[:len(buffer.shape) - len(trailing)]
    while len(shape) > ndim:
        shape = (shape[0] * shape[1], *shape[2:])
    itemsize = comp.itemsize * int(np.prod(trailing, dtype=np.int64))
    return array(ptr=buffer.ptr or None, dtype=dtype, shape=shape, strides=dense_strides(shape, itemsize),
                 device="cpu", capacity=int(np.prod(shape, dtype=np.int64)) * itemsize)

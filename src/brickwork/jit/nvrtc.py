"""NVRTC from NVIDIA's pip wheels, through ctypes: CUDA C++ -> cubin for one sm_XX.

The library is found among an installed wheel's own files (``importlib.metadata``), never on
system paths, so the version that compiles is the one pip installed; the CUDA headers (cuda_fp16.h)
come from the runtime wheel of the same CUDA release the same way. Two generations of wheels are
known: CUDA 12's (``nvidia-cuda-nvrtc-cu12``, what the ``cuda`` extra installs) and, from CUDA 13
on, the unsuffixed ``nvidia-cuda-nvrtc``; the first one installed is used. Nothing here needs a GPU.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.metadata
import os
import re

from ..errors import ToolchainError

#: (NVRTC wheel, runtime wheel with the headers of the same release), in order of preference.
WHEELS = (("nvidia-cuda-nvrtc-cu12", "nvidia-cuda-runtime-cu12"), ("nvidia-cuda-nvrtc", "nvidia-cuda-runtime"))
NVRTC_WHEEL, RUNTIME_WHEEL = WHEELS[0]  # what the ``cuda`` extra installs, and error messages name
_LIBRARY = re.compile(r"libnvrtc\.so(\.\d+)*$")  # not libnvrtc-builtins, which NVRTC loads itself


class NvrtcUnavailable(ToolchainError):
    """The NVRTC wheel (the ``cuda`` extra) is not installed or cannot be loaded."""


class NvrtcCompileError(ToolchainError):
    """NVRTC rejected a source; ``log`` holds its messages."""

    def __init__(self, message: str, log: str):
        super().__init__(message)
        self.log = log


def _wheel_file(dist: str, pattern: re.Pattern) -> str | None:
    """The absolute path of the first file of an installed distribution whose name matches ``pattern``."""
    try:
        files = importlib.metadata.files(dist) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if pattern.search(f.name):
            return os.path.abspath(str(f.locate()))
    return None


@functools.cache
def _found() -> tuple[str, str] | None:
    """(path of libnvrtc.so, the runtime wheel of its release) for the first NVRTC wheel installed."""
    for nvrtc_wheel, runtime_wheel in WHEELS:
        path = _wheel_file(nvrtc_wheel, _LIBRARY)
        if path is not None and os.path.exists(path):
            return path, runtime_wheel
    return None


def library_path() -> str:
    """Path of libnvrtc.so in the installed NVRTC wheel (``NvrtcUnavailable`` without it)."""
    found = _found()
    if found is None:
        raise NvrtcUnavailable(f"NVRTC is not installed: the CUDA target needs the '{NVRTC_WHEEL}' wheel "
                               f"(pip install 'brickwork[cuda]'; CUDA 13's 'nvidia-cuda-nvrtc' also serves)")
    return found[0]


def runtime_wheel() -> str:
    """The runtime wheel whose headers match the NVRTC in use (the ``cuda`` extra's without NVRTC)."""
    found = _found()
    return found[1] if found else RUNTIME_WHEEL


@functools.cache
def cuda_include_dir() -> str | None:
    """The folder holding cuda_fp16.h from the runtime wheel of NVRTC's release, or None when it is not
    installed (headers of another release are not mixed in)."""
    header = _wheel_file(runtime_wheel(), re.compile(r"^cuda_fp16\.h$"))
    return os.path.dirname(header) if header else None


def is_available() -> bool:
    """Whether NVRTC can be loaded (no GPU needed)."""
    try:
        _lib()
    except NvrtcUnavailable:
        return False
    return True


@functools.cache
def _lib() -> ctypes.CDLL:
    path = library_path()
    try:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    except OSError as e:
        raise NvrtcUnavailable(f"cannot load NVRTC from {path}: {e}") from None
    p, c = ctypes.c_void_p, ctypes.c_char_p
    signatures = {
        "nvrtcVersion": [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)],
        "nvrtcCreateProgram": [ctypes.POINTER(p), c, c, ctypes.c_int, ctypes.POINTER(c), ctypes.POINTER(c)],
        "nvrtcCompileProgram": [p, ctypes.c_int, ctypes.POINTER(c)],
        "nvrtcGetProgramLogSize": [p, ctypes.POINTER(ctypes.c_size_t)],
        "nvrtcGetProgramLog": [p, c],
        "nvrtcGetCUBINSize": [p, ctypes.POINTER(ctypes.c_size_t)],
        "nvrtcGetCUBIN": [p, c],
        "nvrtcDestroyProgram": [ctypes.POINTER(p)],
        "nvrtcGetNumSupportedArchs": [ctypes.POINTER(ctypes.c_int)],
        "nvrtcGetSupportedArchs": [ctypes.POINTER(ctypes.c_int)],
    }
    for name, args in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = ctypes.c_int
    lib.nvrtcGetErrorString.argtypes = [ctypes.c_int]
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return lib


def _check(code: int, doing: str) -> None:
    if code != 0:
        text = _lib().nvrtcGetErrorString(code).decode(errors="replace")
        raise ToolchainError(f"NVRTC failed to {doing}: {text} (code {code})")


@functools.cache
def version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(_lib().nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "report its version")
    return major.value, minor.value


@functools.cache
def supported_archs() -> list[int]:
    """The architectures NVRTC compiles for (``[75, 80, ...]``: sm_75, sm_80, ...), sorted, without duplicates."""
    n = ctypes.c_int()
    _check(_lib().nvrtcGetNumSupportedArchs(ctypes.byref(n)), "count its architectures")
    archs = (ctypes.c_int * n.value)()
    _check(_lib().nvrtcGetSupportedArchs(archs), "list its architectures")
    return sorted(set(archs))


def compile_cubin(source: str, name: str, arch: str, include_dirs: list[str], options: list[str] = ()) -> bytes:
    """The cubin of ``source`` for ``arch`` ("sm_90"); ``NvrtcCompileError`` with NVRTC's log otherwise.

    ``--gpu-architecture=sm_XX`` makes NVRTC emit SASS, so the driver loads it without a PTX JIT
    (and the driver's PTX version never limits which NVRTC can be used)."""
    return compile_program(source, name, arch, include_dirs, options)[0]


def compile_program(source: str, name: str, arch: str, include_dirs: list[str],
                    options: list[str] = ()) -> tuple[bytes, str]:
    """``(cubin, log)``: ``compile_cubin``'s cubin and the log of the successful compile (its warnings, and
    with ``--ptxas-options=-v`` the assembler's resource report, which ``targets/cuda/resources.py`` reads)."""
    if not re.fullmatch(r"sm_\d+[a-z]?", arch):
        raise ValueError(f"CUDA architecture {arch!r} is not of the form sm_XX (e.g. sm_90)")
    lib = _lib()
    prog = ctypes.c_void_p()
    _check(lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None),
           "create a program")
    try:
        opts = [f"--gpu-architecture={arch}", *(f"--include-path={d}" for d in include_dirs), *options]
        argv = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        code = lib.nvrtcCompileProgram(prog, len(opts), argv)
        log_size = ctypes.c_size_t()
        _check(lib.nvrtcGetProgramLogSize(prog, ctypes.byref(log_size)), "report the log size")
        log = ctypes.create_string_buffer(log_size.value or 1)
        _check(lib.nvrtcGetProgramLog(prog, log), "return its log")
        text = log.value.decode(errors="replace")
        if code != 0:
            raise NvrtcCompileError(f"NVRTC could not compile {name} for {arch}:\n{text[-4000:]}", text)
        size = ctypes.c_size_t()
        _check(lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "report the cubin size")
        cubin = ctypes.create_string_buffer(size.value)
        _check(lib.nvrtcGetCUBIN(prog, cubin), "return the cubin")
        return cubin.raw, text
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))

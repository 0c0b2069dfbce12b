"""Build and load the hand-written C++ reference kernels in ``benchmarks/c/``.

The library is compiled at run time into a temporary directory with exactly
``$CXX -O3 -march=native -fopenmp -shared -fPIC`` (``$CXX`` defaults to ``g++``) and loaded with
ctypes. Its thread count is set to the one brickwork uses (see :func:`thread_count`).
"""

from __future__ import annotations

import ctypes
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SOURCES = tuple(Path(__file__).resolve().parent / "c" / name for name in ("kernels.cpp", "la_kernels.cpp",
                                                                           "hash_grid.cpp"))
FLAGS = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC")
# The hydro step keeps bench_hydro.py's flags: -fno-math-errno lets g++ vectorize sqrt (brickwork
# builds its kernels with it too).
HYDRO_SOURCE = Path(__file__).resolve().parent / "c" / "hydro_kh_lib.cpp"
HYDRO_FLAGS = ("-O3", "-march=native", "-fopenmp", "-fno-math-errno", "-shared", "-fPIC")

_f32p = ctypes.POINTER(ctypes.c_float)
_f64p = ctypes.POINTER(ctypes.c_double)
_f16p = ctypes.POINTER(ctypes.c_uint16)  # _Float16 storage, passed as its bits
_i32p = ctypes.POINTER(ctypes.c_int32)
_i64 = ctypes.c_int64

# name -> (argtypes); every kernel returns void.
SIGNATURES = {
    "bench_set_threads": [ctypes.c_int],
    "scale_f16": [_f16p, ctypes.c_float, _i64],
    "scale_f32": [_f32p, ctypes.c_float, _i64],
    "scale_f64": [_f64p, ctypes.c_double, _i64],
    "saxpy_f32": [_f32p, _f32p, ctypes.c_float, _i64],
    "laplacian3d_f32": [_f32p, _f32p, _i64, _i64, _i64],
    "la_recon_flux_f64": [_f64p, _f64p, _i64, _i64, _i64, _i64, _i64, _i64],
    "hash_grid_build_f32": [_f32p, _i64, ctypes.c_float, _i32p, _i32p, _i32p, _i32p, _i32p, _i32p, ctypes.c_int32],
    "hash_grid_density_f32": [_f32p, _i64, ctypes.c_float, ctypes.c_float, _i32p, _i32p, _i32p, _i32p, _f32p],
}


def thread_count() -> int:
    """The thread count brickwork uses: BRICKWORK_NUM_THREADS, else OMP_NUM_THREADS, else all cores."""
    for var in ("BRICKWORK_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(var, "").strip()
        if value:
            return int(value)
    return os.cpu_count() or 1


def compiler() -> str:
    """The C++ compiler command: ``$CXX`` if set, else ``g++``."""
    return os.environ.get("CXX", "g++")


def compiler_version() -> str:
    """First line of ``$CXX --version``, or a short note when it cannot be run."""
    try:
        out = subprocess.run(shlex.split(compiler()) + ["--version"], capture_output=True, text=True)
        return out.stdout.splitlines()[0].strip()
    except (OSError, IndexError) as exc:
        return f"unknown ({exc})"


@dataclass
class CLibrary:
    """The loaded reference library, its build command and the thread count it was set to."""

    lib: ctypes.CDLL
    command: str
    threads: int
    tmpdir: str
    _hydro: ctypes.CDLL | None = None
    hydro_command: str = ""

    def __getattr__(self, name: str):
        return getattr(self.lib, name)

    def hydro(self):
        """``c/hydro_kh_lib.cpp`` (the hydro step of bench_hydro.py), built once with
        :data:`HYDRO_FLAGS` into this library's directory and loaded."""
        if self._hydro is None:
            output = os.path.join(self.tmpdir, "libbenchhydro.so")
            argv = shlex.split(compiler()) + list(HYDRO_FLAGS) + [str(HYDRO_SOURCE), "-o", output]
            proc = subprocess.run(argv, capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(f"C++ hydro build failed: {shlex.join(argv)}\n{proc.stderr}")
            lib = ctypes.CDLL(output)
            lib.hydro_kh_create.argtypes, lib.hydro_kh_create.restype = [ctypes.c_int], ctypes.c_void_p
            lib.hydro_kh_step.argtypes, lib.hydro_kh_step.restype = [ctypes.c_void_p], ctypes.c_double
            lib.hydro_kh_density.argtypes, lib.hydro_kh_density.restype = [ctypes.c_void_p, _f64p], None
            lib.hydro_kh_destroy.argtypes, lib.hydro_kh_destroy.restype = [ctypes.c_void_p], None
            self._hydro = lib
            self.hydro_command = shlex.join([compiler(), *HYDRO_FLAGS, f"c/{HYDRO_SOURCE.name}"])
        return self._hydro

    def close(self) -> None:
        """Remove the temporary build directory (the library stays mapped)."""
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def build(threads: int | None = None) -> CLibrary:
    """Compile ``c/kernels.cpp``, ``c/la_kernels.cpp`` and ``c/hash_grid.cpp``, load the library and set its
    thread count (default: :func:`thread_count`)."""
    tmpdir = tempfile.mkdtemp(prefix="brickwork-bench-c-")
    output = os.path.join(tmpdir, "libbenchkernels.so")
    argv = shlex.split(compiler()) + list(FLAGS) + [str(s) for s in SOURCES] + ["-o", output]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        shutil.rmtree(tmpdir, ignore_errors=True)
        raise RuntimeError(f"C reference build failed: {shlex.join(argv)}\n{proc.stderr}")
    lib = ctypes.CDLL(output)
    for name, argtypes in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = None
    lib.sum_interior_f64.argtypes = [_f64p, _i64, _i64, _i64]
    lib.sum_interior_f64.restype = ctypes.c_double
    lib.bench_get_threads.argtypes = []
    lib.bench_get_threads.restype = ctypes.c_int
    n = thread_count() if threads is None else threads
    lib.bench_set_threads(n)
    command = shlex.join([compiler(), *FLAGS, *(f"c/{s.name}" for s in SOURCES), "-o", "libbenchkernels.so"])
    return CLibrary(lib=lib, command=command, threads=lib.bench_get_threads(), tmpdir=tmpdir)


def ptr(array: np.ndarray):
    """A ctypes pointer to the data of a C-contiguous float16, float32, float64 or int32 array."""
    if not array.flags.c_contiguous:
        raise ValueError("C kernels need C-contiguous arrays")
    ctype = {np.dtype(np.float16): ctypes.c_uint16, np.dtype(np.float32): ctypes.c_float,
             np.dtype(np.float64): ctypes.c_double, np.dtype(np.int32): ctypes.c_int32}[array.dtype]
    return array.ctypes.data_as(ctypes.POINTER(ctype))

"""The hand-written CUDA references of ``benchmarks/cuda/`` and two ways to run them.

* ``DeviceRunner``: on a GPU, compiled by NVRTC for the device's architecture and launched through
  brickwork's driver (``cuda_driver``), as the benchmark does;
* ``HostRunner``: on the CPU, the same sources built by g++ with ``cuda/host_shim.h`` (the tests'
  check of the references on machines without a GPU).

A runner owns memory (``alloc`` returns an address), copies (``upload``, ``download``, ``copy``),
``launch(name, grid, block, params)`` and ``sync``. The references (``Laplacian``, ``ReconFlux``,
``HandKH``) pack each kernel's argument struct (8-byte fields in declaration order) and launch
through a runner, so the same Python drives the GPU run and the CPU check.
"""

from __future__ import annotations

import ctypes
import functools
import re
import shlex
import struct
import subprocess
import tempfile
from pathlib import Path

import cnative
import numpy as np

HERE = Path(__file__).resolve().parent / "cuda"
SOURCES = (HERE / "kernels.cu", HERE / "hydro_kh.cu")
_KERNEL = re.compile(r'extern "C" __global__ void (\w+)\(')
THREADS = 256  # threads per block of the one-dimensional kernels
KH_NG, KH_REDUCE_THREADS = 2, 256  # hydro_kh.cu's KH_NG and KH_REDUCE_THREADS


def _blocks(count: int, threads: int = THREADS) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return (-(-count // threads), 1, 1), (threads, 1, 1)


def pack(*fields) -> bytes:
    """An argument struct of 8-byte fields: addresses and integers as int64, floats as double."""
    return b"".join(struct.pack("<d", f) if isinstance(f, float) else struct.pack("<q", int(f)) for f in fields)


class DeviceRunner:
    """The references on CUDA device ``ordinal`` (NVRTC builds them for its architecture)."""

    def __init__(self, ordinal: int = 0):
        from brickwork import cuda_driver
        from brickwork.jit import nvrtc

        self.drv, self.ordinal = cuda_driver.driver(), ordinal
        major, minor = self.drv.capability(ordinal)
        self.functions = {}
        for source in SOURCES:
            text = source.read_text()
            cubin = nvrtc.compile_cubin(text, source.name, f"sm_{major}{minor}", [])
            module = self.drv.load_module(ordinal, cubin)
            for name in _KERNEL.findall(text):
                self.functions[name] = self.drv.function(ordinal, module, name)
        self._owned: list[int] = []

    def peak_bandwidth(self) -> float:
        """The device memory's theoretical peak, bytes/s."""
        return self.drv.memory_bandwidth(self.ordinal)

    def alloc(self, nbytes: int) -> int:
        ptr = self.drv.alloc(self.ordinal, nbytes)
        self._owned.append(ptr)
        return ptr

    def upload(self, ptr: int, host: np.ndarray) -> None:
        host = np.ascontiguousarray(host)
        self.drv.copy_to_device(self.ordinal, ptr, host.ctypes.data, host.nbytes)

    def download(self, ptr: int, host: np.ndarray) -> np.ndarray:
        self.drv.copy_to_host(self.ordinal, host.ctypes.data, ptr, host.nbytes)
        return host

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        self.drv.copy_on_device(self.ordinal, dst, src, nbytes, stream=0)

    def launch(self, name: str, grid, block, params: bytes) -> None:
        self.drv.launch_struct(self.ordinal, self.functions[name], grid, block, params)

    def sync(self) -> None:
        self.drv.synchronize(self.ordinal)

    def close(self) -> None:
        for ptr in self._owned:
            self.drv.free(self.ordinal, ptr)
        self._owned.clear()


@functools.cache
def _host_library() -> ctypes.CDLL:
    # The library is loaded and then its folder removed: a loaded library needs no file, and each
    # process would otherwise leave a folder behind in the temporary directory.
    with tempfile.TemporaryDirectory(prefix="brickwork-cuda-peers-") as folder:
        out = Path(folder) / "host_entries.so"
        argv = [*shlex.split(cnative.compiler()), "-O2", "-std=c++20", "-pthread", "-shared", "-fPIC",
                str(HERE / "host_entries.cpp"), "-o", str(out)]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"building the CUDA references for the CPU failed: {' '.join(argv)}\n{proc.stderr}")
        lib = ctypes.CDLL(str(out))
    lib.bw_shim_launch.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_longlong), ctypes.c_char_p]
    lib.bw_shim_launch.restype = ctypes.c_int
    return lib


class HostRunner:
    """The references on the CPU (host_shim.h): memory is numpy buffers, launches run the blocks in turn."""

    def __init__(self):
        self.lib = _host_library()
        self._buffers: dict[int, np.ndarray] = {}

    def peak_bandwidth(self) -> None:
        return None  # no device

    def alloc(self, nbytes: int) -> int:
        buf = np.zeros(max(nbytes, 1), dtype=np.uint8)
        self._buffers[buf.ctypes.data] = buf
        return buf.ctypes.data

    def upload(self, ptr: int, host: np.ndarray) -> None:
        host = np.ascontiguousarray(host)
        ctypes.memmove(ptr, host.ctypes.data, host.nbytes)

    def download(self, ptr: int, host: np.ndarray) -> np.ndarray:
        ctypes.memmove(host.ctypes.data, ptr, host.nbytes)
        return host

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        ctypes.memmove(dst, src, nbytes)

    def launch(self, name: str, grid, block, params: bytes) -> None:
        geo = (ctypes.c_longlong * 6)(*grid, *block)
        if self.lib.bw_shim_launch(name.encode(), geo, params) != 0:
            raise KeyError(f"no kernel {name!r} in benchmarks/cuda")

    def sync(self) -> None:
        pass

    def close(self) -> None:
        self._buffers.clear()


# --- the references -------------------------------------------------------------------------------


def laplacian(runner, a: int, out: int, shape: tuple[int, int, int], block=(32, 4, 2)):
    """``run()`` for out = the 7-point Laplacian of a (float32, ``shape`` = (nz, ny, nx)) on the interior."""
    nz, ny, nx = shape
    if nz * ny * nx >= 2**31:
        raise ValueError("laplacian3d_f32 indexes with int: fewer than 2^31 cells")
    grid = tuple(-(-(n - 2) // b) for n, b in zip((nx, ny, nz), block))
    params = pack(a, out, nz, ny, nx)
    return lambda: runner.launch("laplacian3d_f32", grid, block, params)


def recon_flux(runner, q: int, flux: int, nb: int, m: int, ng: int, flux_block_stride: int):
    """``run()`` for the x1 HLL fluxes of q (float64, ``nb`` blocks of m^3 cells with ``ng`` ghosts)."""
    faces = nb * (m - 2 * ng) ** 2 * (m - 2 * ng + 1)
    grid, block = _blocks(faces)
    params = pack(q, flux, nb, m, m, m, ng, flux_block_stride)
    return lambda: runner.launch("recon_flux_f64", grid, block, params)


def kh_initial(n: int) -> np.ndarray:
    """hydro_kh.cpp's initial state (brickwork's kelvin_helmholtz defaults): (5, nt, nt), ghosts 1.0."""
    nt, dx, gamma = n + 2 * KH_NG, 1.0 / n, 5.0 / 3.0
    drho, shear, a, sigma, amp, p0, mode = 1.0, 0.5, 0.025, 0.1, 0.01, 2.5, 2.0
    x = (np.arange(n) + 0.5) * dx
    y = x[:, None]
    prof = np.tanh((y - 0.25) / a) - np.tanh((y - 0.75) / a)
    rho = 1.0 + drho * 0.5 * prof + 0 * x
    vx = shear * (prof - 1.0) + 0 * x
    bumps = np.exp(-(y - 0.25) ** 2 / sigma**2) + np.exp(-(y - 0.75) ** 2 / sigma**2)
    vy = amp * np.sin(2.0 * np.pi * mode * x) * bumps
    u = np.ones((5, nt, nt))
    inner = (slice(KH_NG, KH_NG + n),) * 2
    u[(0, *inner)], u[(1, *inner)], u[(2, *inner)], u[(3, *inner)] = rho, rho * vx, rho * vy, 0.0
    u[(4, *inner)] = p0 / (gamma - 1.0) + 0.5 * rho * (vx * vx + vy * vy)
    return u


class HandKH:
    """hydro_kh.cu's Kelvin-Helmholtz on ``n``^2 cells: ``step()`` advances one SSP-RK2 step and
    returns its time step, ``density()`` is the interior density (n, n)."""

    def __init__(self, runner, n: int, cfl: float = 0.4):
        self.runner, self.n = runner, n
        nt = n + 2 * KH_NG
        field = 5 * nt * nt * 8
        self.u, self.u0, w, fx, fy = (runner.alloc(field) for _ in range(5))
        self.npartial = min(-(-n * n // KH_REDUCE_THREADS), 1024)
        partial, self.dt = runner.alloc(8 * self.npartial), runner.alloc(8)
        runner.upload(self.u, kh_initial(n))
        base = (self.u, self.u0, w, fx, fy, partial, self.dt, n, nt, self.npartial, 1.0 / n, cfl)
        self.stage_params = {ab: pack(*base, *ab) for ab in ((0.0, 1.0), (0.5, 0.5))}
        self.geometry = {
            "kh_ghosts_x": _blocks(5 * n * KH_NG), "kh_ghosts_y": _blocks(5 * KH_NG * nt),
            "kh_primitives": _blocks(nt * nt), "kh_fluxes_x": _blocks((n + 1) * n), "kh_fluxes_y": _blocks(n * (n + 1)),
            "kh_update": _blocks(5 * n * n),
            "kh_dt_partial": ((self.npartial, 1, 1), (KH_REDUCE_THREADS, 1, 1)),
            "kh_dt_final": ((1, 1, 1), (KH_REDUCE_THREADS, 1, 1)),
        }
        self.nbytes = field

    def _run(self, name: str, params: bytes) -> None:
        self.runner.launch(name, *self.geometry[name], params)

    def _stage(self, params: bytes, first: bool) -> None:
        for name in ("kh_ghosts_x", "kh_ghosts_y", "kh_primitives"):
            self._run(name, params)
        if first:
            self._run("kh_dt_partial", params)
            self._run("kh_dt_final", params)
            self.runner.copy(self.u0, self.u, self.nbytes)
        for name in ("kh_fluxes_x", "kh_fluxes_y", "kh_update"):
            self._run(name, params)

    def step(self) -> float:
        self._stage(self.stage_params[(0.0, 1.0)], first=True)
        self._stage(self.stage_params[(0.5, 0.5)], first=False)
        return float(self.runner.download(self.dt, np.zeros(1))[0])

    def density(self) -> np.ndarray:
        nt = self.n + 2 * KH_NG
        u = self.runner.download(self.u, np.zeros((5, nt, nt)))
        return u[0, KH_NG:-KH_NG, KH_NG:-KH_NG].copy()

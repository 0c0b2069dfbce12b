"""The memory a mesh will take, known before anything is built: a mesh too large for the machine is refused
with the sizes in words, instead of a raw ``MemoryError`` minutes later (or the kernel's OOM killer)."""

from __future__ import annotations

import math
import os

import numpy as np

from ..errors import BrickworkError
from .fields import cell_like
from .indexing import IndexShape, TopologicalElement
from .metadata import MetadataFlag

#: Host memory a block takes besides its fields (its Python objects, tables and views: 3.7 kB measured for
#: a 1-D run of 16384 blocks of 2 cells). Every rank holds every block's description.
BLOCK_HOST_BYTES = 4096


class MeshSizeError(BrickworkError, ValueError):
    """A mesh whose fields and blocks need more memory than the machine has (nothing was allocated)."""


def available_memory() -> int | None:
    """Bytes of memory a new allocation can use: ``MemAvailable`` on Linux, else the physical memory; None
    when neither is known."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def field_bytes(specs, shape: IndexShape, nblocks: int) -> int:
    """Bytes of the dense fields of ``specs`` (FieldSpecs) on ``nblocks`` blocks of ``shape``: ghost cells and
    flux arrays included, as ``Field`` allocates them. Sparse fields are allocated later, block by block."""
    total = 0
    cells = math.prod(shape.memory_extents(TopologicalElement.CC))
    for spec in specs:
        if spec.is_sparse:
            continue
        extents = math.prod(shape.memory_extents(TopologicalElement.CC if cell_like(spec) else TopologicalElement.NN))
        fluxes = shape.ndim * spec.ncomp * cells if spec.has(MetadataFlag.WithFluxes) else 0
        total += (spec.nslots * extents + fluxes) * np.dtype(spec.dtype).itemsize
    return total * nblocks


def gib(nbytes: float) -> str:
    """``nbytes`` in words: ``1.5 GiB`` or ``12.0 MiB``."""
    return f"{nbytes / 2**30:.1f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.1f} MiB"


def too_large(what: str, fields: int, nblocks: int, device=None) -> str | None:
    """Why ``fields`` bytes (on the host, or on ``device`` when it is a CUDA device) and ``nblocks`` block
    descriptions (on the host) do not fit in the memory there (a sentence starting with ``what``), or None
    when they do."""
    on_device = device is not None and device.is_cuda
    if on_device:
        from .. import cuda_driver

        total = cuda_driver.driver().total_memory(device.ordinal)
        if fields > total:
            return (f"{what} is too large for {device}: its fields alone need {gib(fields)} (ghost cells and "
                    f"fluxes included), but the device has {gib(total)}")
    have = available_memory()
    blocks = nblocks * BLOCK_HOST_BYTES
    need = blocks + (0 if on_device else fields)
    if have is None or need <= have:
        return None
    return (f"{what} is too large for this machine: its fields need {gib(fields)} (ghost cells and fluxes "
            f"included){' on the device' if on_device else ''} and its {nblocks} blocks about {gib(blocks)} more "
            f"on the host, but only {gib(have)} is available"
            + ("; larger blocks need less" if blocks > fields else ""))

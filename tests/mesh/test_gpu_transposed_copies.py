"""The GPU adjoint of the ghost exchange (``transposed_copies.add_back_elements``: one source element per thread,
its copy found from the plan's group table): on the emulation target the same bits as the CPU's row kernel with
random float gradients (broadcast outflow sources summed in the CPU's order, reflecting walls negated), also with
copies cut into pieces; on the stand-in driver the device adjoint launches only that kernel, NVRTC-compiled for
sm_90."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from brickwork import config, cuda_driver
from brickwork.jit import nvrtc
from brickwork.mesh import Mesh, Metadata, Package, ghost_cells, transposed_copies
from brickwork.mesh import copies as copies_module

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from runtime.cuda_fake import FakeDriver, installed  # noqa: E402


def _mesh(kind: str, device: str = "cpu") -> Mesh:
    pkg = Package("p")
    pkg.add_field("q", Metadata("Cell", "FillGhost", "Vector"), shape=(2,))
    return Mesh((12, 8), (6, 4), nghost=2, boundaries=kind, packages=[pkg], exchange="pairwise", device=device)


def _adjoint(kind: str, target: str, g: np.ndarray, device: str = "cpu"):
    """The exchange's adjoint of gradient ``g`` on a fresh mesh under ``target`` on ``device``, and its sweeps'
    programs."""
    with config.override(target=target):
        mesh = _mesh(kind, device)
        mesh.field("q").grad[...] = g
        transposed = ghost_cells.transposed_of(mesh, ghost_cells.ghost_fields(mesh, None))
        transposed.run()
    return np.asarray(mesh.field("q").grad).copy(), transposed.sweeps


@pytest.mark.parametrize("pieces", [False, True], ids=["whole", "pieces"])
@pytest.mark.parametrize("kind", ["outflow", "reflecting"])
def test_the_gpu_adjoint_gives_the_cpu_bits_on_the_emulation_target(kind, pieces, monkeypatch):
    g = np.random.default_rng(5).standard_normal((4, 2, 1, 8, 10))
    on_cpu, _ = _adjoint(kind, "cpu", g)
    if pieces:  # every copy of more than 2 elements is cut (the GPU kernel splits a copy's offsets in int32)
        monkeypatch.setattr(copies_module, "GPU_BOX_ELEMENTS", 3)
    emulated, sweeps = _adjoint(kind, "cuda-emulation", g)
    np.testing.assert_array_equal(emulated.view(np.uint64), on_cpu.view(np.uint64))
    assert not np.array_equal(on_cpu, g)  # the ghosts' gradients moved into their cells
    kernels = {entry[0] for program in sweeps for entry in program.launches}
    assert kernels <= set(transposed_copies._ELEMENT_KERNELS.values()) and kernels
    rows = np.concatenate([entry[2].numpy() for program in sweeps for entry in program.launches])
    assert max(_elements(row) for row in rows) == (2 if pieces else 40)  # a piece holds fewer than the limit


def _elements(row) -> int:
    """The source elements of a table row: i and j counts times the outer dimensions' counts."""
    head = transposed_copies._HEAD
    outer = row[head:head + 3 * int(row[head - 1])][0::3]
    return int(row[6] * row[9] * np.prod(outer))


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (the cuda extra)")
def test_the_device_adjoint_launches_the_element_kernel():
    with installed(FakeDriver()) as fake:
        mesh = _mesh("reflecting", "cuda:0")
        transposed = ghost_cells.transposed_of(mesh, ghost_cells.ghost_fields(mesh, None))
        transposed.run()  # compiles (NVRTC, sm_90)
        first = len(fake.launches)
        transposed.run()
        ran = fake.launches[first:]
    kernels = [entry[0] for program in transposed.sweeps for entry in program.launches]
    assert len(ran) == len(kernels) == 2  # x1, x2: one wave of float64 copies each
    assert all(fn in transposed_copies._ELEMENT_KERNELS.values() for fn in kernels)


@pytest.mark.cuda_device
@pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("kind", ["outflow", "reflecting"])
def test_on_a_cuda_device_the_adjoint_gives_the_cpu_bits(kind):
    g = np.random.default_rng(6).standard_normal((4, 2, 1, 8, 10))
    on_cpu, _ = _adjoint(kind, "cpu", g)
    on_gpu, _ = _adjoint(kind, "cpu", g, "cuda:0")
    np.testing.assert_array_equal(on_gpu.view(np.uint64), on_cpu.view(np.uint64))

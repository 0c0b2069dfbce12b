"""A mesh on a CUDA device under a tape (a fake driver: device memory on the host): not differentiated
yet, and said so before anything is changed: ``fill_ghosts`` refuses before any ghost is filled, and
the adjoint pack tables refuse to be built, each naming the device and what to do instead."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork import cuda_driver
from brickwork import device as devices
from brickwork.mesh import Mesh, Metadata, Package, PackDescriptor

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from runtime.cuda_fake import FakeDriver  # noqa: E402


@pytest.fixture
def device_mesh():
    cuda_driver.use(FakeDriver())
    devices._cuda.clear()
    try:
        pkg = Package("p")
        pkg.add_field("q", Metadata("Cell", "FillGhost"))
        yield Mesh((8, 8), (4, 4), nghost=1, packages=[pkg], device="cuda:0")
    finally:
        cuda_driver.use(None)
        devices._cuda.clear()
        devices.set_device("cpu")


def test_fill_ghosts_under_a_tape_is_refused_before_any_ghost_is_filled(device_mesh):
    data = device_mesh.data("q")
    data[:, :, :, 1:-1, 1:-1] = 3.0
    before = np.asarray(data).copy()
    tape = wp.Tape()
    with tape, pytest.raises(wp.KernelNotDifferentiableError, match=r"a mesh on cuda:0 has no gradients yet.*"
                             r"device='cpu'.*BRICKWORK_TARGET=cuda-emulation"):
        device_mesh.fill_ghosts()
    np.testing.assert_array_equal(np.asarray(data), before)
    assert tape.launches == []


def test_adjoint_pack_tables_are_refused(device_mesh):
    pack = PackDescriptor(device_mesh, ["q"]).get_pack(device_mesh.mesh_data())
    assert pack.kernel_value().ptrs.device == "cuda:0"  # the forward tables are built
    with pytest.raises(wp.KernelNotDifferentiableError, match=r"pack of a mesh on cuda:0.*no gradients yet"):
        pack.kernel_value(adjoint=True)
    assert getattr(pack, "_adjoint_kernel_value", None) is None

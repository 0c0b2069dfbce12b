"""Run under mpiexec: a mesh on a CUDA device spread over several ranks is not differentiated yet (its
transposed ghost messages are host-only). Each rank has a stand-in CUDA driver (tests/runtime/cuda_fake.py:
device memory on the host); ``fill_ghosts`` under a tape raises ``KernelNotDifferentiableError`` on every rank,
naming the device and the ranks, before any ghost is filled, and records nothing."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import brickwork as wp  # noqa: E402
from brickwork import comm as C  # noqa: E402
from brickwork.mesh import Mesh, Metadata, Package  # noqa: E402
from runtime.cuda_fake import FakeDriver, installed  # noqa: E402

world = C.world()
with installed(FakeDriver()):
    pkg = Package("p")
    pkg.add_field("q", Metadata("Cell", "FillGhost"))
    mesh = Mesh((8, 8), (4, 4), nghost=1, packages=[pkg], device="cuda:0")
    data = mesh.data("q")
    data[:, :, :, 1:-1, 1:-1] = 3.0
    before = np.asarray(data).copy()
    tape = wp.Tape()
    try:
        with tape:
            mesh.fill_ghosts()
    except wp.KernelNotDifferentiableError as e:
        message = str(e)
    else:
        raise SystemExit("fill_ghosts under a tape on a multi-rank device mesh was not refused")
    expected = f"a mesh on cuda:0 spread over {world.Get_size()} MPI ranks is not differentiated yet"
    assert expected in message and "device='cpu'" in message, message
    assert np.array_equal(np.asarray(data), before) and tape.launches == []
    print(f"rank {world.Get_rank()}: refused", flush=True)

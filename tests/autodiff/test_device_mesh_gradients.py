"""A mesh on a CUDA device under a tape: the fields' gradients, the adjoint pack tables and the transposed ghost
exchange live on the device, and a backward pass is launches and device-to-device copies only.

Without a GPU a stand-in driver (device memory on the host, launches recorded and not run; the kernels are
compiled by NVRTC for sm_90) checks where everything lives and what a backward pass launches; the values are
checked by the same kernels on the CPU and the emulation target (here, tests/mesh/test_exchange_gradient.py and
test_mesh_gradients.py). On a GPU (marker ``cuda_device``; scripts/gpu_check.sh runs them) the gradient of a
scheme on a CUDA mesh is compared with the CPU's, and the transposed exchange with the CPU's bit for bit."""

from __future__ import annotations

import os
import struct
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, cuda_driver, la
from brickwork.jit import nvrtc
from brickwork.mesh import IndexDomain, Mesh, Metadata, Package, PackDescriptor, VarTag, ghost_cells, storage

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from runtime.cuda_fake import counting_copies  # noqa: E402

needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (the cuda extra)")
NG = 2


class Scheme:
    """r = q(i+1) * q(i-1) + q(j+1) on 2x2 blocks of 4x4 cells, periodic in x1 and outflow in x2, after a ghost
    exchange; then q = r, twice. The loss is a weighted sum of the final q."""

    def __init__(self, device="cpu", target="cpu", nblocks=(2, 2)):
        pkg = Package("p")
        pkg.add_field("q", Metadata("Cell", "FillGhost"))
        pkg.add_field("r", Metadata("Cell"))
        self.mesh = mesh = Mesh(tuple(4 * n for n in nblocks), (4, 4), nghost=NG, packages=[pkg], device=device,
                                boundaries={"x1": "periodic", "x2": "outflow"})
        md = mesh.mesh_data()
        q, r = VarTag("q"), VarTag("r")
        self.pack = pack = PackDescriptor(mesh, [q, r]).get_pack(md)
        space = la.IndexSpace(la.bvoi, la.logical_flat, domain=IndexDomain.interior, nblocks=pack.get_nblocks(),
                              md=md, backend=la.team)
        dx, dy = space.get_delta(wp.X1DIR), space.get_delta(wp.X2DIR)

        def combine(rng, b):
            pv = la.make_pack_view(rng, pack)
            for idx in la.inner(rng):
                pv[r(), idx] = pv[q(), idx + dx] * pv[q(), idx - dx] + pv[q(), idx + dy]

        def copy_back(rng, b):
            pv = la.make_pack_view(rng, pack)
            for idx in la.inner(rng):
                pv[q(), idx] = pv[r(), idx]

        self.stages = [(space, combine), (space, copy_back)]
        self.device, self.target = device, target

    def record(self, tape, q0):
        """Set q to ``q0`` and record two steps on ``tape``."""
        self.mesh.data("q")[...] = q0
        with config.override(target=self.target), wp.ScopedDevice(self.device), tape:
            for _ in range(2):
                self.mesh.fill_ghosts()
                for space, body in self.stages:
                    la.outer(space, body)

    def gradient(self, q0, w):
        """d(sum(w * final q)) / d(q0), as a host array."""
        tape = wp.Tape()
        self.record(tape, q0)
        self.mesh.field("q").grad[...] = w
        with config.override(target=self.target):
            tape.backward()
        return np.asarray(self.mesh.field("q").grad)


def inputs(shape):
    rng = np.random.default_rng(4)
    return 1.0 + 0.3 * rng.random(shape), rng.random(shape)


def test_the_emulation_gives_the_cpu_gradient():
    cpu = Scheme()
    q0, w = inputs(cpu.mesh.data("q").shape)
    expected = cpu.gradient(q0, w)
    assert np.abs(expected).sum() > 0 and not expected[:, :, :, :, :NG].any()  # the initial ghosts get none
    np.testing.assert_allclose(Scheme(target="cuda-emulation").gradient(q0, w), expected, rtol=1e-13, atol=1e-15)


# -- on a stand-in driver: where things live, what a backward pass launches ---------------------------------
@pytest.fixture
def fake():
    with counting_copies() as drv:
        yield drv


def test_field_gradients_live_on_the_device_and_are_cleared_there(fake):
    pkg = Package("p")
    pkg.add_field("q", Metadata("Cell", "FillGhost", "WithFluxes"))
    mesh = Mesh((8, 8), (4, 4), nghost=1, packages=[pkg], device="cuda:0")
    fld = mesh.field("q")
    grad, flux_grad = fld.grad, fld.flux_grad
    assert isinstance(grad, storage.DeviceStorage) and isinstance(flux_grad, storage.DeviceStorage)
    assert grad.device == "cuda:0" and grad.shape == fld.data.shape and flux_grad.shape == fld.flux.shape
    assert grad.ptr in fake.memory and grad.ptr != fld.data.ptr
    grad[1, 0, 0, 2, 2] = 5.0  # the host side writes through
    assert float(np.asarray(fld.grad).sum()) == 5.0
    fake.copies.clear()
    fld.zero_grad()
    assert fake.copies == []  # memsets, not host copies
    assert {op[1] for op in fake.memory_ops if op[0] == "memset"} >= {grad.ptr, flux_grad.ptr}
    assert not np.asarray(grad).any()


def test_adjoint_pack_tables_are_device_arrays_of_gradient_addresses(fake):
    scheme = Scheme(device="cuda:0")
    value = scheme.pack.kernel_value(adjoint=True)
    for table in (value.ptrs, value.fluxes, value.bounds, value.ptr_shapes, value.flux_shapes):
        assert table.device == "cuda:0"
    grad = scheme.mesh.field("r").grad
    slab = 8 * 8 * 8  # bytes of one (nk, nj, ni) slab of 8x8 cells
    assert value.ptrs.numpy()[3, 1, 0].tolist() == [grad.ptr + 3 * slab, 64, 8, grad.ptr + 3 * slab]
    assert value.ptrs.numpy()[3, 1, 0, 0] != scheme.pack.kernel_value().ptrs.numpy()[3, 1, 0, 0]


def _with_pointer(launch, ptr: int) -> bool:
    return struct.pack("<Q", ptr) in launch[-1]


@needs_nvrtc
def test_a_backward_pass_over_a_device_mesh_is_launches_and_device_copies(fake):
    """The second backward pass (tables built) copies nothing between host and device: the tape saves and puts
    back the fields device to device, the stages' backward kernels and the transposed sweeps are launches."""
    scheme = Scheme(device="cuda:0")
    q0, w = inputs(scheme.mesh.data("q").shape)
    scheme.gradient(q0, w)  # compiles (NVRTC, sm_90) and uploads the adjoint tables
    tape = wp.Tape()
    scheme.record(tape, q0)
    fields = ghost_cells.ghost_fields(scheme.mesh, None)
    transposed = ghost_cells.transposed_of(scheme.mesh, fields)
    sweeps = [[table.ptr for _, _, table, _, _ in program.launches] for program in transposed.sweeps]
    assert [len(s) for s in sweeps] == [1, 1]  # x1, x2: one launch each (float64 copies, one wave)
    fake.copies.clear()
    launches = len(fake.launches)
    tape.backward()
    assert fake.copies == []  # no field, gradient or table crossed
    ran = fake.launches[launches:]
    # per step, in reverse: copy_back's and combine's backward kernels, the exchange's sweeps x2 then x1
    assert len(ran) == 2 * 4
    for step in (0, 4):
        assert _with_pointer(ran[step + 2], sweeps[1][0]) and _with_pointer(ran[step + 3], sweeps[0][0])
        assert not any(_with_pointer(ran[step + k], sweeps[1][0]) for k in (0, 1))
    copies = [op for op in fake.memory_ops[-40:] if op[0] == "copy"]
    assert copies  # the fields saved at each stage, put back around its backward kernel: on the device


@needs_nvrtc
def test_the_adjoint_of_a_sparse_exchange_clears_blocks_without_the_instance_by_launches(fake):
    pkg = Package("p")
    pkg.add_field("tr", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[3])
    mesh = Mesh((8,), (4,), nghost=2, boundaries="periodic", packages=[pkg], device="cuda:0")
    mesh.allocate_sparse(0, "tr", 3)
    for _ in range(2):  # the first builds and uploads the tables
        tape = wp.Tape()
        with tape:
            mesh.fill_ghosts()
        fake.copies.clear()
        launches = len(fake.launches)
        tape.backward()
    assert fake.copies == []
    assert len(fake.launches) - launches == 3  # block 1's gradient zeroed, the transposed sweep, zeroed again


@needs_nvrtc
def test_the_transposed_exchange_kernels_compile_for_sm90():
    from brickwork import pipeline
    from brickwork.mesh.copies import copy_type
    from brickwork.mesh.transposed_copies import add_back_kernel
    from brickwork.targets.cuda import CudaTarget

    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    from gpu_compile import cubin_arch

    target = CudaTarget("sm_90")
    jobs = []
    for dtype in (np.float32, np.float64):
        k = add_back_kernel(copy_type(np.dtype(dtype)), np.dtype(dtype).itemsize)
        types = [t for _, t in k.params]
        text, meta = pipeline.generate(k, types, f"add_back_{dtype.__name__}", target=target)
        jobs.append((pipeline.cache_key(pipeline.key_parts(k, types, target=target)), text, k.key, meta))
    for result in target.compile_many(jobs):
        assert not isinstance(result, Exception), result
        with open(result[0], "rb") as f:
            assert cubin_arch(f.read()) == 90


# -- on a real GPU -----------------------------------------------------------------------------------------------
def needs_gpu(fn):
    """A test on a real CUDA device (marker ``cuda_device``; scripts/gpu_check.sh runs them)."""
    skip = pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device on this machine")
    return pytest.mark.cuda_device(skip(fn))


@needs_gpu
def test_a_cuda_mesh_gradient_is_the_cpu_gradient():
    cpu = Scheme(nblocks=(3, 2))
    q0, w = inputs(cpu.mesh.data("q").shape)
    expected = cpu.gradient(q0, w)
    gpu = Scheme(device="cuda:0", nblocks=(3, 2))
    assert isinstance(gpu.mesh.field("q").grad, storage.DeviceStorage)
    # the stages' backward kernels add with atomics on the GPU: equal to rounding
    np.testing.assert_allclose(gpu.gradient(q0, w), expected, rtol=1e-12, atol=1e-15)


@needs_gpu
@pytest.mark.parametrize("kind", ["periodic", "outflow", "reflecting"])
def test_the_transposed_exchange_on_a_gpu_is_the_cpu_one_bit_for_bit(kind):
    """Every source element sums its ghosts in one order, on any device, without atomics."""
    meshes = []
    for device in ("cpu", "cuda:0"):
        pkg = Package("p")
        pkg.add_field("q", Metadata("Cell", "FillGhost", "Vector"), shape=(3,))
        meshes.append(Mesh((6, 4, 4), (2, 2, 2), nghost=2, boundaries=kind, packages=[pkg], device=device))
    g = np.random.default_rng(9).standard_normal(meshes[0].data("q").shape)
    results = []
    for mesh in meshes + meshes[1:]:  # the GPU twice: run to run too
        mesh.field("q").grad[...] = g
        ghost_cells.transposed_of(mesh, ghost_cells.ghost_fields(mesh, None)).run()
        results.append(np.asarray(mesh.field("q").grad))
    np.testing.assert_array_equal(results[1], results[0])
    np.testing.assert_array_equal(results[2], results[0])

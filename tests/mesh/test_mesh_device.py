"""The mesh on a device: ghost exchange and boundary kernels on the emulation target (the GPU's work
items and mapping, run on the CPU) against np.pad references, box copies against numpy, and the
placement of fields, pack tables and exchange tables in CUDA memory (a fake driver: memory on the
host, launches recorded)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mesh_reference import setup_field

from brickwork import config, cuda_driver
from brickwork.device import CPU
from brickwork.jit import nvrtc
from brickwork.mesh import Mesh, Metadata, Package, PackDescriptor, ghost_cells, storage
from brickwork.mesh.copies import Copy, CopyProgram, box

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from runtime.cuda_fake import FakeDriver, installed  # noqa: E402

KINDS = ["periodic", "outflow", "reflecting"]
needs_nvrtc = pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (the cuda extra)")


def package(*extra, shape=(), topology="Cell", dtype=np.float64):
    pkg = Package("test")
    pkg.add_field("q", Metadata(topology, "FillGhost", *extra), shape=shape, dtype=dtype)
    return pkg


def check(mesh, elements, ncomp, flips=((), (), ()), seed=0):
    expected = setup_field(mesh, "q", elements, ncomp, flips, np.random.default_rng(seed))
    mesh.fill_ghosts()
    np.testing.assert_array_equal(mesh.data("q"), expected)


# -- the exchange on the emulation target, every boundary kind ---------------------------------------
@pytest.fixture
def emulation():
    with config.override(target="cuda-emulation"):
        yield


@pytest.mark.parametrize("strategy", ["lattice", "pairwise"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("nblocks, block", [((3,), (4,)), ((2, 3), (4, 3)), ((2, 1, 2), (3, 4, 3))],
                         ids=["1d", "2d", "3d"])
def test_cell_vector_exchange_on_emulation(emulation, nblocks, block, kind, strategy):
    nx = tuple(n * b for n, b in zip(nblocks, block))
    mesh = Mesh(nx, block, nghost=2, boundaries=kind, packages=[package("Vector", shape=(3,))], exchange=strategy)
    flips = [(0,), (1,), (2,)] if kind == "reflecting" else [(), (), ()]
    check(mesh, ["CC"], 3, flips)


@pytest.mark.parametrize("kind", KINDS)
def test_face_vector_exchange_on_emulation(emulation, kind):
    mesh = Mesh((6, 8, 6), (3, 4, 3), nghost=2, boundaries=kind, packages=[package("Vector", topology="Face")])
    flips = [(0,), (1,), (2,)] if kind == "reflecting" else [(), (), ()]
    check(mesh, ["F1", "F2", "F3"], 1, flips)


def test_mixed_boundaries_and_user_function_on_emulation(emulation):
    def mirror_x2(block, view, side):  # outflow by hand: ghosts copy the nearest interior row
        if side.is_inner:
            view[:, :, :2, :] = view[:, :, 2:3, :]
        else:
            view[:, :, -2:, :] = view[:, :, -3:-2, :]

    user = Mesh((8, 8), (4, 4), nghost=2, boundaries={"x1": "periodic", "x2": mirror_x2}, packages=[package()])
    with config.override(target="cpu"):
        ref = Mesh((8, 8), (4, 4), nghost=2, boundaries={"x1": "periodic", "x2": "outflow"}, packages=[package()])
    values = np.random.default_rng(1).standard_normal(ref.data("q").shape)
    user.data("q")[...] = values
    ref.data("q")[...] = values
    user.fill_ghosts()
    ref.fill_ghosts()
    np.testing.assert_array_equal(user.data("q"), ref.data("q"))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(ndim=st.integers(1, 3), nb=st.integers(1, 3), ng=st.integers(1, 3), kind=st.sampled_from(KINDS),
       seed=st.integers(0, 2**16))
def test_property_emulation_matches_np_pad(emulation, ndim, nb, ng, kind, seed):
    block = tuple(ng + d for d in range(ndim))
    nx = tuple(nb * b for b in block)
    mesh = Mesh(nx, block, nghost=ng, boundaries=kind, packages=[package()])
    check(mesh, ["CC"], 1, seed=seed)


# -- box copies against numpy ---------------------------------------------------------------------
@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.complex128, np.bool_])
def test_box_copies_match_numpy_assignment(target, dtype):
    rng = np.random.default_rng(3)
    src = (rng.standard_normal((3, 4, 5, 6)) * 50).astype(dtype)
    dst = np.zeros_like(src)
    expected = dst.copy()
    copies = []
    cases = [  # (dst index, src index, negate): shifts, reversed runs, broadcasts, narrow columns
        ((slice(0, 2), slice(1, 3), slice(0, 2), slice(0, 3)), (slice(1, 3), slice(0, 2), slice(4, 2, -1),
                                                                 slice(5, 2, -1)), dtype != np.bool_),
        ((2, slice(None), slice(None), slice(4, 6)), (0, slice(None), slice(None), slice(0, 2)), False),
        ((1, slice(0, 4), slice(3, 5), slice(None)), (1, slice(0, 4), slice(2, 3), slice(None)), False),
    ]
    for di, si, negate in cases:
        expected[di] = -src[si] if negate else src[si]
        copies.append(Copy(dst.dtype, dst.ctypes.data, box(dst.shape, di), src.ctypes.data, box(src.shape, si),
                           negate))
    with config.override(target=target):
        CopyProgram(copies, CPU).run()
    np.testing.assert_array_equal(dst, expected)


# -- fields, packs and the exchange in CUDA memory (fake driver) ------------------------------------
class CountingDriver(FakeDriver):
    """Counts the bytes copied between host and device."""

    def __init__(self):
        super().__init__()
        self.to_host = self.to_device = 0

    def copy_to_host(self, ordinal, dst_host, src, nbytes):
        self.to_host += nbytes
        super().copy_to_host(ordinal, dst_host, src, nbytes)

    def copy_to_device(self, ordinal, dst, src_host, nbytes, stream=None):
        self.to_device += nbytes
        super().copy_to_device(ordinal, dst, src_host, nbytes, stream)


@pytest.fixture
def fake():
    with installed(CountingDriver()) as drv:
        yield drv


def test_a_mesh_whose_fields_exceed_the_device_memory_is_refused_before_allocating(fake):
    """The fields of a device mesh are weighed against the device's memory (the fake one has 16 GiB):
    256 blocks of 4100^2 cells of float64 need 32 GiB there; nothing is allocated."""
    from brickwork.mesh import MeshSizeError

    with pytest.raises(MeshSizeError, match=r"Mesh\(nx=\(65536, 65536\), block_nx=\(4096, 4096\)\) is too large "
                                            r"for cuda:0: its fields alone need 32.1 GiB \(ghost cells and fluxes "
                                            r"included\), but the device has 16.0 GiB"):
        Mesh((2**16, 2**16), (2**12, 2**12), nghost=2, packages=[package()], device="cuda:0")
    assert fake.memory == {}


def test_fields_live_on_the_mesh_device(fake):
    mesh = Mesh((8, 8), (4, 4), nghost=2, packages=[package("WithFluxes", shape=(2,))], device="cuda:0")
    assert mesh.device == "cuda:0"
    data, flux = mesh.data("q"), mesh.field("q").flux
    assert isinstance(data, storage.DeviceStorage) and isinstance(flux, storage.DeviceStorage)
    assert data.shape == (4, 2, 1, 8, 8) and data.dtype == np.float64 and data.ptr in fake.memory
    np.testing.assert_array_equal(np.asarray(data), 0.0)
    data[1, 0, 0, 2:6, 2:6] = 7.0  # host writes go through to the device
    np.testing.assert_array_equal(mesh.blocks[1].data("q")[0, 0, 2:6, 2:6], 7.0)
    assert float(np.asarray(data).sum()) == 7.0 * 16


def test_a_write_into_a_device_blocks_host_copy_is_refused_not_lost(fake):
    """block.data(name)[...] = values, the examples' way to set initial values on the CPU, wrote into a host copy
    of a device mesh's block and was lost without a word; the copy is read-only now, and the field unchanged."""
    mesh = Mesh((8, 8), (4, 4), nghost=2, packages=[package("WithFluxes")], device="cuda:0")
    block = mesh.blocks[1]
    with pytest.raises(ValueError, match="read-only"):
        mesh.field("q").flux_array(1)[1, 0, 0, 2, 2] = 7.0
    np.testing.assert_array_equal(np.asarray(mesh.field("q").flux), 0.0)
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        block.data("q")[0, 0, 2:6, 2:6] = 7.0
    with pytest.raises(ValueError, match="read-only"):
        mesh.field("q").block(1)[...] += 1.0
    with pytest.raises(ValueError, match="read-only"):
        mesh.field("q").element()[1, 0, 0, 2, 2] = 7.0
    np.testing.assert_array_equal(np.asarray(mesh.data("q")), 0.0)
    host = mesh.data("q").numpy()  # the way the docs give: a host array of the whole field, assigned once
    host[block.lid, 0, 0, 2:6, 2:6] = 7.0
    mesh.data("q").assign(host)
    np.testing.assert_array_equal(block.data("q")[0, 0, 2:6, 2:6], 7.0)
    assert float(np.asarray(mesh.data("q")).sum()) == 7.0 * 16


def test_a_write_into_an_indexed_device_field_is_refused_not_lost(fake):
    """mesh.data(name)[0][...] = v (DeviceStorage.__getitem__, then a write into what it returned) wrote into a
    writable host copy and was lost without a word, where block, field and pack views refused it already; the
    copy is read-only now, the field unchanged, and mesh.data(name)[0] = v, a scalar read and a copy made with
    np.array still work."""
    mesh = Mesh((8, 8), (4, 4), nghost=2, packages=[package()], device="cuda:0")
    data = mesh.data("q")
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        data[0][...] = 7.0
    with pytest.raises(ValueError, match="read-only"):
        data[1, 0, 0, 2:6][:, 3] = 7.0
    with pytest.raises(ValueError, match="read-only"):
        data[[0, 2]] += 1.0  # fancy indexing makes a copy: read-only too
    np.testing.assert_array_equal(np.asarray(data), 0.0)
    data[0] = 7.0  # through the storage: written
    assert data[0, 0, 0, 3, 3] == 7.0 and float(np.asarray(data).sum()) == 7.0 * 8 * 8  # block 0: 8 x 8 cells, ghosts included
    assert isinstance(data[0, 0, 0, 3, 3], np.float64)  # one element: a scalar
    host = np.array(data[1])  # a writable copy of one's own
    host[...] = 2.0
    assert float(np.asarray(data[1]).sum()) == 0.0


def test_an_output_of_a_device_mesh_copies_each_field_to_the_host_once(fake, tmp_path):
    h5py = pytest.importorskip("h5py")
    mesh = Mesh((8, 8), (4, 4), nghost=2, packages=[package(shape=(2,))], device="cuda:0")
    values = np.random.default_rng(3).normal(size=mesh.data("q").shape)
    mesh.data("q").assign(values)
    fake.to_host = 0
    mesh.write_output(tmp_path / "dev")
    assert fake.to_host == values.nbytes  # the field's one copy
    with h5py.File(tmp_path / "dev.h5") as f:
        np.testing.assert_array_equal(f["cells/q_2"][:], values[:, 1, :, 2:6, 2:6])


def test_pack_tables_are_device_arrays_of_device_addresses(fake):
    mesh = Mesh((8, 8), (4, 4), nghost=2, packages=[package("WithFluxes", shape=(2,))], device="cuda:0")
    pack = PackDescriptor(mesh, ["q"], with_fluxes=True).get_pack(mesh.mesh_data())
    value = pack.kernel_value()
    for table in (value.ptrs, value.fluxes, value.bounds, value.ptr_shapes, value.flux_shapes):
        assert table.device == "cuda:0"
    ptrs, data, flux = value.ptrs.numpy(), mesh.data("q"), mesh.field("q").flux
    slab = 8 * 8 * 8  # bytes of one (nk, nj, ni) slab
    assert ptrs[3, 1, 0].tolist() == [data.ptr + (3 * 2 + 1) * slab, 64, 8, data.ptr + (3 * 2 + 1) * slab]
    at = flux.ptr + (2 * 4 + 1 * 2 + 0) * slab
    assert value.fluxes.numpy()[2, 0, 1].tolist() == [at, 64, 8, at]
    pack[0, "q", 0, 3, 3] = 2.5  # host access writes the device storage
    pack.flux[0, 2, "q", 0, 4, 4] = 1.25
    assert data[0, 0, 0, 3, 3] == 2.5 and flux[0, 2, 0, 4, 4] == 1.25
    # the views without cell indices are host copies: a write into one would be lost, so it is refused
    assert pack[0, "q"][0, 3, 3] == 2.5 and pack.flux(0, 2, "q")[0, 4, 4] == 1.25
    with pytest.raises(ValueError, match="read-only"):
        pack[0, "q"][0, 3, 3] = 9.0
    with pytest.raises(ValueError, match="read-only"):
        pack.flux(0, 2, "q")[0, 4, 4] = 9.0
    assert data[0, 0, 0, 3, 3] == 2.5 and flux[0, 2, 0, 4, 4] == 1.25


@needs_nvrtc
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_the_exchange_is_one_launch_per_sweep_with_no_host_copy(fake, ndim):
    pkg = package("Vector", shape=(3,))
    pkg.add_field("r", Metadata("Cell", "FillGhost"))
    mesh = Mesh((8,) * ndim, (4,) * ndim, nghost=2, boundaries="reflecting", packages=[pkg], device="cuda:0")
    mesh.fill_ghosts()  # builds and uploads the copy tables
    launches, to_host, to_device = len(fake.launches), fake.to_host, fake.to_device
    mesh.fill_ghosts()
    # both fields, every block, in one launch per sweep and copy kind: element copies (the negated
    # normal component at the walls) and whole ghost runs copied as one wide element
    exchange = ghost_cells.exchange_of(mesh, ghost_cells.ghost_fields(mesh, None))
    per_sweep = [len(program.launches) for program, _ in exchange.sweeps]
    assert len(per_sweep) == ndim and all(1 <= n <= 2 for n in per_sweep)
    assert len(fake.launches) - launches == sum(per_sweep)
    assert (fake.to_host, fake.to_device) == (to_host, to_device)  # no field data crossed


@needs_nvrtc
def test_sparse_blocks_without_an_instance_are_zeroed_on_the_device(fake):
    pkg = Package("p")
    pkg.add_field("tr", Metadata("Cell", "FillGhost", "Sparse"), sparse_ids=[3])
    mesh = Mesh((8,), (4,), nghost=2, boundaries="periodic", packages=[pkg], device="cuda:0")
    mesh.allocate_sparse(0, "tr", 3)
    mesh.fill_ghosts()
    launches, to_host = len(fake.launches), fake.to_host
    mesh.fill_ghosts()
    assert fake.to_host == to_host  # the unallocated block is zeroed by a launch, not through the host
    assert len(fake.launches) - launches == 3  # the zeroing, the exchange, the zeroing again


@needs_nvrtc
def test_a_user_boundary_on_a_device_sees_a_host_copy_written_back(fake):
    seen = []

    def set_ghosts(block, view, side):
        seen.append(type(view))
        view[:, :, :, :2] = 3.0 if side.is_inner else 4.0

    mesh = Mesh((8,), (4,), nghost=2, boundaries=set_ghosts, packages=[package()], device="cuda:0")
    mesh.fill_ghosts()
    data = np.asarray(mesh.data("q"))
    assert seen == [np.ndarray] * 2
    np.testing.assert_array_equal(data[0, 0, 0, 0, :2], 3.0)
    np.testing.assert_array_equal(data[1, 0, 0, 0, :2], 4.0)


# -- on a real GPU (marker cuda_device; scripts/gpu_check.sh runs them) --------------------------------
@pytest.mark.cuda_device
@pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_exchange_on_a_cuda_device_matches_np_pad(kind, ndim):
    block = (4, 3, 5)[:ndim]
    nx = tuple(2 * b for b in block)
    host = Mesh(nx, block, nghost=2, boundaries=kind, packages=[package("Vector", shape=(3,))])
    flips = [(0,), (1,), (2,)] if kind == "reflecting" else [(), (), ()]
    expected = setup_field(host, "q", ["CC"], 3, flips, np.random.default_rng(7))
    gpu = Mesh(nx, block, nghost=2, boundaries=kind, packages=[package("Vector", shape=(3,))], device="cuda:0")
    gpu.data("q").assign(host.data("q"))
    gpu.fill_ghosts()
    np.testing.assert_array_equal(np.asarray(gpu.data("q")), expected)


def test_an_unknown_mesh_device_is_refused():
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        Mesh((8,), (4,), packages=[package()], device="gpu")


def test_a_restart_of_a_device_mesh_copies_each_field_once_each_way(fake, tmp_path, monkeypatch):
    """Saving copies each field to the host once (rank 0 writes it a block at a time); loading reads the blocks
    into one host array per field and uploads it once, not once per block."""
    a = Mesh((8, 8), (4, 4), nghost=2, packages=[package(shape=(2,))], device="cuda:0")
    values = np.random.default_rng(5).normal(size=a.data("q").shape)
    a.data("q").assign(values)
    path = a.save_restart(tmp_path / "dev.npz", {"cycle": 2})
    b = Mesh((8, 8), (4, 4), nghost=2, packages=[package(shape=(2,))], device="cuda:0")
    uploads = []
    assign = storage.DeviceStorage.assign
    monkeypatch.setattr(storage.DeviceStorage, "assign", lambda self, v: (uploads.append(self.shape), assign(self, v)))
    assert b.load_restart(path) == {"cycle": 2}
    assert uploads == [b.data("q").shape]
    np.testing.assert_array_equal(np.asarray(b.data("q")), values)

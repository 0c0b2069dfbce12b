"""Hydrostatic walls on a GPU: ``hydrostatic.Wall.fill_device`` fills the ghosts with one launch per field and side
where the fields live. On the emulation target (the GPU mapping run on the CPU) it gives the CPU's numpy walls to the
bit (float64 and float32, walls on all six sides of a 3-D mesh); on the stand-in driver (NVRTC sm_90) a hydro step
with hydrostatic walls copies nothing to or from the host (a host copy of each field and back, per side and fill,
before) and launches the kernel once per field and side per fill."""

import numpy as np
import pytest
from test_hydro_custom_problem import write
from test_hydro_device import fake  # noqa: F401 - the stand-in CUDA driver, a fixture
from test_hydro_sources import ATMOSPHERE, QUIET

import gpu_compile
from brickwork import config, cuda_driver
from brickwork.apps import hydro
from brickwork.apps.hydro import hydrostatic
from brickwork.jit import nvrtc
from brickwork.mesh import Mesh, Metadata, Package
from brickwork.targets.cuda.loader import CudaEntry

GRAVITY = (0.7, -1.0, 0.4)
GAMMA = 1.4


def _package(dtype) -> Package:
    pkg = Package("gas")
    pkg.add_field("density", Metadata("Cell", "FillGhost"), dtype=dtype)
    pkg.add_field("momentum", Metadata("Cell", "FillGhost", "Vector"), shape=(3,), dtype=dtype)
    pkg.add_field("energy", Metadata("Cell", "FillGhost"), dtype=dtype)
    return pkg


def _filled(dtype, target: str, device: str = "cpu") -> dict:
    """Random fields (a positive density) on a 3-D mesh of 2 x 2 x 2 blocks with hydrostatic walls on every side,
    after one ghost fill under ``target`` on ``device``."""
    boundaries = {}
    for d in (1, 2, 3):
        boundaries.update(hydrostatic.walls(d, GRAVITY, GAMMA))
    rng = np.random.default_rng(3)
    with config.override(target=target), gpu_compile.recording() as used:
        mesh = Mesh((8, 12, 6), (4, 6, 3), nghost=2, xmax=(1.0, 1.5, 0.75), boundaries=boundaries,
                    packages=[_package(dtype)], device=device)
        for name in ("density", "momentum", "energy"):
            data = mesh.data(name)
            data[...] = rng.uniform(0.5, 2.0, data.shape) if name != "momentum" else rng.standard_normal(data.shape)
        mesh.fill_ghosts()
    walls = list({id(inst): inst for inst in used if "hydrostatic_ghosts" in inst.label}.values())
    # the GPU mapping fills the walls with the kernel, the CPU with numpy (a CUDA device's instances are not listed)
    assert len(walls) == (target != "cpu")
    if walls and gpu_compile.available():  # and the instance compiles for CUDA (NVRTC, sm_90)
        assert "hydrostatic_ghosts" in gpu_compile.compile_for_cuda(walls)[0]
    return {name: np.asarray(mesh.data(name)).copy() for name in ("density", "momentum", "energy")}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_gpu_walls_give_the_cpu_walls_bits_on_the_emulation_target(dtype):
    cpu, emulated = _filled(dtype, "cpu"), _filled(dtype, "cuda-emulation")
    for name in cpu:
        assert cpu[name].dtype == dtype
        np.testing.assert_array_equal(emulated[name].view(np.uint8), cpu[name].view(np.uint8), err_msg=name)
    # the walls did something: the energy's ghosts are not the mirror's (the weight of the gas was added)
    assert not np.array_equal(cpu["energy"][:, :, :, 1, :], cpu["energy"][:, :, :, 2, :])


@pytest.mark.cuda_device
@pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_on_a_cuda_device_the_walls_give_the_cpu_walls_bits(dtype):
    cpu, gpu = _filled(dtype, "cpu"), _filled(dtype, "cpu", "cuda:0")
    for name in cpu:
        np.testing.assert_array_equal(gpu[name].view(np.uint8), cpu[name].view(np.uint8), err_msg=name)


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed (the cuda extra)")
def test_a_step_with_hydrostatic_walls_on_a_device_copies_nothing(tmp_path, fake, monkeypatch):
    write(tmp_path / "atmosphere.py", ATMOSPHERE)
    cfg = hydro.build_config(dict(QUIET, problem={"file": "atmosphere.py"}),
                             ["hydro.device=cuda:0", "mesh.bc_x2=hydrostatic"], base_dir=str(tmp_path))
    sim = hydro.Hydro(cfg)
    sim.set_initial()
    sim.step(1e-3)  # the first one loads the kernels (NVRTC, sm_90) and uploads the walls' block lists
    copies, launched = [], []
    for name in ("copy_to_host", "copy_to_device", "copy_on_device", "memset", "alloc"):
        monkeypatch.setattr(fake, name, lambda *a, name=name, **k: copies.append(name))
    launch = CudaEntry.launch
    monkeypatch.setattr(CudaEntry, "launch", lambda entry, *a, **k: (launched.append(entry.label), launch(entry, *a, **k))[1])
    sim.step(1e-3)
    assert copies == [] and fake.synchronized == []
    walls = [label for label in launched if label.startswith("hydrostatic_ghosts")]
    fields = [name for name in sim.mesh.fields if sim.mesh.field(name).spec.has("FillGhost")]
    # both x2 sides of each field at each fill: the step fills before each stage but the first
    # (check() fills before a step)
    assert len(sim.stages) == 2 and len(walls) == 2 * len(fields) * (len(sim.stages) - 1) == 6

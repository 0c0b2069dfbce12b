"""``[hydro] device``: the setting's checks, the device-side totals against numpy, the Sod and
Kelvin-Helmholtz runs on the emulation target (history included) against the CPU, and Sod on a CUDA
device against the CPU where a GPU exists; without one, a stand-in driver checks where the state
lives."""

import os
import sys

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, cuda_driver
from brickwork import device as devices
from brickwork.apps import hydro
from brickwork.apps.hydro.config import ConfigError
from brickwork.apps.hydro.totals import BlockSums
from brickwork.io.history import read
from brickwork.mesh import Mesh, Metadata, Package, storage

SOD = {"problem": {"name": "sod"}, "mesh": {"nx": [64], "block_nx": [16]}, "time": {"nlim": 5}}
KH = {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]}, "time": {"nlim": 5}}


def needs_gpu(fn):
    """A test on a real CUDA device (marker ``cuda_device``; scripts/gpu_check.sh runs them)."""
    skip = pytest.mark.skipif(not cuda_driver.available(), reason="no CUDA device on this machine")
    return pytest.mark.cuda_device(skip(fn))


@pytest.mark.parametrize("value", ["gpu", "cuda0", "CUDA", "cuda:x", "cuda:-1", ""])
def test_a_bad_device_names_the_key_the_value_and_the_choices(make_config, tmp_path, value):
    with pytest.raises(ConfigError) as err:
        make_config(SOD, [f"hydro.device={value}"])
    message = str(err.value)
    assert message.startswith(f"hydro.device: {value!r} is not one of 'cpu', 'cuda', 'cuda:N'")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["cpu", "cuda", "cuda:0", "cuda:12"])
def test_good_device_values_are_kept(make_config, value):
    assert make_config(SOD, [f"hydro.device={value}"])["hydro"]["device"] == value


def test_the_default_device_is_the_cpu(make_config):
    cfg = make_config(SOD)
    assert cfg["hydro"]["device"] == "cpu"
    assert hydro.Hydro(cfg).mesh.device == "cpu"


@pytest.mark.skipif(cuda_driver.available(), reason="this machine has a CUDA device")
def test_cuda_without_a_gpu_stops_before_anything_is_made(make_config, tmp_path):
    cfg = make_config(SOD, ["hydro.device=cuda"])
    with pytest.raises(ConfigError, match=r"hydro.device='cuda': .*no CUDA device.*hydro.device = \"cpu\""):
        hydro.run(cfg)
    assert not (tmp_path / "out").exists()


@pytest.fixture
def fake():
    """A stand-in CUDA driver (device memory on the host, launches recorded, 16 GiB) counting the bytes
    copied to the device."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    from runtime.cuda_fake import FakeDriver

    class Counting(FakeDriver):
        uploaded = 0

        def copy_to_device(self, ordinal, dst, src_host, nbytes, stream=None):
            self.uploaded += nbytes
            super().copy_to_device(ordinal, dst, src_host, nbytes, stream)

    drv = Counting()
    cuda_driver.use(drv)
    devices._cuda.clear()
    yield drv
    cuda_driver.use(None)
    devices._cuda.clear()
    devices.set_device("cpu")


def test_the_state_lives_on_the_device_and_the_host_sees_copies(make_config, fake):
    cpu = hydro.Hydro(make_config(KH))
    cpu.set_initial()
    sim = hydro.Hydro(make_config(KH, ["hydro.device=cuda:0"]))
    assert sim.mesh.device == "cuda:0"
    for name in ("density", "momentum", "energy", "prim", "density_0"):
        assert isinstance(sim.mesh.data(name), storage.DeviceStorage)
    np.testing.assert_array_equal(list(sim.kernels.coef)[5:7], [sim.gamma, sim.cfl])  # passed by value
    before = fake.uploaded
    sim.set_initial()
    assert fake.uploaded - before == sum(sim.mesh.data(n).nbytes for n in ("density", "momentum", "energy"))
    for name, comp in (("density", 0), ("momentum", 1), ("energy", 0)):
        np.testing.assert_array_equal(sim.interior(name, comp), cpu.interior(name, comp))
    for name, data in sim.state().items():
        np.testing.assert_array_equal(data, cpu.state()[name])


@pytest.mark.parametrize("stage", ["fused", "split"])
def test_a_step_on_the_device_is_launches_only(make_config, fake, monkeypatch, stage):
    """Each stage's weights and dt are launch arguments (the ``coef`` vector, passed by value): a step copies
    nothing either way, and reading anything back would make every stage wait for the GPU (the time step's
    reduction, in ``check()``, is the step's one download). The launches get each stage's weights."""
    sim = hydro.Hydro(make_config(KH, ["hydro.device=cuda:0", f"hydro.stage={stage}"]))
    sim.set_initial()
    sim.step(1e-3)  # the first one loads the kernels and sizes the launches' work memory
    copies, launches = [], len(fake.launches)
    for name in ("copy_to_host", "copy_to_device", "copy_on_device", "memset", "alloc"):
        monkeypatch.setattr(fake, name, lambda *a, name=name, **k: copies.append(name))
    sim.step(1e-3)
    assert copies == [] and fake.synchronized == []
    if stage == "split":  # each stage's x pass has a row of scratch; the faces between rows need none (row_fluxes)
        assert [bool(shared) for shared, _ in fake.launch_memory[launches:]].count(True) == len(sim.stages)
    params = [p for *_, p in fake.launches[launches:]]
    dtype = {wp.float32: np.float32, wp.float64: np.float64}[sim.kernels.T]
    dx = sim.kernels.dx
    for n, (a, b) in enumerate(sim.stages):
        coef = np.array([a, b, 1e-3 / dx[0], 1e-3 / dx[1], 0.0, sim.gamma, sim.cfl, *dx], dtype=dtype).tobytes()
        assert any(coef in p for p in params), f"no launch of the step got stage {n}'s weights ({a}, {b})"
    assert coef in params[-1]  # the step ends with its last stage's update


def test_fields_larger_than_the_device_memory_are_an_input_error(make_config, tmp_path, fake):
    from brickwork.apps.hydro import preflight

    cfg = make_config(KH, ["mesh.nx=[16384,16384]", "mesh.block_nx=[1024,1024]", "hydro.device=cuda:0"])
    with pytest.raises(ConfigError, match=r"fields alone need .* but the device cuda:0 has only 16.0 GiB"):
        preflight._check_memory(cfg, preflight._check_device(cfg))
    preflight._check_memory(make_config(KH, ["hydro.device=cuda:0"]), devices.get_device("cuda:0"))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("target", ["cpu", "cuda-emulation"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_sums_match_numpy(target, dtype):
    pkg = Package("p")
    pkg.add_field("a", Metadata("Cell"), dtype=dtype)
    pkg.add_field("m", Metadata("Cell"), shape=(3,), dtype=dtype)
    with config.override(target=target):
        mesh = Mesh((8, 12, 4), (4, 6, 2), nghost=2, packages=[pkg])
        rng = np.random.default_rng(0)
        for name in ("a", "m"):
            mesh.data(name)[...] = rng.standard_normal(mesh.data(name).shape)
        variables = [("a", 0), ("m", 0), ("m", 2)]
        sums = BlockSums(mesh, variables).per_block()
    interior = (slice(2, 4), slice(2, 8), slice(2, 6))
    expected = [[mesh.data(n)[b, c][interior].astype(np.float64).sum() for n, c in variables] for b in range(8)]
    np.testing.assert_allclose(sums, expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("raw", [SOD, KH], ids=["sod", "kh"])
def test_emulation_gives_the_cpu_run_with_its_history(run_hydro, tmp_path, raw):
    raw = dict(raw, output={"history": True})
    results = {}
    for target in ("cpu", "cuda-emulation"):
        with config.override(target=target):
            result = run_hydro(raw, [f"output.dir={tmp_path / target}"])
        sim = result.hydro
        history = read(str(tmp_path / target / f"{sim.cfg['output']['basename']}.hst"))
        results[target] = (result.time, sim.to_global(sim.primitive("density")), history)
    (t_cpu, rho_cpu, h_cpu), (t_emu, rho_emu, h_emu) = results["cpu"], results["cuda-emulation"]
    assert t_emu == t_cpu > 0
    np.testing.assert_allclose(rho_emu, rho_cpu, rtol=1e-13, atol=0)
    assert h_emu[0] == h_cpu[0]
    np.testing.assert_allclose(h_emu[1], h_cpu[1], rtol=1e-12, atol=1e-14)


@needs_gpu
@pytest.mark.parametrize("raw", [SOD, KH], ids=["sod", "kh"])
def test_a_cuda_run_gives_the_cpu_run(run_hydro, tmp_path, raw):
    raw = dict(raw, output={"history": True, "hdf5_dt": 0.0})
    results = {}
    for device in ("cpu", "cuda"):
        result = run_hydro(raw, [f"hydro.device={device}", f"output.dir={tmp_path / device}"])
        sim = result.hydro
        history = read(str(tmp_path / device / f"{sim.cfg['output']['basename']}.hst"))
        results[device] = (result.time, sim.to_global(sim.primitive("density")), history)
    (t_cpu, rho_cpu, h_cpu), (t_gpu, rho_gpu, h_gpu) = results["cpu"], results["cuda"]
    assert t_gpu == pytest.approx(t_cpu, rel=1e-12)
    np.testing.assert_allclose(rho_gpu, rho_cpu, rtol=1e-12, atol=1e-14)
    assert h_gpu[0] == h_cpu[0]
    np.testing.assert_allclose(h_gpu[1], h_cpu[1], rtol=1e-11, atol=1e-13)

"""The hydro application on the emulation target ("cuda-emulation"): Sod's shock tube and a 2-D
Kelvin-Helmholtz start (reconstruction and fluxes through loop-abstraction views and scratch, ghost
exchange, boundary conditions, the time-step reduction) give the CPU's result."""

import numpy as np
import pytest

from brickwork import config


@pytest.mark.parametrize("problem, mesh, hydro", [
    ("sod", {"nx": [64], "block_nx": [16]}, {}),
    ("kelvin_helmholtz", {"nx": [32, 32], "block_nx": [16, 16]}, {}),
    ("sod", {"nx": [320], "block_nx": [320]}, {}),  # rows of 2 and 3 cells per thread (passes/gpu_cell_pairs.py)
    # PPM's five-cell stencil and Roe in the GPU mapping's face-by-face fluxes across rows (row_fluxes.py); the
    # CPU's fused kernels are test_hydro_ppm_roe's (measured: the same bits)
    ("kelvin_helmholtz", {"nx": [32, 32], "block_nx": [16, 16]}, {"reconstruction": "ppm", "riemann": "roe"}),
], ids=["sod", "kh", "sod-long-rows", "kh-ppm-roe"])
def test_same_result_as_the_cpu(run_hydro, problem, mesh, hydro):
    raw = {"problem": {"name": problem}, "mesh": mesh, "time": {"nlim": 5}, "hydro": hydro}
    densities = {}
    for target in ("cpu", "cuda-emulation"):
        with config.override(target=target):
            result = run_hydro(raw)
        sim = result.hydro
        densities[target] = (result.time, sim.to_global(sim.primitive("density")))
    (t_cpu, rho_cpu), (t_emu, rho_emu) = densities["cpu"], densities["cuda-emulation"]
    assert t_emu == t_cpu > 0
    np.testing.assert_allclose(rho_emu, rho_cpu, rtol=1e-13, atol=0)


def test_fused_stage_on_the_gpu_mapping(run_hydro):
    """``stage = "fused"`` where ``auto`` would split (a device target): the whole-block slice runs
    as one thread block, its scratch beyond shared memory in the global buffer, with the CPU's result."""
    raw = {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]},
           "time": {"nlim": 3}}
    with config.override(target="cuda-emulation"):
        emu = run_hydro(dict(raw, hydro={"stage": "fused"}))
    assert emu.hydro.fused
    cpu = run_hydro(raw)
    assert emu.time == cpu.time > 0
    np.testing.assert_allclose(emu.hydro.to_global(emu.hydro.primitive("density")),
                               cpu.hydro.to_global(cpu.hydro.primitive("density")), rtol=1e-13, atol=0)

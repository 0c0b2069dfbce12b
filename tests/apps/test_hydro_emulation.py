"""The hydro application on the emulation target ("cuda-emulation"): Sod's shock tube and a 2-D
Kelvin-Helmholtz start (reconstruction and fluxes through loop-abstraction views and scratch, ghost
exchange, boundary conditions, the time-step reduction) give the CPU's result."""

import numpy as np
import pytest

from brickwork import config


@pytest.mark.parametrize("problem, mesh", [
    ("sod", {"nx": [64], "block_nx": [16]}),
    ("kelvin_helmholtz", {"nx": [32, 32], "block_nx": [16, 16]}),
], ids=["sod", "kh"])
def test_same_result_as_the_cpu(run_hydro, problem, mesh):
    raw = {"problem": {"name": problem}, "mesh": mesh, "time": {"nlim": 5}}
    densities = {}
    for target in ("cpu", "cuda-emulation"):
        with config.override(target=target):
            result = run_hydro(raw)
        sim = result.hydro
        densities[target] = (result.time, sim.to_global(sim.primitive("density")))
    (t_cpu, rho_cpu), (t_emu, rho_emu) = densities["cpu"], densities["cuda-emulation"]
    assert t_emu == t_cpu > 0
    np.testing.assert_allclose(rho_emu, rho_cpu, rtol=1e-13, atol=0)

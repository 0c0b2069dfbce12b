"""A Runge-Kutta stage fused into one pass per block (``[hydro] stage = "fused"``, the CPU default)
computes bit for bit what the separate passes (``"split"``: primitives, fluxes, update) compute, in
1-D, 2-D and 3-D, for both loop tags, PLM, PPM and WENO5 and the HLLC, HLLE and Roe solvers, both precisions and
both integrators; and ``auto`` picks the fused stage on the CPU."""

import numpy as np
import pytest

CASES = {
    "kh-2d-bovi": {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]},
                   "time": {"nlim": 6}},
    "kh-2d-bvoi-weno5-hlle": {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]},
                              "hydro": {"loop": "bvoi", "reconstruction": "weno5", "riemann": "hlle"},
                              "time": {"nlim": 4}},
    "blast-3d": {"problem": {"name": "blast", "radius": 0.25},
                 "mesh": {"nx": [16, 16, 16], "block_nx": [8, 8, 8], "bc_x1": "periodic", "bc_x2": "periodic",
                          "bc_x3": "reflecting"}, "time": {"nlim": 4}},
    "sod-1d-float32-rk3": {"problem": {"name": "sod"}, "mesh": {"nx": [64], "block_nx": [16]},
                           "hydro": {"dtype": "float32", "integrator": "rk3"}, "time": {"nlim": 8}},
    # PPM and Roe (blocks of 32 cells: the fused kernels test_hydro_ppm_roe compiles)
    "sod-1d-ppm-roe": {"problem": {"name": "sod"}, "mesh": {"nx": [128], "block_nx": [32]},
                       "hydro": {"reconstruction": "ppm", "riemann": "roe"}, "time": {"nlim": 8}},
}


def interior_state(sim):
    return np.stack([sim.interior("density")] + [sim.interior("momentum", c) for c in range(3)]
                    + [sim.interior("energy")])


@pytest.mark.parametrize("name", list(CASES))
def test_fused_stage_equals_split_stages(run_hydro, name):
    raw = CASES[name]
    results = {}
    for stage in ("split", "fused"):
        result = run_hydro(dict(raw, hydro=dict(raw.get("hydro", {}), stage=stage)))
        assert result.hydro.fused == (stage == "fused")
        results[stage] = result
    split, fused = results["split"], results["fused"]
    assert fused.cycle == split.cycle == raw["time"]["nlim"]
    assert fused.time == split.time  # the same time steps: the CFL reduction reads the same state
    got, want = interior_state(fused.hydro), interior_state(split.hydro)
    assert not np.array_equal(want, interior_state_initial(split.hydro))  # the state moved
    np.testing.assert_array_equal(got, want)


def interior_state_initial(sim):
    sim.set_initial()
    return interior_state(sim)


def test_auto_fuses_on_the_cpu_in_every_dimension(make_config):
    from brickwork.apps import hydro

    assert hydro.Hydro(make_config(CASES["sod-1d-float32-rk3"])).fused
    assert hydro.Hydro(make_config(CASES["kh-2d-bovi"], ["mesh.nx=[256, 256]", "mesh.block_nx=[256, 256]"])).fused
    assert not hydro.Hydro(make_config(CASES["sod-1d-float32-rk3"], ["hydro.stage=split"])).fused
    assert hydro.Hydro(make_config(CASES["blast-3d"])).fused  # 8^3 blocks
    # 32^3 blocks: a whole block's scratch would be 19 MB, the ring of rows holds a window of rows
    assert hydro.Hydro(make_config(CASES["blast-3d"], ["mesh.nx=[64, 64, 64]", "mesh.block_nx=[32, 32, 32]"])).fused
    assert not hydro.Hydro(make_config(CASES["blast-3d"], ["mesh.nx=[64, 64, 64]", "mesh.block_nx=[32, 32, 32]",
                                                           "hydro.stage=split"])).fused

"""On a GPU one fused hydro stage kernel serves every SSP-RK stage, told at launch whether it is the first (which
also saves U0 = U): NVRTC compiles one unit, not two near-identical ones. Checked on the stand-in driver (NVRTC
compiles for sm_90, launches are recorded); the emulation target's fused run against the CPU's is
tests/apps/test_hydro_emulation.py::test_fused_stage_on_the_gpu_mapping. The CPU keeps a variant per stage."""

import os
import sys

from brickwork.apps import hydro
from brickwork.targets.cuda.loader import CudaEntry

KH = {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]}, "time": {"nlim": 5}}


def test_one_fused_stage_kernel_serves_every_stage(make_config, monkeypatch):
    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    from runtime.cuda_fake import FakeDriver, installed

    launched = []  # (entry, stage_first at the launch) of each stage launch
    original = CudaEntry.launch

    def noting(self, *args, **kwargs):
        if self.label.startswith("stage["):
            body = sim.kernels._stage_bodies[0]
            flag = body.__closure__[body.__code__.co_freevars.index("stage_first")].cell_contents
            launched.append((self, int(flag[0])))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(CudaEntry, "launch", noting)
    with installed(FakeDriver()):
        sim = hydro.Hydro(make_config(KH, ["hydro.device=cuda:0", "hydro.stage=fused"]))
        sim.set_initial()
        sim.step(1e-3)
        sim.step(1e-3)
    assert len(sim.stages) == 2  # rk2
    assert [first for _, first in launched] == [1, 0, 1, 0]  # each step's first stage, then its second
    assert len({id(entry.cubin) for entry, _ in launched}) == 1  # one unit for both


def test_the_cpu_keeps_a_fused_stage_variant_per_stage(make_config):
    sim = hydro.Hydro(make_config(KH, ["hydro.stage=fused"]))  # built, not compiled: no launch
    first, later = sim.kernels._stage_bodies
    assert first is not later and sim.kernels.tell_first is None

"""On a GPU one fused hydro stage kernel serves every SSP-RK stage, told at launch whether it is the first (which
also saves U0 = U): NVRTC compiles one unit, not two near-identical ones. Checked on the stand-in driver (NVRTC
compiles for sm_90, launches are recorded); the emulation target's fused run against the CPU's is
tests/apps/test_hydro_emulation.py::test_fused_stage_on_the_gpu_mapping. The CPU runs one kernel for every stage too
(there every stage's update selects U0, U in the first stage, and blends: kernels.py)."""

import importlib
import os
import sys

from brickwork import la
from brickwork.apps import hydro
from brickwork.targets.cuda.loader import CudaEntry

la_outer = importlib.import_module("brickwork.la.outer")  # la.outer is also the function's name

KH = {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]}, "time": {"nlim": 5}}


def test_one_fused_stage_kernel_serves_every_stage(make_config, monkeypatch):
    sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
    from runtime.cuda_fake import FakeDriver, installed

    launched = []  # (entry, stage_first at the launch) of each stage launch
    original = CudaEntry.launch

    def noting(self, *args, **kwargs):
        if self.label.startswith("stage["):
            body = sim.kernels._stage_body
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


def test_the_cpu_runs_every_stage_with_one_kernel_too(make_config, monkeypatch):
    """On the CPU too (g++ compiled two near-identical units): the flag at each stage launch, one instance."""
    seen = []  # the flag the body captures at each stage launch
    original = la.outer

    def noting(space, body):
        if body is sim.kernels._stage_body:
            seen.append(int(body.__closure__[body.__code__.co_freevars.index("stage_first")].cell_contents[0]))
        return original(space, body)

    monkeypatch.setattr(la, "outer", noting)
    sim = hydro.Hydro(make_config(KH, ["hydro.stage=fused"]))
    sim.set_initial()
    sim.step(sim.check())
    sim.step(sim.check())
    assert seen == [1, 0, 1, 0]
    kernel = la_outer._prepared(sim.kernels.blocks, sim.kernels._stage_body, "outer", False)[0]
    assert len(kernel.instances) == 1

"""The hydro application names its fused stages' kernels and the time step's at its first ``check()``
(``la.outer.expect``), so that they compile side by side with the first kernel of the run that compiles (the
ghost fill's), not each at its first call; a ``Hydro`` that never steps expects nothing."""

import importlib

from brickwork import config
from brickwork.apps import hydro
from brickwork.lang import companions

la_outer = importlib.import_module("brickwork.la.outer")  # la.outer is also the function's name

SOD = {"problem": {"name": "sod"}, "mesh": {"nx": [64], "block_nx": [16]}, "hydro": {"dtype": "float32"}}


def _instances(sim) -> list:
    """The instances of the fused stages' and the time step's body kernels made so far."""
    k = sim.kernels
    kernels = [la_outer._prepared(k.blocks, body, "outer", False)[0] for body in k._stage_bodies]
    kernels.append(la_outer._prepared(k.dt_space, k._rate_body, "outer_reduce", True)[0])
    return [inst for kernel in kernels for inst in kernel.instances.values()]


def test_the_stages_and_the_time_step_are_expected_by_expect_fused_only(make_config):
    sim = hydro.Hydro(make_config(SOD, ["hydro.limiter=minmod"]))
    assert sim.fused
    assert not any(inst in companions._expected for inst in _instances(sim))  # made, not yet checked: nothing
    sim.kernels.expect_fused()
    try:
        found = _instances(sim)
        assert len(found) == 3
        assert all(inst.fn is not None or inst in companions._expected for inst in found)
    finally:
        for inst in _instances(sim):  # built by no later test's first compile
            companions._expected.discard(inst)


def test_nothing_is_expected_with_module_builds_off(make_config, monkeypatch):
    monkeypatch.setattr(config, "compile_module", False)
    sim = hydro.Hydro(make_config(SOD, ["hydro.limiter=minmod"]))
    before = _instances(sim)  # an earlier Hydro's bodies, of the same code, share their instances with these
    sim.kernels.expect_fused()
    found = _instances(sim)
    assert found == before and not companions._expected.intersection(found)

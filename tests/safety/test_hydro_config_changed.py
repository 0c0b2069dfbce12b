"""A Config changed after its checks (attacker round 18, lead 4): cfg["hydro"]["riemann"] = "nonsense" after
hydro.load_config ran to the first step and failed there with KeyError 'nonsense', and cfg["hydro"]["cfl"] = 5.0 ran
a step no check allowed. hydro.run now refuses a Config whose settings differ from what its checks passed, naming
each (deleted ones too), before anything is allocated or created; a run leaves its Config as checked."""

import pytest
from tests.apps.test_hydro_restart import NO_FILES, SMALL_SOD, SOD

from brickwork.apps import hydro
from brickwork.apps.hydro import driver


def test_a_setting_assigned_after_the_checks_is_refused_before_the_run(tmp_path, monkeypatch):
    cfg = hydro.load_config(SOD, [*SMALL_SOD, f"output.dir={tmp_path / 'out'}"])
    cfg["hydro"]["riemann"] = "nonsense"
    cfg["hydro"]["cfl"] = 5.0
    del cfg["time"]["nlim"]
    monkeypatch.setattr(driver, "Hydro", lambda cfg: pytest.fail("the mesh was allocated"))
    with pytest.raises(hydro.ConfigError) as e:
        hydro.run(cfg, progress=False)
    assert str(e.value) == (
        f"the configuration from {SOD} was changed after its checks: hydro.cfl=5.0 (checked: 0.4); "
        f"hydro.riemann='nonsense' (checked: 'hllc'); time.nlim='<deleted>' (checked: -1); give settings as "
        f"overrides, hydro.load_config(path, ['hydro.cfl=0.3']) or hydro.build_config(raw, overrides)")
    assert not (tmp_path / "out").exists()


def test_a_run_leaves_its_config_as_checked():
    cfg = hydro.load_config(SOD, [*SMALL_SOD, "time.tlim=0.005", *NO_FILES, "output.history=false"])
    first = hydro.run(cfg, progress=False)
    cfg.check_unchanged()
    again = hydro.run(cfg, progress=False)
    assert (again.cycle, again.time) == (first.cycle, first.time) and first.cycle > 0

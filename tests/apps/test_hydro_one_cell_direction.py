"""mesh.nx with a last entry of 1 (Athena++'s and Parthenon's nx2 = 1 for a 1-D run) is an input error that
gives the brickwork spelling, not 'mesh.block_nx2=1 is smaller than the 2 ghost cells'."""

import pytest

from brickwork.apps import hydro
from brickwork.apps.hydro import ConfigError


@pytest.mark.parametrize("overrides, message", [
    (["mesh.nx=[64,1]", "mesh.block_nx=[16,1]"],
     r"^mesh.nx2=1: a direction one cell thick has no room for the 2 ghost cells the scheme needs; a 1-D run is "
     r"mesh.nx = \[64\] \(where Athena\+\+ and Parthenon write nx2 = 1\), with block_nx, xmin, xmax of 1 entry each$"),
    (["mesh.nx=[64,64,1]", "mesh.block_nx=[16,16,1]", "hydro.reconstruction=weno5"],
     r"^mesh.nx3=1: .* the 3 ghost cells .* a 2-D run is mesh.nx = \[64, 64\] .* of 2 entries each$"),
    (["mesh.nx=[64,1,64]", "mesh.block_nx=[16,1,16]"], r"^mesh.block_nx2=1 is smaller than the 2 ghost cells"),
])
def test_a_direction_one_cell_thick_names_the_lower_dimensional_run(overrides, message):
    with pytest.raises(ConfigError, match=message):
        hydro.build_config({"problem": {"name": "blast"}}, overrides)

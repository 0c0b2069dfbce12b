"""An input written with Athena++'s or Parthenon's names gets the brickwork key named in its error: those
names are what such a user types first, and a close spelling suggested nothing (``time.cfl_number``) or the
wrong thing (``meshblock``: 'did you mean mesh?', where ``block_nx`` is meant)."""

from pathlib import Path

import pytest

from brickwork.apps import hydro
from brickwork.apps.hydro import ConfigError

SOD = str(Path(__file__).resolve().parents[2] / "examples" / "sod.toml")


@pytest.mark.parametrize("override, hint", [
    ("time.cfl_number=0.3", "unknown key 'time.cfl_number' (Athena++ / Parthenon's 'cfl_number': hydro.cfl); "
                            "known keys of [time]: nlim, tlim"),
    ("mesh.nx1=64", "(Athena++ / Parthenon's 'nx1': mesh.nx (one list: nx = [nx1, nx2, nx3]; a block's size is "
                    "mesh.block_nx))"),
    ("mesh.ox2_bc=outflow", "(Athena++ / Parthenon's 'ox2_bc': mesh.bc_x2 (one value for both sides; 'user' "
                            "takes each side from the problem's BOUNDARIES))"),
    ("mesh.x3min=0", "(Athena++ / Parthenon's 'x3min': mesh.xmin (one list: xmin = [x1min, x2min, x3min]))"),
    ("output.dt=0.1", "(Athena++ / Parthenon's 'dt': one schedule per kind of output here: output.hdf5_dt, "
                      "vtk_dt, png_dt, restart_dt)"),
    ("output.file_type=vtk", "(Athena++ / Parthenon's 'file_type': output.format ('hdf5' or 'vtk'"),
    ("problem.problem_id=tube", "(Athena++ / Parthenon's 'problem_id': output.basename)"),
    ("hydro.xorder=3", "(Athena++ / Parthenon's 'xorder': hydro.reconstruction ('plm' with hydro.limiter for "
                       "xorder = 2, 'ppm' for xorder = 3, or 'weno5'); xorder = 2c / 3c: the same with "
                       "hydro.characteristic = true)"),
    ("hydro.flux=roe", "(Athena++ / Parthenon's 'flux': hydro.riemann ('hlle', 'hllc', 'llf' or 'roe'; Athena++ "
                       "picks it at configure time: --flux))"),
    ("meshblock.nx1=16", "unknown section 'meshblock' (Athena++ / Parthenon's <meshblock>: its nx1, nx2, nx3 "
                         "are mesh.block_nx = [nx1, nx2, nx3] here)"),
    ("output2.dt=0.1", "unknown section 'output2' (Athena++ / Parthenon's <output2>: all outputs are set in "
                       "[output] here"),
    ("parthenon/time.tlim=1", "unknown section 'parthenon/time' (Parthenon's <parthenon/time> is [time] here)"),
    # brickwork's own hints stay first: a key of another section, a close spelling
    ("time.integrator=rk3", "(integrator belongs under [hydro]: hydro.integrator)"),
    ("hydro.gama=1.4", "(did you mean 'hydro.gamma'?)"),
])
def test_an_override_with_their_name_names_the_brickwork_key(override, hint):
    with pytest.raises(ConfigError) as info:
        hydro.load_config(SOD, [override])
    assert hint in str(info.value)


def test_a_file_with_their_sections_and_keys_names_the_brickwork_keys(tmp_path):
    case = tmp_path / "blast.toml"
    case.write_text('[problem]\nname = "blast"\n\n[meshblock]\nnx1 = 32\nnx2 = 32\n')
    with pytest.raises(ConfigError, match=r"unknown section \[meshblock\] in .*blast.toml \(Athena\+\+ / "
                                          r"Parthenon's <meshblock>: its nx1, nx2, nx3 are mesh.block_nx"):
        hydro.load_config(str(case))
    case.write_text('[problem]\nname = "blast"\n\n[mesh]\nnx = [32, 32]\nix1_bc = "reflecting"\n')
    with pytest.raises(ConfigError, match=r"unknown key 'mesh.ix1_bc' in .*blast.toml \(Athena\+\+ / "
                                          r"Parthenon's 'ix1_bc': mesh.bc_x1"):
        hydro.load_config(str(case))

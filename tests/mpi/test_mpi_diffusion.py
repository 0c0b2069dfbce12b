"""Viscosity and conduction on several MPI ranks: the diffusive fluxes of a face on a block boundary that two
ranks share are computed on both from the same exchanged ghosts (edges and corners too, which the transverse
derivatives read), so 4 blocks on 2 ranks write the one-process history file byte for byte: the totals and the
extrema of the velocity and the temperature that the diffusion drives."""

from __future__ import annotations

from test_mpi import BRICKWORK, mpirun  # importing it skips this module without mpiexec

BOX = '''
import numpy as np

NAME = "box"
DIMENSIONS = (2,)
PARAMS = {}
DEFAULTS = {"mesh": {"nx": [32, 32], "block_nx": [16, 16], "xmin": [0.0, 0.0], "xmax": [1.0, 1.0],
                     "bc_x1": "periodic", "bc_x2": "reflecting"},
            "hydro": {"gamma": 1.4, "viscosity": 0.05, "conduction": 0.02}, "time": {"nlim": 6},
            "output": {"hdf5_dt": -1, "png_dt": -1, "restart_dt": -1}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    s = np.sin(2 * np.pi * (x1 + x2))
    c = np.cos(2 * np.pi * (x1 - 2 * x2))
    return 1.0 + 0.3 * s * c, 0.4 * c, 0.3 * s, 0.2 * s * s, 1.0 + 0.2 * np.cos(4 * np.pi * x1)


HISTORY = {"v1_max": ("max", lambda rho, v1, *rest: v1), "v2_min": ("min", lambda rho, v1, v2, *rest: v2),
           "t_max": ("max", lambda rho, v1, v2, v3, p, *rest: p / rho)}
'''


def test_two_ranks_write_the_one_process_history(tmp_path):
    (tmp_path / "box.py").write_text(BOX)
    (tmp_path / "box.toml").write_text('[problem]\nfile = "box.py"\n')
    problem = str(tmp_path / "box.toml")
    one = mpirun(1, BRICKWORK, "run", problem, f"output.dir={tmp_path / 'one'}", "output.progress=false")
    two = mpirun(2, BRICKWORK, "run", problem, f"output.dir={tmp_path / 'two'}", "output.progress=false")
    assert one.returncode == 0 and two.returncode == 0, two.stderr[-3000:]
    text = (tmp_path / "one" / "box.hst").read_text()
    lines = text.splitlines()
    assert lines[0].endswith("[9]=v1_max  [10]=v2_min  [11]=t_max") and len(lines) == 8
    assert (tmp_path / "two" / "box.hst").read_text() == text
    for done in (one, two):  # the closing line says what set the steps
        assert "; time steps set by the diffusion limit (dt <= 1.953e-03): 6 of 6 cycles, by the CFL condition: 0" \
            in done.stdout, done.stdout

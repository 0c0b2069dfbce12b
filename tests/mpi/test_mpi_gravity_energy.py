"""Gravity's energy source from the face mass fluxes on 1 and 2 MPI ranks: a heavy blob falling in a closed box
(reflecting on every side) keeps its total energy with the potential, E + rho Phi, to round-off at every step,
and the two ranks (one block each) write the one-process history file byte for byte. The potential is a
``HISTORY`` column taking the cell centres by name."""

from __future__ import annotations

import numpy as np
from test_mpi import BRICKWORK, mpirun  # importing it skips this module without mpiexec

from brickwork.io import history

BOX = '''
import numpy as np

NAME = "blob"
DIMENSIONS = (2,)
PARAMS = {}
DEFAULTS = {"mesh": {"nx": [16, 32], "block_nx": [16, 16], "xmin": [0.0, 0.0], "xmax": [0.5, 1.0],
                     "bc_x1": "reflecting", "bc_x2": "reflecting"},
            "hydro": {"gamma": 1.4, "gravity": [0.3, -1.0]}, "time": {"nlim": 60},
            "output": {"hdf5_dt": -1, "png_dt": -1, "restart_dt": -1}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return 1.0 + np.exp(-((x1 - 0.2) ** 2 + (x2 - 0.6) ** 2) / 0.01), 0.0, 0.0, 0.0, 1.0


HISTORY = {"potential": lambda density, x1, x2: -density * (0.3 * x1 - 1.0 * x2),
           "v2_min": ("min", lambda v2: v2)}
'''


def test_two_ranks_conserve_energy_with_the_potential_as_one(tmp_path):
    (tmp_path / "blob.py").write_text(BOX)
    (tmp_path / "blob.toml").write_text('[problem]\nfile = "blob.py"\n')
    runs = {n: mpirun(n, BRICKWORK, "run", str(tmp_path / "blob.toml"), f"output.dir={tmp_path / str(n)}", "--quiet")
            for n in (1, 2)}
    for n, done in runs.items():
        assert done.returncode == 0, f"{n} ranks: {done.stderr[-3000:]}"
    text = (tmp_path / "1" / "blob.hst").read_text()
    assert (tmp_path / "2" / "blob.hst").read_text() == text
    columns, rows = history.read(str(tmp_path / "1" / "blob.hst"))
    rows = np.asarray(rows)
    assert len(rows) == 61 and rows[-1, columns.index("v2_min")] < -0.3  # the blob fell
    total = rows[:, columns.index("energy")] + rows[:, columns.index("potential")]
    assert np.abs(total - total[0]).max() < 2e-15 * total[0]
    mass = rows[:, columns.index("mass")]
    assert np.abs(mass - mass[0]).max() < 2e-15 * mass[0]


def test_hydrostatic_walls_on_two_ranks_write_the_one_process_history(tmp_path):
    """The same box with ``bc_x2 = "hydrostatic"`` walls (their energy ghosts read each block's density, on the
    rank that owns it): 2 ranks write the one-process history file byte for byte."""
    (tmp_path / "blob.py").write_text(BOX)
    (tmp_path / "blob.toml").write_text('[problem]\nfile = "blob.py"\n')
    args = (str(tmp_path / "blob.toml"), "mesh.bc_x2=hydrostatic", "time.nlim=20", "--quiet")
    runs = {n: mpirun(n, BRICKWORK, "run", *args, f"output.dir={tmp_path / str(n)}") for n in (1, 2)}
    for n, done in runs.items():
        assert done.returncode == 0, f"{n} ranks: {done.stderr[-3000:]}"
    text = (tmp_path / "1" / "blob.hst").read_text()
    assert len(text.splitlines()) == 22 and (tmp_path / "2" / "blob.hst").read_text() == text

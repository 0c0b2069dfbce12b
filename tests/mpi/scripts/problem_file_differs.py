"""Run under mpiexec on 2 ranks, with a scratch directory: a problem file (or a helper module it imports from its
directory) of other content under the same path on rank 1 is a ``ConfigError`` on every rank naming the SHA-256
that differs, before anything is written (the same content runs: the other tests' problem files). Rank 1 rewrites the file after
rank 0 has loaded it, as a file of other content on another node's disk would be. Each rank prints one line."""

import os
import sys

from mpi4py import MPI

from brickwork.apps import hydro

PROBLEM = '''
import numpy as np
from wave_shape import AMPLITUDE

NAME = "wave"
DIMENSIONS = (1,)
PARAMS = {}
DEFAULTS = {"mesh": {"nx": [32], "block_nx": [16], "xmin": [0.0], "xmax": [1.0], "bc_x1": "periodic"},
            "time": {"nlim": 1}, "output": {"hdf5_dt": -1, "png_dt": -1, "restart_dt": -1}}


def initial(x1, x2, x3, p, gamma, xmin, xmax):
    return 1.0 + AMPLITUDE * np.sin(2 * np.pi * x1), 0.0, 0.0, 0.0, 1.0
'''

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
folder = sys.argv[1]
problem, helper = os.path.join(folder, "wave.py"), os.path.join(folder, "wave_shape.py")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def load_in_turn(rank1_writes):
    """Rank 0 loads the problem, then rank 1 writes ``rank1_writes`` (path: text) and loads it."""
    cfg = None
    for turn in (0, 1):
        if rank == turn:
            for path, text in (rank1_writes.items() if turn == 1 else ()):
                write(path, text)
            cfg = hydro.build_config({"problem": {"file": problem}}, [f"output.dir={os.path.join(folder, 'out')}",
                                                                      "output.progress=false"])
        comm.Barrier()
    return cfg


if rank == 0:
    write(problem, PROBLEM)
    write(helper, "AMPLITUDE = 0.1\n")
comm.Barrier()
said = []
for case, rank1_writes in (("helper", {helper: "AMPLITUDE = 0.2\n"}), ("problem", {problem: PROBLEM + "\n# edited\n"})):
    cfg = load_in_turn(rank1_writes)
    try:
        hydro.run(cfg)
    except hydro.ConfigError as e:
        said.append(f"{case}: {e}")
    assert not os.path.exists(os.path.join(folder, "out")), "a refused run wrote something"
    if rank == 0:  # both ranks the same again for the next case
        write(problem, PROBLEM)
        write(helper, "AMPLITUDE = 0.1\n")
    comm.Barrier()
# one process prints both ranks' lines: two ranks printing at once through mpiexec could run into one line
everyone = comm.gather(" | ".join(said), root=0)
if rank == 0:
    print("\n".join(f"rank {r}: {words}" for r, words in enumerate(everyone)))

"""Run under mpiexec (any number of ranks): ``Hydro.to_global`` of this rank's blocks, as docs/hydro.md and
docs/getting_started.md call it, gives every rank the array over the whole mesh (``root=r``: rank r alone);
an array of every block (``mesh.gather_blocks``'s result) is assembled where it is; a wrong one is a
``ValueError`` on every rank, before any message. Each rank prints one line with a digest of what it got."""

import hashlib
import sys
from pathlib import Path

import numpy as np

from brickwork.apps import hydro

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
off = ["output.hdf5_dt=-1", "output.png_dt=-1", "output.restart_dt=-1", "output.history=false",
       "output.progress=false"]
cfg = hydro.load_config(str(EXAMPLES / "kelvin_helmholtz.toml"),
                        off + ["mesh.nx=[48,48]", "mesh.block_nx=[16,16]", "time.nlim=3"])
sim = hydro.run(cfg).hydro
mesh = sim.mesh
rank, last = mesh.rank, mesh.nranks - 1

rho = sim.to_global(sim.primitive("density"))  # collective: the whole array on every rank
assert rho.shape == (1, 48, 48) and rho.dtype == np.float64 and rho.min() > 0.5, rho
only = sim.to_global(sim.primitive("pressure"), root=last)
assert (only is None) == (rank != last)
gathered = mesh.gather_blocks(sim.primitive("density"))
if rank == 0:  # an array of every block: no communication, so rank 0 alone may call it
    assert np.array_equal(sim.to_global(gathered), rho)
try:
    sim.to_global(sim.primitive("density")[:0])
except ValueError as e:
    error = str(e)
else:
    raise AssertionError("a first axis of 0 entries was taken")
mesh.comm.Barrier()  # no rank waits in a message of the failed call
pressure = "none" if only is None else hashlib.sha256(only.tobytes()).hexdigest()[:16]
sys.stdout.write(f"rank {rank}: density {hashlib.sha256(rho.tobytes()).hexdigest()[:16]} pressure {pressure} "
                 f"| {error}\n")

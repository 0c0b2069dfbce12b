"""Run under mpiexec: the hydro driver's ``agree`` over a step that raises on one rank (``argv[1]``) an
exception that is not brickwork's (``argv[2]``: "memory", a MemoryError; "config", a ConfigError). Rank 0
prints what every rank got. Before, only brickwork's errors were passed on: a MemoryError left the other
ranks waiting in the next collective for ever."""

import sys

from brickwork import comm as C
from brickwork.apps.hydro.config import ConfigError
from brickwork.apps.hydro.rank_errors import agree

failing, kind = int(sys.argv[1]), sys.argv[2]
world = C.world()


def step():
    if world.Get_rank() == failing:
        raise MemoryError("no memory for the restart's blocks") if kind == "memory" else ConfigError("bad key")


try:
    agree(world, step)
    got = "returned"
except Exception as e:  # noqa: BLE001 - what each rank gets is what is checked
    cause = f" (caused by {type(e.__cause__).__name__})" if e.__cause__ is not None else ""
    got = f"{type(e).__name__}: {e}{cause}"
world.Barrier()  # every rank came out of agree
every = world.gather(f"rank {world.Get_rank()}: {got}", root=0)
if world.Get_rank() == 0:
    print("\n".join(every), flush=True)

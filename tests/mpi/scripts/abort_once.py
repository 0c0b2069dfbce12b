"""Run under mpiexec: rank 1 alone meets ``argv[1]`` while rank 0 waits in a barrier: "interrupt", a
KeyboardInterrupt inside the brickwork command's error handling (``cli._hydro_errors``, as Ctrl-C or
``kill -INT`` of that rank); "terminate", a SIGTERM sent to itself there; "abort", ``comm.abort`` called directly. Anything printed after that call
returned shows the rank went on."""

import os
import signal
import sys

from brickwork import cli
from brickwork import comm as C

world = C.world()
what = sys.argv[1]


def work():
    if world.Get_rank() == 1:
        if what == "interrupt":
            raise KeyboardInterrupt
        if what == "terminate":
            os.kill(os.getpid(), signal.SIGTERM)
        C.abort(world, "brickwork: error: given up", 5)
        print("rank 1: abort returned", file=sys.stderr, flush=True)
    world.Barrier()


code = cli._hydro_errors(work)
print(f"rank {world.Get_rank()}: returned {code}", file=sys.stderr, flush=True)
sys.exit(code)

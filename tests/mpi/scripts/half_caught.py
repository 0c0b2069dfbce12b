"""Run under mpiexec -n 2: rank 1 catches its own error of a ``together`` block and goes on; rank 0's
``OtherRankError`` is caught nowhere. Rank 0 then says it in one line and ends every rank (an ``OtherRankError`` is
otherwise left unprinted, for the failing rank's own traceback)."""

from brickwork import comm

world = comm.world()
try:
    with comm.together(world, "the step"):
        if world.Get_rank() == 1:
            raise ValueError("rank 1's own")
except ValueError:
    pass
world.Barrier()  # rank 1 waits here for rank 0, which never comes
print("unreachable", flush=True)

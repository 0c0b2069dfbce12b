"""A collective call that fails on one rank alone (an argument only that rank refuses, a user boundary function
raising there) raises on every rank: that rank its own error, the others an ``OtherRankError`` naming it. Before,
a program that caught the error went on with that rank while the others waited for it for ever in the call."""

from __future__ import annotations

import sys

from test_mpi import SCRIPTS, mpirun  # importing it skips this module without mpiexec

LAUNCH = ("LaunchError: la.outer_reduce: out must be a 1-D array of float64 (the space's reducer la.Sum(float64)), "
          "got array(dtype=float32, ndim=1)")
TILE = "ValueError: nx1=15 is not divisible by block_nx1=4: blocks cannot tile the mesh"
USER = "ZeroDivisionError: the outer side's function failed"


def test_a_call_failing_on_one_rank_raises_on_every_rank_and_a_program_that_catches_it_goes_on():
    done = mpirun(2, sys.executable, str(SCRIPTS / "caught.py"), "caught", timeout=240)
    assert done.returncode == 0, done.stderr[-4000:]
    assert sorted(done.stdout.splitlines()) == sorted([
        f"rank 0 reduce: OtherRankError: la.outer_reduce failed: {LAUNCH} (on rank 1 of 2)",
        f"rank 1 reduce: {LAUNCH}",
        "rank 0 sum 512.0", "rank 1 sum 512.0",  # 32 x 16 cells of 1.0: a right reduction after it
        f"rank 0 mesh: OtherRankError: building the Mesh failed: {TILE} (on rank 1 of 2)",
        f"rank 1 mesh: {TILE}",
        f"rank 0 fill_ghosts: OtherRankError: fill_ghosts failed: {USER} (on rank 1 of 2)",
        f"rank 1 fill_ghosts: {USER}",
        # the next exchange fills every ghost right (neighbours' cells, the user function's copies at the sides)
        "rank 0 block 0 ghosts right", "rank 0 block 1 ghosts right",
        "rank 1 block 2 ghosts right", "rank 1 block 3 ghosts right",
    ])


def test_an_uncaught_error_of_one_rank_in_a_collective_call_ends_every_rank_and_is_printed_once():
    done = mpirun(2, sys.executable, str(SCRIPTS / "caught.py"), "uncaught", timeout=120)
    assert done.returncode != 0
    assert "unreachable" not in done.stdout
    assert done.stderr.count(LAUNCH) == 1, done.stderr  # rank 1's traceback; rank 0's OtherRankError is silent
    assert f"[rank 1] brickwork.errors.{LAUNCH}\n" in done.stderr
    assert "[rank 0]" not in done.stderr, done.stderr


def test_an_uncaught_other_rank_error_whose_failing_rank_went_on_is_said_in_one_line():
    done = mpirun(2, sys.executable, str(SCRIPTS / "half_caught.py"), timeout=120)
    assert done.returncode != 0
    assert "unreachable" not in done.stdout
    said = [line for line in done.stderr.splitlines() if line.startswith("[rank")]
    assert said == ["[rank 0] OtherRankError: the step failed: ValueError: rank 1's own (on rank 1 of 2)"], done.stderr

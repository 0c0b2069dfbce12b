"""A rank that gives up alone (an interrupt, ``comm.abort``) ends every rank and says so once: MPICH's
MPI_Abort returns to the caller once it has told the launcher, and the rank went on until the launcher
ended it (the brickwork command printed 'brickwork: interrupted' a second time). A SIGTERM to one rank
ended that rank without a word (mpiexec's status 15 alone told it)."""

from __future__ import annotations

import sys

import pytest
from test_mpi import SCRIPTS, mpirun  # importing it skips this module without mpiexec


@pytest.mark.parametrize("what, line, code", [("interrupt", "[rank 1] brickwork: interrupted", 130),
                                              ("terminate", "[rank 1] brickwork: terminated (SIGTERM)", 143),
                                              ("abort", "[rank 1] brickwork: error: given up", 5)])
def test_a_rank_that_gives_up_alone_ends_every_rank_and_says_it_once(what, line, code):
    done = mpirun(2, sys.executable, str(SCRIPTS / "abort_once.py"), what, timeout=120)
    assert done.returncode == code, done.stderr[-3000:]
    lines = [text for text in done.stderr.splitlines() if not text.startswith("Abort(")]  # MPICH's own line
    assert lines == [line]

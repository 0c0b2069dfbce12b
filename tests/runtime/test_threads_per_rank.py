"""Without a thread count, the cores are shared among the MPI ranks a launcher started on the machine."""

import os
import subprocess
import sys

import pytest


def default_threads(**env) -> int:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OMP_NUM_THREADS", "BRICKWORK_NUM_THREADS", "MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")}
    done = subprocess.run([sys.executable, "-c", "import brickwork; print(brickwork.config.default_threads)"],
                          env={**clean, **env}, capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.parametrize("variable", ["MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE"])
def test_the_cores_are_divided_among_the_local_ranks(variable):
    cores = min(os.cpu_count() or 1, 64)
    assert default_threads() == cores
    assert default_threads(**{variable: "2"}) == max(1, cores // 2)
    assert default_threads(**{variable: str(4 * cores)}) == 1
    assert default_threads(**{variable: "2", "OMP_NUM_THREADS": "3"}) == 3  # OpenMP's own setting wins
    assert default_threads(**{variable: "junk"}) == cores

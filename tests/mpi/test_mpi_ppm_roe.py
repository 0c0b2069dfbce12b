"""PPM and Roe on two MPI ranks, plain and characteristic (hydro.characteristic, Athena++'s xorder = 3c): the three
ghost cells PPM reads (and, characteristic, projects onto each cell's own eigenvectors) come from the other rank's
blocks, so 4 blocks on 2 ranks write the one-process files byte for byte (VTK blocks, the history; one passive
scalar, upwinded with the mass flux across the rank boundary)."""

from __future__ import annotations

import pytest
from test_mpi import BRICKWORK, EXAMPLES, mpirun  # importing it skips this module without mpiexec
from test_mpi_vtk import files_of

SOD = [str(EXAMPLES / "sod.toml"), "mesh.nx=[128]", "mesh.block_nx=[32]", "time.nlim=20", "hydro.reconstruction=ppm",
       "hydro.riemann=roe", "hydro.nscalars=1", "output.hdf5_dt=0", "output.png_dt=-1", "output.restart_dt=-1",
       "output.format=vtk", "--quiet"]


@pytest.mark.parametrize("characteristic", ["false", "true"])
def test_two_ranks_write_the_one_process_files(tmp_path, characteristic):
    runs = {}
    for n in (1, 2):
        done = mpirun(n, BRICKWORK, "run", *SOD, f"hydro.characteristic={characteristic}",
                      f"output.dir={tmp_path / str(n)}")
        assert done.returncode == 0, done.stderr[-3000:]
        runs[n] = files_of(tmp_path / str(n))
    assert "sod.hst" in runs[1] and sum(name.endswith(".vti") for name in runs[1]) == 2 * 4  # two outputs of 4 blocks
    assert sorted(runs[2]) == sorted(runs[1])
    for name, data in runs[1].items():
        assert runs[2][name] == data, name

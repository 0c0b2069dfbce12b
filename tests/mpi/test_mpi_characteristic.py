"""Characteristic PPM (hydro.characteristic, Athena++'s xorder = 3c) on two MPI ranks: each cell projects the stencil
of three ghost cells from the other rank's blocks onto its own eigenvectors, so 4 blocks on 2 ranks write the
one-process files byte for byte (VTK blocks, the history)."""

from __future__ import annotations

from test_mpi import BRICKWORK, EXAMPLES, mpirun  # importing it skips this module without mpiexec
from test_mpi_vtk import files_of

SOD = [str(EXAMPLES / "sod.toml"), "mesh.nx=[128]", "mesh.block_nx=[32]", "time.nlim=20", "hydro.reconstruction=ppm",
       "hydro.characteristic=true", "hydro.riemann=roe", "output.hdf5_dt=0", "output.png_dt=-1",
       "output.restart_dt=-1", "output.format=vtk", "--quiet"]


def test_two_ranks_write_the_one_process_files(tmp_path):
    runs = {}
    for n in (1, 2):
        done = mpirun(n, BRICKWORK, "run", *SOD, f"output.dir={tmp_path / str(n)}")
        assert done.returncode == 0, done.stderr[-3000:]
        runs[n] = files_of(tmp_path / str(n))
    assert "sod.hst" in runs[1] and sum(name.endswith(".vti") for name in runs[1]) == 2 * 4  # two outputs of 4 blocks
    assert sorted(runs[2]) == sorted(runs[1])
    for name, data in runs[1].items():
        assert runs[2][name] == data, name

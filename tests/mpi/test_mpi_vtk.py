"""VTK outputs of the hydro application on several MPI ranks: each rank writes its blocks' files and rank 0
the multiblock file, and every file is the one-process file byte for byte (passive scalars by their names
included); a problem's OUTPUTS that fails on some ranks leaves none of that output's files behind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_mpi import BRICKWORK, EXAMPLES, mpirun  # importing it skips this module without mpiexec
from test_mpi_custom_problem import TUBE  # an OUTPUTS function that raises on the ranks holding the rarefaction

KH = [str(EXAMPLES / "kelvin_helmholtz.toml"), "mesh.nx=[48,48]", "mesh.block_nx=[16,16]", "time.nlim=6",
      "hydro.nscalars=2", "hydro.scalar_names=dye,metals", "output.hdf5_dt=0", "output.png_dt=-1",
      "output.restart_dt=-1", "output.format=vtk", "--quiet"]


def files_of(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run_kh(folder: Path, nranks: int) -> dict:
    done = mpirun(nranks, BRICKWORK, "run", *KH, f'output.dir="{folder}"')
    assert done.returncode == 0, done.stderr[-3000:]
    return files_of(folder)


@pytest.fixture(scope="module")
def one_process_files(tmp_path_factory) -> dict:
    """The one-process run's files, which every rank count is compared with (run once, not per rank count)."""
    return run_kh(tmp_path_factory.mktemp("vtk") / "1", 1)


@pytest.mark.parametrize("nranks", [2, 4])
def test_vtk_outputs_on_several_ranks_are_the_one_process_files(tmp_path, nranks, one_process_files):
    runs = {1: one_process_files, nranks: run_kh(tmp_path / str(nranks), nranks)}
    assert "kelvin_helmholtz.out.00001.vtm" in runs[1]
    assert b'file="kelvin_helmholtz.out.00001.vtm"' in runs[1]["kelvin_helmholtz.pvd"]  # rank 0 wrote it alone
    assert sum(name.endswith(".vti") for name in runs[1]) == 2 * 9  # two outputs of 9 blocks
    assert b'Name="dye"' in runs[1]["kelvin_helmholtz.out.00001/block_000008.vti"]
    assert sorted(runs[nranks]) == sorted(runs[1])
    for name, data in runs[1].items():
        assert runs[nranks][name] == data, name


def test_outputs_that_raise_on_some_ranks_leave_no_vtk_files(tmp_path):
    (tmp_path / "tube.py").write_text(TUBE)
    (tmp_path / "tube.toml").write_text('[problem]\nfile = "tube.py"\n')
    done = mpirun(4, BRICKWORK, "run", str(tmp_path / "tube.toml"), f"output.dir={tmp_path / 'o'}", "output.format=vtk",
                  "--quiet", timeout=120)
    assert done.returncode == 2, done.stderr[-3000:]
    assert re.fullmatch(r"brickwork: error: the output tube\.out\.00001 of cycle \d+ \(t=[0-9.e-]+\): problem 'tube': "
                        r"OUTPUTS\['speed'\] failed at tube.py:17: ValueError: in the rarefaction \(on rank 1 of 4\)"
                        r"\n", done.stderr), done.stderr
    assert sorted(files_of(tmp_path / "o")) == sorted(["tube.hst", "tube.out.00000.vtm", "tube.pvd"] + [
        f"tube.out.00000/block_{gid:06d}.vti" for gid in range(4)])
    assert "tube.out.00001" not in (tmp_path / "o" / "tube.pvd").read_text()

"""``--restart`` given to some ranks only: a rank that restarts reads its blocks collectively while one that
does not sets the initial state, so their messages crossed and the job hung (until mpiexec was killed). The
ranks now compare whether they restart with their input: one input error on every rank, status 2, before the
restart file is read or anything is written."""

from __future__ import annotations

from test_mpi import SOD, mpirun, mpmd  # importing it skips this module without mpiexec


def test_a_restart_on_some_ranks_only_is_an_input_error_on_every_rank(tmp_path):
    first = mpirun(1, *SOD, f'output.dir="{tmp_path}"', "output.restart_dt=0.005", "output.hdf5_dt=-1")
    assert first.returncode == 0, first.stderr
    restart = str(sorted(tmp_path.glob("sod.rst.*.npz"))[0])
    out = f'output.dir="{tmp_path}/c"'
    for restarting in ([True, False], [False, True]):
        done = mpmd(*([*SOD, out, *(["--restart", restart] if r else [])] for r in restarting), timeout=90)
        assert done.returncode == 2, done.stderr[-4000:]
        assert done.stderr == (f"brickwork: error: the input differs between the MPI ranks: restarting (--restart "
                               f"FILE, hydro.run's restart_file) is {restarting[0]} on rank 0 but {restarting[1]} on "
                               f"rank 1; every rank must run the same input file and overrides\n")
        assert not (tmp_path / "c").exists()

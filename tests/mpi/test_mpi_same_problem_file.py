"""A problem file of other content under the same path on one rank (another node's disk, a file edited while the
job starts), or another version of a helper module it imports from its directory, would run another problem on
that rank without any sign: the ranks compare a SHA-256 of the problem file and those helpers with the rest of
the input, and refuse the run on every rank before anything is written."""

from __future__ import annotations

from test_mpi import python  # importing it skips this module without mpiexec


def test_a_problem_file_or_helper_of_other_content_on_one_rank_is_refused_on_every_rank(tmp_path):
    done = python(2, "problem_file_differs.py", str(tmp_path), timeout=120)
    lines = sorted(done.stdout.splitlines())
    assert [line.split(":")[0] for line in lines] == ["rank 0", "rank 1"], done.stdout
    assert lines[0].partition(": ")[2] == lines[1].partition(": ")[2]  # the same words on both ranks
    for case in lines[0].partition(": ")[2].split(" | "):
        assert case.startswith(("helper: ", "problem: ")), case
        assert ("the input differs between the MPI ranks: the SHA-256 of problem.file and the modules it imports "
                "from its directory is '") in case and "' on rank 1; every rank must run the same input file" in case
    assert len(lines[0].split(" | ")) == 2
    assert not (tmp_path / "out").exists()

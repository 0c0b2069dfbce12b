"""Two runs of one output.dir and output.basename (attacker round 18): both wrote at once, and the history file
ended as the rows of both runs (its times going backwards 12 times in two 2048-cell Sod runs started together),
the numbered outputs coming from either. A run now holds DIR/.BASENAME.lock (flock) while it writes; a second
run is an input error naming the directory, the files and the holder, before it touches any file. Here the
other run is a lock taken in this process (flock locks are per open file, so it conflicts the same way)."""

import os

from tests.apps.test_hydro_restart import NO_FILES, SMALL_SOD, SOD, brickwork, one_line

from brickwork.apps.hydro.output_lock import OutputLock

RUN = [*SMALL_SOD, "time.tlim=0.01", *NO_FILES, "--quiet"]


def test_a_second_run_of_the_same_outputs_is_refused_before_it_writes(capsys, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "sod.hst").write_text("the other run's rows\n")
    held = OutputLock(str(out / "sod"))
    try:
        code, _, err = brickwork(capsys, "run", SOD, *RUN, f"output.dir={out}")
    finally:
        held.release()
    assert code == 2
    assert one_line(err) == (f"brickwork: error: output.dir={str(out)!r} is in use: another run (process "
                             f"{os.getpid()} on {os.uname().nodename}) is writing its sod.* files (it holds "
                             f"{str(out / '.sod.lock')!r}); wait for it to end, or choose another output.dir or "
                             f"output.basename")
    assert (out / "sod.hst").read_text() == "the other run's rows\n"
    assert sorted(os.listdir(out)) == ["sod.hst"]


def test_another_basename_in_the_same_directory_runs_and_a_stale_lock_is_taken_over(capsys, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / ".sod.lock").write_text("999999 gone\n")  # left by a killed run: a file nobody locks
    held = OutputLock(str(out / "other"))
    try:
        code, _, err = brickwork(capsys, "run", SOD, *RUN, f"output.dir={out}")
    finally:
        held.release()
    assert code == 0, err
    assert sorted(os.listdir(out)) == ["sod.hst"]  # the lock went with the run
    rows = [line for line in (out / "sod.hst").read_text().splitlines() if not line.startswith("#")]
    assert [int(line.split()[0]) for line in rows] == list(range(len(rows)))


def test_a_run_failing_after_it_took_the_lock_leaves_no_lock_file(capsys, tmp_path):
    out = tmp_path / "out"
    (out / "sod.hst").mkdir(parents=True)  # the history file cannot be opened: the run fails once it holds the lock
    code, _, err = brickwork(capsys, "run", SOD, *RUN, f"output.dir={out}")
    assert code != 0 and "is a directory" in one_line(err)
    assert sorted(os.listdir(out)) == ["sod.hst"]
    OutputLock(str(out / "sod")).release()  # free for the next run

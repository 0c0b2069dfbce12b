"""Restarts: a changed output cadence starts at the restart time (an unchanged one continues), the
metadata of a restart file is covered by its checksum and checked entry by entry, a restart past
the run's end is refused, and an unusable history file is refused before anything is written."""

import contextlib
import hashlib
import json
import math
import os
import signal

import numpy as np
import pytest

from brickwork import cli
from brickwork.apps.hydro.schedule import TOLERANCE, Schedule
from brickwork.io import block_restart
from brickwork.io import history as history_io
from brickwork.io import restart as restart_io

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SOD = os.path.join(ROOT, "examples", "sod.toml")
SMALL_SOD = ["mesh.nx=[128]", "mesh.block_nx=[64]"]
NO_FILES = ["output.hdf5_dt=-1", "output.png_dt=-1", "output.restart_dt=-1"]


def brickwork(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


def output_times(directory, pattern, entry="time"):
    """The times (or cycles: ``entry="cycle"``) of the outputs matching ``pattern``, in order (HDF5
    attributes or restart metadata)."""
    times = []
    for path in sorted(directory.glob(pattern)):
        if path.suffix == ".h5":
            import h5py

            with h5py.File(path, "r") as f:
                times.append(f.attrs[entry].item())
        else:
            times.append(restart_io.load(str(path))[1][entry])
    return times


@pytest.fixture(scope="module")
def rst(tmp_path_factory):
    """A restart file of a small Sod run at t = 0.05 (cycle > 0), written at its end."""
    out = tmp_path_factory.mktemp("first")
    assert cli.main(["run", SOD, *SMALL_SOD, "time.tlim=0.05", f"output.dir={out}", *NO_FILES, "output.restart_dt=0",
                     "--quiet"]) == 0
    return out / "sod.rst.00000.npz"


def craft(tmp_path, source, edit=None, arrays_edit=None, name="crafted.npz", checksum=True):
    """A copy of the restart file ``source`` with its metadata (``edit(meta)``) or arrays changed; with a
    valid checksum unless ``checksum`` is false, so that only the checks of the metadata can catch it."""
    with np.load(source) as data:
        arrays = {k: data[k] for k in data.files if k != "__meta__"}
        meta = json.loads(str(data["__meta__"]))
    if edit is not None:
        edit(meta)
    if arrays_edit is not None:
        if meta["format"] == block_restart.FORMAT:  # arrays of any shape or none: a file of the second format
            del arrays[block_restart.DIGESTS], meta["arrays"], meta["blocks"]
            meta["format"] = restart_io.FORMAT
        arrays_edit(arrays)
    if checksum and meta["format"] == block_restart.FORMAT:  # what the hydro run writes: a digest per block
        arrays[block_restart.DIGESTS] = np.stack([np.stack([
            np.frombuffer(hashlib.sha256(np.ascontiguousarray(block)).digest(), np.uint8) for block in arrays[name]])
            for name in meta["arrays"]])
        meta["sha256"] = block_restart._top_digest(meta, arrays[block_restart.DIGESTS])
    elif checksum:
        meta["sha256"] = restart_io._digest(arrays, meta if meta["format"] == restart_io.FORMAT else None)
    path = tmp_path / name
    np.savez(path, __meta__=np.array(json.dumps(meta)), **arrays)
    return path


# -- a changed cadence starts at the restart --------------------------------------------------------------------------
def test_a_new_restart_cadence_starts_at_the_restart(capsys, tmp_path, rst):
    """restart_dt = 0 (only the last) at first, then 0.02: restart files past 0.06, 0.08, and the end."""
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.1", f"output.dir={tmp_path}", *NO_FILES,
                             "output.restart_dt=0.02", "--restart", rst, "--quiet")
    assert code == 0, err
    times = output_times(tmp_path, "sod.rst.*.npz")
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == ["sod.rst.00001.npz", "sod.rst.00002.npz",
                                                             "sod.rst.00003.npz"]  # numbering goes on
    assert 0.06 <= times[0] < 0.065 and 0.08 <= times[1] < 0.085 and times[2] == pytest.approx(0.1, abs=1e-14)


def test_a_new_hdf5_cadence_starts_at_the_restart(capsys, tmp_path):
    pytest.importorskip("h5py")
    first = tmp_path / "first"
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.1", f"output.dir={first}",
                             "output.hdf5_dt=0.1", "output.png_dt=-1", "output.restart_dt=0", "--quiet")
    assert code == 0, err
    assert output_times(first, "*.h5") == [0.0, pytest.approx(0.1, abs=1e-14)]
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.2", f"output.dir={first}",
                             "output.hdf5_dt=0.02", "output.png_dt=-1", "output.restart_dt=0", "--quiet",
                             "--restart", first / "sod.rst.00000.npz")
    assert code == 0, err
    times = output_times(first, "*.h5")[2:]
    # the first states past 0.12, 0.14, 0.16, 0.18 and the end (the stored next time was 0.2)
    assert len(times) == 5, times
    for due, t in zip((0.12, 0.14, 0.16, 0.18), times):
        assert due <= t < due + 0.005
    assert times[-1] == pytest.approx(0.2, abs=1e-14)


def test_an_unchanged_cadence_continues_as_the_uninterrupted_run(capsys, tmp_path):
    pytest.importorskip("h5py")
    keys = [*SMALL_SOD, "time.tlim=0.12", "output.hdf5_dt=0.03", "output.png_dt=-1", "output.restart_dt=0.05",
            "--quiet"]
    whole, half = tmp_path / "whole", tmp_path / "half"
    assert brickwork(capsys, "run", SOD, *keys, f"output.dir={whole}")[0] == 0
    assert brickwork(capsys, "run", SOD, *keys, f"output.dir={half}", "--restart", whole / "sod.rst.00000.npz")[0] == 0
    assert output_times(half, "*.h5") == output_times(whole, "*.h5")[-len(output_times(half, "*.h5")):]
    assert len(output_times(half, "*.h5")) == 3  # past 0.06, 0.09 and the end
    assert output_times(half, "*.npz") == output_times(whole, "*.npz")[1:]


# -- the metadata: covered by the checksum, and checked -------------------------------------------------------------
def test_the_checksum_covers_the_metadata(capsys, tmp_path, rst):
    def later(meta):
        meta["time"] = 0.07

    path = craft(tmp_path, rst, later, checksum=False)
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, f"output.dir={tmp_path / 'out'}", "--restart", path,
                             "--quiet")
    assert code == 2
    assert one_line(err) == f"brickwork: error: restart file {str(path)!r} is corrupt: its checksum does not match " \
                            f"its contents"
    assert not (tmp_path / "out").exists()


def test_files_of_the_first_format_are_still_read(capsys, tmp_path, rst):
    """Their checksum covers the arrays only, and their schedule has no cadences (those of the stored
    configuration count)."""
    def first_format(meta):
        meta["format"] = restart_io.FORMAT_1
        del meta["schedule"]["every"]

    path = craft(tmp_path, rst, first_format)
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.06", f"output.dir={tmp_path / 'out'}",
                             *NO_FILES, "output.restart_dt=0", "--restart", path, "--quiet")
    assert code == 0, err
    assert output_times(tmp_path / "out", "*.npz") == [pytest.approx(0.06, abs=1e-14)]


def _set(path, value):
    def edit(meta):
        *parents, last = path.split(".")
        table = meta
        for key in parents:
            table = table[key]
        if value is DELETE:
            del table[last]
        else:
            table[last] = value
    return edit


DELETE = object()


@pytest.mark.parametrize("entry, value, message", [
    ("time", math.nan, "its metadata entry 'time' must be a finite number >= 0, got nan"),
    ("time", math.inf, "its metadata entry 'time' must be a finite number >= 0, got inf"),
    ("time", -5.0, "its metadata entry 'time' must be a finite number >= 0, got -5.0"),
    ("time", "abc", "its metadata entry 'time' must be a finite number >= 0, got 'abc'"),
    ("time", True, "its metadata entry 'time' must be a finite number >= 0, got True"),
    ("time", 10**400, "its metadata entry 'time' must be a finite number >= 0, got " + str(10**400)),
    ("time", DELETE, "its metadata has no entry 'time'"),
    ("cycle", None, "its metadata entry 'cycle' must be an integer from 0 to 9007199254740992, got None"),
    ("cycle", 2.5, "its metadata entry 'cycle' must be an integer from 0 to 9007199254740992, got 2.5"),
    ("cycle", -1, "its metadata entry 'cycle' must be an integer from 0 to 9007199254740992, got -1"),
    ("cycle", 2**70, "its metadata entry 'cycle' must be an integer from 0 to 9007199254740992, got " + str(2**70)),
    ("schedule", DELETE, "its metadata has no entry 'schedule'"),
    ("schedule", [1, 2], "its metadata entry 'schedule' must be a table, got [1, 2]"),
    ("schedule.next", DELETE, "its metadata has no entry 'schedule.next'"),
    ("schedule.count.hdf5", -1, "its metadata entry 'schedule.count.hdf5' must be an integer from 0 to 9007199254740992, got -1"),
    ("schedule.count.png", "1", "its metadata entry 'schedule.count.png' must be an integer from 0 to 9007199254740992, got '1'"),
    ("schedule.last_cycle.restart", 10**6, "its metadata entry 'schedule.last_cycle.restart' must be an integer "
                                           "from -1 to CYCLE, got 1000000"),
    ("schedule.next.png", math.nan, "its metadata entry 'schedule.next.png' must be a number >= 0, got nan"),
    ("schedule.every.hdf5", -2.0, "its metadata entry 'schedule.every.hdf5' must be a finite number >= -1, got -2.0"),
    ("schedule.every.hdf5", 0.01, "its metadata is inconsistent: schedule.next.hdf5=0.0 is not a time after the "
                                  "file's time TIME"),
    ("schedule.count.restart", 0, "its metadata is inconsistent: schedule.count.restart=0 but "
                                  "schedule.last_cycle.restart=CYCLE (-1 exactly when none was written)"),
    ("nx", DELETE, "its metadata has no entry 'nx'"),
    ("config.mesh.xmax", DELETE, "its metadata has no entry 'config.mesh.xmax'"),
    ("config.mesh", "x", "its metadata entry 'config.mesh' must be a table, got 'x'"),
])
def test_every_metadata_entry_is_checked(capsys, tmp_path, rst, entry, value, message):
    meta = restart_io.load(str(rst))[1]
    path = craft(tmp_path, rst, _set(entry, value))
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, f"output.dir={tmp_path / 'out'}", "--restart", path,
                             "--quiet")
    assert code == 2
    message = message.replace("CYCLE", str(meta["cycle"])).replace("TIME", repr(meta["time"]))
    assert one_line(err) == f"brickwork: error: restart file {str(path)!r}: {message}"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("setting, theirs, mine", [
    ("mesh.xmax=[2.0]", "mesh.xmax=[1.0]", "mesh.xmax=[2.0]"),
    ("mesh.xmin=[-1.0]", "mesh.xmin=[0.0]", "mesh.xmin=[-1.0]"),
])
def test_a_restart_on_another_domain_is_refused(capsys, tmp_path, rst, setting, theirs, mine):
    """The same cells on a wider domain would be cells of another width: the run used to continue from the
    file as if nothing had changed (cell widths doubled, the outputs' coordinates wrong)."""
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, setting, f"output.dir={tmp_path / 'out'}", "--restart",
                             rst, "--quiet")
    assert code == 2
    assert one_line(err) == f"brickwork: error: restart file {str(rst)!r} was written with {theirs}, but this run " \
                            f"has {mine}"
    assert not (tmp_path / "out").exists()
    # the same domain written differently is the same domain
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "mesh.xmin=[0]", "mesh.xmax=[1]", "time.tlim=0.06",
                             f"output.dir={tmp_path / 'out'}", *NO_FILES, "--restart", rst, "--quiet")
    assert code == 0, err


def test_a_restart_with_another_reconstruction_says_why_the_ghosts_differ(capsys, tmp_path, rst):
    """WENO5 picks 3 ghost cells where the file's PLM run had 2: the message says where the 3 comes from, for a
    user who never set mesh.nghost."""
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "hydro.reconstruction=weno5",
                             f"output.dir={tmp_path / 'out'}", "--restart", rst, "--quiet")
    assert code == 2
    assert one_line(err) == f"brickwork: error: restart file {str(rst)!r} was written with mesh.nghost=2, but this " \
                            f"run has mesh.nghost=3 (mesh.nghost = 0, the default, is what hydro.reconstruction " \
                            f"needs: 2 for plm, 3 for ppm and weno5; a restart keeps the ghost width of the run that wrote " \
                            f"the file)"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("edit, message", [
    (lambda a: a.pop("energy"), "array 'energy' is missing"),
    (lambda a: a.update(density=a["density"].astype(np.float32)),
     "array 'density' has dtype float32, but this run's fields are float64 (hydro.dtype)"),
    (lambda a: a.update(momentum=a["momentum"][:1]), "array 'momentum' has shape (1, 3, 1, 1, 68), but this run "
                                                      "needs (2, 3, 1, 1, 68)"),
], ids=["missing", "dtype", "shape"])
def test_each_array_is_checked(capsys, tmp_path, rst, edit, message):
    path = craft(tmp_path, rst, arrays_edit=edit)
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, f"output.dir={tmp_path / 'out'}", "--restart", path,
                             "--quiet")
    assert code == 2
    assert one_line(err) == f"brickwork: error: restart file {str(path)!r}: {message}"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("limit, message", [
    ("time.tlim=0.02", "is at t=0.05, past this run's time.tlim=0.02: there is nothing to run; set time.tlim to a "
                       "later time"),
    ("time.nlim=1", "is at cycle CYCLE, past this run's time.nlim=1: there is nothing to run; set time.nlim to a later "
                    "cycle or -1"),
])
def test_a_restart_past_the_end_of_the_run(capsys, tmp_path, rst, limit, message):
    cycle = restart_io.load(str(rst))[1]["cycle"]
    code, out, err = brickwork(capsys, "run", SOD, *SMALL_SOD, limit, f"output.dir={tmp_path / 'out'}", "--restart",
                               rst)
    assert code == 2 and out == ""
    assert one_line(err) == f"brickwork: error: restart file {str(rst)!r} {message.replace('CYCLE', str(cycle))}"
    assert not (tmp_path / "out").exists()
    # at its end exactly, the run has nothing left to do and says so as usual
    code, out, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.05", f"output.dir={tmp_path / 'out'}",
                               *NO_FILES, "--restart", rst)
    assert code == 0 and out == f"sod: 0 cycles to t=0.05: the state at cycle {cycle} has reached time.tlim=0.05 " \
                               f"already; set a later time.tlim to go on\n"
    code, out, err = brickwork(capsys, "run", SOD, *SMALL_SOD, f"time.nlim={cycle}", f"output.dir={tmp_path / 'out'}",
                               *NO_FILES, "--restart", rst)
    assert code == 0 and out.endswith(f"has reached time.nlim={cycle} already; set a later time.nlim to go on\n")


@pytest.mark.parametrize("limit", ["time.tlim=0.05", "time.nlim=CYCLE"])
def test_a_restart_at_the_end_of_the_run_writes_nothing(capsys, tmp_path, rst, limit):
    """With its outputs on, a run with nothing to run makes no output directory and leaves the history file as
    it was (it wrote a header into a new directory, and rewrote a continued history up to the restart)."""
    limit = limit.replace("CYCLE", str(restart_io.load(str(rst))[1]["cycle"]))
    code, out, _ = brickwork(capsys, "run", SOD, *SMALL_SOD, limit, f"output.dir={tmp_path / 'new'}", "--restart", rst)
    assert code == 0 and f"has reached {limit} already" in out
    assert not (tmp_path / "new").exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    history = kept / "sod.hst"
    history.write_text(f"# header\n0{ROW}999999{ROW}")  # a row past the restart's cycle too
    code, out, _ = brickwork(capsys, "run", SOD, *SMALL_SOD, limit, f"output.dir={kept}", "--restart", rst)
    assert code == 0 and f"has reached {limit} already" in out
    assert history.read_text() == f"# header\n0{ROW}999999{ROW}" and os.listdir(kept) == ["sod.hst"]


# -- the history file of a restarted run ----------------------------------------------------------------------------
@pytest.fixture
def restarted(tmp_path, rst):
    """An output directory holding the restart file and a history file to continue."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "sod.rst.00000.npz").write_bytes(rst.read_bytes())
    return out


ROW = " 0.0 1e-3 0.5 0.0 0.0 0.0 1.3\n"  # a history row after its cycle (8 columns in all)


@pytest.mark.parametrize("content, message", [
    (f"# header\n0{ROW}1 1e-3 oops\n", "line 3 is not a row of 8 numbers ('1 1e-3 oops'); move the file away"),
    (f"# header\nnan{ROW}", f"line 2 is not a row of 8 numbers ('nan{ROW.rstrip()}'); move the file away"),
    (f"# header\n1.5{ROW}", f"line 2 is not a row of 8 numbers ('1.5{ROW.rstrip()}'); move the file away"),
    # a row of another length: continued, the file would be one that history.read refuses
    (f"# header\n0{ROW}1 0.1\n2{ROW}", "line 3 is not a row of 8 numbers ('1 0.1'); move the file away"),
    (f"# header\n0{ROW}1{ROW.rstrip()} 7\n", "line 3 is not a row of 8 numbers ('1 0.0 1e-3 0.5 0.0 0.0 0.0 1.3 7'); "
                                            "move the file away"),
    (b"\xff\xfe binary\n", "it is not a text file; move it away"),
], ids=["word", "nan", "fraction", "short", "long", "binary"])
def test_a_history_file_that_cannot_be_continued(capsys, restarted, content, message):
    history = restarted / "sod.hst"
    history.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = history.read_bytes()
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.06", f"output.dir={restarted}", *NO_FILES,
                             "--restart", restarted / "sod.rst.00000.npz", "--quiet")
    assert code == 1
    assert one_line(err) == f"brickwork: the run failed: cannot continue the history file {str(history)!r} after " \
                            f"the restart: {message} or set output.history = false"
    assert history.read_bytes() == before and sorted(os.listdir(restarted)) == ["sod.hst", "sod.rst.00000.npz"]


@pytest.mark.parametrize("restart", [False, True])
def test_a_history_file_that_is_a_directory_or_a_link(capsys, restarted, restart, tmp_path):
    args = ["--restart", restarted / "sod.rst.00000.npz"] if restart else []
    (restarted / "sod.hst").mkdir()
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.06", f"output.dir={restarted}", *NO_FILES,
                             *args, "--quiet")
    assert code == 1
    assert one_line(err) == f"brickwork: the run failed: cannot write {str(restarted / 'sod.hst')!r}: is a directory"
    os.rmdir(restarted / "sod.hst")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.symlink(victim, restarted / "sod.hst")
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.06", f"output.dir={restarted}", *NO_FILES,
                             *args, "--quiet")
    assert code == 1
    assert one_line(err) == f"brickwork: the run failed: cannot write {str(restarted / 'sod.hst')!r}: it is a symbolic " \
                            f"link, and history files are not written through links (remove it, or choose another " \
                            f"output.dir)"
    assert victim.read_text() == "precious\n" and os.path.islink(restarted / "sod.hst")
    assert sorted(os.listdir(restarted)) == ["sod.hst", "sod.rst.00000.npz"]


def test_a_line_cut_short_at_the_end_of_a_history_file_is_dropped(capsys, restarted, rst):
    """Part of a line without its newline (a run killed while writing it) is no row: the restarted run drops
    it, and the file it writes reads back whole."""
    cycle = restart_io.load(str(rst))[1]["cycle"]
    history = restarted / "sod.hst"
    header = "# [1]=cycle  [2]=time  [3]=dt  [4]=mass  [5]=momentum_1  [6]=momentum_2  [7]=momentum_3  [8]=energy\n"
    history.write_text(f"{header}0{ROW}1{ROW}2 0.1")  # the run's columns: another header is refused
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.06", f"output.dir={restarted}", *NO_FILES,
                             "--restart", restarted / "sod.rst.00000.npz", "--quiet")
    assert code == 0, err
    columns, rows = history_io.read(str(history))
    assert len(columns) == 8 and rows[:2, 0].tolist() == [0, 1] and rows[2, 0] == cycle + 1  # then the restarted run's


def test_a_cadence_too_fine_to_add_up_ends(capsys, tmp_path, rst):
    """schedule.every.restart = 1e-300 (as the run's output.restart_dt) and a due time past the file's: 1e-300
    added to 0.06 leaves 0.06, so the run used to add it for ever once the due time was reached. It writes the
    restart file due at 0.06 and ends."""
    meta = restart_io.load(str(rst))[1]

    def tiny(meta):
        meta["schedule"]["every"]["restart"] = 1e-300
        meta["schedule"]["next"]["restart"] = 0.06

    path = craft(tmp_path, rst, tiny)
    out = tmp_path / "out"
    with deadline(60):
        code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.06", f"output.dir={out}", *NO_FILES,
                                 "output.restart_dt=1e-300", "--restart", path, "--quiet")
    assert code == 0, err
    assert sorted(p.name for p in out.glob("*.npz")) == [f"sod.rst.{meta['schedule']['count']['restart']:05d}.npz"]
    assert output_times(out, "*.npz") == [pytest.approx(0.06, abs=1e-14)]


def test_a_schedule_whose_cadence_is_below_the_spacing_of_doubles_moves_on():
    schedule = Schedule({"output": {"hdf5_dt": 1e-300, "png_dt": 5e-18, "restart_dt": -1.0}})
    schedule.next.update(hdf5=0.2, png=0.1)
    with deadline(10):
        assert schedule.advance("hdf5", 0.2, 7) == 0
        assert schedule.advance("png", 0.1, 7) == 0
    # the next due time is the first state past the current one: every state is written
    for kind, t in (("hdf5", 0.2), ("png", 0.1)):
        assert 0 < schedule.next[kind] - t * (1 + TOLERANCE) < 1e-16
    assert schedule.count["hdf5"] == 1 and schedule.last_cycle["hdf5"] == 7


@contextlib.contextmanager
def deadline(seconds: int):
    """Fail (``TimeoutError``) rather than hang when the block runs longer than ``seconds``."""
    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: an endless loop")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

"""The command line, in process (``brickwork.cli.main``): options and overrides in any order, and one
clear line on standard error, never a traceback, for every way a run can fail to start or go on;
a failed start leaves no directory behind."""

import errno
import math
import os
import re
import sys
import warnings

import numpy as np
import pytest

from brickwork import cli
from brickwork.apps.hydro import driver, preflight
from brickwork.io import history as history_io

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SOD = os.path.join(ROOT, "examples", "sod.toml")
KH = os.path.join(ROOT, "examples", "kelvin_helmholtz.toml")
NO_FILES = ["output.hdf5_dt=-1", "output.png_dt=-1", "output.restart_dt=-1"]
SMALL_SOD = ["mesh.nx=[128]", "mesh.block_nx=[64]"]


def brickwork(capsys, *args):
    """``(exit status, stdout, stderr)`` of ``brickwork ARGS`` run in this process."""
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


# -- options and overrides in any order ------------------------------------------------------------------------------
def test_options_and_overrides_in_any_order(capsys, tmp_path):
    first = tmp_path / "first"
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, f"output.dir={first}", "time.tlim=0.05", *NO_FILES,
                             "output.restart_dt=0", "--quiet")
    assert code == 0, err
    rst = first / "sod.rst.00000.npz"
    assert rst.exists()
    _, before = history_io.read(str(first / "sod.hst"))
    # the documented command: the option before the overrides, and options between overrides
    code, out, err = brickwork(capsys, "run", SOD, "--restart", rst, "time.tlim=0.1", "--quiet", *SMALL_SOD,
                               f"output.dir={first}", *NO_FILES)
    assert code == 0, err
    assert out == "" and err == ""
    columns, rows = history_io.read(str(first / "sod.hst"))
    assert len(rows) > len(before)
    np.testing.assert_array_equal(rows[: len(before)], before)  # the lines up to the restart are kept
    assert rows[-1, columns.index("time")] == pytest.approx(0.1, abs=1e-14)
    # last override wins, wherever the options are
    code, _, err = brickwork(capsys, "run", SOD, "hydro.cfl=0.1", "--quiet", "hydro.cfl=0.3", *SMALL_SOD,
                             "time.tlim=0.01", f"output.dir={tmp_path / 'third'}", *NO_FILES)
    assert code == 0, err
    _, third = history_io.read(str(tmp_path / "third" / "sod.hst"))
    dt = columns.index("dt")
    assert third[0, dt] == pytest.approx(before[0, dt] * 0.3 / 0.4, rel=1e-12)  # examples/sod.toml: cfl = 0.4


def test_demo_takes_options_and_overrides_in_any_order(capsys, monkeypatch):
    from brickwork.apps.hydro import demo

    seen = []
    monkeypatch.setattr(demo, "main", lambda overrides=(), log=print: seen.append((list(overrides), log)))
    assert cli.main(["demo", "--quiet", "mesh.nx=[32,32]", "time.tlim=0.05"]) == 0
    assert cli.main(["demo", "mesh.nx=[32,32]", "--quiet", "time.tlim=0.05"]) == 0
    assert cli.main(["demo", "mesh.nx=[32,32]", "time.tlim=0.05"]) == 0
    assert [s[0] for s in seen] == [["mesh.nx=[32,32]", "time.tlim=0.05", "output.progress=false"]] * 2 + \
        [["mesh.nx=[32,32]", "time.tlim=0.05"]]
    assert seen[0][1] is not print and seen[0][1]("anything") is None and seen[2][1] is print


def test_the_demo_without_a_snapshot_says_so(tmp_path):
    from brickwork.apps.hydro import demo

    lines = []
    result = demo.main(["mesh.nx=[32,32]", "mesh.block_nx=[16,16]", "time.nlim=1", f"output.dir={tmp_path}",
                        "output.png_dt=-1", "output.progress=false"], log=lines.append)
    assert result.last_png is None
    assert lines[-1].startswith("density snapshot: none (output.png_dt = -1)  (")


def test_a_missing_input_file_argument_is_named_alone(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["run", "--quiet"])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == "brickwork run: error: the following arguments are required: input"


# -- a failed start leaves nothing behind ----------------------------------------------------------------------------
def test_a_failed_start_creates_no_directory(capsys, tmp_path):
    new = tmp_path / "new" / "deeper"
    code, _, err = brickwork(capsys, "run", SOD, f"output.dir={new}", "--restart", tmp_path / "missing.npz",
                             "--quiet")
    assert code == 2 and one_line(err).endswith("does not exist")
    assert os.listdir(tmp_path) == []  # neither new/ nor new/deeper/
    # a state whose time step collapses fails at cycle 0: no directory, no history file either
    code, _, err = brickwork(capsys, "run", SOD, f"output.dir={new}", "mesh.nx=[8]", "mesh.block_nx=[8]",
                             "problem.rho_r=1e-300", "--quiet")
    assert code == 1 and "time step collapsed" in one_line(err)
    assert os.listdir(tmp_path) == []


def test_an_unstable_cfl_is_an_input_error_before_anything_is_made(capsys, tmp_path):
    """Before, `hydro.cfl=0.9` in 2-D ran to the end with status 0 and wrote unstable states (pressure from 1.24
    to 4.57 where the flow holds 2.49 to 2.51)."""
    code, out, err = brickwork(capsys, "run", KH, "mesh.nx=[64,64]", "mesh.block_nx=[16,16]", "hydro.cfl=0.9",
                               f"output.dir={tmp_path / 'o'}", "--quiet")
    assert code == 2 and out == ""
    assert one_line(err) == ("brickwork: error: hydro.cfl=0.9 is above 1/2, the stability limit of "
                             "hydro.integrator='rk2' in 2-D: the unsplit scheme adds the Courant numbers of the 2 "
                             "directions, so a larger cfl makes the run unstable (and its outputs wrong); set "
                             "hydro.cfl <= 1/2 (the examples use 0.4)")
    assert os.listdir(tmp_path) == []


def test_a_failed_start_keeps_what_was_there(capsys, tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "notes.txt").write_text("keep me\n")
    (old / "sod.hst").write_text("# an earlier run\n0 0.0\n")
    code, _, err = brickwork(capsys, "run", SOD, f"output.dir={old}", "--restart", old / "missing.npz", "--quiet")
    assert code == 2, err
    assert sorted(os.listdir(old)) == ["notes.txt", "sod.hst"]
    assert (old / "notes.txt").read_text() == "keep me\n" and (old / "sod.hst").read_text() == "# an earlier run\n0 0.0\n"


# -- one clear line for each mistake --------------------------------------------------------------------------------
@pytest.mark.parametrize("hidden, message", [
    (["h5py"], "output.hdf5_dt >= 0 needs h5py: pip install 'brickwork[io]', or set output.hdf5_dt = -1 (or "
               "output.format = \"vtk\": VTK outputs need no package)"),
    (["matplotlib"], "output.png_dt >= 0 needs matplotlib: pip install 'brickwork[io]', or set output.png_dt = -1"),
    (["h5py", "matplotlib"], "output.hdf5_dt >= 0 and output.png_dt >= 0 need h5py and matplotlib: pip install "
                             "'brickwork[io]', or set output.hdf5_dt = -1 and output.png_dt = -1 (or output.format = "
                             "\"vtk\": VTK outputs need no package)"),
])
def test_without_the_io_extra_one_line_names_every_missing_writer(capsys, tmp_path, monkeypatch, hidden, message):
    """Without the io extra both writers are missing: one message names both settings (it named h5py alone,
    and the run that followed its advice failed again on matplotlib); no directory is made."""
    for module in hidden:
        monkeypatch.setitem(sys.modules, module, None)  # ``import module`` raises ImportError
    out = tmp_path / "out"
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, f"output.dir={out}", "--quiet")
    assert code == 2 and one_line(err) == f"brickwork: error: {message}"
    assert os.listdir(tmp_path) == []
    # following the advice is enough: the run goes on without those outputs
    off = [f"output.{'hdf5_dt' if m == 'h5py' else 'png_dt'}=-1" for m in hidden]
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.02", f"output.dir={out}", *off, "--quiet")
    assert code == 0, err
    names = os.listdir(out)
    assert ("sod.out.00001.h5" in names) == ("h5py" not in hidden)
    assert ("sod.00001.png" in names) == ("matplotlib" not in hidden)
    assert "sod.hst" in names and "sod.rst.00000.npz" in names
    if "h5py" in hidden:  # the other advice: VTK outputs instead, on the same schedule
        code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.02", f"output.dir={tmp_path / 'vtk'}",
                                 'output.format="vtk"', "output.png_dt=-1", "--quiet")
        assert code == 0, err
        assert {"sod.out.00000.vtm", "sod.out.00001.vtm"} <= set(os.listdir(tmp_path / "vtk"))


def test_a_toml_file_that_is_not_utf8(capsys, tmp_path):
    bad = tmp_path / "latin1.toml"
    content = '[problem]\nname = "sod"  # d\xe9j\xe0 vu\n'.encode("latin-1")
    bad.write_bytes(content)
    code, _, err = brickwork(capsys, "run", bad, "--quiet")
    assert code == 2
    assert content.index(b"\xe9") == 27
    assert one_line(err) == (f"brickwork: error: {bad}: not a UTF-8 text file (byte 0xe9 at offset 27); TOML input "
                             f"files must be UTF-8")


def test_a_byte_order_mark_is_read_past_and_an_endless_input_is_refused(capsys, tmp_path):
    from brickwork.apps.hydro import config as hydro_config

    marked = tmp_path / "marked.toml"
    marked.write_bytes(b"\xef\xbb\xbf" + b'[problem]\nname = "sod"\n')  # as some editors save UTF-8
    assert hydro_config.load(str(marked))["problem"]["name"] == "sod"
    code, _, err = brickwork(capsys, "run", "/dev/zero", "--quiet")
    assert code == 2
    assert one_line(err) == ("brickwork: error: input file '/dev/zero' is larger than 1 MiB; an input file is a "
                             "short TOML text")


@pytest.mark.parametrize("where, message", [
    ("{file}", "brickwork: error: output.dir='{file}' is a file, not a directory"),
    ("{file}/sub", "brickwork: error: output.dir='{file}/sub' cannot be created: '{file}' is a file, not a directory"),
    ("{file}/sub/deeper", "brickwork: error: output.dir='{file}/sub/deeper' cannot be created: '{file}' is a file, "
                          "not a directory"),
])
def test_an_output_dir_that_cannot_be_made(capsys, tmp_path, where, message):
    afile = tmp_path / "afile"
    afile.write_text("data\n")
    code, _, err = brickwork(capsys, "run", SOD, "output.dir=" + where.format(file=afile), "--quiet")
    assert code == 2
    assert one_line(err) == message.format(file=afile)
    assert afile.read_text() == "data\n" and os.listdir(tmp_path) == ["afile"]


def test_an_empty_or_dangling_output_dir(capsys, tmp_path):
    code, _, err = brickwork(capsys, "run", SOD, "output.dir=", "--quiet")
    assert code == 2
    assert one_line(err) == "brickwork: error: output.dir is empty: name a directory (output.dir=. for the working " \
                            "directory)"
    link = tmp_path / "link"
    os.symlink(tmp_path / "nowhere", link)
    for where, message in ((link, f"{str(link)!r} is a dangling symbolic link"),
                           (link / "sub", f"{str(link / 'sub')!r} cannot be created: {str(link)!r} is a dangling "
                                          f"symbolic link")):
        code, _, err = brickwork(capsys, "run", SOD, f"output.dir={where}", "--quiet")
        assert code == 2
        assert one_line(err) == f"brickwork: error: output.dir={message} (to {str(tmp_path / 'nowhere')!r}, which " \
                                f"does not exist)"
    assert os.listdir(tmp_path) == ["link"]


def test_outputs_never_write_through_a_planted_link(capsys, tmp_path):
    """Links at the names of temporary files (the old fixed ``NAME.tmp``) or of the history file: the run
    writes its outputs under new random temporary names, and refuses the linked history file."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("sod.rst.00000.npz.tmp", "sod.out.00000.h5.tmp", "sod.out.00000.xdmf.tmp"):
        os.symlink(victim, out / name)
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.01", f"output.dir={out}", "output.png_dt=-1",
                             "output.hdf5_dt=0", "output.restart_dt=0", "--quiet")
    assert code == 0, err
    assert victim.read_text() == "precious\n"
    assert {"sod.rst.00000.npz", "sod.out.00000.h5", "sod.out.00001.xdmf", "sod.hst"} <= set(os.listdir(out))
    assert not [n for n in os.listdir(out) if n.endswith(".tmp") and not os.path.islink(out / n)]
    os.remove(out / "sod.hst")
    os.symlink(victim, out / "sod.hst")
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.01", f"output.dir={out}", *NO_FILES,
                             "--quiet")
    assert code == 1
    assert "is a symbolic link, and history files are not written through links" in one_line(err)
    assert victim.read_text() == "precious\n"


def test_temporary_files_are_new_and_random(tmp_path, monkeypatch):
    """``staged`` draws another name when one is taken (here by a planted link), never opens it, and
    gives the outputs the usual mode (0666 less the umask), not a private one."""
    from brickwork.io import files

    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    target = tmp_path / "a.txt"
    os.symlink(victim, f"{target}.deadbeef.tmp")
    names = iter(["deadbeef", "cafef00d"])
    monkeypatch.setattr(files.secrets, "token_hex", lambda n: next(names))
    with files.staged(str(target)) as (tmp,):
        assert tmp == f"{target}.cafef00d.tmp" and os.path.getsize(tmp) == 0
        with open(tmp, "w") as f:
            f.write("new\n")
    assert target.read_text() == "new\n" and victim.read_text() == "precious\n"
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "a.txt.deadbeef.tmp", "victim.txt"]


def test_an_output_dir_whose_creation_fails(capsys, tmp_path, monkeypatch):
    """``os.makedirs`` failing for a reason not foreseen (a read-only file system) is one line too, and
    the directories made before the failure are removed."""
    real = os.makedirs

    def read_only(path, exist_ok=False, **kwargs):
        if not str(path).startswith(str(tmp_path)):  # e.g. the kernel cache
            return real(path, exist_ok=exist_ok, **kwargs)
        real(os.path.dirname(path), exist_ok=True)  # the parent is made, then the file system turns read-only
        raise OSError(errno.EROFS, "Read-only file system", path)

    monkeypatch.setattr(os, "makedirs", read_only)
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, f"output.dir={tmp_path / 'a' / 'b'}", "--quiet")
    assert code == 2
    assert one_line(err) == f"brickwork: error: output.dir='{tmp_path / 'a' / 'b'}' cannot be created: read-only file " \
                            f"system"
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name, content, message", [
    ("state.npy", None, "is not a brickwork restart file (it is a .npy array; restart files are .npz archives "
                        "written by output.restart_dt)"),
    ("notes.txt", b"hello\n", "is corrupt or not a brickwork restart file (not an .npz archive; restart files are "
                              "written by output.restart_dt)"),
    ("empty.npz", b"", "is empty"),
    ("plain.npz", "savez", "is not a brickwork restart file (no metadata)"),
])
def test_a_restart_file_that_is_not_one(capsys, tmp_path, name, content, message):
    path = tmp_path / name
    if content is None:
        np.save(path, np.zeros(3))
    elif content == "savez":
        np.savez(path, density=np.zeros(3))
    else:
        path.write_bytes(content)
    code, _, err = brickwork(capsys, "run", SOD, f"output.dir={tmp_path / 'out'}", "--restart", path, "--quiet")
    assert code == 2
    assert one_line(err) == f"brickwork: error: restart file {str(path)!r} {message}"
    assert not (tmp_path / "out").exists()


def test_states_that_generate_a_vacuum(capsys, tmp_path):
    """Sod's states pulled apart at 10 each way: the scheme runs, and the PNG's exact solution has its vacuum
    (the exact solver used to raise a bare ValueError there)."""
    pytest.importorskip("matplotlib")
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "problem.u_l=-10", "problem.u_r=10", "time.tlim=0.02",
                             f"output.dir={tmp_path}", "output.hdf5_dt=-1", "output.png_dt=0", "output.restart_dt=-1",
                             "--quiet")
    assert code == 0, err
    assert sorted(os.listdir(tmp_path)) == ["sod.00000.png", "sod.00001.png", "sod.hst"]
    assert (tmp_path / "sod.00001.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- a full disk in the middle of the run ----------------------------------------------------------------------------
class FullDisk:
    """A file whose ``write`` stores part of the data, then fails with ENOSPC (a disk filling up)."""

    def __init__(self, f):
        self._f = f

    def write(self, data):
        self._f.write(data[: len(data) // 2])
        self._f.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


def fill_the_disk_at(monkeypatch, module, nth: int):
    """Make the ``nth`` file that ``module`` opens for writing fail like a full disk."""
    opened = []

    def fake_open(path, mode="r", *args, **kwargs):
        f = open(path, mode, *args, **kwargs)
        if "w" in mode:
            opened.append(path)
            if len(opened) == nth:
                return FullDisk(f)
        return f

    monkeypatch.setattr(module, "open", fake_open, raising=False)
    return opened


def run_hdf5_outputs(capsys, tmp_path, tlim: float, restart_dt: float = -1):
    """A small Sod run to ``tlim`` writing HDF5 + XDMF outputs of its first and last states into ``tmp_path``."""
    return brickwork(capsys, "run", SOD, *SMALL_SOD, f"time.tlim={tlim}", f"output.dir={tmp_path}", "output.hdf5_dt=0",
                     "output.png_dt=-1", f"output.restart_dt={restart_dt}", "--quiet")


def test_a_full_disk_while_writing_an_xdmf_file(capsys, tmp_path, monkeypatch):
    pytest.importorskip("h5py")
    from brickwork.io import hdf5

    opened = fill_the_disk_at(monkeypatch, hdf5, 2)  # the XDMF file of the second output
    code, _, err = run_hdf5_outputs(capsys, tmp_path, tlim=0.05)
    assert code == 1
    failed = tmp_path / "sod.out.00001.xdmf"
    assert re.fullmatch(re.escape(f"{failed}.") + "[0-9a-f]{8}" + re.escape(".tmp"), opened[-1])  # a random name
    line = one_line(err)
    assert line.startswith("brickwork: the run failed: cycle ")
    assert f"cannot write {str(failed)!r}: no space left on device. The run stops; the last good output is kept " \
           f"({tmp_path / 'sod.out.00000.h5'}, {tmp_path / 'sod.out.00000.xdmf'})." in line
    # no temporary file, no HDF5 file without its XDMF; the first output and the history stay
    assert sorted(os.listdir(tmp_path)) == ["sod.hst", "sod.out.00000.h5", "sod.out.00000.xdmf"]


@pytest.mark.parametrize("taken", ["sod.out.00001.h5", "sod.out.00001.xdmf"])
def test_an_output_name_taken_by_a_directory_leaves_no_half_output(capsys, tmp_path, taken):
    """A directory planted at the second output's XDMF name used to fail the XDMF rename after the HDF5
    file had been renamed, leaving ``sod.out.00001.h5`` without its XDMF file: now neither is renamed."""
    pytest.importorskip("h5py")
    (tmp_path / taken).mkdir()
    code, _, err = run_hdf5_outputs(capsys, tmp_path, tlim=0.05)
    assert code == 1
    assert one_line(err).endswith(f"cannot write {str(tmp_path / taken)!r}: is a directory. The run stops; the last "
                                  f"good output is kept ({tmp_path / 'sod.out.00000.h5'}, "
                                  f"{tmp_path / 'sod.out.00000.xdmf'}).")
    assert sorted(os.listdir(tmp_path)) == sorted(["sod.hst", "sod.out.00000.h5", "sod.out.00000.xdmf", taken])
    assert os.listdir(tmp_path / taken) == []
    (tmp_path / taken).rmdir()  # not an XDMF file for the check after the test


def test_the_last_good_output_includes_those_of_the_failed_state(capsys, tmp_path, monkeypatch):
    """The final state's HDF5 output is written, then its restart file fails: that HDF5 output is the last
    good one (it used to name the first state's)."""
    pytest.importorskip("h5py")
    from brickwork.io import block_restart  # the hydro run writes its restart files a block at a time

    fill_the_disk_at(monkeypatch, block_restart, 1)
    code, _, err = run_hdf5_outputs(capsys, tmp_path, tlim=0.02, restart_dt=0)
    assert code == 1
    assert one_line(err).endswith(f"cannot write {str(tmp_path / 'sod.rst.00000.npz')!r}: no space left on device. "
                                  f"The run stops; the last good output is kept ({tmp_path / 'sod.out.00001.h5'}, "
                                  f"{tmp_path / 'sod.out.00001.xdmf'}).")


def test_a_full_disk_while_writing_a_restart_file(capsys, tmp_path, monkeypatch):
    from brickwork.io import block_restart  # the hydro run writes its restart files a block at a time

    fill_the_disk_at(monkeypatch, block_restart, 1)
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.02", f"output.dir={tmp_path}",
                             "output.hdf5_dt=-1", "output.png_dt=-1", "output.restart_dt=0", "--quiet")
    assert code == 1
    assert f"cannot write {str(tmp_path / 'sod.rst.00000.npz')!r}: no space left on device" in one_line(err)
    assert os.listdir(tmp_path) == ["sod.hst"]


def test_a_full_disk_while_writing_the_history(capsys, tmp_path, monkeypatch):
    fill_the_disk_at(monkeypatch, history_io, 1)
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, "time.tlim=0.02", f"output.dir={tmp_path}", *NO_FILES,
                             "--quiet")
    assert code == 1
    assert one_line(err) == f"brickwork: the run failed: cannot write {str(tmp_path / 'sod.hst')!r}: no space left " \
                            f"on device"
    assert (tmp_path / "sod.hst").read_bytes() == b""  # cut back: not half a header


# -- a mesh too large for the machine --------------------------------------------------------------------------------
def test_a_mesh_too_large_for_memory_is_refused_before_allocating(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(preflight, "available_memory", lambda: 64 * 2**30)
    monkeypatch.setattr(driver, "Hydro", lambda cfg: pytest.fail("the mesh was allocated"))
    code, _, err = brickwork(capsys, "run", KH, "mesh.nx=65536,65536", f"output.dir={tmp_path / 'out'}", "--quiet")
    assert code == 2
    # 1024 x 1024 blocks of (64 + 2 * 2)^2 cells; 25 float64 per cell: density, momentum (3), energy, their
    # stage copies (5), the primitives (5), and the fluxes of the 5 conserved values in 2 directions
    need = 1024 * 1024 * 68 * 68 * 25 * 8
    assert f"{need / 2**30:.1f}" == "903.1"
    assert one_line(err) == ("brickwork: error: mesh.nx=[65536, 65536] in mesh.block_nx=[64, 64] is too large for this "
                             "machine: its fields need 903.1 GiB (float64, ghost cells and fluxes included) and its "
                             "1048576 blocks about 4.0 GiB more on the host, but only 64.0 GiB is available")
    assert not (tmp_path / "out").exists()


def test_a_mesh_of_too_many_tiny_blocks_is_refused_before_allocating(capsys, tmp_path, monkeypatch):
    """Each block costs host memory besides its fields (its objects and tables, about 4 kB): 2**21 blocks of
    2 cells passed a check of the fields alone (0.9 GiB) and then took some 8 GiB more."""
    monkeypatch.setattr(preflight, "available_memory", lambda: 4 * 2**30)
    monkeypatch.setattr(driver, "Hydro", lambda cfg: pytest.fail("the mesh was allocated"))
    code, _, err = brickwork(capsys, "run", SOD, "mesh.nx=4194304", "mesh.block_nx=2", f"output.dir={tmp_path / 'o'}",
                             "--quiet")
    assert code == 2
    line = one_line(err)
    assert line.startswith("brickwork: error: mesh.nx=[4194304] in mesh.block_nx=[2] is too large for this machine: ")
    assert line.endswith("and its 2097152 blocks about 8.0 GiB more on the host, but only 4.0 GiB is available; "
                         "larger blocks (mesh.block_nx) need less")
    assert not (tmp_path / "o").exists()


def test_the_memory_estimate_matches_the_allocated_fields(tmp_path):
    from brickwork.apps.hydro import Hydro, build_config

    for raw, overrides in (({"problem": {"name": "sod"}}, ["mesh.nx=[128]", "mesh.block_nx=[64]"]),
                           ({"problem": {"name": "blast"}}, ["mesh.nx=[16,16,16]", "mesh.block_nx=[8,8,8]",
                                                             "hydro.dtype=float32"])):
        cfg = build_config(raw, overrides + [f"output.dir={tmp_path}"], source="test")
        sim = Hydro(cfg)
        allocated = 0
        for name in sim.mesh.field_specs():  # every array the mesh allocated: values and fluxes
            field = sim.mesh.field(name)
            allocated += field.data.nbytes + (field.flux.nbytes if field.flux is not None else 0)
        assert preflight.field_bytes(cfg) == allocated


# -- a time step that collapses --------------------------------------------------------------------------------------
@pytest.mark.parametrize("overrides, dt, hint", [
    (["problem.rho_r=1e-300"], 1.336e-151, "cells are 0.125 wide and signals travel at up to about 3.74e+149"),
    (["hydro.gamma=1e308"], 5.000e-156, "cells are 0.125 wide and signals travel at up to about 1e+154"),
    (["mesh.xmax=1e-320", "problem.x0=5e-321"], 4.249e-322,      # subnormal cells
     "cells are 1.25e-321 wide and signals travel at up to about 1.17"),
], ids=["tiny-density", "huge-gamma", "tiny-cells"])
def test_a_collapsing_time_step_stops_the_run(capsys, tmp_path, overrides, dt, hint):
    """The message gives the cell width and the signal speed, which tell a huge hydro.gamma (it used to say
    only "look for a tiny density, cell or domain") from tiny cells."""
    code, _, err = brickwork(capsys, "run", SOD, "mesh.nx=[8]", "mesh.block_nx=[8]", *overrides,
                             f"output.dir={tmp_path / 'out'}", "--quiet")
    assert code == 1
    line = one_line(err)
    assert line.startswith(f"brickwork: the run failed: cycle 0 (t=0): the time step collapsed to dt={dt:.3e}, "
                           f"below 1e-12 * time.tlim: reaching time.tlim=0.2 would take ")
    cycles = 0.2 / dt
    assert (f"about {cycles:.2e} cycles" if math.isfinite(cycles) else "more than 1e308 cycles") in line
    assert f"cycles. The {hint}: look for a tiny cell or domain, or for what makes a signal fast (a tiny density, " \
           f"a huge pressure, velocity or hydro.gamma) in the input, or set time.nlim" in line
    assert line.endswith("The run stops; the last good output is kept (none was written).")
    assert not (tmp_path / "out").exists()  # no history file growing without bound


def test_an_initial_state_that_overflows_is_reported_without_a_numpy_warning(capsys, tmp_path):
    """u_l = 1e200 overflows the kinetic energy: the state check names the cell (a RuntimeWarning of numpy
    used to be printed before it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, _, err = brickwork(capsys, "run", SOD, "mesh.nx=[8]", "mesh.block_nx=[8]", "problem.u_l=1e200",
                                 f"output.dir={tmp_path / 'out'}", "--quiet")
    assert code == 2  # the input's fault: named as such (attacker round 19)
    assert one_line(err) == ("brickwork: error: problem 'sod' sets up a state the run cannot start from (cycle 0, "
                             "t=0): non-finite or non-physical state in block 0 cell (k=0, j=0, i=2) at x=0.0625: "
                             "density=1, velocity=(1e+200, 0, 0), pressure=nan; check the [problem] values "
                             "(hydro.dtype='float64' holds normal numbers of magnitude 2.23e-308 to 1.8e+308)")
    assert not (tmp_path / "out").exists()


def test_a_collapse_later_in_the_run_keeps_the_last_output(capsys, tmp_path, monkeypatch):
    from brickwork.apps.hydro.solver import Hydro

    check = Hydro.check
    monkeypatch.setattr(Hydro, "check", lambda self: check(self) if self.cycle < 4 else 1e-20)
    code, _, err = brickwork(capsys, "run", SOD, *SMALL_SOD, f"output.dir={tmp_path}", "output.hdf5_dt=-1",
                             "output.png_dt=-1", "output.restart_dt=0.0001", "--quiet")
    assert code == 1
    line = one_line(err)
    assert "cycle 4 (t=" in line and "the time step collapsed to dt=1.000e-20" in line
    assert line.endswith(f"the last good output is kept ({tmp_path / 'sod.rst.00002.npz'}).")
    _, rows = history_io.read(str(tmp_path / "sod.hst"))
    assert rows.shape[0] == 4  # cycles 0..3


def test_nlim_bounds_a_run_whose_time_step_collapsed(capsys, tmp_path):
    code, _, err = brickwork(capsys, "run", SOD, "mesh.nx=[8]", "mesh.block_nx=[8]", "problem.rho_r=1e-300",
                             "time.nlim=3", f"output.dir={tmp_path}", *NO_FILES, "--quiet")
    assert code == 0, err
    columns, rows = history_io.read(str(tmp_path / "sod.hst"))
    np.testing.assert_array_equal(rows[:, 0], [0, 1, 2, 3])
    assert rows[-1, columns.index("time")] == pytest.approx(3 * rows[0, columns.index("dt")], rel=1e-6)
